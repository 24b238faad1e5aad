"""File > Preferences: where the user's licensed models and extra court specs live. Stored in the
app's settings and exported to the environment variables the hmr adapters and the spec loader
read (an explicitly set environment variable wins)."""

from __future__ import annotations

import os

from PySide6.QtWidgets import (QDialog, QDoubleSpinBox, QFileDialog, QFormLayout, QLineEdit,
                               QVBoxLayout)

from annotation_ui.dialogs import ok_cancel, path_row

PATHS = (("smplx_dir", "COURTSTUDIO_SMPLX_DIR", "SMPL-X model folder (holds smplx/)", True),
         ("sam3_checkpoint", "COURTSTUDIO_SAM3_CHECKPOINT", "SAM3 checkpoint file", False),
         ("prompthmr_dir", "COURTSTUDIO_PROMPTHMR_DIR", "PromptHMR checkout folder", True),
         ("specs_dir", "COURTSTUDIO_SPECS_DIR", "Court specs folder (your sports)", True))
_FROM_ENVIRONMENT = {env for _, env, _, _ in PATHS if os.environ.get(env)}


def calibration_preferences(settings) -> tuple[str, float | None]:
    """(lens model, click noise px or None = estimate per frame) from the settings."""
    model = settings.value("calibration/model", "auto", str) or "auto"
    sigma = float(settings.value("calibration/click_sigma_px", 0.0, float) or 0.0)
    return model, (sigma if sigma > 0 else None)


def apply_preferences(settings) -> None:
    for key, env, _, _ in PATHS:
        if env in _FROM_ENVIRONMENT:
            continue
        value = settings.value(f"paths/{key}", "", str)
        if value:
            os.environ[env] = value
        else:
            os.environ.pop(env, None)


class PreferencesDialog(QDialog):
    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.settings = settings
        self.fields = {}
        form = QFormLayout()
        for key, env, label, is_dir in PATHS:
            edit = QLineEdit(settings.value(f"paths/{key}", "", str))
            if env in _FROM_ENVIRONMENT:
                edit.setText(os.environ[env])
                edit.setEnabled(False)
                edit.setToolTip(f"set by the environment variable {env}")
            form.addRow(label, path_row(edit, lambda e=edit, d=is_dir: self._browse(e, d)))
            self.fields[key] = edit
        self.click_sigma = QDoubleSpinBox()
        self.click_sigma.setRange(0.0, 20.0)
        self.click_sigma.setSingleStep(0.5)
        self.click_sigma.setDecimals(1)
        self.click_sigma.setSuffix(" px")
        self.click_sigma.setSpecialValueText("estimate per frame")
        self.click_sigma.setValue(calibration_preferences(settings)[1] or 0.0)
        self.click_sigma.setToolTip("your click noise (1-sigma): the doctor flags a click only "
                                    "beyond it; 'estimate per frame' reads it from the "
                                    "residuals (1 to 3 px)")
        form.addRow("Click noise", self.click_sigma)
        outer = QVBoxLayout(self)
        outer.addLayout(form)
        outer.addWidget(ok_cancel(self))

    def _browse(self, edit: QLineEdit, is_dir: bool):
        path = (QFileDialog.getExistingDirectory(self, "Folder") if is_dir
                else QFileDialog.getOpenFileName(self, "File")[0])
        if path:
            edit.setText(path)

    def accept(self):
        for key, edit in self.fields.items():
            if edit.isEnabled():
                self.settings.setValue(f"paths/{key}", edit.text().strip())
        self.settings.setValue("calibration/click_sigma_px", float(self.click_sigma.value()))
        apply_preferences(self.settings)
        super().accept()

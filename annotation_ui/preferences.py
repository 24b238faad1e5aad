"""File > Preferences: where the user's licensed models and extra court specs live, and the
calibration's click noise. Stored in the user's settings file; the app reads them back as one
``Settings`` (courtstudio/io/settings.py), in which an environment variable that is set wins
(its field is shown locked here)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
)

from annotation_ui.dialogs import ok_cancel, path_row
from courtstudio.io.settings import MODEL_PATHS, Settings

# (Settings field, label, is a folder); the settings-file key and the environment variable
# are courtstudio.io.settings.MODEL_PATHS
PATHS = (
    ("smplx_dir", "SMPL-X model folder (holds smplx/)", True),
    ("sam3_checkpoint", "SAM3 checkpoint file", False),
    ("prompthmr_dir", "PromptHMR checkout folder", True),
    ("specs_dir", "Court specs folder (your sports)", True),
)


def calibration_preferences(settings) -> tuple[str, float | None]:
    """(lens model, click noise px or None = estimate per frame) from the settings."""
    model = settings.value("calibration/model", "auto", str) or "auto"
    sigma = float(settings.value("calibration/click_sigma_px", 0.0, float) or 0.0)
    return model, (sigma if sigma > 0 else None)


class PreferencesDialog(QDialog):
    def __init__(self, settings, current: Settings, parent=None):
        """settings: the QSettings of the settings file (written on OK); current: the
        settings in force (fields set by the environment are shown locked)."""
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.settings = settings
        self.fields = {}
        form = QFormLayout()
        for key, label, is_dir in PATHS:
            env, file_key = MODEL_PATHS[key]
            edit = QLineEdit(settings.value(file_key, "", str))
            if key in current.from_environment:
                edit.setText(getattr(current, key))
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
        self.click_sigma.setToolTip(
            "your click noise (1-sigma): the doctor flags a click only "
            "beyond it; 'estimate per frame' reads it from the "
            "residuals (1 to 3 px)"
        )
        form.addRow("Click noise", self.click_sigma)
        outer = QVBoxLayout(self)
        outer.addLayout(form)
        outer.addWidget(ok_cancel(self))

    def _browse(self, edit: QLineEdit, is_dir: bool):
        path = (
            QFileDialog.getExistingDirectory(self, "Folder")
            if is_dir
            else QFileDialog.getOpenFileName(self, "File")[0]
        )
        if path:
            edit.setText(path)

    def accept(self):
        for key, edit in self.fields.items():
            if edit.isEnabled():
                self.settings.setValue(MODEL_PATHS[key][1], edit.text().strip())
        self.settings.setValue("calibration/click_sigma_px", float(self.click_sigma.value()))
        super().accept()

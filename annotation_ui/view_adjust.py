"""View > Brightness / contrast / gamma: how the frame is shown on the canvas and in the loupe,
for dark or flat footage. View only: the frame file, the annotations and every export are
unchanged (the adjustment is a 256-entry lookup table applied to a copy for display)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QSlider, QVBoxLayout


@dataclass(frozen=True)
class ViewAdjust:
    """brightness: added, as a fraction of full scale (-0.5..0.5); contrast: gain about
    mid-grey (0.25..4); gamma: > 1 brightens the shadows (0.2..5)."""

    brightness: float = 0.0
    contrast: float = 1.0
    gamma: float = 1.0

    @property
    def is_identity(self) -> bool:
        return (self.brightness, self.contrast, self.gamma) == (0.0, 1.0, 1.0)

    def lut(self) -> np.ndarray:
        """(256,) uint8: displayed value of each 8-bit input value."""
        x = np.arange(256) / 255.0
        y = (x ** (1.0 / self.gamma) - 0.5) * self.contrast + 0.5 + self.brightness
        return np.clip(np.round(y * 255.0), 0, 255).astype(np.uint8)

    def apply(self, image_bgr: np.ndarray) -> np.ndarray:
        """A display copy of image_bgr (H, W, 3) uint8 (the input is never modified)."""
        if self.is_identity:
            return image_bgr
        return cv2.LUT(image_bgr, self.lut())


# slider position -> value (integers for QSlider)
SLIDERS = (
    ("brightness", -50, 50, 0, lambda i: i / 100.0, lambda v: round(v * 100)),
    ("contrast", -20, 20, 0, lambda i: 2.0 ** (i / 10.0), lambda v: round(10 * np.log2(v))),
    ("gamma", -23, 23, 0, lambda i: 2.0 ** (i / 10.0), lambda v: round(10 * np.log2(v))),
)


class ViewAdjustDialog(QDialog):
    """Three live sliders (non-modal); ``changed`` carries the new ViewAdjust."""

    changed = Signal(object)

    def __init__(self, current: ViewAdjust, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Brightness / contrast / gamma (view only)")
        form = QFormLayout()
        self.sliders = {}
        self.labels = {}
        for name, lo, hi, _, _, to_pos in SLIDERS:
            s = QSlider(Qt.Orientation.Horizontal)
            s.setRange(lo, hi)
            s.setValue(to_pos(getattr(current, name)))
            s.valueChanged.connect(self._emit)
            self.sliders[name] = s
            self.labels[name] = QLabel()
            form.addRow(name.capitalize(), s)
            form.addRow("", self.labels[name])
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Reset | QDialogButtonBox.StandardButton.Close
        )
        buttons.button(QDialogButtonBox.StandardButton.Reset).clicked.connect(self.reset)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Changes only how the frame is shown, never the file."))
        lay.addLayout(form)
        lay.addWidget(buttons)
        self._show_values()

    def value(self) -> ViewAdjust:
        return ViewAdjust(
            **{name: f(self.sliders[name].value()) for name, _, _, _, f, _ in SLIDERS}
        )

    def _show_values(self):
        v = self.value()
        for name in self.labels:
            self.labels[name].setText(f"{getattr(v, name):.2f}")

    def _emit(self, *_):
        self._show_values()
        self.changed.emit(self.value())

    def reset(self):
        for name, _, _, default, _, _ in SLIDERS:
            self.sliders[name].setValue(default)

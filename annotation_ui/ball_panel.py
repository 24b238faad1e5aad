"""The Ball panel: what to click next, the lifted 3D position and height with 1-sigma,
"not visible", and the projection plane (table top or floor for table tennis)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class BallPanel(QWidget):
    not_visible_toggled = Signal(bool)
    plane_chosen = Signal(str)
    clear_requested = Signal()
    flight_mark = Signal(str)  # "start" | "middle" | "end"
    flight_remove = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hint = QLabel("")
        self.hint.setWordWrap(True)
        self.position = QLabel("-")
        self.height = QLabel("-")
        self.sigma = QLabel("-")
        self.zone = QLabel("-")
        self.not_visible = QCheckBox("Ball not visible (N)")
        self.not_visible.toggled.connect(self.not_visible_toggled.emit)
        self.plane = QComboBox()
        self.plane.activated.connect(lambda i: self.plane_chosen.emit(self.plane.itemText(i)))
        self.clear = QPushButton("Clear ball")
        self.clear.clicked.connect(self.clear_requested.emit)
        self.flight = QLabel("")
        self.flight.setWordWrap(True)
        row = QHBoxLayout()
        for part in ("start", "middle", "end"):
            b = QPushButton(f"Flight {part}")
            b.setToolTip(f"This frame's lifted ball is the flight's {part}")
            b.clicked.connect(lambda checked=False, x=part: self.flight_mark.emit(x))
            row.addWidget(b)
        self.remove_flight = QPushButton("Remove flight")
        self.remove_flight.clicked.connect(self.flight_remove.emit)
        form = QFormLayout()
        form.addRow("position (m)", self.position)
        form.addRow("height (m)", self.height)
        form.addRow("1-sigma (cm)", self.sigma)
        form.addRow("zone", self.zone)
        form.addRow("projection plane", self.plane)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addLayout(form)
        lay.addWidget(self.not_visible)
        lay.addWidget(self.clear)
        lay.addWidget(
            QLabel(
                "<b>Ball flight</b> (constant acceleration between a hit and the "
                "next bounce): mark three frames with a lifted ball"
            )
        )
        lay.addLayout(row)
        lay.addWidget(self.flight)
        lay.addWidget(self.remove_flight)
        lay.addStretch(1)

    def set_flight_text(self, text: str, removable: bool):
        self.flight.setText(text)
        self.remove_flight.setEnabled(removable)

    def update_state(self, spec, ann, result, message):
        planes = list(spec.planes)
        if [self.plane.itemText(i) for i in range(self.plane.count())] != planes:
            self.plane.clear()
            self.plane.addItems(planes)
        plane = ann.ball.plane if ann.ball and ann.ball.plane else spec.default_plane
        self.plane.setCurrentText(plane)
        self.plane.setEnabled(len(planes) > 1)
        self.not_visible.blockSignals(True)
        self.not_visible.setChecked(ann.ball is not None and not ann.ball.visible)
        self.not_visible.blockSignals(False)
        if result is None:
            self.hint.setText(message[:1].upper() + message[1:] + "." if message else "")
            for w in (self.position, self.height, self.sigma, self.zone):
                w.setText("-")
            return
        x, y, z = result.world
        s = result.sigma_world_m * 100
        self.hint.setText(
            "Drag the ground point along the line to adjust; Shift+click re-places the ball."
        )
        self.position.setText(f"({x:.2f}, {y:.2f}, {z:.2f})")
        self.height.setText(f"{result.height_m:.3f} above {result.plane}")
        self.sigma.setText(
            "(on release)"
            if not np.all(np.isfinite(s))
            else f"{s[0]:.1f} / {s[1]:.1f} / {s[2]:.1f}"
        )
        zone = spec.zone_at(result.world)
        if zone is None:
            self.zone.setText("-")
        else:
            self.zone.setText(zone.label + (f" ({zone.half} half)" if zone.half else ""))

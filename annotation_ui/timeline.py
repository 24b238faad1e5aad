"""The timeline: one column per frame showing what is annotated (court, ball, players), flagged
frames, static-camera ranges and the current frame. Click or drag to go to a frame."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

BANDS = (("court", QColor(250, 210, 60)), ("ball", QColor(240, 80, 240)),
         ("players", QColor(80, 200, 255)))


class Timeline(QWidget):
    frame_requested = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.statuses: list[dict] = []
        self.current = 0
        self.setMinimumHeight(46)
        self.setToolTip("Rows: court, ball, players. Red: flagged for review. Blue bar: "
                        "static camera range.")

    def set_statuses(self, statuses: list[dict], current: int):
        self.statuses, self.current = statuses, current
        self.update()

    def set_status(self, index: int, status: dict):
        if 0 <= index < len(self.statuses):
            self.statuses[index] = status
            self.update()

    def set_current(self, index: int):
        self.current = index
        self.update()

    def _cell(self) -> float:
        return self.width() / max(1, len(self.statuses))

    def paintEvent(self, event):
        qp = QPainter(self)
        qp.fillRect(self.rect(), QColor(35, 35, 38))
        n = len(self.statuses)
        if n == 0:
            qp.end()
            return
        cw = self._cell()
        band_h = (self.height() - 12) / len(BANDS)
        for i, st in enumerate(self.statuses):
            x = i * cw
            for b, (key, color) in enumerate(BANDS):
                if st.get(key):
                    qp.fillRect(QRectF(x, 2 + b * band_h, max(cw - 0.5, 1.0), band_h - 1),
                                color)
            if st.get("static"):
                qp.fillRect(QRectF(x, self.height() - 9, max(cw, 1.0), 4), QColor(60, 120, 255))
            if st.get("flagged"):
                qp.fillRect(QRectF(x, self.height() - 4, max(cw, 1.0), 4), QColor(255, 40, 40))
        qp.setPen(QPen(QColor(255, 255, 255), 2))
        qp.setBrush(Qt.BrushStyle.NoBrush)
        qp.drawRect(QRectF(self.current * cw, 1, max(cw, 2.0), self.height() - 2))
        qp.end()

    def _go(self, x: float):
        if self.statuses:
            self.frame_requested.emit(int(min(len(self.statuses) - 1, max(0, x // self._cell()))))

    def mousePressEvent(self, event):
        self._go(event.position().x())

    def mouseMoveEvent(self, event):
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._go(event.position().x())

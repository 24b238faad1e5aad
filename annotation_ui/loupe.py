"""A magnifier of the frame under the cursor, for sub-pixel clicks."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from annotation_ui.qimage import bgr_to_qimage

ZOOM = 8
SIZE = 168


class Loupe(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFixedSize(SIZE, SIZE)
        self.image: np.ndarray | None = None
        self.uv = None
        self.marks: list = []
        self.hovered = False  # until the cursor first moves, show the next keypoint

    def set_image(self, image: np.ndarray | None):
        self.image = image
        self.update()

    def set_cursor(self, u: float, v: float, marks=()):
        self.uv = (u, v)
        self.marks = list(marks)
        self.update()

    def show_at(self, u: float, v: float):
        """Centre on a pixel without a cursor (e.g. where the next keypoint should be)."""
        self.uv = (u, v)
        self.marks = []
        self.update()

    def paintEvent(self, event):
        qp = QPainter(self)
        qp.fillRect(self.rect(), QColor(30, 30, 30))
        if self.image is None or self.uv is None:
            qp.end()
            return
        half = SIZE // (2 * ZOOM) + 1
        cu, cv = int(round(self.uv[0])), int(round(self.uv[1]))
        h, w = self.image.shape[:2]
        x0, y0 = cu - half, cv - half
        crop = np.zeros((2 * half + 1, 2 * half + 1, 3), np.uint8)
        sx0, sy0 = max(0, x0), max(0, y0)
        sx1, sy1 = min(w, x0 + 2 * half + 1), min(h, y0 + 2 * half + 1)
        if sx1 > sx0 and sy1 > sy0:
            crop[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = self.image[sy0:sy1, sx0:sx1]
        img = bgr_to_qimage(crop)
        # pixel (x0, y0) covers [x0 - 0.5, x0 + 0.5]; the cursor uv maps to the widget centre
        ox = SIZE / 2 - (self.uv[0] - (x0 - 0.5)) * ZOOM
        oy = SIZE / 2 - (self.uv[1] - (y0 - 0.5)) * ZOOM
        qp.drawImage(QRectF(ox, oy, img.width() * ZOOM, img.height() * ZOOM), img)
        qp.setRenderHint(QPainter.RenderHint.Antialiasing)
        for (mu, mv), color in self.marks:
            p = QPointF(SIZE / 2 + (mu - self.uv[0]) * ZOOM, SIZE / 2 + (mv - self.uv[1]) * ZOOM)
            qp.setPen(QPen(color, 1.5))
            qp.drawLine(p + QPointF(-6, 0), p + QPointF(6, 0))
            qp.drawLine(p + QPointF(0, -6), p + QPointF(0, 6))
        qp.setPen(QPen(QColor(255, 255, 255, 200), 1, Qt.PenStyle.DashLine))
        qp.drawLine(QPointF(SIZE / 2, 0), QPointF(SIZE / 2, SIZE))
        qp.drawLine(QPointF(0, SIZE / 2), QPointF(SIZE, SIZE / 2))
        qp.setPen(QColor(255, 255, 255))
        qp.drawText(4, SIZE - 6, f"({self.uv[0]:.1f}, {self.uv[1]:.1f})")
        qp.end()

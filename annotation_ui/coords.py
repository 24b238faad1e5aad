"""The one place where image pixels (OpenCV: (0, 0) is the centre of the top-left pixel) and
Qt scene coordinates (that centre is at (0.5, 0.5)) are converted."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QPolygonF
from shiboken6 import VoidPtr

PIXEL_CENTRE = 0.5


def uv_to_scene(u: float, v: float) -> QPointF:
    return QPointF(float(u) + PIXEL_CENTRE, float(v) + PIXEL_CENTRE)


def scene_to_uv(p: QPointF) -> tuple[float, float]:
    return p.x() - PIXEL_CENTRE, p.y() - PIXEL_CENTRE


def uv_polyline(uv: np.ndarray) -> QPolygonF:
    """(N, 2) pixels -> QPolygonF in scene coordinates. A distorted court is hundreds of
    points, redrawn on every mouse move of a drag: the points are written into the
    polygon's own memory (N QPointF = N x 2 float64) in one numpy copy, not one QPointF at a
    time."""
    xy = np.asarray(uv, float).reshape(-1, 2) + PIXEL_CENTRE
    poly = QPolygonF()
    poly.resize(len(xy))
    if len(xy):
        view = np.frombuffer(VoidPtr(poly.data(), xy.nbytes, True), np.float64)
        view[:] = xy.ravel()
    return poly

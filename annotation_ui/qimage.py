"""numpy BGR images <-> Qt images."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage, QPixmap


def bgr_to_qimage(img: np.ndarray) -> QImage:
    """(h, w, 3) uint8 BGR -> QImage (a copy; the array may be freed)."""
    img = np.ascontiguousarray(img)
    h, w = img.shape[:2]
    return QImage(img.data, w, h, 3 * w, QImage.Format.Format_BGR888).copy()


def bgr_to_pixmap(img: np.ndarray) -> QPixmap:
    return QPixmap.fromImage(bgr_to_qimage(img))

"""Test images with corners at every scale, for registration and tracking tests."""

from __future__ import annotations

import cv2
import numpy as np


def corner_texture(size, seed=0):
    """A BGR (h, w, 3) uint8 image with corners at every scale (blurred noise + blocks);
    size (w, h)."""
    w, h = size
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w), np.float32)
    for cell in (4, 16, 64):
        small = rng.random((h // cell + 1, w // cell + 1)).astype(np.float32)
        img += cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    img = (255 * (img - img.min()) / (np.ptp(img) + 1e-9)).astype(np.uint8)
    return cv2.merge([img, np.roll(img, 3, axis=1), np.roll(img, 5, axis=0)])

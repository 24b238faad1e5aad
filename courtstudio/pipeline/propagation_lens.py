"""Straighten a propagation frame (and its masks) into a reference lens's ideal pixels, so
registration sees the pinhole image the homographies hold for (docs/propagation.md)."""

from __future__ import annotations

import cv2
import numpy as np

from geometry.pixel_lens import PixelLens
from geometry.plane_motion import Prepared, prepare


def straightened(p: Prepared, lens: PixelLens | None, corners: bool = False) -> Prepared:
    """p resampled into the lens's ideal pixels (p itself without a lens); corners are
    detected on the straightened image, away from the black border."""
    if lens is None:
        return prepare(p.gray, corners=True, scale=p.scale, size=p.size) if corners else p
    q = prepare(lens.straighten(p.gray, p.scale), corners=corners, scale=p.scale, size=p.size)
    if corners and q.corners is not None and len(q.corners):
        valid = cv2.erode(lens.valid(q.gray.shape[:2], p.scale), np.ones((9, 9), np.uint8))
        c = np.round(q.corners).astype(int)
        q = Prepared(q.gray, q.scale, q.size, q.corners[valid[c[:, 1], c[:, 0]] > 0])
    return q


def straightened_mask(mask, lens: PixelLens | None, p: Prepared):
    """A reduced mask (0 = ignore) in the lens's ideal pixels, the straightening border
    masked too (None stays None without a lens); read-only."""
    if lens is None:
        return mask
    if mask is None:
        return lens.valid(p.gray.shape[:2], p.scale)
    return lens.straighten_mask(mask, p.scale)

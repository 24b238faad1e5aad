"""Do the court lines a camera projects lie on painted lines in the image?

Painted lines are brighter than the surface either side. Along each projected line, sample
points and compare the brightness at the point with the brightness a few pixels away on both
sides (along the image normal); the support is the fraction of samples where the line is
brighter than both sides. A camera that fits its keypoints but not the image (a wrong
propagation, a moved camera) scores low.
"""

from __future__ import annotations

import cv2
import numpy as np

from geometry.camera import Camera
from geometry.projection import densify_all, project_polylines

MIN_CONTRAST = 12.0


def line_support(image: np.ndarray, camera: Camera, polylines, offset_px: float = 6.0,
                 step_m: float = 0.25) -> float:
    """Fraction in [0, 1] of line samples (inside the image) brighter than both sides;
    NaN when no line sample is in view."""
    g = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    g = cv2.GaussianBlur(g, (3, 3), 0).astype(np.float32)
    h, w = g.shape
    hits = total = 0
    for run in project_polylines(camera, *densify_all(list(polylines), step_m)):
        d = np.gradient(run, axis=0)
        n = np.stack([-d[:, 1], d[:, 0]], axis=1)
        n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-9
        pts = [run, run + offset_px * n, run - offset_px * n]
        ok = np.all([(p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)
                     for p in pts], axis=0)
        if not ok.any():
            continue
        vals = [cv2.remap(g, p[ok, 0].astype(np.float32)[:, None],
                          p[ok, 1].astype(np.float32)[:, None], cv2.INTER_LINEAR).ravel()
                for p in pts]
        hits += int(np.sum((vals[0] - np.maximum(vals[1], vals[2])) > MIN_CONTRAST))
        total += int(ok.sum())
    return hits / total if total else float("nan")

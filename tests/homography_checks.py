"""Test helper: how far an estimated homography is from the true one over the image."""

import numpy as np

from geometry.plane_motion import transfer_points


def homography_error_px(H_est, H_true, size) -> float:
    """The largest distance (px) between where H_est and H_true (3, 3) put a 33 x 19 grid of
    reference pixels of an image of size (w, h) that H_true maps into the frame (the part of
    the reference the frame shows)."""
    w, h = size
    g = np.stack(np.meshgrid(np.linspace(0, w - 1, 33), np.linspace(0, h - 1, 19)), -1)
    uv = g.reshape(-1, 2)
    true = transfer_points(H_true, uv)
    seen = (true[:, 0] >= 0) & (true[:, 0] <= w - 1) & (true[:, 1] >= 0) & (true[:, 1] <= h - 1)
    return float(np.max(np.linalg.norm(transfer_points(H_est, uv[seen]) - true[seen], axis=1)))

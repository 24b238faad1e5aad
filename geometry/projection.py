"""Projecting world polylines into the image for overlays, clipped at the camera plane."""

from __future__ import annotations

import numpy as np

from geometry.arrays import as_array
from geometry.camera import Camera

NEAR_M = 0.05


def densify(points_world, max_step_m: float) -> np.ndarray:
    """Insert points so no segment of the (N, 3) polyline is longer than max_step_m."""
    P = as_array("points_world", points_world, (None, 3))
    out = [P[:1]]
    for a, b in zip(P[:-1], P[1:]):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / max_step_m)))
        t = np.linspace(0, 1, n + 1)[1:, None]
        out.append(a + t * (b - a))
    return np.concatenate(out)


def project_polyline(camera: Camera, points_world, max_step_m: float = 0.25) -> list[np.ndarray]:
    """Image of a world polyline: a list of (M, 2) pixel runs (split where it passes behind the
    camera). Densified so lens distortion bends long lines correctly."""
    P = densify(points_world, max_step_m)
    depth = camera.world_to_cam(P)[:, 2]
    ok = depth > NEAR_M
    uv = np.full((len(P), 2), np.nan)
    if np.any(ok):
        uv[ok] = camera.project(P[ok])
    runs, cur = [], []
    for i in range(len(P)):
        if ok[i] and np.all(np.isfinite(uv[i])):
            cur.append(uv[i])
        elif cur:
            runs.append(np.array(cur))
            cur = []
    if cur:
        runs.append(np.array(cur))
    return [r for r in runs if len(r) >= 2]

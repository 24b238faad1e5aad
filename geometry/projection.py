"""Projecting world polylines into the image for overlays, clipped at the camera plane."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array
from geometry.camera import Camera

NEAR_M = 0.05


def densify(points_world: ArrayLike, max_step_m: float) -> np.ndarray:
    """Insert points so no segment of the (N, 3) polyline is longer than max_step_m."""
    P = as_array("points_world", points_world, (None, 3))
    out = [P[:1]]
    for a, b in zip(P[:-1], P[1:]):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / max_step_m)))
        t = np.linspace(0, 1, n + 1)[1:, None]
        out.append(a + t * (b - a))
    return np.concatenate(out)


def project_polyline(
    camera: Camera, points_world: ArrayLike, max_step_m: float = 0.25
) -> list[np.ndarray]:
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


def clip_polygon_to_front(points_cam: np.ndarray, near_m: float = NEAR_M) -> np.ndarray:
    """Sutherland-Hodgman clip of a (N, 3) camera-frame polygon to z >= near_m: (M, 3)."""
    P = as_array("points_cam", points_cam, (None, 3))
    out = []
    n = len(P)
    for i in range(n):
        a, b = P[i], P[(i + 1) % n]
        a_in, b_in = a[2] >= near_m, b[2] >= near_m
        if a_in:
            out.append(a)
        if a_in != b_in:
            t = (near_m - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    return np.array(out) if out else np.zeros((0, 3))


def project_polygon(
    camera: Camera, polygon_world: ArrayLike, max_step_m: float = 0.5
) -> np.ndarray:
    """Image of a planar world polygon (N, 3), clipped at the camera plane: (M, 2) pixels,
    empty when it is wholly behind the camera. Edges densified for lens distortion."""
    P = as_array("polygon_world", polygon_world, (None, 3))
    closed = np.vstack([P, P[:1]])
    dense = densify(closed, max_step_m)[:-1]
    clipped = clip_polygon_to_front(camera.world_to_cam(dense))
    if len(clipped) < 3:
        return np.zeros((0, 2))
    return camera.project(camera.cam_to_world(clipped))


def densify_all(
    polylines: Iterable[ArrayLike], max_step_m: float = 0.25
) -> tuple[np.ndarray, np.ndarray]:
    """Densify many (M_i, 3) polylines at once: points (P, 3) and the start index of each
    polyline (K + 1,), for project_polylines. Compute once per court and reuse."""
    dense = [densify(pl, max_step_m) for pl in polylines]
    starts = np.cumsum([0] + [len(d) for d in dense])
    return (np.concatenate(dense) if dense else np.zeros((0, 3))), starts


def project_polylines(
    camera: Camera, dense_points: np.ndarray, starts: np.ndarray
) -> list[np.ndarray]:
    """Image runs of many densified polylines (from densify_all) with one projection call;
    the same result as project_polyline on each, split where a line passes behind."""
    uv, run_starts = projected_runs(camera, dense_points, starts)
    return np.split(uv, run_starts) if len(uv) else []


def projected_runs(
    camera: Camera, dense_points: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """project_polylines' runs end to end: (uv (M, 2) pixels, run_starts (R - 1,) int, the
    indices in uv where runs 2..R begin); uv is empty when no run is in front of the camera.
    The common case, every point of every polyline in front, costs one projection and no
    splitting (a propagation run calls this on every frame)."""
    if len(dense_points) == 0:
        return np.zeros((0, 2)), np.zeros(0, int)
    depth = dense_points @ camera.R[2] + camera.t[2]
    uv = camera.project(dense_points)
    ok = (depth > NEAR_M) & np.all(np.isfinite(uv), axis=1)
    lengths = np.diff(starts)
    if ok.all() and np.all(lengths >= 2):
        return uv, np.asarray(starts[1:-1])
    pieces = []
    for a, b in zip(starts[:-1], starts[1:]):
        seg_ok = ok[a:b]
        if seg_ok.all():
            if b - a >= 2:
                pieces.append(np.arange(a, b))
            continue
        idx = np.flatnonzero(seg_ok)
        if idx.size < 2:
            continue
        breaks = np.flatnonzero(np.diff(idx) > 1)
        pieces += [a + piece for piece in np.split(idx, breaks + 1) if piece.size >= 2]
    if not pieces:
        return np.zeros((0, 2)), np.zeros(0, int)
    return uv[np.concatenate(pieces)], np.cumsum([len(q) for q in pieces])[:-1]

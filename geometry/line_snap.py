"""Snap keypoints onto the painted line intersections they stand for (optional refinement).

For a keypoint where two court lines cross: take the two lines' image directions from the
camera, find each painted line's brightness ridge across it at several places on both sides of
the crossing (sub-pixel peak of a parabola), fit a line through the ridge points, and intersect
the two fitted lines. The snap is kept only when both lines are found clearly and the point
moves by less than the search radius.
"""

from __future__ import annotations

import cv2
import numpy as np

from geometry.camera import Camera

MIN_CONTRAST = 12.0
ALONG_PX = (7.0, 10.0, 14.0, 18.0, 23.0)


def _lines_through(point_world: np.ndarray, polylines, tol_m: float = 0.01, reach_m=0.3):
    """[(unit direction (3,), sides)] of the lines through point_world, where sides lists the
    signs (+1, -1) along which the painted line continues for at least reach_m (a corner has
    one side, a crossing two)."""
    found: list[tuple[np.ndarray, set]] = []
    for pl in polylines:
        for a, b in zip(pl[:-1], pl[1:]):
            ab = b - a
            n = np.linalg.norm(ab)
            if n < 1e-9:
                continue
            s = (point_world - a) @ ab / n**2
            if not -1e-6 <= s <= 1 + 1e-6 or np.linalg.norm(a + s * ab - point_world) > tol_m:
                continue
            d = ab / n
            sides = {sign for sign, room in ((1, (1 - s) * n), (-1, s * n)) if room >= reach_m}
            for e, es in found:
                if abs(d @ e) > 0.95:  # the same line met again (another segment)
                    es |= sides if d @ e > 0 else {-x for x in sides}
                    break
            else:
                found.append((d, sides))
    return [(d, sorted(sides)) for d, sides in found if sides]


def _ridge(g: np.ndarray, centre, normal, radius: float):
    """Sub-pixel offset along normal of the brightest point within +-radius, or None."""
    offs = np.arange(-radius, radius + 0.5, 0.5)
    pts = centre + offs[:, None] * normal
    map_x = pts[:, 0].astype(np.float32)[:, None]
    map_y = pts[:, 1].astype(np.float32)[:, None]
    vals = cv2.remap(g, map_x, map_y, cv2.INTER_LINEAR).ravel()
    k = int(np.argmax(vals))
    if k == 0 or k == len(vals) - 1 or vals[k] - np.min(vals) < MIN_CONTRAST:
        return None
    a, b, c = vals[k - 1], vals[k], vals[k + 1]
    den = a - 2 * b + c
    frac = 0.5 * (a - c) / den if abs(den) > 1e-9 else 0.0
    return offs[k] + frac * 0.5


def snap_keypoint(
    image: np.ndarray, camera: Camera, point_world, uv, polylines, radius_px: float = 5.0
):
    """Refined (2,) pixel of the crossing near uv, or None when it cannot be found."""
    g = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    g = cv2.GaussianBlur(g, (3, 3), 0).astype(np.float32)
    P = np.asarray(point_world, float)
    uv = np.asarray(uv, float)
    fitted = []
    lines = _lines_through(P, polylines)
    if len(lines) < 2:
        return None
    for d, sides in lines[:2]:
        ends = camera.project(np.array([P - 0.5 * d, P + 0.5 * d]))
        if not np.all(np.isfinite(ends)):
            return None
        t = ends[1] - ends[0]
        t /= np.linalg.norm(t)
        n = np.array([-t[1], t[0]])
        pts = []
        for s in ALONG_PX:
            for sign in sides:
                c = uv + sign * s * t
                off = _ridge(g, c, n, radius_px)
                if off is not None:
                    pts.append(c + off * n)
        if len(pts) < 4:
            return None
        pts = np.array(pts)
        m = pts.mean(axis=0)
        _, _, vt = np.linalg.svd(pts - m)
        fitted.append((m, vt[0]))
    if len(fitted) < 2:
        return None
    (m1, d1), (m2, d2) = fitted
    A = np.column_stack([d1, -d2])
    if abs(np.linalg.det(A)) < 1e-3:
        return None
    s = np.linalg.solve(A, m2 - m1)
    out = m1 + s[0] * d1
    return out if np.linalg.norm(out - uv) < radius_px else None


def snap_keypoints(
    image: np.ndarray,
    camera: Camera,
    points: dict,
    keypoints_world: dict,
    polylines,
    radius_px: float = 5.0,
) -> tuple[dict, int]:
    """points {name: uv}: those on line crossings snapped; returns (points, how many)."""
    out, n = dict(points), 0
    for name, uv in points.items():
        P = np.asarray(keypoints_world[name], float)
        ref = snap_keypoint(image, camera, P, uv, polylines, radius_px)
        if ref is not None:
            out[name] = (float(ref[0]), float(ref[1]))
            n += 1
    return out, n

"""Radial lens distortion (OpenCV's k1, k2, k3) and where it stops being a lens.

OpenCV maps a normalised image point (x, y) = (X/Z, Y/Z) at radius r to r (1 + k1 r^2 + k2 r^4
+ k3 r^6). With barrel distortion (k1 < 0) that polynomial rises, peaks and folds back: points
beyond the peak land *inside* the image again, so a court line running out of view would be
drawn back across it, and a ray search would find two pre-images. Every consumer therefore
treats radii beyond the first turning point as having no image (``max_radius``).
"""

from __future__ import annotations

import numpy as np

from geometry.arrays import as_array


def max_radius(dist) -> float:
    """Largest normalised radius up to which the radial map is increasing (inf if always).

    dist: (>= 2,) OpenCV coefficients (k1, k2, p1, p2[, k3]); tangential terms are ignored.
    The map's derivative is 1 + 3 k1 r^2 + 5 k2 r^4 + 7 k3 r^6, a cubic in s = r^2; its
    smallest positive root is the fold.
    """
    d = as_array("dist", dist, (None,))
    key = d.tobytes()
    hit = _MAX_RADIUS.get(key)
    if hit is None:
        if len(_MAX_RADIUS) > 256:
            _MAX_RADIUS.clear()
        hit = _MAX_RADIUS[key] = _max_radius(d)
    return hit


_MAX_RADIUS: dict[bytes, float] = {}  # every projection asks; a drag asks with few lenses


def _max_radius(d: np.ndarray) -> float:
    k1 = float(d[0]) if d.size > 0 else 0.0
    k2 = float(d[1]) if d.size > 1 else 0.0
    k3 = float(d[4]) if d.size > 4 else 0.0
    if not (k1 or k2 or k3):
        return float("inf")
    if not (k2 or k3):  # k1 alone (the one-focal k1 models, refitted every frame): the one
        # root of 3 k1 s + 1, as np.roots gives it (its 1x1 companion matrix is -1 / (3 k1))
        s1 = -1.0 / (3 * k1)
        return float(np.sqrt(s1)) if s1 > 0 else float("inf")
    roots = np.roots([7 * k3, 5 * k2, 3 * k1, 1.0])
    s = [r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0]
    return float(np.sqrt(min(s))) if s else float("inf")


def distort_normalised(xy, dist) -> np.ndarray:
    """xy: (N, 2) ideal normalised coordinates -> (N, 2) distorted (radial terms only)."""
    p = as_array("xy", xy, (None, 2))
    d = np.zeros(5)
    d[: len(dist)] = dist
    r2 = np.sum(p**2, axis=1, keepdims=True)
    return p * (1 + d[0] * r2 + d[1] * r2**2 + d[4] * r2**3)


def image_corner_radius(K, image_size) -> float:
    """Normalised radius of the farthest image corner, as pixels (distorted) divided by the
    focal length, for intrinsics K (3, 3)."""
    w, h = image_size
    corners = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [-0.5, h - 0.5], [w - 0.5, h - 0.5]])
    xy = (corners - [K[0, 2], K[1, 2]]) / [K[0, 0], K[1, 1]]
    return float(np.max(np.linalg.norm(xy, axis=1)))


def corner_displacement_px(K, dist, image_size) -> float:
    """Signed radial displacement (px) the lens dist (OpenCV order k1, k2, p1, p2[, k3]) gives
    the farthest image corner, f r (k1 r^2 + k2 r^4 + k3 r^6) with r its normalised radius
    (image_corner_radius) and f = K[0, 0]; tangential terms are left out."""
    d = np.zeros(5)
    flat = np.asarray(dist, float).ravel()[:5]
    d[: len(flat)] = flat
    r2 = image_corner_radius(K, image_size) ** 2
    return float(K[0, 0] * np.sqrt(r2) * (d[0] * r2 + d[1] * r2**2 + d[4] * r2**3))


def monotonic_over_image(K, dist, image_size, margin: float = 1.02) -> bool:
    """True when every pixel of the image (out to ``margin`` times the corner radius) lies
    inside the image of the lens's increasing range, so it has exactly one viewing ray: the
    distorted radius reached at the fold must exceed the image corner's."""
    return fold_radius_distorted(dist) > margin * image_corner_radius(K, image_size)


def fold_radius_distorted(dist) -> float:
    """The largest distorted normalised radius the lens reaches (at its fold); inf if none."""
    r = max_radius(dist)
    if not np.isfinite(r):
        return float("inf")
    return float(distort_normalised(np.array([[r, 0.0]]), np.asarray(dist, float)[:5])[0, 0])


def monotonic_over_pixels(K, dist, uv, margin: float = 1.1) -> bool:
    """True when the pixels uv (N, 2) lie (with ``margin``) inside the lens's increasing
    range: each has one viewing ray. A k1-only fit of a wide lens may fold near the image
    corners yet be right wherever the court is; this judges it where it is used."""
    xy = (np.asarray(uv, float) - [K[0, 2], K[1, 2]]) / [K[0, 0], K[1, 1]]
    return fold_radius_distorted(dist) > margin * float(np.max(np.linalg.norm(xy, axis=1)))

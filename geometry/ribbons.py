"""Painted court lines as thin planar quads (for rendering and 3D export)."""

from __future__ import annotations

from typing import Iterator

import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array


def ribbon_quads(
    polyline_world: ArrayLike, width_m: float, extend_ends: bool = False
) -> Iterator[np.ndarray]:
    """Yield one (4, 3) quad per segment of a (M, 3) polyline, width_m wide in the x-y plane,
    at the segment's own heights. extend_ends lengthens each quad by half a width at both ends
    so painted corners are filled. Zero-length segments are skipped."""
    P = as_array("polyline_world", polyline_world, (None, 3))
    for a, b in zip(P[:-1], P[1:]):
        d = b[:2] - a[:2]
        n = np.linalg.norm(d)
        if n < 1e-9:
            continue
        along = d / n * width_m / 2 if extend_ends else np.zeros(2)
        off = np.array([-d[1], d[0]]) / n * width_m / 2
        a2, b2 = a[:2] - along, b[:2] + along
        yield np.array(
            [[*(a2 + off), a[2]], [*(b2 + off), b[2]], [*(b2 - off), b[2]], [*(a2 - off), a[2]]]
        )

"""Point-in-polygon for court zones (planar, world x-y, metres)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array


def points_in_polygon(points_xy: ArrayLike, polygon_xy: ArrayLike) -> np.ndarray:
    """(N,) bool: which of points_xy (N, 2) lie inside polygon_xy (M, 2) (even-odd rule).

    Points on an edge count as inside, so adjacent zones have no gaps.
    """
    P = as_array("points_xy", points_xy, (None, 2))
    poly = as_array("polygon_xy", polygon_xy, (None, 2))
    a = poly
    b = np.roll(poly, -1, axis=0)
    x, y = P[:, 0:1], P[:, 1:2]
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
    on_edge = (
        (np.abs(cross) < 1e-9)
        & (x >= np.minimum(ax, bx) - 1e-9)
        & (x <= np.maximum(ax, bx) + 1e-9)
        & (y >= np.minimum(ay, by) - 1e-9)
        & (y <= np.maximum(ay, by) + 1e-9)
    )
    straddle = (ay > y) != (by > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = ax + (y - ay) * (bx - ax) / (by - ay)
    crossings = straddle & (x < x_cross)
    inside: np.ndarray = (np.sum(crossings, axis=1) % 2 == 1) | np.any(on_edge, axis=1)
    return inside

"""Court measurements for questions: distances to lines, zone membership and its margin.

Points are (n, 3) metres, world frame; all distances to court lines and zone boundaries are
horizontal (on the court plane), because lines and zones are drawn on the surface.
"""

from __future__ import annotations

import numpy as np

from court_specs import CourtSpec
from geometry.polygons import points_in_polygon


def distance_to_polyline_xy(points: np.ndarray, polyline: np.ndarray) -> np.ndarray:
    """(n,) horizontal distance (m) of points (n, 3|2) to a polyline (M, 3|2); M >= 1."""
    P = np.asarray(points, float)[:, :2]
    L = np.asarray(polyline, float)[:, :2]
    if len(L) == 1:
        return np.linalg.norm(P - L[0], axis=1)
    A, B = L[:-1], L[1:]
    AB = B - A
    denom = np.maximum((AB**2).sum(1), 1e-18)
    t = np.clip(((P[:, None, :] - A[None]) * AB[None]).sum(2) / denom[None], 0.0, 1.0)
    closest = A[None] + t[..., None] * AB[None]
    return np.linalg.norm(P[:, None, :] - closest, axis=2).min(axis=1)


def polygon_boundary_distance(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(n,) horizontal distance (m) of points to a closed polygon's boundary (M, 2)."""
    poly = np.asarray(polygon, float)[:, :2]
    return distance_to_polyline_xy(points, np.vstack([poly, poly[:1]]))


def zone_index(spec: CourtSpec, points: np.ndarray) -> np.ndarray:
    """(n,) index into spec.zones of the first zone holding each point, -1 for none."""
    P = np.asarray(points, float)[:, :2]
    out = np.full(len(P), -1)
    for i, z in enumerate(spec.zones):
        hit = (out < 0) & points_in_polygon(P, z.polygon)
        out[hit] = i
    return out


def zone_margin(spec: CourtSpec, point: np.ndarray) -> float:
    """Horizontal distance (m) of one point (3,) to the nearest zone boundary."""
    if not spec.zones:
        return float("inf")
    return float(min(polygon_boundary_distance(point[None], z.polygon)[0] for z in spec.zones))


def court_rectangle(spec: CourtSpec) -> np.ndarray:
    """(4, 2) the outer boundary of the court, metres: the rule dimensions (length_m x width_m),
    the in/out boundary, not the corner keypoints (those sit at the boundary lines' centres)."""
    L, W = spec.length_m, spec.width_m
    return np.array([[0, 0], [0, W], [L, W], [L, 0]], float)


def inside_court(spec: CourtSpec, points: np.ndarray) -> np.ndarray:
    """(n,) bool: the point's ground projection is inside the outer boundary."""
    P = np.asarray(points, float)
    return (P[:, 0] >= 0) & (P[:, 0] <= spec.length_m) & (P[:, 1] >= 0) & (P[:, 1] <= spec.width_m)


def net_x(spec: CourtSpec) -> float:
    """x (m) of the net line, or the centre line where the court has no net."""
    return float(spec.net["x_m"]) if spec.net is not None else spec.length_m / 2

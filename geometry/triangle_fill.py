"""The union of many triangles as a pixel mask (a mesh's silhouette), in one vectorised pass.

OpenCV's ``fillPoly`` given many triangles fills by parity: where an even number of triangles
overlap (a closed mesh seen from outside: a front face over every back face) the pixels are
left empty. This rasteriser counts coverage instead (the non-zero winding rule on triangles
turned to one orientation), so every pixel centre inside any triangle is set. The cost is one
entry per triangle edge and scanline crossed, then one cumulative sum over the mask.
"""

from __future__ import annotations

import numpy as np


def triangles_union_mask(triangles_px: np.ndarray, shape_hw: tuple[int, int]) -> np.ndarray:
    """Pixels whose centre lies inside at least one triangle.

    triangles_px: (T, 3, 2) float, pixel coordinates (x right, y down) of the mask, pixel
        (col, row) covering [col, col + 1) x [row, row + 1), its centre at (col + 0.5, row + 0.5).
    shape_hw: (rows, cols) of the mask.
    Returns (rows, cols) bool. Degenerate (zero-area) and non-finite triangles cover nothing;
    a centre exactly on an edge shared by two triangles is covered once (half-open rule).
    """
    rows, cols = int(shape_hw[0]), int(shape_hw[1])
    if rows <= 0 or cols <= 0:
        raise ValueError(f"mask shape must be positive, got {shape_hw}")
    tri = np.asarray(triangles_px, dtype=np.float64)
    if tri.ndim != 3 or tri.shape[1:] != (3, 2):
        raise ValueError(f"triangles must be (T, 3, 2), got {tri.shape}")
    tri = tri[np.isfinite(tri).all(axis=(1, 2))]
    if len(tri) == 0:
        return np.zeros((rows, cols), bool)
    # one orientation for all: a clockwise triangle (in y-down pixels) gets two vertices swapped
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    cross = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    tri = tri[cross != 0]
    flip = cross[cross != 0] < 0
    tri[flip] = tri[flip][:, [0, 2, 1]]
    # the three directed edges of every triangle
    p0 = tri.reshape(-1, 2)
    p1 = tri[:, [1, 2, 0]].reshape(-1, 2)
    going_down = p1[:, 1] > p0[:, 1]
    lo = np.where(going_down[:, None], p0, p1)  # the end with the smaller y
    hi = np.where(going_down[:, None], p1, p0)
    sign = np.where(going_down, 1, -1).astype(np.int32)
    # scanline centres y = r + 0.5 with lo.y <= y < hi.y, clipped to the mask's rows
    r_first = np.clip(np.ceil(lo[:, 1] - 0.5), 0, rows).astype(np.int64)
    r_end = np.clip(np.ceil(hi[:, 1] - 0.5), 0, rows).astype(np.int64)
    n_rows = np.maximum(r_end - r_first, 0)
    keep = n_rows > 0
    if not keep.any():
        return np.zeros((rows, cols), bool)
    lo, hi, sign, r_first, n_rows = lo[keep], hi[keep], sign[keep], r_first[keep], n_rows[keep]
    slope = (hi[:, 0] - lo[:, 0]) / (hi[:, 1] - lo[:, 1])  # dx / dy along each edge
    x_first = lo[:, 0] + (r_first + 0.5 - lo[:, 1]) * slope  # x at the first scanline
    starts = np.cumsum(n_rows) - n_rows
    edge = np.repeat(np.arange(len(lo)), n_rows)
    offset = np.arange(len(edge)) - starts[edge]
    r = r_first[edge] + offset
    x = x_first[edge] + offset * slope[edge]
    # the first pixel centre at or right of the crossing: c + 0.5 >= x
    c = np.clip(np.ceil(x - 0.5), 0, cols).astype(np.int64)
    flat = np.bincount(r * (cols + 1) + c, weights=sign[edge], minlength=rows * (cols + 1))
    winding = np.rint(flat).astype(np.int64).reshape(rows, cols + 1)
    covered: np.ndarray = np.cumsum(winding, axis=1)[:, :cols] != 0
    return covered

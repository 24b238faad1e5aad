"""The court plan shared by the Court panel's diagram and the top-down view: world (x, y) ->
widget pixels, oriented as the broadcast camera sees the court (docs/frames.md).

End view: far baseline at the top, the spec's left sideline on the left (right = y, down = x).
Side view: the near sideline (y = 0) at the bottom and the far end (x = 0) on the left
(right = x, down = W - y), i.e. the end-view plan turned a quarter turn counter-clockwise.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF

from geometry.labelling import WorldConvention


def plan_view(spec, camera_centre_world=None) -> str:
    """'end' or 'side': the frame's convention when its camera is known, else the spec's
    (a spec filmed both ways, 'auto', is drawn side-on until a camera says otherwise)."""
    if camera_centre_world is not None:
        conv = WorldConvention(spec.broadcast_view, spec.length_m, spec.width_m)
        return conv.view_for(camera_centre_world)
    return "end" if spec.broadcast_view == "end" else "side"


def plan_xy(spec, points_world, view: str | None = None) -> np.ndarray:
    """(N, 2) plan coordinates (right, down), metres, of world points (N, >=2) metres.
    view: 'end' | 'side', None for plan_view(spec)."""
    p = np.asarray(points_world, float).reshape(-1, np.shape(points_world)[-1])
    if (view or plan_view(spec)) == "side":
        return np.stack([p[:, 0], spec.width_m - p[:, 1]], axis=1)
    return np.stack([p[:, 1], p[:, 0]], axis=1)


def plan_transform(
    spec, extent_world, width_px: float, height_px: float, margin_px: float, view: str | None = None
):
    """A function world point (x, y[, z]) metres -> QPointF widget pixels that fits
    extent_world ((M, >=2) metres, e.g. the court corners and keypoints) into the widget with
    margin_px on each side, keeping metres square. view as for plan_xy."""
    view = view or plan_view(spec)
    q = plan_xy(spec, extent_world, view)
    lo, hi = q.min(axis=0), q.max(axis=0)
    span = np.maximum(hi - lo, 1e-6)
    scale = min((width_px - 2 * margin_px) / span[0], (height_px - 2 * margin_px) / span[1])
    off = (np.array([width_px, height_px]) - scale * span) / 2 - scale * lo

    def t(p):
        r, d = plan_xy(spec, np.asarray(p, float)[None], view)[0]
        return QPointF(off[0] + scale * r, off[1] + scale * d)

    return t

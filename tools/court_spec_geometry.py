"""Shared geometry helpers of tools/make_court_specs.py: points, arcs, rectangles, mirrored halves,
corner/outer-line/net blocks and the net tape height, all in the court world frame (x along the
sidelines, y along the baselines, z up, metres; conventions.md, docs/frames.md). Coordinates are
rounded to 0.1 mm (``r``) so the generated JSON stays readable.
"""

from __future__ import annotations

import math

ARC_STEP_DEG = 3.0
TAPE_MODELS = ("strap", "parabola", "level")


def tape_height(y, W, anchor_offset_m, h_anchor, h_centre, model):
    """Height (m) of the net tape above the surface at court y (m).

    The net spans y in [-anchor_offset_m, W + anchor_offset_m] between its supports (posts, or
    for pickleball the sidelines where the rules fix the height), where the tape is at
    h_anchor; at the centre y = W/2 it is at h_centre. model: 'strap' (a centre strap pulls
    the tensioned cable down: two straight segments), 'parabola' (a free cable: the small-sag
    catenary), 'level' (h_anchor == h_centre)."""
    if model not in TAPE_MODELS:
        raise ValueError(f"tape model {model!r}")
    u = abs(y - W / 2) / (W / 2 + anchor_offset_m)  # 0 at the centre, 1 at the supports
    if model == "strap":
        return h_centre + (h_anchor - h_centre) * u
    if model == "parabola":
        return h_centre + (h_anchor - h_centre) * u * u
    return h_anchor


def add_net_top_points(kp, L, W, names_y, anchor_offset_m, h_anchor, h_centre, model):
    """net_top_<name> at (L/2, y, tape height) for each (name, y), and the ground point under
    the net centre (net_line_centre) if the spec lacks it."""
    for name, y in names_y:
        kp[f"net_top_{name}"] = p3(
            L / 2, y, tape_height(y, W, anchor_offset_m, h_anchor, h_centre, model)
        )
    kp.setdefault("net_line_centre", p3(L / 2, W / 2))


def r(v: float) -> float:
    """Round to 0.1 mm so the files stay readable; all inputs are given to 1 mm or better."""
    return round(v + 0.0, 4)


def p3(x, y, z=0.0):
    return [r(x), r(y), r(z)]


def arc(cx, cy, radius, start_deg, end_deg, z=0.0, closed_end=True):
    """Points of a circular arc in the court plane, angles measured from +x toward +y."""
    n = max(2, int(math.ceil(abs(end_deg - start_deg) / ARC_STEP_DEG)) + 1)
    pts = []
    for i in range(n):
        a = math.radians(start_deg + (end_deg - start_deg) * i / (n - 1))
        pts.append(p3(cx + radius * math.cos(a), cy + radius * math.sin(a), z))
    return pts


def rect_xy(x0, x1, y0, y1):
    return [[r(x0), r(y0)], [r(x0), r(y1)], [r(x1), r(y1)], [r(x1), r(y0)]]


def mirror_x(L, pts):
    """Reflect (x, y[, z]) points through the net plane x = L/2 (far half -> near half)."""
    return [[r(L - p[0])] + list(p[1:]) for p in pts]


def corners(L, W):
    return {
        "far_left_corner": p3(0, 0),
        "far_right_corner": p3(0, W),
        "near_left_corner": p3(L, 0),
        "near_right_corner": p3(L, W),
    }


def net_block(L, W, post_offset_m, h_posts, h_centre, keypoints):
    xn = L / 2
    left = p3(xn, -post_offset_m, h_posts)
    right = p3(xn, W + post_offset_m, h_posts)
    keypoints["net_post_left_top"] = left
    keypoints["net_post_right_top"] = right
    keypoints["net_centre_top"] = p3(xn, W / 2, h_centre)
    return {
        "x_m": r(xn),
        "post_left_top": left,
        "post_right_top": right,
        "height_at_posts_m": r(h_posts),
        "height_at_centre_m": r(h_centre),
        "post_offset_outside_sideline_m": r(post_offset_m),
    }


def outer_lines(L, W):
    return {
        "far_baseline": [p3(0, 0), p3(0, W)],
        "near_baseline": [p3(L, 0), p3(L, W)],
        "left_sideline": [p3(0, 0), p3(L, 0)],
        "right_sideline": [p3(0, W), p3(L, W)],
    }


def out_of_bounds_zone(L, W, margin):
    return {
        "name": "out_of_bounds",
        "label": "out of bounds",
        "polygon": rect_xy(-margin, L + margin, -margin, W + margin),
    }

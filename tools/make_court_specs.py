"""Write the court spec data files in ``court_specs/`` from official dimensions.

The JSON files are the runtime source of truth (adding a sport is adding one file, which may be
written by hand). This script exists so the bundled specs are *computed* from the handful of
official dimensions in ``shared/reference/conventions.md``: every line intersection, arc
tessellation and zone polygon follows from them, so no coordinate is typed twice.

World frame (conventions.md, docs/frames.md): x along the sidelines, y along the baselines (end
lines), z up, metres, origin at the corner the spec calls far-left. End-on sports: x toward the
camera, y to the right in the image. Side-on sports (``broadcast_view: "side"``: basketball,
volleyball): the same coordinates and names, the camera beyond the y = 0 ('left') sideline, so
x runs to the right in the image and y away from the camera.

Net tape (issue 10 section 5): the tape's height along the net follows ``tape_height``: with a
centre strap (tennis, pickleball) two straight segments from the supports to the strap; a
free net (badminton) a parabola through the supports and the centre height (the catenary of a
cable sagging 2.6 cm over 6.1 m differs from it by well under 0.1 mm); volleyball and table
tennis nets are level.

Run: ``python tools/make_court_specs.py`` (rewrites court_specs/*.json).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parents[1] / "court_specs"
FORMAT_VERSION = 1
ARC_STEP_DEG = 3.0
FRAME_PHRASE = (
    "the origin (0,0,0) is the intersection of the far baseline and the left doubles sideline. "
    "The X-axis extends along the sideline towards the camera, the Y-axis extends along the far "
    "baseline to the right, and the Z-axis is vertical."
)
SIDE_FRAME_PHRASE = (
    "the origin (0,0,0) is the intersection of the near sideline and the end line on the left, "
    "as seen from the camera. The X-axis extends along the near sideline to the right, the "
    "Y-axis extends along the left end line away from the camera, and the Z-axis is vertical."
)
TABLE_SIDE_FRAME_PHRASE = (
    "the origin (0,0,0) is the corner of the table surface on the near side line and the end "
    "line on the left, as seen from the camera. The X-axis extends along the near side line to "
    "the right, the Y-axis extends along the left end line away from the camera, and the Z-axis "
    "is vertical (0 is table surface)."
)
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


# ----------------------------------------------------------------------------------------------
def tennis():
    L, W, Ws = 23.77, 10.97, 8.23
    s0, s1 = (W - Ws) / 2, (W + Ws) / 2
    xn, ds = L / 2, 6.40
    xs_far, xs_near = xn - ds, xn + ds
    kp = corners(L, W)
    for half, xb, xs in (("far", 0.0, xs_far), ("near", L, xs_near)):
        kp[f"{half}_baseline_left_singles"] = p3(xb, s0)
        kp[f"{half}_baseline_centre"] = p3(xb, W / 2)
        kp[f"{half}_baseline_right_singles"] = p3(xb, s1)
        kp[f"{half}_service_left"] = p3(xs, s0)
        kp[f"{half}_service_centre"] = p3(xs, W / 2)
        kp[f"{half}_service_right"] = p3(xs, s1)
    for name, y in (
        ("left_doubles", 0),
        ("left_singles", s0),
        ("centre", W / 2),
        ("right_singles", s1),
        ("right_doubles", W),
    ):
        kp[f"net_line_{name}"] = p3(xn, y)
    net = net_block(L, W, 0.914, 1.07, 0.914, kp)
    net["tape_model"] = "strap"
    add_net_top_points(
        kp,
        L,
        W,
        (("left_doubles", 0), ("left_singles", s0), ("right_singles", s1), ("right_doubles", W)),
        0.914,
        1.07,
        0.914,
        "strap",
    )
    lines = outer_lines(L, W)
    lines.update(
        {
            "left_singles_sideline": [p3(0, s0), p3(L, s0)],
            "right_singles_sideline": [p3(0, s1), p3(L, s1)],
            "far_service_line": [p3(xs_far, s0), p3(xs_far, s1)],
            "near_service_line": [p3(xs_near, s0), p3(xs_near, s1)],
            "centre_service_line": [p3(xs_far, W / 2), p3(xs_near, W / 2)],
            "far_centre_mark": [p3(0, W / 2), p3(0.10, W / 2)],
            "near_centre_mark": [p3(L, W / 2), p3(L - 0.10, W / 2)],
            "net_line": [p3(xn, -0.914), p3(xn, W + 0.914)],
        }
    )
    m = 8.0
    zones = []
    for half, sign in (("far", 1), ("near", -1)):

        def xx(v, sign=sign):
            return v if sign == 1 else L - v

        zones += [
            {
                "name": f"{half}_forecourt",
                "label": "forecourt",
                "half": half,
                "polygon": rect_xy(*sorted((xx(xs_far), xx(xn))), -m, W + m),
            },
            {
                "name": f"{half}_midcourt",
                "label": "midcourt",
                "half": half,
                "polygon": rect_xy(*sorted((xx(0), xx(xs_far))), -m, W + m),
            },
            {
                "name": f"{half}_backcourt",
                "label": "backcourt",
                "half": half,
                "polygon": rect_xy(*sorted((xx(-12.0), xx(0))), -m, W + m),
            },
        ]
    return dict(
        id="tennis",
        name="Tennis",
        length_m=L,
        width_m=W,
        singles_width_m=Ws,
        planes={"court": 0.0},
        default_plane="court",
        keypoints=kp,
        lines=lines,
        zones=zones,
        net=net,
        notes="ITF court. Posts 0.914 m outside the doubles sidelines. Zones are x-bands "
        "per half: forecourt net..service line, midcourt service line..baseline, "
        "backcourt behind the baseline. net_top_*: the tape over the doubles and "
        "singles sidelines, on straight segments from the posts (1.07 m) to the "
        "centre strap (net_centre_top, 0.914 m); net_line_centre: the ground under "
        "the strap. A singles match played with singles sticks raises the net to "
        "1.07 m at the sticks (0.914 m outside the singles sidelines): the tape "
        "points then differ by up to 3 cm.",
    )


def badminton():
    L, W, Ws = 13.40, 6.10, 5.18
    s0, s1 = (W - Ws) / 2, (W + Ws) / 2
    xn = L / 2
    x_short, x_long = xn - 1.98, 0.76
    kp = corners(L, W)
    for half in ("far", "near"):

        def xx(v, half=half):
            return v if half == "far" else L - v

        kp[f"{half}_baseline_left_singles"] = p3(xx(0), s0)
        kp[f"{half}_baseline_centre"] = p3(xx(0), W / 2)
        kp[f"{half}_baseline_right_singles"] = p3(xx(0), s1)
        for line, xv in (("long_service", x_long), ("short_service", x_short)):
            kp[f"{half}_{line}_left_doubles"] = p3(xx(xv), 0)
            kp[f"{half}_{line}_left_singles"] = p3(xx(xv), s0)
            kp[f"{half}_{line}_centre"] = p3(xx(xv), W / 2)
            kp[f"{half}_{line}_right_singles"] = p3(xx(xv), s1)
            kp[f"{half}_{line}_right_doubles"] = p3(xx(xv), W)
    for name, y in (
        ("left_doubles", 0),
        ("left_singles", s0),
        ("right_singles", s1),
        ("right_doubles", W),
    ):
        kp[f"net_line_{name}"] = p3(xn, y)
    net = net_block(L, W, 0.0, 1.55, 1.524, kp)
    net["tape_model"] = "parabola"
    # over the doubles sidelines the tape is at the post tops (net_post_*_top)
    add_net_top_points(
        kp, L, W, (("left_singles", s0), ("right_singles", s1)), 0.0, 1.55, 1.524, "parabola"
    )
    lines = outer_lines(L, W)
    lines.update(
        {
            "left_singles_sideline": [p3(0, s0), p3(L, s0)],
            "right_singles_sideline": [p3(0, s1), p3(L, s1)],
            "far_long_service_line": [p3(x_long, 0), p3(x_long, W)],
            "near_long_service_line": [p3(L - x_long, 0), p3(L - x_long, W)],
            "far_short_service_line": [p3(x_short, 0), p3(x_short, W)],
            "near_short_service_line": [p3(L - x_short, 0), p3(L - x_short, W)],
            "far_centre_line": [p3(0, W / 2), p3(x_short, W / 2)],
            "near_centre_line": [p3(L - x_short, W / 2), p3(L, W / 2)],
            "net_line": [p3(xn, 0), p3(xn, W)],
        }
    )
    zones = []
    for half in ("far", "near"):

        def band(a, b, half=half):
            lo, hi = (a, b) if half == "far" else (L - b, L - a)
            return rect_xy(lo, hi, 0, W)

        zones += [
            {
                "name": f"{half}_front_court",
                "label": "front court",
                "half": half,
                "polygon": band(x_short, xn),
            },
            {
                "name": f"{half}_mid_court",
                "label": "mid court",
                "half": half,
                "polygon": band(x_long, x_short),
            },
            {
                "name": f"{half}_rear_court",
                "label": "rear court",
                "half": half,
                "polygon": band(0, x_long),
            },
        ]
    zones.append(out_of_bounds_zone(L, W, 20.0))
    return dict(
        id="badminton",
        name="Badminton",
        length_m=L,
        width_m=W,
        singles_width_m=Ws,
        planes={"court": 0.0},
        default_plane="court",
        keypoints=kp,
        lines=lines,
        zones=zones,
        net=net,
        notes="BWF court. Posts stand on the doubles sidelines. Front court: net..short "
        "service line; mid court: short service line..doubles long service line; "
        "rear court: doubles long service line..back boundary; doubles width. "
        "The tape over the doubles sidelines is the post top (net_post_*_top, "
        "1.55 m); net_top_*_singles lie on the parabola through the posts and the "
        "centre (1.524 m); net_line_centre: the floor under the net centre.",
    )


def table_tennis():
    L, W = 2.74, 1.525
    xn, hn, ext = L / 2, 0.1525, 0.1525
    kp = corners(L, W)
    kp["far_end_centre"] = p3(0, W / 2)
    kp["near_end_centre"] = p3(L, W / 2)
    kp["net_line_left"] = p3(xn, 0)
    kp["net_line_centre"] = p3(xn, W / 2)
    kp["net_line_right"] = p3(xn, W)
    kp["floor_below_far_left_corner"] = p3(0, 0, -0.76)
    kp["floor_below_far_right_corner"] = p3(0, W, -0.76)
    kp["floor_below_near_left_corner"] = p3(L, 0, -0.76)
    kp["floor_below_near_right_corner"] = p3(L, W, -0.76)
    net = net_block(L, W, ext, hn, hn, kp)
    net["tape_model"] = "level"
    add_net_top_points(
        kp, L, W, (("left_sideline", 0), ("right_sideline", W)), ext, hn, hn, "level"
    )
    lines = {
        "far_end_line": [p3(0, 0), p3(0, W)],
        "near_end_line": [p3(L, 0), p3(L, W)],
        "left_side_line": [p3(0, 0), p3(L, 0)],
        "right_side_line": [p3(0, W), p3(L, W)],
        "centre_line": [p3(0, W / 2), p3(L, W / 2)],
        "net_line": [p3(xn, -ext), p3(xn, W + ext)],
    }
    zones = []
    for half in ("far", "near"):
        x0, x1 = (0, xn) if half == "far" else (xn, L)
        zones += [
            {
                "name": f"{half}_left_half",
                "label": "left half court",
                "half": half,
                "polygon": rect_xy(x0, x1, 0, W / 2),
            },
            {
                "name": f"{half}_right_half",
                "label": "right half court",
                "half": half,
                "polygon": rect_xy(x0, x1, W / 2, W),
            },
        ]
    zones.append(out_of_bounds_zone(L, W, 6.0))
    return dict(
        id="table_tennis",
        name="Table tennis",
        length_m=L,
        width_m=W,
        planes={"table": 0.0, "floor": -0.76},
        default_plane="table",
        keypoints=kp,
        lines=lines,
        zones=zones,
        net=net,
        frame_phrase="the origin (0,0,0) is the top-left corner of the table surface "
        "(intersection of far endline and left sideline). The X-axis extends "
        "along the sideline towards the camera, the Y-axis extends along the "
        "far endline to the right, and the Z-axis is vertical (0 is table "
        "surface).",
        notes="ITTF table. z = 0 is the table top; the floor is z = -0.76. The net "
        "extends 0.1525 m beyond each side line; its top is 0.1525 m above the "
        "table along its whole length. Floor keypoints are below the table "
        "corners (legs are inset, so they are rarely visible; use with care). "
        "net_top_*_sideline: the net top above the side lines.",
    )


def pickleball():
    L, W = 13.41, 6.10
    xn, dk = L / 2, 2.13
    xk = xn - dk
    kp = corners(L, W)
    for half in ("far", "near"):

        def xx(v, half=half):
            return v if half == "far" else L - v

        kp[f"{half}_baseline_centre"] = p3(xx(0), W / 2)
        kp[f"{half}_kitchen_left"] = p3(xx(xk), 0)
        kp[f"{half}_kitchen_centre"] = p3(xx(xk), W / 2)
        kp[f"{half}_kitchen_right"] = p3(xx(xk), W)
    kp["net_line_left"] = p3(xn, 0)
    kp["net_line_right"] = p3(xn, W)
    net = net_block(L, W, 0.30, 0.914, 0.864, kp)
    net["tape_model"] = "strap"
    # the rules fix the tape over the sidelines (0.914) and at the centre strap (0.864)
    add_net_top_points(
        kp, L, W, (("left_sideline", 0), ("right_sideline", W)), 0.0, 0.914, 0.864, "strap"
    )
    lines = outer_lines(L, W)
    lines.update(
        {
            "far_kitchen_line": [p3(xk, 0), p3(xk, W)],
            "near_kitchen_line": [p3(L - xk, 0), p3(L - xk, W)],
            "far_centre_line": [p3(0, W / 2), p3(xk, W / 2)],
            "near_centre_line": [p3(L - xk, W / 2), p3(L, W / 2)],
            "net_line": [p3(xn, -0.30), p3(xn, W + 0.30)],
        }
    )
    zones = []
    for half in ("far", "near"):

        def band(a, b, y0, y1, half=half):
            lo, hi = (a, b) if half == "far" else (L - b, L - a)
            return rect_xy(lo, hi, y0, y1)

        zones += [
            {
                "name": f"{half}_kitchen",
                "label": "non-volley zone",
                "half": half,
                "polygon": band(xk, xn, 0, W),
            },
            {
                "name": f"{half}_left_service_court",
                "label": "left service court",
                "half": half,
                "polygon": band(0, xk, 0, W / 2),
            },
            {
                "name": f"{half}_right_service_court",
                "label": "right service court",
                "half": half,
                "polygon": band(0, xk, W / 2, W),
            },
        ]
    zones.append(out_of_bounds_zone(L, W, 15.0))
    return dict(
        id="pickleball",
        name="Pickleball",
        length_m=L,
        width_m=W,
        planes={"court": 0.0},
        default_plane="court",
        keypoints=kp,
        lines=lines,
        zones=zones,
        net=net,
        notes="USA Pickleball court (20 x 44 ft). Net 0.914 m at the sidelines (taken "
        "as the post-top height; posts stand 0.30 m outside the sidelines) and "
        "0.864 m at the centre. 'left'/'right' service courts are image left/right. "
        "net_top_*_sideline: the tape over the sidelines (0.914 m); "
        "net_centre_top: at the centre strap (0.864 m); net_line_centre: the "
        "ground under it.",
    )


def volleyball():
    L, W = 18.0, 9.0
    xn = L / 2
    kp = corners(L, W)
    for half in ("far", "near"):
        xa = 6.0 if half == "far" else 12.0
        kp[f"{half}_attack_left"] = p3(xa, 0)
        kp[f"{half}_attack_right"] = p3(xa, W)
    kp["centre_line_left"] = p3(xn, 0)
    kp["centre_line_right"] = p3(xn, W)
    net = net_block(L, W, 1.0, 2.43, 2.43, kp)
    kp["net_top_left_sideline"] = p3(xn, 0, 2.43)
    kp["net_top_right_sideline"] = p3(xn, W, 2.43)
    net["tape_model"] = "level"
    kp["net_line_centre"] = p3(xn, W / 2)
    lines = outer_lines(L, W)
    lines.update(
        {
            "far_attack_line": [p3(6, 0), p3(6, W)],
            "near_attack_line": [p3(12, 0), p3(12, W)],
            "centre_line": [p3(xn, 0), p3(xn, W)],
        }
    )
    zones = []
    for half in ("far", "near"):
        front = (6.0, 9.0) if half == "far" else (9.0, 12.0)
        back = (0.0, 6.0) if half == "far" else (12.0, 18.0)
        zones += [
            {
                "name": f"{half}_front_zone",
                "label": "front zone",
                "half": half,
                "polygon": rect_xy(*front, 0, W),
            },
            {
                "name": f"{half}_back_zone",
                "label": "back zone",
                "half": half,
                "polygon": rect_xy(*back, 0, W),
            },
        ]
    zones.append(out_of_bounds_zone(L, W, 15.0))
    return dict(
        id="volleyball",
        name="Volleyball",
        length_m=L,
        width_m=W,
        planes={"court": 0.0},
        default_plane="court",
        keypoints=kp,
        lines=lines,
        zones=zones,
        net=net,
        notes="FIVB court. Net top 2.43 m (men); women's matches use 2.24 m: copy this "
        "file with net heights changed. Posts taken 1.0 m outside the sidelines "
        "(the rules allow 0.5-1.0 m). Filmed from the side (camera beyond the 'left' "
        "sideline y = 0, x to the right in the image) and from behind an end "
        "line: broadcast_view auto takes the convention from the camera "
        "(docs/frames.md); frame_phrase is the side-on one, scene files carry "
        "the one used.",
        broadcast_view="auto",
        frame_phrase=SIDE_FRAME_PHRASE,
    )


def basketball(variant):
    if variant == "fiba":
        L, W, ring_x, r3, corner_y, ra_r, key_w, key_l, cc_r = (
            28.0,
            15.0,
            1.575,
            6.75,
            0.90,
            1.25,
            4.9,
            5.8,
            1.80,
        )
        name, sid = "Basketball (FIBA)", "basketball_fiba"
    else:
        L, W, ring_x, r3, corner_y, ra_r, key_w, key_l, cc_r = (
            28.65,
            15.24,
            1.60,
            7.24,
            0.91,
            1.22,
            4.88,
            5.79,
            1.83,
        )
        name, sid = "Basketball (NBA)", "basketball_nba"
    yc = W / 2
    yl, yr = yc - key_w / 2, yc + key_w / 2
    dy3 = yc - corner_y
    dx3 = math.sqrt(r3**2 - dy3**2)  # where the straight corner line meets the arc
    x_join = ring_x + dx3
    a_join = math.degrees(math.atan2(dy3, dx3))  # arc half-angle from +x
    kp = corners(L, W)
    kp["centre_line_left"] = p3(L / 2, 0)
    kp["centre_line_right"] = p3(L / 2, W)
    kp["centre_circle_left"] = p3(L / 2, yc - cc_r)
    kp["centre_circle_right"] = p3(L / 2, yc + cc_r)
    lines = outer_lines(L, W)
    lines["centre_line"] = [p3(L / 2, 0), p3(L / 2, W)]
    lines["centre_circle"] = arc(L / 2, yc, cc_r, 0, 360)
    zones = []
    for half in ("far", "near"):
        far = half == "far"

        def X(v, far=far):
            return v if far else L - v

        def pts(seq, far=far):
            return seq if far else mirror_x(L, seq)

        kp[f"{half}_key_left_end"] = p3(X(0), yl)
        kp[f"{half}_key_right_end"] = p3(X(0), yr)
        kp[f"{half}_free_throw_left"] = p3(X(key_l), yl)
        kp[f"{half}_free_throw_right"] = p3(X(key_l), yr)
        # the free-throw circle (radius 1.80) crosses the free-throw line inside the key
        kp[f"{half}_free_throw_circle_left"] = p3(X(key_l), yc - 1.80)
        kp[f"{half}_free_throw_circle_right"] = p3(X(key_l), yc + 1.80)
        kp[f"{half}_three_left_end"] = p3(X(0), corner_y)
        kp[f"{half}_three_right_end"] = p3(X(0), W - corner_y)
        kp[f"{half}_three_left_join"] = p3(X(x_join), corner_y)
        kp[f"{half}_three_right_join"] = p3(X(x_join), W - corner_y)
        kp[f"{half}_ring_centre"] = p3(X(ring_x), yc, 3.05)
        arc3 = arc(ring_x, yc, r3, -a_join, a_join)
        three = [p3(0, corner_y)] + arc3 + [p3(0, W - corner_y)]
        lines[f"{half}_three_point_line"] = pts(three)
        lines[f"{half}_key"] = pts([p3(0, yl), p3(key_l, yl), p3(key_l, yr), p3(0, yr)])
        lines[f"{half}_free_throw_circle"] = pts(arc(key_l, yc, 1.80, 0, 360))
        lines[f"{half}_restricted_area_arc"] = pts(arc(ring_x, yc, ra_r, -90, 90))
        # Zones, most specific first (zone_at returns the first match).
        # Enclosed by the end line and the restricted-area arc (as shot charts draw it).
        ra_poly = (
            [[0.0, r(yc - ra_r)]]
            + [[pp[0], pp[1]] for pp in arc(ring_x, yc, ra_r, -90, 90)]
            + [[0.0, r(yc + ra_r)]]
        )
        inside3 = [[0.0, r(corner_y)]] + [[pp[0], pp[1]] for pp in arc3] + [[0.0, r(W - corner_y)]]
        half_rect = rect_xy(-2.0, L / 2, -2.0, W + 2.0)
        zdefs = [
            ("restricted_area", "Restricted Area", ra_poly),
            ("in_the_paint_non_ra", "In The Paint (Non-RA)", rect_xy(0, key_l, yl, yr)),
            ("mid_range", "Mid-Range", inside3),
            ("left_corner_3", "Left Corner 3", rect_xy(-2.0, x_join, -2.0, corner_y)),
            ("right_corner_3", "Right Corner 3", rect_xy(-2.0, x_join, W - corner_y, W + 2.0)),
            ("above_the_break_3", "Above the Break 3", half_rect),
        ]
        for zname, label, poly in zdefs:
            zones.append(
                {
                    "name": f"{half}_{zname}",
                    "label": label,
                    "half": half,
                    "polygon": pts([list(pp) for pp in poly]),
                }
            )
    return dict(
        id=sid,
        name=name,
        length_m=L,
        width_m=W,
        planes={"court": 0.0},
        default_plane="court",
        keypoints=kp,
        lines=lines,
        zones=zones,
        net=None,
        notes="Shot regions per half, relative to that half's basket; left/right in "
        "keypoint and zone names mean small/large y (side-on: 'left' is the near "
        "sideline; end-on: image left). Restricted Area is enclosed by the end "
        "line and the restricted-area arc; Mid-Range "
        "is inside the 3-point line outside the paint. Zones further than 2 m "
        "outside the court lines are not covered. Broadcast from the side: the "
        "camera is beyond the 'left' sideline (y = 0), the 'far' end is on the "
        "image's left (docs/frames.md).",
        broadcast_view="side",
        frame_phrase=SIDE_FRAME_PHRASE,
    )


BALL_RADIUS_M = {
    "tennis": 0.0335,
    "badminton": 0.03,
    "table_tennis": 0.02,
    "pickleball": 0.037,
    "volleyball": 0.105,
    "basketball_fiba": 0.12,
    "basketball_nba": 0.12,
}


# Synthetic broadcast cameras (courtstudio/synth/synthetic.py): distance beyond the near baseline
# (side view: the sideline), height above the playing surface, largest lateral offset from the
# centre line, and the ball's height range; metres.
SYNTHESIS = {
    "tennis": dict(
        camera_distance_m=[12.0, 28.0],
        camera_height_m=[7.0, 16.0],
        camera_lateral_m=2.5,
        ball_height_m=[0.1, 3.0],
    ),
    "badminton": dict(
        camera_distance_m=[5.0, 12.0],
        camera_height_m=[4.0, 9.0],
        camera_lateral_m=1.5,
        ball_height_m=[0.1, 4.0],
    ),
    "table_tennis": dict(
        camera_distance_m=[2.5, 6.0],
        camera_height_m=[1.2, 3.0],
        camera_lateral_m=0.5,
        ball_height_m=[0.02, 0.6],
        colours_bgr={
            "background": [45, 45, 55],
            "surround": [40, 60, 140],
            "surface": [110, 60, 20],
        },
    ),
    "pickleball": dict(
        camera_distance_m=[6.0, 14.0],
        camera_height_m=[4.0, 9.0],
        camera_lateral_m=1.5,
        ball_height_m=[0.1, 2.5],
    ),
    "volleyball": dict(
        camera_distance_m=[8.0, 18.0],
        camera_height_m=[5.0, 12.0],
        camera_lateral_m=2.0,
        ball_height_m=[0.2, 5.0],
    ),
    "basketball_fiba": dict(
        camera_distance_m=[6.0, 15.0],
        camera_height_m=[5.0, 10.0],
        camera_lateral_m=2.0,
        ball_height_m=[0.2, 4.0],
    ),
    "basketball_nba": dict(
        camera_distance_m=[6.0, 15.0],
        camera_height_m=[5.0, 10.0],
        camera_lateral_m=2.0,
        ball_height_m=[0.2, 4.0],
    ),
}
# Painted lines: 5 cm on courts; the table's edge lines 2 cm, its centre line 3 mm (ITTF).
LINE_WIDTH_M = {"table_tennis": 0.02}
LINE_WIDTHS_M = {"table_tennis": {"centre_line": 0.003}}
NET_POST_RADIUS_M = {"table_tennis": 0.01}  # drawing only; courts: the default 0.04
RAISED_SURFACE = {"table_tennis": {"floor_plane": "floor", "thickness_m": 0.025}}


def build_specs() -> list[dict]:
    """Every bundled spec as the dict its JSON file holds."""
    out = []
    for s in [
        tennis(),
        badminton(),
        table_tennis(),
        pickleball(),
        volleyball(),
        basketball("fiba"),
        basketball("nba"),
    ]:
        s["ball_radius_m"] = BALL_RADIUS_M[s["id"]]
        s["line_width_m"] = LINE_WIDTH_M.get(s["id"], 0.05)
        if s["id"] in LINE_WIDTHS_M:
            s["line_widths_m"] = LINE_WIDTHS_M[s["id"]]
        if s["id"] in RAISED_SURFACE:
            s["raised_surface"] = RAISED_SURFACE[s["id"]]
        if s["id"] in NET_POST_RADIUS_M:
            s["net"]["post_radius_m"] = NET_POST_RADIUS_M[s["id"]]
        s["synthesis"] = SYNTHESIS[s["id"]]
        s = {"format_version": FORMAT_VERSION, **s}
        s.setdefault("frame_phrase", FRAME_PHRASE)
        s["frame_phrases"] = (
            {"end_on": s["frame_phrase"], "side_on": TABLE_SIDE_FRAME_PHRASE}
            if s["id"] == "table_tennis"
            else {"end_on": FRAME_PHRASE, "side_on": SIDE_FRAME_PHRASE}
        )
        for k in ("length_m", "width_m", "singles_width_m"):
            if k in s:
                s[k] = r(s[k])
        out.append(s)
    return out


def main():
    for s in build_specs():
        path = OUT_DIR / f"{s['id']}.json"
        path.write_text(json.dumps(s, indent=1) + "\n")
        print(
            f"wrote {path} ({len(s['keypoints'])} keypoints, {len(s['lines'])} lines, "
            f"{len(s['zones'])} zones)"
        )


if __name__ == "__main__":
    # no options: --help prints what the script writes, instead of writing it
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()

"""The racket-sport court specs of tools/make_court_specs.py (tennis, badminton, table tennis,
pickleball), each built as the dict its court_specs/<id>.json holds (before the shared fields that
``build_specs`` adds) from the official dimensions; world frame and units as in
court_spec_geometry (metres, x along the sidelines, y along the baselines, z up).
"""

from __future__ import annotations

from court_spec_geometry import (
    add_net_top_points,
    corners,
    net_block,
    out_of_bounds_zone,
    outer_lines,
    p3,
    rect_xy,
)

# ITF Rules of Tennis 1: measurements to the outside of the lines; the centre service line and
# centre marks 5 cm wide, the other lines 2.5-5 cm, the baselines up to 10 cm (taken: 5 cm and
# TENNIS_BASELINE_M; BENCHMARKS.md, "Keypoints at line centres").
TENNIS_LINE_M = 0.05
TENNIS_BASELINE_M = 0.10


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
            # 10 cm long, drawn inside the court (from the baseline's inner edge)
            "far_centre_mark": [p3(0, W / 2), p3(TENNIS_BASELINE_M + 0.10, W / 2)],
            "near_centre_mark": [p3(L, W / 2), p3(L - TENNIS_BASELINE_M - 0.10, W / 2)],
            "net_line": [p3(xn, -0.914), p3(xn, W + 0.914)],
        }
    )
    w, wb = TENNIS_LINE_M, TENNIS_BASELINE_M
    paint = {k: (w, "in") for k in lines}  # every line inside the court's measurements
    paint.update(
        far_baseline=(wb, "in"),
        near_baseline=(wb, "in"),
        # the service lines' outer edges are 6.40 m from the net: "in" puts them net-side
        centre_service_line=(0.05, "centred"),
        far_centre_mark=(0.05, "centred"),
        near_centre_mark=(0.05, "centred"),
        net_line=(0.0, "none"),
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
        _paint=paint,
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
    # BWF Law 1: lines 40 mm wide, part of the area they define: the boundary, singles and
    # long service lines inside, the short service lines 1.98 m from the net to their net-side
    # edge (paint away from the net), the centre lines shared equally (centred)
    paint = {k: (0.04, "in") for k in lines}
    paint.update(
        far_short_service_line=(0.04, "out"),
        near_short_service_line=(0.04, "out"),
        far_centre_line=(0.04, "centred"),
        near_centre_line=(0.04, "centred"),
        net_line=(0.0, "none"),
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
        _paint=paint,
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
    # ITTF 2.1.4, 2.1.6: 2 cm side and end lines along the edges, a 3 mm centre line halving
    # the width
    paint = {k: (0.02, "in") for k in lines}
    paint.update(centre_line=(0.003, "centred"), net_line=(0.0, "none"))
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
        _paint=paint,
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
    # USA Pickleball 2.A.3, 2.B: 2-inch lines, measurements to the outside of the lines; the
    # non-volley line belongs to the NVZ (paint net-side of its 7 ft edge); the centre lines
    # halve the service area (centred)
    w = 0.0508
    paint = {k: (w, "in") for k in lines}
    paint.update(
        far_centre_line=(w, "centred"), near_centre_line=(w, "centred"), net_line=(0.0, "none")
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
        _paint=paint,
        notes="USA Pickleball court (20 x 44 ft). Net 0.914 m at the sidelines (taken "
        "as the post-top height; posts stand 0.30 m outside the sidelines) and "
        "0.864 m at the centre. 'left'/'right' service courts are image left/right. "
        "net_top_*_sideline: the tape over the sidelines (0.914 m); "
        "net_centre_top: at the centre strap (0.864 m); net_line_centre: the "
        "ground under it.",
    )

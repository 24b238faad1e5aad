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
import sys
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parents[1] / "court_specs"
FORMAT_VERSION = 1
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from court_spec_geometry import (  # noqa: E402
    arc,
    corners,
    mirror_x,
    net_block,
    out_of_bounds_zone,
    outer_lines,
    p3,
    r,
    rect_xy,
)
from court_spec_racket_sports import badminton, pickleball, table_tennis, tennis  # noqa: E402


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


def beach_volleyball():
    """FIVB beach volleyball (Official Beach Volleyball Rules 1.1, 1.3, 2.2, 2.3): 16 x 8 m to
    the outer edges of the 5-8 cm boundary tapes (the lines lie inside the court's
    dimensions), no centre line and no attack line; the net is level, 2.43 m for men (the
    bundled height: the London 2012 men's clip of bench/devset_clips), 2.24 m for women."""
    L, W, h = 16.0, 8.0, 2.43
    xn = L / 2
    kp = corners(L, W)
    # No painted line under the net: these are where the net's plane meets the sidelines.
    kp["net_line_left"] = p3(xn, 0)
    kp["net_line_right"] = p3(xn, W)
    kp["net_line_centre"] = p3(xn, W / 2)
    net = net_block(L, W, 1.0, h, h, kp)
    # The side bands and antennas stand over the sidelines: the net top is visible there,
    # unlike the padded post tops.
    kp["net_top_left_sideline"] = p3(xn, 0, h)
    kp["net_top_right_sideline"] = p3(xn, W, h)
    net["tape_model"] = "level"
    zones = [
        {"name": "far_court", "label": "court", "half": "far", "polygon": rect_xy(0, xn, 0, W)},
        {"name": "near_court", "label": "court", "half": "near", "polygon": rect_xy(xn, L, 0, W)},
        out_of_bounds_zone(L, W, 15.0),
    ]
    return dict(
        id="beach_volleyball",
        name="Beach volleyball",
        length_m=L,
        width_m=W,
        planes={"court": 0.0},
        default_plane="court",
        keypoints=kp,
        lines=outer_lines(L, W),
        zones=zones,
        net=net,
        notes="FIVB beach court, 16 x 8 m measured to the outer edges of the boundary tapes "
        "(rule 1.3.1: the lines are inside the court's dimensions): click the outer tape "
        "edges. No centre line (net_line_* are unpainted) and no attack line. Net top 2.43 m "
        "(men); women's matches use 2.24 m: copy this file with net heights changed. Posts "
        "0.7-1.0 m outside the sidelines (taken 1.0 m; their padded tops are not sharp "
        "points: prefer net_top_*_sideline, the net top above each sideline, where the side "
        "bands and antennas stand). Filmed from the side or from behind an end line: "
        "broadcast_view auto takes the convention from the camera (docs/frames.md).",
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
    "beach_volleyball": 0.106,
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
    "beach_volleyball": dict(
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
        beach_volleyball(),
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
    import update_spec_digests  # beside this script: the digests of the files just written

    update_spec_digests.main()


if __name__ == "__main__":
    # no options: --help prints what the script writes, instead of writing it
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()

"""Net keypoints annotators can see (issue 10 section 5): the tape over the sidelines, at the
centre strap, and the floor under the net centre, at official heights with the net's sag."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from court_specs import load_spec

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-4
# sport -> {keypoint: (y, z)}: official heights (conventions.md), tape over the sidelines
EXPECTED = {
    "tennis": {
        "net_top_left_doubles": (0.0, None),
        "net_top_left_singles": (1.37, None),
        "net_top_right_singles": (9.60, None),
        "net_top_right_doubles": (10.97, None),
        "net_centre_top": (5.485, 0.914),
        "net_line_centre": (5.485, 0.0),
    },
    "badminton": {
        "net_post_left_top": (0.0, 1.55),
        "net_post_right_top": (6.10, 1.55),
        "net_top_left_singles": (0.46, None),
        "net_top_right_singles": (5.64, None),
        "net_centre_top": (3.05, 1.524),
        "net_line_centre": (3.05, 0.0),
    },
    "pickleball": {
        "net_top_left_sideline": (0.0, 0.914),
        "net_top_right_sideline": (6.10, 0.914),
        "net_centre_top": (3.05, 0.864),
        "net_line_centre": (3.05, 0.0),
    },
    "volleyball": {
        "net_top_left_sideline": (0.0, 2.43),
        "net_top_right_sideline": (9.0, 2.43),
        "net_centre_top": (4.5, 2.43),
        "net_line_centre": (4.5, 0.0),
    },
    "table_tennis": {
        "net_top_left_sideline": (0.0, 0.1525),
        "net_top_right_sideline": (1.525, 0.1525),
        "net_centre_top": (0.7625, 0.1525),
        "net_line_centre": (0.7625, 0.0),
    },
}


@pytest.mark.parametrize("sport", sorted(EXPECTED))
def test_net_points_exist_on_the_net_line_at_official_heights(sport):
    s = load_spec(sport)
    for name, (y, z) in EXPECTED[sport].items():
        p = s.keypoints[name]
        assert abs(p[0] - s.net["x_m"]) < TOL and abs(p[1] - y) < TOL, name
        if z is not None:
            assert abs(p[2] - z) < TOL, name
    # every tape point lies between the centre height and the support height, sagging inward
    tops = {n: p for n, p in s.keypoints.items() if n.startswith("net_top_")}
    assert tops
    lo, hi = s.net["height_at_centre_m"], s.net["height_at_posts_m"]
    for n, p in tops.items():
        assert lo - TOL <= p[2] <= hi + TOL, n
    lr = s.symmetry_maps()["left_right"]
    assert all(n in lr and lr[n].startswith("net_top_") for n in tops)


def test_tennis_tape_is_straight_from_post_to_strap():
    s = load_spec("tennis")
    post, centre = s.keypoints["net_post_left_top"], s.keypoints["net_centre_top"]
    for n in ("net_top_left_doubles", "net_top_left_singles"):
        p = s.keypoints[n]
        t = (p[1] - post[1]) / (centre[1] - post[1])
        assert abs(p[2] - (post[2] + t * (centre[2] - post[2]))) < TOL, n
    assert abs(s.keypoints["net_top_left_doubles"][2] - 1.0477) < TOL
    assert abs(s.keypoints["net_top_left_singles"][2] - 1.0143) < TOL


def test_badminton_tape_is_the_parabola_through_posts_and_centre():
    s = load_spec("badminton")
    y = s.keypoints["net_top_left_singles"][1]
    u = (y - 3.05) / 3.05
    assert abs(s.keypoints["net_top_left_singles"][2] - (1.524 + 0.026 * u * u)) < TOL
    top = s.net_box_world()[2]  # the drawn tape follows the same curve
    assert len(top) > 3 and abs(top[len(top) // 2][2] - 1.524) < TOL
    assert abs(np.interp(y, top[:, 1], top[:, 2]) - s.keypoints["net_top_left_singles"][2]) < 2e-3


def test_bundled_json_is_what_the_generator_writes():
    spec = importlib.util.spec_from_file_location(
        "make_court_specs", ROOT / "tools" / "make_court_specs.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for d in mod.build_specs():
        on_disk = json.loads((ROOT / "court_specs" / f"{d['id']}.json").read_text())
        assert on_disk == json.loads(json.dumps(d)), d["id"]


def test_side_view_specs():
    for sport in ("basketball_fiba", "basketball_nba", "volleyball"):
        s = load_spec(sport)
        assert s.broadcast_view == ("auto" if sport == "volleyball" else "side")
        assert "near sideline" in s.frame_phrase
    for sport in ("tennis", "badminton", "pickleball", "table_tennis"):
        assert load_spec(sport).broadcast_view == "end"


def test_every_spec_has_a_phrase_per_convention():
    for sport in (
        "tennis",
        "badminton",
        "table_tennis",
        "pickleball",
        "volleyball",
        "basketball_fiba",
        "basketball_nba",
    ):
        s = load_spec(sport)
        end, side = s.frame_phrase_for("end_on"), s.frame_phrase_for("side_on")
        assert "towards the camera" in end and "near side" in side and end != side
        view = {"end": "end_on", "side": "side_on", "auto": "side_on"}[s.broadcast_view]
        assert s.frame_phrase == s.frame_phrase_for(view)
    assert "table surface" in load_spec("table_tennis").frame_phrase_for("side_on")

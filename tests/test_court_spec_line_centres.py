"""Keypoints and lines at the painted line centres (tools/court_spec_paint.py): one test per
placement rule on the bundled specs (each fails on the old rule-edge coordinates), the rule
dimensions still held by the line edges, and the generator's rule code on a toy court."""

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from court_specs import load_spec

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-4


def _paint_module():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        spec = importlib.util.spec_from_file_location(
            "court_spec_paint", ROOT / "tools" / "court_spec_paint.py"
        )
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(ROOT / "tools"))


def kp(sport, name):
    return load_spec(sport).keypoints[name]


def test_lines_inside_the_rule_dimensions_move_inward():
    # ITF: measured to the outside of the lines (10 cm baselines, 5 cm sidelines)
    assert np.allclose(kp("tennis", "far_left_corner"), [0.05, 0.025, 0])
    assert np.allclose(kp("tennis", "near_baseline_right_singles"), [23.72, 9.575, 0])
    # FIVB 1.3.2, BWF Law 1, USA Pickleball 2.A.3, ITTF 2.1.4
    assert np.allclose(kp("volleyball", "near_right_corner"), [17.975, 8.975, 0])
    assert np.allclose(kp("badminton", "far_baseline_left_singles"), [0.02, 0.48, 0])
    assert np.allclose(kp("pickleball", "near_right_corner"), [13.41 - 0.0254, 6.1 - 0.0254, 0])
    assert np.allclose(kp("table_tennis", "near_left_corner"), [2.73, 0.01, 0])


def test_boundary_lines_outside_the_court_move_outward():
    # FIBA art. 2: 28 x 15 m from the inner edges of the boundary lines
    assert np.allclose(kp("basketball_fiba", "far_left_corner"), [-0.025, -0.025, 0])
    assert np.allclose(kp("basketball_fiba", "near_key_right_end"), [28.025, 9.925, 0])
    assert np.allclose(kp("basketball_nba", "centre_line_right"), [14.325, 15.2654, 0])


def test_centred_lines_keep_their_axis():
    assert abs(kp("volleyball", "centre_line_left")[0] - 9.0) < TOL
    assert abs(kp("tennis", "far_service_centre")[1] - 10.97 / 2) < TOL
    assert abs(kp("badminton", "far_short_service_centre")[1] - 3.05) < TOL
    assert abs(kp("pickleball", "far_kitchen_centre")[1] - 3.05) < TOL
    assert abs(kp("basketball_fiba", "centre_line_left")[0] - 14.0) < TOL
    tt = load_spec("table_tennis")
    assert np.allclose(tt.lines["centre_line"][:, 1], 1.525 / 2)
    assert tt.line_width("centre_line") == 0.003


def test_inner_lines_lie_on_the_side_their_rule_says():
    # paint net-side of the measured edge: tennis service line (outer edge 6.40 m from the net),
    # volleyball attack line (rear edge 3 m from the centre line's axis), the NVZ line (7 ft)
    assert abs(kp("tennis", "far_service_left")[0] - (11.885 - 6.40 + 0.025)) < TOL
    assert abs(kp("volleyball", "far_attack_left")[0] - 6.025) < TOL
    assert abs(kp("volleyball", "near_attack_right")[0] - 11.975) < TOL
    assert abs(kp("pickleball", "far_kitchen_left")[0] - (6.705 - 2.13 + 0.0254)) < TOL
    # badminton: the short service line's net-side edge 1.98 m from the net (paint away from
    # it), the doubles long service line 0.76 m inside the back boundary (paint net-side)
    assert abs(kp("badminton", "far_short_service_centre")[0] - (6.7 - 1.98 - 0.02)) < TOL
    assert abs(kp("badminton", "near_long_service_centre")[0] - (13.40 - 0.78)) < TOL


def test_basketball_arcs_and_key_at_their_centres():
    b = load_spec("basketball_fiba")
    ring = b.keypoints["far_ring_centre"][:2]
    # 3-point line toward the basket: its centre 6.725 m from the ring and 0.925 m from y = 0
    join = b.keypoints["far_three_left_join"]
    assert abs(join[1] - 0.925) < TOL
    assert abs(join[0] - (1.575 + math.sqrt(6.725**2 - 6.575**2))) < TOL
    ra = b.lines["far_restricted_area_arc"]
    assert np.allclose(np.hypot(*(ra[:, :2] - ring).T), 1.275, atol=TOL)  # inner edge 1.25 m
    assert np.allclose(b.keypoints["centre_circle_left"], [14.0, 7.5 - 1.775, 0])
    # the key's lines inside it, the free-throw line's far edge 5.80 m from the end line
    assert np.allclose(b.keypoints["far_free_throw_left"], [5.775, 7.5 - 2.45 + 0.025, 0])
    assert np.allclose(b.keypoints["far_free_throw_circle_right"], [5.775, 7.5 + 1.775, 0])


@pytest.mark.parametrize("sport", ["tennis", "volleyball", "basketball_fiba", "table_tennis"])
def test_off_surface_points_and_zones_keep_the_rule_dimensions(sport):
    s = load_spec(sport)
    L = s.length_m
    if s.net is not None:
        assert s.keypoints["net_post_left_top"][1] < 0 < s.keypoints["net_post_left_top"][2]
        assert s.net["post_left_top"] == list(s.keypoints["net_post_left_top"])
    # zones (in/out for QA) are bounded by the rule dimensions, not the line centres
    corners = np.concatenate([z.polygon for z in s.zones])
    assert np.any(np.isclose(corners, 0.0)) and (
        np.any(np.isclose(corners[:, 0], L)) or np.any(np.isclose(corners[:, 0], L / 2))
    )
    assert not np.any(np.isclose(corners, s.keypoints["far_left_corner"][0]))


def test_net_tops_are_not_moved():
    assert np.allclose(kp("tennis", "net_top_left_doubles"), [11.885, 0.0, 1.0477])
    assert np.allclose(kp("volleyball", "net_top_right_sideline"), [9.0, 9.0, 2.43])
    assert np.allclose(kp("table_tennis", "floor_below_far_left_corner"), [0, 0, -0.76])


@pytest.mark.parametrize(
    "sport", ["tennis", "badminton", "pickleball", "volleyball", "basketball_nba", "table_tennis"]
)
def test_every_surface_keypoint_on_a_line_lies_on_the_spec_lines(sport):
    """The spec's lines pass through its line-centre keypoints (what snap and refinement see)."""
    s = load_spec(sport)
    painted = [pl for k, pl in s.lines.items() if k != "net_line"]

    def dist(p, pl):
        best = np.inf
        for a, b in zip(pl[:-1, :2], pl[1:, :2]):
            t = np.clip(np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-12), 0, 1)
            best = min(best, float(np.linalg.norm(p - a - t * (b - a))))
        return best

    for name in ("far_left_corner", "near_right_corner"):
        p = s.keypoints[name][:2]
        assert sum(dist(p, pl) < 1e-3 for pl in painted) >= 2, name


def test_generator_rules_on_a_toy_court():
    paint = _paint_module()
    spec = {
        "id": "toy",
        "length_m": 20.0,
        "width_m": 10.0,
        "planes": {"court": 0.0},
        "default_plane": "court",
        "keypoints": {
            "c": [0.0, 0.0, 0.0],
            "t": [5.0, 0.0, 0.0],
            "mid": [10.0, 5.0, 0.0],
            "post": [10.0, -1.0, 1.0],
            "arc_x": [13.0, 5.0, 0.0],
        },
        "lines": {
            "base": [[0.0, 0.0, 0.0], [0.0, 10.0, 0.0]],
            "side": [[0.0, 0.0, 0.0], [20.0, 0.0, 0.0]],
            "across": [[5.0, 0.0, 0.0], [5.0, 10.0, 0.0]],
            "middle": [[10.0, -1.0, 0.0], [10.0, 11.0, 0.0]],
            "ring": [
                [10 + 3 * math.cos(math.radians(a)), 5 + 3 * math.sin(math.radians(a)), 0.0]
                for a in range(-90, 93, 3)
            ],
        },
    }
    rules = {
        "base": (0.1, "in"),
        "side": (0.04, "out"),
        "across": (0.06, ("away", (10.0, 5.0))),
        "middle": (0.0, "none"),
        "ring": (0.2, ("toward", (10.0, 5.0))),
    }
    out = paint.to_line_centres(spec, rules, {"ring": [(10.0, 5.0, 3.0)]})
    k = out["keypoints"]
    assert np.allclose(k["c"], [0.05, -0.02, 0])
    assert np.allclose(k["t"], [4.97, -0.02, 0])
    assert k["mid"] == [10.0, 5.0, 0.0] and k["post"] == [10.0, -1.0, 1.0]
    assert np.allclose(k["arc_x"], [12.9, 5.0, 0])  # radially, to the paint's centre
    assert out["lines"]["middle"] == spec["lines"]["middle"]
    ring = np.array(out["lines"]["ring"])[:, :2]
    assert np.allclose(np.hypot(*(ring - [10, 5]).T), 2.9, atol=TOL)
    assert paint.line_widths(rules) == (0.2, {"base": 0.1, "side": 0.04, "across": 0.06})
    with pytest.raises(ValueError, match="no paint rule for line"):
        paint.to_line_centres({**spec, "lines": {"extra": [[0, 0, 0], [1, 0, 0]]}}, rules)

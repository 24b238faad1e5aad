"""Each of the 13 categories on the synthetic tennis scene (tests/test_qa_synthetic.py), against
answers computed by hand from the placed positions; the filters on hand-made candidates.

Serial numbers: the near player (id 7) is left in the image, so it is Player 1; the far
player (id 3) is Player 2.
"""

import numpy as np
import pytest

from qa.entities import build_entities, facing_from_joints
from qa.questions import Candidate, candidates
from qa.scenes import qa_scene
from qa.select import Balancer, numeric_sigma_bound, rejection, render
from qa.templates import KINDS, template_ids
from tests.test_qa_synthetic import FAR, NEAR, make_camera, make_scene, moved

TENNIS_MARGINS = {"left_right_m": 0.30, "nearest_m": 0.30, "zone_m": 0.25, "height_m": 0.10}


@pytest.fixture(scope="module")
def cands(tmp_path_factory):
    qs = qa_scene(make_scene(tmp_path_factory.mktemp("qa_syn")))
    ents = build_entities(qs, 0, np.random.default_rng(0))
    return {c.key: c for c in candidates(qs, ents)}, qs


def answer(c: Candidate):
    v = c.values[0]
    return c.labels[int(v)] if c.labels is not None else v


def test_serials_are_left_to_right(cands):
    _, qs = cands
    assert [p.id for p in qs.athletes] == [7, 3]


def test_distance_camera_object(cands):
    c, _ = cands
    # camera (30, 5.485, 6), ball (15, 6, 2): sqrt(15^2 + 0.515^2 + 4^2)
    assert answer(c[("cam_ball",)]) == pytest.approx(np.sqrt(225 + 0.515**2 + 16))
    # Player 1's head (20, 3, 1.7): sqrt(10^2 + 2.485^2 + 4.3^2)
    assert answer(c[("cam_part", 1, "head")]) == pytest.approx(np.sqrt(100 + 2.485**2 + 4.3**2))


def test_distance_height(cands):
    c, _ = cands
    assert answer(c[("ball_height",)]) == pytest.approx(2.0)
    assert answer(c[("part_height", 2, "right_hand")]) == pytest.approx(2.1)
    assert answer(c[("head_diff", 2, 1)]) == pytest.approx(0.2)
    assert ("head_diff", 1, 2) not in c  # only the positive difference is asked
    assert answer(c[("ball_over_head", 1)]) == pytest.approx(0.3)


def test_distance_object_line(cands):
    c, _ = cands
    # to the near baseline's centre, 5 cm inside the 23.77 m (a 10 cm line)
    assert answer(c[("ball_line", "near_baseline")]) == pytest.approx(23.72 - 15)
    assert answer(c[("ball_net",)]) == pytest.approx(15 - 11.885)
    # singles sideline's centre at y = 1.37 + 0.025; Player 1's left foot at y = 2.85
    assert answer(c[("part_line", 1, "left_foot", "left_singles_sideline")]) == pytest.approx(
        2.85 - 1.395
    )
    assert answer(c[("player_net", 2)]) == pytest.approx(11.885 - 4)


def test_distance_object_object(cands):
    c, _ = cands
    assert answer(c[("player_player", 1, 2)]) == pytest.approx(np.sqrt(16**2 + 5**2))
    assert answer(c[("ball_part", 1, "pelvis")]) == pytest.approx(np.sqrt(25 + 9 + 1))
    assert answer(c[("feet_apart", 1)]) == pytest.approx(0.3)
    assert answer(c[("hands_apart", 2)]) == pytest.approx(np.hypot(0.6, 1.1))


def test_spatial_counting_ball(cands):
    c, _ = cands
    assert answer(c[("balls_half", "near")]) == "1"
    assert answer(c[("balls_half", "far")]) == "0"
    assert answer(c[("balls_above", 1.0)]) == "1"
    assert answer(c[("balls_above", 3.0)]) == "0"
    assert answer(c[("balls_above_net",)]) == "1"
    # a 2 m threshold with the ball at 2 m is exactly ambiguous: dropped
    assert rejection(c[("balls_above", 2.0)], TENNIS_MARGINS) == "margin"


def test_spatial_counting_player(cands):
    c, _ = cands
    assert answer(c[("players_half", "near")]) == 1
    assert answer(c[("players_inside",)]) == 2
    assert answer(c[("players_left",)]) == 1  # y = 3 < 5.485 only
    assert answer(c[("players_hand_up",)]) == 1  # Player 2's right hand at 2.1 > head 1.9
    assert answer(c[("players_near_ball", 5.0)]) == 0  # nearest pelvis is sqrt(35) = 5.92 m


def test_localization(cands):
    c, _ = cands
    assert answer(c[("loc_ball",)]) == pytest.approx([15, 6, 2])
    assert answer(c[("loc_part", 2, "head")]) == pytest.approx([4, 8, 1.9])


def test_relational_ball_zone(cands):
    c, _ = cands
    assert answer(c[("ball_zone",)]) == "the near forecourt"  # net 11.885 < x=15 < 18.285
    assert answer(c[("ball_half",)]) == "the near half"
    assert answer(c[("ball_in_out",)]) == "inside"


def test_relational_ball_player(cands):
    c, _ = cands
    assert answer(c[("nearest_player_ball",)]) == "Player 1"
    assert answer(c[("farthest_player_ball",)]) == "Player 2"
    # Player 1 faces -x, so its left is -y; the ball is at +3 m in y: its right, 5 m ahead
    assert answer(c[("ball_own_side", 1)]) == "right"
    assert answer(c[("ball_front_back", 1)]) == "in front"
    # Player 2 faces +x, left is +y; the ball is 2 m toward -y: right
    assert answer(c[("ball_own_side", 2)]) == "right"
    assert answer(c[("ball_vs_head", 1)]) == "higher"


def test_relational_camera_player(cands):
    c, _ = cands
    assert answer(c[("nearest_cam",)]) == "Player 1"
    assert answer(c[("farthest_cam",)]) == "Player 2"
    # the camera looks along -x, so its right is +y: Player 2 (y = 8) is right of Player 1
    assert answer(c[("cam_left_right", 1, 2)]) == "right"
    assert answer(c[("cam_left_right", 2, 1)]) == "left"
    assert answer(c[("cam_vs_ball", 1)]) == "yes"


def test_relational_player_zone(cands):
    c, _ = cands
    assert answer(c[("player_zone", 1)]) == "the near midcourt"  # x = 20 > 18.285
    assert answer(c[("player_half", 2)]) == "the far side"
    assert answer(c[("player_in_out", 1)]) == "inside"


def test_relational_player_player(cands):
    c, _ = cands
    # Player 2 seen by Player 1 (facing -x, left -y): (-16, +5) -> right, in front
    assert answer(c[("own_side_pp", 1, 2)]) == "right"
    assert answer(c[("front_back_pp", 1, 2)]) == "in front"
    assert answer(c[("higher_head", 1, 2)]) == "Player 2"
    # nearer the net: 11.885 - 4 = 7.885 vs 20 - 11.885 = 8.115: a 0.23 m gap < 0.30 m margin
    assert answer(c[("nearer_net",)]) == "Player 2"
    assert rejection(c[("nearer_net",)], TENNIS_MARGINS) == "margin"


def test_relational_player_line(cands):
    c, _ = cands
    assert answer(c[("line_side", 1, "near_baseline")]) == "between the near baseline and the net"
    assert answer(c[("line_side", 1, "near_service_line")]) == "beyond the near service line"
    assert answer(c[("sideline_side", 1, "left_singles_sideline")]) == "inside"
    assert answer(c[("player_nearest_line", "near_baseline")]) == "Player 1"
    # left foot (20, 2.85): singles sideline 1.48 m, service line 1.715 m: gap 0.235 < 0.30
    near = c[("nearest_line", 1, "left_foot")]
    assert answer(near) == "the left singles sideline"
    assert rejection(near, TENNIS_MARGINS) == "margin"


def test_every_category_has_candidates(cands):
    c, _ = cands
    cats = {x.category for x in c.values()}
    assert len(cats) == 13


def test_template_inventory():
    from qa.score import CATEGORIES

    courtsi = [t for t in template_ids() if KINDS[t.rsplit(".", 1)[0]][0] in CATEGORIES]
    assert len(courtsi) >= 90
    cats = {cat for cat, _, _ in KINDS.values() if not cat.startswith("multi_frame_")}
    assert cats == set(CATEGORIES)
    per_cat = {cat: sum(len(t) for c2, _, t in KINDS.values() if c2 == cat) for cat in cats}
    assert min(per_cat.values()) >= 7


def test_filters_on_hand_made_candidates():
    labels = ["left", "right"]
    agree = np.array([0] * 97 + [1] * 4)  # answer 0; 96 of 100 draws agree
    c = Candidate("own_side_pp", {}, agree, labels, 1.0, "left_right_m")
    assert rejection(c, TENNIS_MARGINS) is None
    c.values = np.array([0] * 95 + [1] * 6)  # 94 %
    assert rejection(c, TENNIS_MARGINS) == "mc_agreement"
    rng = np.random.default_rng(0)
    v = 10.0 + rng.normal(0, 1, 4001)
    v[0] = 10.0
    bound = numeric_sigma_bound(10.0)  # 0.5 * (0.15 + 0.5) = 0.325 m
    assert bound == pytest.approx(0.325)
    assert rejection(Candidate("cam_ball", {}, v * 0.0 + 10 + (v - 10) * 0.3), {}) is None
    assert rejection(Candidate("cam_ball", {}, v * 0.0 + 10 + (v - 10) * 0.4), {}) == "sigma"
    assert rejection(Candidate("feet_apart", {}, np.array([0.04])), {}) == "degenerate"
    loc = np.zeros((200, 3))
    loc[1:] = rng.normal(0, 0.1, (199, 3))  # 3D sigma ~0.17 m > 0.15 m
    assert rejection(Candidate("loc_ball", {}, loc), {}) == "sigma"


def test_letters_are_balanced_and_rendering():
    bal = Balancer(np.random.default_rng(1))
    labels = ["Player 1", "Player 2", "Player 3", "Player 4"]
    letters = []
    for k in range(40):
        c = Candidate("nearest_cam", {}, np.array([k % 4]), labels, 1.0, "nearest_m")
        q, a, opts = render(c, "nearest_cam.0", bal)
        assert opts[ord(a) - 65] == labels[k % 4] and sorted(opts) == labels
        assert q.startswith("Which player is closest to the camera?\nA. ")
        letters.append(a)
    assert {letters.count(x) for x in "ABCD"} == {10}


def test_facing_from_joints():
    j = {
        "left_hand": np.array([[0, 1.0, 1]]),
        "right_hand": np.array([[0, -1.0, 1]]),
        "left_foot": np.array([[0, 0.2, 0]]),
        "right_foot": np.array([[0, -0.2, 0]]),
    }
    assert facing_from_joints(j)[0] == pytest.approx([1, 0, 0])  # left +y -> faces +x
    side_on = {k: v * np.array([1, 0.01, 1]) for k, v in j.items()}
    assert facing_from_joints(side_on) is None
    hips = {
        **j,
        "left_hip": np.array([[0.1, 0, 1]]),
        "right_hip": np.array([[-0.1, 0, 1]]),
        "left_shoulder": np.array([[0.2, 0, 1.5]]),
        "right_shoulder": np.array([[-0.2, 0, 1.5]]),
    }
    assert facing_from_joints(hips)[0] == pytest.approx([0, -1, 0])  # hips win over hands


def test_basketball_shot_regions(tmp_path):
    """NBA court 28.65 x 15.24 m, near ring at x = 27.05: a player under the near ring, one in
    the near left corner three (y = 0.4 m from the sideline, 0.51 m inside the corner's
    limit), one above the break on the far half; the ball over the near mid-range."""
    cam = make_camera(C=(36.0, 7.62, 8.0), target=(14.3, 7.62, 0.0))
    path = make_scene(
        tmp_path,
        name="nba",
        spec_id="basketball_nba",
        camera=cam,
        players=[
            (1, moved(NEAR, 27.0, 7.62)),
            (2, moved(NEAR, 26.0, 0.4)),
            (3, moved(FAR, 10.0, 2.0)),
        ],
        ball_world=(20.0, 7.62, 3.0),
    )
    qs = qa_scene(path)
    serial = {p.id: i + 1 for i, p in enumerate(qs.athletes)}
    c = {x.key: x for x in candidates(qs, build_entities(qs, 0, np.random.default_rng(0)))}
    assert answer(c[("shot_region", serial[1])]) == "Restricted Area"
    assert answer(c[("shot_region", serial[2])]) == "Left Corner 3"
    assert answer(c[("three_point", serial[2])]) == "yes"
    assert answer(c[("three_point", serial[1])]) == "no"
    assert answer(c[("shot_region", serial[3])]) == "Above the Break 3"
    assert answer(c[("players_beyond_arc",)]) == 2
    assert answer(c[("ball_shot_region",)]) == "Mid-Range"
    assert not any(k[0] in ("ball_net", "player_half", "balls_above_net") for k in c)  # no net
    q, a, opts = render(
        c[("three_point", serial[2])], "three_point.1", Balancer(np.random.default_rng(0))
    )
    assert q.startswith(f"Is Player {serial[2]} standing behind the three-point line?")
    assert rejection(c[("shot_region", serial[2])], qs.wording.margins) is None


def _covariance(cam, rot_sigma, t_sigma, f_sigma_rel):
    import cv2

    theta = np.concatenate([cv2.Rodrigues(cam.R)[0].ravel(), cam.t, [cam.K[0, 0]]])
    sig = np.array([rot_sigma] * 3 + [t_sigma] * 3 + [f_sigma_rel * cam.K[0, 0]])
    return {
        "model": "simple",
        "radial": False,
        "param_names": [],
        "params": theta.tolist(),
        "matrix": np.diag(sig**2).tolist(),
    }


def test_monte_carlo_filters_follow_the_calibration_uncertainty(tmp_path):
    """The same scene with a tight and a loose calibration covariance: the tight one loses
    nothing to the uncertainty filters, the loose one (~1 deg, 0.5 m, 10 % focal) loses
    numbers to `sigma` and choices to `mc_agreement`."""
    cam = make_camera()
    removed = {}
    for name, cov in (
        ("tight", _covariance(cam, 1e-5, 1e-4, 1e-5)),
        ("loose", _covariance(cam, 0.02, 0.5, 0.10)),
    ):
        qs = qa_scene(make_scene(tmp_path, name=name, camera=cam, covariance=cov))
        ents = build_entities(qs, 200, np.random.default_rng(5))
        assert ents.camera_centre[1:].std(0).max() > (0.1 if name == "loose" else 0)
        why = [rejection(c, qs.wording.margins) for c in candidates(qs, ents)]
        removed[name] = {k: why.count(k) for k in ("sigma", "mc_agreement")}
    assert removed["tight"] == {"sigma": 0, "mc_agreement": 0}
    assert removed["loose"]["sigma"] > 10 and removed["loose"]["mc_agreement"] > 0


def test_side_on_scenes_name_halves_and_ends_by_the_image(tmp_path):
    """Volleyball (18 x 9 m, net x = 9) filmed from beside the court (side-on frame: camera at
    y < 0, x runs to the right in the image): the spec's near end (x = 18) is the image's
    right, so halves are "left"/"right" and the near baseline is the right-hand one."""
    cam = make_camera(C=(9.0, -12.0, 7.0), target=(9.0, 4.5, 0.0))
    path = make_scene(
        tmp_path,
        name="vb",
        spec_id="volleyball",
        camera=cam,
        players=[(1, moved(NEAR, 4.0, 4.5)), (2, moved(FAR, 13.0, 4.5))],
        ball_world=(12.0, 5.0, 3.0),
        raw={"court": {"world_convention": "side_on"}},
    )
    qs = qa_scene(path)
    assert qs.wording.side_on and [p.id for p in qs.athletes] == [1, 2]
    c = {x.key: x for x in candidates(qs, build_entities(qs, 0, np.random.default_rng(0)))}
    assert answer(c[("player_half", 2)]) == "the right side"
    assert answer(c[("player_half", 1)]) == "the left side"
    assert answer(c[("ball_half",)]) == "the right half"
    assert answer(c[("balls_half", "left")]) == "0"
    assert answer(c[("players_left",)]) == 1  # x = 4 < 9, not y
    assert "the right-hand baseline" in c[("nearest_line", 2, "left_foot")].labels
    q, _, _ = render(c[("ball_half",)], "ball_half.0", Balancer(np.random.default_rng(0)))
    assert q.startswith("Is the volleyball over the right half or the left half of the court?")

"""The calibration doctor finds the wrong click and the labelling that fixes it."""

import numpy as np
import pytest

from courtstudio.pipeline.calibration import calibrate_court
from geometry.errors import CalibrationError
from tests.conftest import IMAGE_SIZE, true_clicks

NAMES = [
    "far_left_corner",
    "far_right_corner",
    "near_left_corner",
    "near_right_corner",
    "net_post_left_top",
    "net_post_right_top",
    "far_service_centre",
    "near_service_centre",
]


@pytest.fixture
def clicks(tennis, tennis_camera):
    rng = np.random.default_rng(1)
    c = true_clicks(tennis, tennis_camera, NAMES)
    return {k: v + rng.normal(0, 0.7, 2) for k, v in c.items()}


def test_clean_clicks_have_no_suspects_or_suggestions(tennis, clicks):
    cal = calibrate_court(tennis, IMAGE_SIZE, clicks)
    assert cal.suspects == [] and cal.fixes == [] and cal.warnings == []
    assert np.all(np.isfinite(cal.loo.residual_px)) and np.all(cal.loo.z < 4)


def test_one_bad_click_is_named(tennis, clicks):
    clicks["net_post_left_top"] = clicks["net_post_left_top"] + [25.0, 0.0]
    cal = calibrate_court(tennis, IMAGE_SIZE, clicks)
    assert cal.suspects == ["net_post_left_top"]
    i = cal.names.index("net_post_left_top")
    assert cal.loo.residual_px[i] > 20
    assert any("suspect" in w for w in cal.warnings)


def test_left_right_swap_is_refused_with_the_fix(tennis, clicks):
    lr = tennis.symmetry_maps()["left_right"]
    with pytest.raises(CalibrationError, match="left and right look swapped") as e:
        calibrate_court(tennis, IMAGE_SIZE, {lr[k]: v for k, v in clicks.items()})
    fx = e.value.fixes[0]
    assert fx.kind == "left_right"
    assert fx.mapping["far_right_corner"] == "far_left_corner"
    assert fx.rms_px < 1.5


@pytest.mark.parametrize(
    "kind,why",
    [
        ("near_far", "mirrored.*Suggested fix: near and far look swapped"),
        ("rotate_180", "far side of the court.*Suggested fix"),
    ],
)
def test_far_side_camera_is_refused_with_the_fix(tennis, clicks, kind, why):
    m = tennis.symmetry_maps()[kind]
    with pytest.raises(CalibrationError, match=why) as e:
        calibrate_court(tennis, IMAGE_SIZE, {m[k]: v for k, v in clicks.items()})
    assert "near_left_corner -> far_" in str(e.value) or "far_left_corner -> near_" in str(e.value)


def test_transposed_pair_is_found(tennis, clicks):
    c = dict(clicks)
    c["near_left_corner"], c["near_right_corner"] = c["near_right_corner"], c["near_left_corner"]
    with pytest.raises(
        CalibrationError, match="'near_left_corner' and 'near_right_corner' look transposed"
    ):
        calibrate_court(tennis, IMAGE_SIZE, c)


def test_transposed_pair_that_still_solves_is_suggested(tennis, clicks):
    c = dict(clicks)
    c["far_service_centre"], c["near_service_centre"] = (
        c["near_service_centre"],
        c["far_service_centre"],
    )
    try:
        cal = calibrate_court(tennis, IMAGE_SIZE, c)
        fixes = cal.fixes
        assert fixes and fixes[0].kind == "transpose"
        assert set(fixes[0].mapping) == {"far_service_centre", "near_service_centre"}
    except CalibrationError as exc:
        assert "look transposed" in str(exc)


def test_wrong_name_is_relabelled(tennis, clicks):
    c = dict(clicks)
    c["far_baseline_centre"] = c.pop("far_service_centre")
    cal = calibrate_court(tennis, IMAGE_SIZE, c)
    assert cal.suspects == ["far_baseline_centre"]
    assert cal.fixes[0].kind == "relabel"
    assert cal.fixes[0].mapping == {"far_baseline_centre": "far_service_centre"}


def test_unknown_name_suggests_close_names(tennis, clicks):
    c = dict(clicks)
    c["far_left_corne"] = c.pop("far_left_corner")
    with pytest.raises(
        CalibrationError, match="no keypoint 'far_left_corne'; did you mean far_left_corner"
    ):
        calibrate_court(tennis, IMAGE_SIZE, c)


def test_camera_json_contract(tennis, clicks):
    doc = calibrate_court(tennis, IMAGE_SIZE, clicks).to_json()
    for key in (
        "K",
        "R",
        "t",
        "image_size",
        "dist",
        "rms_px",
        "residuals_px",
        "focal_sigma_pct",
        "camera_centre_world",
        "loo_residuals_px",
        "camera_centre_sigma_m",
        "covariance",
        "suspects",
        "suggestions",
    ):
        assert key in doc
    assert np.array(doc["K"]).shape == (3, 3) and np.array(doc["R"]).shape == (3, 3)
    assert len(doc["t"]) == 3 and len(doc["camera_centre_world"]) == 3
    assert set(doc["residuals_px"]) == set(NAMES)
    import json

    json.dumps(doc, allow_nan=False)


def test_without_a_fit_the_swaps_are_screened_from_the_pinhole_camera(tennis, clicks, monkeypatch):
    """When the caller's model did not solve (fit None), the swaps are screened from the
    clicks' own pinhole camera instead of each solved in full (28 pairs here)."""
    from courtstudio.pipeline.calibration import world_convention
    from geometry import doctor

    c = dict(clicks)
    c["far_service_centre"], c["near_service_centre"] = (
        c["near_service_centre"],
        c["far_service_centre"],
    )
    solves = []
    real = doctor.solve_camera
    monkeypatch.setattr(doctor, "solve_camera", lambda *a, **k: solves.append(1) or real(*a, **k))
    fixes = doctor.suggest_labelling_fixes(
        dict(tennis.keypoints),
        {k: np.asarray(v, float) for k, v in c.items()},
        IMAGE_SIZE,
        tennis.symmetry_maps(),
        None,
        1.0,
        world_convention(tennis),
    )
    assert fixes and fixes[0].kind == "transpose"
    assert set(fixes[0].mapping) == {"far_service_centre", "near_service_centre"}
    assert len(solves) < 10, len(solves)  # 3 symmetries, the pinhole camera, the confirmations

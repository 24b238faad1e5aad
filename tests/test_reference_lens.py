"""A reference whose clicks are too few to test a lens (5) takes k1 from its painted lines
only when the lines support it and the clicks agree (propagation_solve.reference_calibration,
docs/propagation.md "Lens distortion")."""

import json
from pathlib import Path

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.calibration import calibrate_court
from courtstudio.pipeline.propagation_solve import reference_calibration
from courtstudio.synth.synthetic import render_frame, sample_broadcast_camera
from geometry.camera import Camera

SPEC = load_spec("tennis")
SIZE = (1280, 720)
FIVE = [
    "far_left_corner",
    "far_right_corner",
    "near_left_corner",
    "near_right_corner",
    "near_service_centre",
]


def _frame_and_clicks(lens_in_clicks: bool):
    """A broadcast frame drawn through a k1 = 0.2 lens, and five clicks (0.3 px noise) where
    that camera images the keypoints, or where its pinhole would (lines and clicks then
    disagree about the lens)."""
    rng = np.random.default_rng(0)
    cam = sample_broadcast_camera(SPEC, SIZE, rng, zoom=(0.6, 0.7), k1=0.2)
    img = render_frame(SPEC, cam, rng=rng)
    clicker = cam if lens_in_clicks else Camera(cam.K, cam.R, cam.t, SIZE)
    pts = {
        n: tuple(clicker.project(SPEC.keypoints[n][None])[0] + rng.normal(0, 0.3, 2)) for n in FIVE
    }
    return img, pts


def test_five_clicks_take_the_lens_their_lines_show():
    img, pts = _frame_and_clicks(lens_in_clicks=True)
    cal = reference_calibration(SPEC, pts, img)
    assert cal.camera.dist[0] == pytest.approx(0.2, abs=0.02)
    assert cal.fit.rms_px < 0.5


def test_a_lens_the_clicks_contradict_is_refused():
    """The lines alone pick k1 = 0.16 and the line refinement accepts it (the clicks within
    its 2 px noise), but the clicks move from 0.2 to 3.5 px RMS: the reference stays pinhole."""
    img, pts = _frame_and_clicks(lens_in_clicks=False)
    cal = reference_calibration(SPEC, pts, img)
    assert not cal.camera.has_distortion
    assert cal.refinement is None


CLIP_CLICKS = Path(__file__).resolve().parents[1] / "bench" / "devset_clips" / "annotations"


@pytest.mark.parametrize(
    "clip, frame, carried",
    [
        ("basketball_nykbos_pan", 600, False),  # k1 1.46 +- 3.57: not determined
        ("basketball_nykbos_pan", 80, False),  # k1 0.74 +- 1.99
        ("volleyball_rio2015_brausa_pan", 20, True),  # k1 0.74 +- 0.27
        ("tennis_london_drift", 0, True),  # k1 1.06 +- 0.12
    ],
)
def test_a_lens_the_clicks_do_not_determine_is_not_carried_to_the_frames(clip, frame, carried):
    """Hand clicks on real frames (six on the NBA and volleyball frames): the model selection
    picks k1 on all four, but only where k1 exceeds its own 1-sigma does the reference keep it
    (no image is read: six or more clicks never ask the lines), and calibrate's warnings say
    so where it does not."""
    from courtstudio.pipeline.propagation_solve import frame_model, lens_determined

    ann = json.loads((CLIP_CLICKS / clip / f"{frame}.json").read_text())
    spec = load_spec(ann["sport"])
    w, h = ann["image_size"]
    chosen = calibrate_court(spec, (w, h), ann["points"], diagnose=False).fit
    assert frame_model(chosen) != "simple" and lens_determined(chosen) == carried
    said = calibrate_court(spec, (w, h), ann["points"]).warnings  # what calibrate says
    assert any("lens is not determined" in m for m in said) == (not carried)
    cal = reference_calibration(spec, ann["points"], np.zeros((h, w, 3), np.uint8))
    assert (frame_model(cal.fit) != "simple") == carried


def test_a_two_coefficient_lens_is_judged_by_its_displacement_not_by_k1_alone():
    """17 hand clicks on a real tennis frame fit k1, k2 = -0.04 +- 0.17, 2.6 +- 1.9: k1 alone is
    within its sigma, yet the lens moves the farthest image corner 66 +- 24 px (the two
    coefficients are correlated), so the clicks determine it and calibrate does not warn."""
    from geometry.model_selection import lens_corner_shift_px, lens_determined

    path = Path(__file__).resolve().parents[1] / "bench/devset/annotations/tennis_shanghai_01.json"
    ann = json.loads(path.read_text())
    cal = calibrate_court(load_spec(ann["sport"]), tuple(ann["image_size"]), ann["points"])
    names = list(cal.fit.model.names)
    k1 = names.index("k1")
    assert "k2" in names and abs(cal.fit.theta[k1]) < np.sqrt(cal.fit.covariance[k1, k1])
    shift, sigma = lens_corner_shift_px(cal.fit)
    assert shift > 2 * sigma > 0 and lens_determined(cal.fit)
    assert not any("lens is not determined" in m for m in cal.warnings)

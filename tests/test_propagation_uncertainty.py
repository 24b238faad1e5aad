"""A propagated camera's predicted error from its keypoints, painted lines and lens prior
(courtstudio/pipeline/propagation_uncertainty.py), on rendered synthetic frames with ground
truth."""

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.propagation_reference import Reference, make_ref_state
from courtstudio.pipeline.propagation_uncertainty import (
    LENS_SIGMA_MAX,
    LINED_LENS_SIGMA_MIN,
    keypoints_to_click,
    lined_reference,
    painted_ridges,
    predicted_error,
    reference_lens_prior,
    refine_weak_frame,
)
from courtstudio.synth.synthetic import render_frame, sample_broadcast_camera, visible_keypoints
from geometry.calibration import solve_camera
from geometry.joint_covariance import LensPrior

SPEC = load_spec("tennis")
SIZE = (960, 540)
OFF_PX = 10.0 * 540 / 1080
# the near baseline and one service-line keypoint: the far court is extrapolated
ONE_LINE = [
    "near_left_corner",
    "near_baseline_left_singles",
    "near_baseline_centre",
    "near_baseline_right_singles",
    "near_service_centre",
]


def _scene(seed=5):
    rng = np.random.default_rng(seed)
    cam = sample_broadcast_camera(SPEC, SIZE, rng, zoom=(0.75, 0.8))
    image = render_frame(SPEC, cam, rng=rng)
    kp = visible_keypoints(SPEC, cam)
    return cam, image, kp


def _clicks(kp, names, rng, sigma=0.5):
    return {n: tuple(np.asarray(kp[n]) + rng.normal(0, sigma, 2)) for n in names}


def _worst_true_error(cam, truth):
    plane = [n for n in truth if abs(SPEC.keypoints[n][2] - SPEC.plane_z()) < 1e-9]
    X = np.array([SPEC.keypoints[n] for n in plane])
    return float(
        np.max(np.linalg.norm(cam.project(X) - np.array([truth[n] for n in plane]), axis=1))
    )


def _fit(points):
    X = np.array([SPEC.keypoints[n] for n in points])
    uv = np.array(list(points.values()))
    return solve_camera(X, uv, SIZE, model="simple").camera


def test_collinear_keypoints_are_uncertain_until_the_painted_lines_pin_them():
    cam, image, kp = _scene()
    rng = np.random.default_rng(1)
    pts = _clicks(kp, ONE_LINE, rng)
    start = _fit(pts)
    prior = LensPrior((0.0,), (0.05,))
    clicks_px, at = predicted_error(start, SPEC, pts, 1.0, prior)
    assert clicks_px > 3 * OFF_PX and at not in ONE_LINE  # far from the clicks
    # the lines the true camera sees pin it: small prediction for the same keypoints
    lines_px, _ = predicted_error(cam, SPEC, pts, 1.0, prior, painted_ridges(cam, SPEC, image))
    assert lines_px < 1.0
    # refined on its lines, the clicks' camera becomes what the prediction says
    wr = refine_weak_frame(start, SPEC, image, pts, 1.0, prior, ref_rms_px=0.5)
    assert wr.report.accepted, wr.report.reason
    assert wr.ridges is not None and len(wr.ridges) > 100
    # the ridges the refinement measured its camera's support on: what painted_ridges finds
    again = painted_ridges(wr.camera, SPEC, image)
    for field in ("points_world", "uv", "normals", "line", "tried"):
        assert np.array_equal(getattr(wr.ridges, field), getattr(again, field))
    assert wr.predicted_px < OFF_PX
    assert _worst_true_error(wr.camera, kp) < max(2.0, 3 * wr.predicted_px)
    assert _worst_true_error(start, kp) > _worst_true_error(wr.camera, kp)


def test_without_lines_the_prediction_stays_the_keypoints_own():
    cam, image, kp = _scene()
    rng = np.random.default_rng(1)
    pts = _clicks(kp, ONE_LINE, rng)
    start = _fit(pts)
    prior = LensPrior((0.0,), (0.05,))
    blank = np.full_like(image, 90)
    wr = refine_weak_frame(start, SPEC, blank, pts, 1.0, prior, ref_rms_px=0.5)
    assert not wr.report.accepted and wr.ridges is None
    assert wr.camera is start
    assert wr.predicted_px == pytest.approx(predicted_error(start, SPEC, pts, 1.0, prior)[0])
    assert len(painted_ridges(cam, SPEC, blank)) == 0


def test_a_loose_lens_prior_widens_a_frame_and_clicks_bound_a_reference_lens():
    cam, image, kp = _scene()
    rng = np.random.default_rng(2)
    spread = [n for n in kp if abs(SPEC.keypoints[n][2]) < 1e-9 and "net" not in n]
    pts = _clicks(kp, spread, rng, sigma=0.3)
    fit_cam = _fit(pts)
    tight = reference_lens_prior(SPEC, fit_cam, pts, 1.0)
    assert tight.mean == (0.0,) and 0 < tight.sigma[0] < 0.3  # many spread clicks: k1 known
    few = {n: pts[n] for n in ONE_LINE}
    loose = reference_lens_prior(SPEC, fit_cam, few, 1.0)
    assert loose.sigma[0] > tight.sigma[0]
    assert loose.sigma[0] <= LENS_SIGMA_MAX
    # the same frame's prediction grows with its lens prior's sigma
    px = [predicted_error(fit_cam, SPEC, few, 1.0, LensPrior((0.0,), (s,)))[0] for s in (0.01, 1.0)]
    assert px[1] > 1.05 * px[0]  # measured 60 against 54 px


def test_the_keypoints_to_click_are_the_ones_the_clicks_leave_free():
    cam, image, kp = _scene()
    pts = {n: kp[n] for n in ONE_LINE}
    prior = LensPrior((0.0,), (0.05,))
    names = keypoints_to_click(cam, SPEC, pts, 1.0, prior, OFF_PX)
    assert names and all(n.startswith("far_") and n not in pts for n in names)
    # clicking them pins it: none left to name
    more = dict(pts, **{n: kp[n] for n in names})
    assert (
        predicted_error(cam, SPEC, more, 1.0, prior)[0]
        < predicted_error(cam, SPEC, pts, 1.0, prior)[0]
    )


def test_a_weak_reference_takes_its_camera_and_lens_from_its_own_lines():
    rng = np.random.default_rng(5)
    cam = sample_broadcast_camera(SPEC, SIZE, rng, zoom=(0.75, 0.8), k1=-0.3)
    image = render_frame(SPEC, cam, rng=rng)
    kp = visible_keypoints(SPEC, cam)
    pts = _clicks(kp, ONE_LINE, np.random.default_rng(1))
    start = _fit(pts)  # the pinhole its five clicks give
    loose = reference_lens_prior(SPEC, start, pts, 1.0)
    assert loose.mean == (0.0,) and loose.sigma[0] > 0.1  # measured 0.14
    assert predicted_error(start, SPEC, pts, 1.0, loose)[0] > OFF_PX  # weak
    lined = lined_reference(start, SPEC, image, pts, 1.0, loose, 0.5, OFF_PX)
    assert lined is not None
    assert lined.predicted_px <= OFF_PX
    k1 = lined.camera.dist[0]
    assert abs(k1 - cam.dist[0]) < 0.05, k1
    assert lined.prior.mean == (k1,)
    assert LINED_LENS_SIGMA_MIN <= lined.prior.sigma[0] <= loose.sigma[0]
    # measured 0.2 against the pinhole's 21 px
    assert _worst_true_error(lined.camera, kp) < 1.0 < 10.0 < _worst_true_error(start, kp)


def test_a_weak_reference_without_lines_keeps_its_clicks_camera():
    cam, image, kp = _scene()
    pts = _clicks(kp, ONE_LINE, np.random.default_rng(1))
    start = _fit(pts)
    loose = reference_lens_prior(SPEC, start, pts, 1.0)
    blank = np.full_like(image, 90)
    assert lined_reference(start, SPEC, blank, pts, 1.0, loose, 0.5, OFF_PX) is None
    # lines that pin it, but not within the weak limit asked for: not taken either
    assert lined_reference(start, SPEC, image, pts, 1.0, loose, 0.5, 1e-3) is None


def test_the_reference_state_of_a_weak_reference_holds_its_lines_lens():
    rng = np.random.default_rng(5)
    cam = sample_broadcast_camera(SPEC, SIZE, rng, zoom=(0.75, 0.8), k1=-0.3)
    image = render_frame(SPEC, cam, rng=rng)
    kp = visible_keypoints(SPEC, cam)
    # six clicks (five pick the lens from the lines already: propagation_solve.
    # reference_calibration); nearly on one line, so the pinhole is kept and weak
    pts = _clicks(kp, [*ONE_LINE, "near_right_corner"], np.random.default_rng(1))
    st = make_ref_state(SPEC, Reference(0, pts), image, None, None)
    assert st.lined and st.model == "simple_k1" and st.lens is not None
    assert abs(st.camera.dist[0] - cam.dist[0]) < 0.05
    assert st.lens_prior is not None and st.lens_prior.mean == (st.camera.dist[0],)
    q = st.quality()
    assert q["lens"] == "lines" and q["to_click"] == [] and q["predicted_px"] <= OFF_PX
    # its residual is its clicks' under the camera it now has (the record carries both)
    X = np.array([SPEC.keypoints[n] for n in pts])
    uv = np.array(list(pts.values()))
    rms = float(np.sqrt(np.mean(np.sum((st.camera.project(X) - uv) ** 2, axis=1))))
    assert st.rms_px == pytest.approx(rms, abs=1e-6)
    assert _worst_true_error(st.camera, kp) < 2.0

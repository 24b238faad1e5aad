"""A fitted camera's predicted error away from its points (geometry/fit_extrapolation.py):
the prediction matches the scatter of refits to noisy clicks, and it is large exactly when the
fitted points nearly lie on one line."""

import numpy as np
import pytest

from geometry.calibration import solve_camera
from geometry.camera import Camera, rotation_look_at
from geometry.fit_extrapolation import extrapolation_gain, fit_noise_px, predicted_sd_per_px

SIZE = (1280, 720)


def _camera() -> Camera:
    centre = np.array([0.0, -30.0, 9.0])
    R = rotation_look_at(centre, np.array([0.0, 0.0, 0.0]))
    K = np.array([[1100.0, 0.0, 639.5], [0.0, 1100.0, 359.5], [0.0, 0.0, 1.0]])
    return Camera(K, R, -R @ centre, SIZE)


# a 10 x 20 m court: the fitted points, and the keypoints the camera is judged at
SPREAD = np.array([[-5, -10, 0], [5, -10, 0], [5, 10, 0], [-5, 10, 0], [0, 0, 0]], float)
# three points on the near line and two 1 m off it: the far court is extrapolated
NEAR_LINE = np.array([[-5, -10, 0], [0, -10, 0], [5, -10, 0], [-4, -9, 0], [4, -9, 0]], float)
COURT = np.array([[x, y, 0.0] for x in (-5, 0, 5) for y in (-10, -5, 0, 5, 10)])


def test_prediction_matches_the_scatter_of_noisy_refits():
    """Round trip: refit to clicks with 0.5 px noise many times; the spread of the refits'
    projections of a far keypoint is what the covariance predicted (within 25 %)."""
    cam = _camera()
    uv_true = cam.project(NEAR_LINE)
    fit = solve_camera(NEAR_LINE, uv_true, SIZE, model="simple")
    far = np.array([[5.0, 10.0, 0.0]])
    _, sd = predicted_sd_per_px(fit, far)
    rng = np.random.default_rng(3)
    sigma = 0.5
    errs = []
    for _ in range(150):
        noisy = uv_true + rng.normal(0, sigma, uv_true.shape)
        f = solve_camera(NEAR_LINE, noisy, SIZE, model="simple", theta0=fit.theta)
        errs.append(f.camera.project(far)[0] - cam.project(far)[0])
    rms = float(np.sqrt(np.mean(np.sum(np.array(errs) ** 2, axis=1))))
    assert sd[0] * sigma == pytest.approx(rms, rel=0.25)
    assert sd[0] > 10  # and far from the points it is large


def test_gain_is_large_only_for_points_nearly_on_one_line():
    cam = _camera()
    spread = solve_camera(SPREAD, cam.project(SPREAD), SIZE, model="simple")
    line = solve_camera(NEAR_LINE, cam.project(NEAR_LINE), SIZE, model="simple")
    _, at_points = predicted_sd_per_px(spread, SPREAD)
    assert np.all(at_points <= np.sqrt(2) + 1e-9)  # at its own points: the leverage
    g_spread, g_line = extrapolation_gain(spread, COURT), extrapolation_gain(line, COURT)
    assert g_spread < 3
    assert g_line > 10 * g_spread


def test_points_outside_the_picture_do_not_count():
    cam = _camera()
    line = solve_camera(NEAR_LINE, cam.project(NEAR_LINE), SIZE, model="simple")
    behind = np.array([[0.0, -60.0, 0.0]])  # behind the camera
    far_out = np.array([[400.0, 10.0, 0.0]])  # far outside the picture
    assert np.isnan(extrapolation_gain(line, np.vstack([behind, far_out])))
    near = NEAR_LINE[:1]
    assert extrapolation_gain(line, np.vstack([near, far_out])) == pytest.approx(
        predicted_sd_per_px(line, near)[1][0]
    )


def test_fit_noise_is_the_residual_scale_with_a_floor():
    cam = _camera()
    exact = solve_camera(COURT, cam.project(COURT), SIZE, model="simple")
    assert fit_noise_px(exact) == 1.0  # the floor
    rng = np.random.default_rng(5)
    noisy_uv = cam.project(COURT) + rng.normal(0, 3.0, (len(COURT), 2))
    noisy = solve_camera(COURT, noisy_uv, SIZE, model="simple")
    assert fit_noise_px(noisy) == pytest.approx(3.0, rel=0.35)
    four_uv = cam.project(SPREAD[:4]) + rng.normal(0, 3.0, (4, 2))
    four = solve_camera(SPREAD[:4], four_uv, SIZE, model="simple")  # 8 - 7 = 1 spare equation
    assert fit_noise_px(four) == pytest.approx(
        max(1.0, float(np.sqrt(np.sum(four.residuals_uv**2) / 1))), rel=1e-9
    )


def test_a_reference_is_measured_under_the_camera_model_its_frames_get():
    """A reference whose model selection picks a lens that its frames' local refit does not
    determine (they hold its lens field and refit pose and focal): its gain and noise are
    those of that refit of its own clicks, as a frame with the same keypoints would get, not
    the richer selection's (which inflated the gain about 2.4x and let weak frames pass)."""
    from court_specs import load_spec
    from courtstudio.pipeline.calibration import calibrate_court
    from courtstudio.pipeline.propagation_flags import plane_keypoints
    from courtstudio.pipeline.propagation_solve import (
        frame_model,
        recalibrate,
        reference_prediction,
    )
    from courtstudio.synth.synthetic import sample_broadcast_camera
    from geometry.camera_params import ParamModel
    from geometry.fit_extrapolation import extrapolation_gain, fit_noise_px
    from geometry.pixel_lens import PixelLens

    spec = load_spec("tennis")
    plane = plane_keypoints(spec)
    rng = np.random.default_rng(0)
    differing = 0
    for _ in range(12):
        cam = sample_broadcast_camera(spec, (1920, 1080), rng, k1=float(rng.choice([0.0, -0.05])))
        pts = {
            n: cam.project(np.array(v, float)[None])[0]
            for n, v in spec.keypoints.items()
            if abs(v[2]) < 1e-9
        }
        pts = {
            n: tuple(u + rng.normal(0, 0.5, 2))
            for n, u in pts.items()
            if 0 <= u[0] < 1919 and 0 <= u[1] < 1079
        }
        pts = {n: pts[n] for n in list(pts)[:10]}
        cal = calibrate_court(spec, (1920, 1080), pts, diagnose=False)
        model = frame_model(cal.fit)
        lens = PixelLens.of_camera(cal.camera) if model != "simple" else None
        theta = ParamModel(model).from_camera(cal.camera)
        as_frame = recalibrate(spec, (1920, 1080), pts, theta, model, lens)
        got = reference_prediction(spec, pts, cal.fit, model, 1080)
        assert got["gain"] == pytest.approx(extrapolation_gain(as_frame, plane), rel=1e-6)
        assert got["sigma_px"] == pytest.approx(fit_noise_px(as_frame), rel=1e-6)
        assert got["weak_px"] == pytest.approx(10.0)
        if as_frame.model.name != cal.fit.model.name:
            differing += 1
            assert got["gain"] < 0.6 * extrapolation_gain(cal.fit, plane)
    assert differing >= 1  # the case the rule is for occurs in this sample

"""A camera's uncertainty from clicks, painted lines and a lens prior
(geometry/joint_covariance.py): round trips against synthetic ground truth, and the
degenerate inputs."""

import numpy as np
import pytest
from scipy.optimize import least_squares

import geometry.joint_covariance as jc
from geometry.camera import Camera, rotation_look_at
from geometry.joint_covariance import (
    LINE_SIGMA_PX,
    LensPrior,
    click_rows,
    covariance,
    joint_covariance,
    line_rows,
    line_weights,
    measured_line_sigma_px,
    predicted_sd_px,
    worst_in_view,
)
from geometry.line_ridges import Ridges

SIZE = (1280, 720)
# a 10 x 20 m court seen from behind its near end (y = -10)
COURT = np.array([[x, y, 0.0] for x in (-5, 0, 5) for y in (-10, -5, 0, 5, 10)])
# three clicks on the near end line and two 1 m off it: nearly collinear
NEAR_LINE = np.array([[-5, -10, 0], [0, -10, 0], [5, -10, 0], [-4, -9, 0], [4, -9, 0]], float)
# four on the end line and one off it: 5 + 2 constraints for 7 parameters, here degenerate
FOUR_ON_LINE = np.array([[-5, -10, 0], [-2, -10, 0], [2, -10, 0], [5, -10, 0], [0, -9, 0]], float)
LINES = [  # the court's outline and centre line, (M, 3) metres
    np.array([[-5, -10, 0], [5, -10, 0]], float),
    np.array([[5, -10, 0], [5, 10, 0]], float),
    np.array([[5, 10, 0], [-5, 10, 0]], float),
    np.array([[-5, 10, 0], [-5, -10, 0]], float),
    np.array([[-5, 0, 0], [5, 0, 0]], float),
]


def _camera(k1: float = 0.0) -> Camera:
    centre = np.array([0.0, -30.0, 9.0])
    R = rotation_look_at(centre, np.array([0.0, 0.0, 0.0]))
    K = np.array([[1100.0, 0.0, 639.5], [0.0, 1100.0, 359.5], [0.0, 0.0, 1.0]])
    return Camera(K, R, -R @ centre, SIZE, dist=np.array([k1, 0, 0, 0, 0.0]))


def _ridges(cam: Camera, step_m: float = 0.5) -> Ridges:
    """Exact painted-line centres of the camera's lines every step_m (normals from the
    projected tangent)."""
    P, idx = [], []
    for k, pl in enumerate(LINES):
        a, b = pl
        n = int(np.linalg.norm(b - a) / step_m) + 1
        for s in np.linspace(0, 1, n):
            P.append(a + s * (b - a))
            idx.append(k)
    P = np.array(P)
    idx = np.array(idx)
    D = np.array([LINES[k][1] - LINES[k][0] for k in idx])
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    t = cam.project(P + 0.05 * D) - cam.project(P - 0.05 * D)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    normals = np.stack([-t[:, 1], t[:, 0]], axis=1)
    return Ridges(P, cam.project(P), normals, idx, np.bincount(idx))


def _worst(model, theta, cov) -> float:
    uv, sd = predicted_sd_px(model, theta, cov, COURT, SIZE)
    return worst_in_view(uv, sd, SIZE)[0]


def test_lines_pin_what_collinear_clicks_do_not():
    cam = _camera()
    uv = cam.project(NEAR_LINE)
    m, th, cov_clicks = joint_covariance(cam, NEAR_LINE, uv, 1.0)
    m, th, cov_lines = joint_covariance(cam, NEAR_LINE, uv, 1.0, _ridges(cam), LINE_SIGMA_PX)
    clicks_only, with_lines = _worst(m, th, cov_clicks), _worst(m, th, cov_lines)
    assert clicks_only > 15  # the far court is extrapolated across the near line
    assert with_lines < 1.0  # the painted lines reach it
    # lines alone (no clicks) determine the camera too
    _, _, cov = joint_covariance(cam, None, None, 1.0, _ridges(cam), LINE_SIGMA_PX)
    assert _worst(m, th, cov) < 2.0


def test_prediction_matches_the_scatter_of_noisy_joint_refits(monkeypatch):
    """Round trip: clicks with 1 px noise and line centres with independent LINE_SIGMA_PX
    noise, refitted jointly (the rows line_refine fits) many times; the spread of a far
    keypoint's projection is what the joint covariance predicted (within 25 %), every
    sample counted as independent (as the simulated noise is)."""
    monkeypatch.setattr(jc, "COVARIANCE_LINE_SAMPLES", 1e9)
    cam = _camera()
    uv_true = cam.project(NEAR_LINE)
    rid = _ridges(cam, step_m=2.0)  # few samples per line: each counts in full
    assert np.all(line_weights(rid) == 1.0)
    model, theta0, cov = joint_covariance(cam, NEAR_LINE, uv_true, 1.0, rid, LINE_SIGMA_PX)
    far = np.array([[5.0, 10.0, 0.0]])
    sd = predicted_sd_px(model, theta0, cov, far, SIZE)[1][0]
    rng = np.random.default_rng(7)
    errs = []
    w = np.ones(len(rid))
    for _ in range(120):
        x = uv_true + rng.normal(0, 1.0, uv_true.shape)
        q = rid.uv + rng.normal(0, LINE_SIGMA_PX, len(rid))[:, None] * rid.normals
        noisy = Ridges(rid.points_world, q, rid.normals, rid.line, rid.tried)

        def res(th, noisy=noisy, x=x):
            r_l = line_rows(model, th, noisy, SIZE, LINE_SIGMA_PX, w)[0]
            return np.concatenate([r_l, click_rows(model, th, NEAR_LINE, x, SIZE, 1.0)[0]])

        th = least_squares(res, theta0, x_scale="jac").x
        uv = model.project_with_jacobian(th, far, SIZE)[0][0]
        errs.append(uv - cam.project(far)[0])
    rms = float(np.sqrt(np.mean(np.sum(np.array(errs) ** 2, axis=1))))
    assert sd == pytest.approx(rms, rel=0.25)


def test_a_line_counts_as_two_samples_however_densely_it_is_sampled():
    """Samples along one line share its errors: sampling it 10x more densely must not make
    the camera look 3x more certain (it would with independent samples)."""
    cam = _camera()
    uv = cam.project(NEAR_LINE)
    worst = []
    for step_m in (1.0, 0.1):
        m, th, cov = joint_covariance(cam, NEAR_LINE, uv, 1.0, _ridges(cam, step_m), LINE_SIGMA_PX)
        worst.append(_worst(m, th, cov))
    assert worst[1] == pytest.approx(worst[0], rel=0.1)
    assert worst[1] > 0.5  # 2 samples a line at 0.7 px: not the 0.1 px of 400 independent ones


def test_a_loose_lens_prior_widens_the_prediction():
    cam = _camera()
    uv = cam.project(NEAR_LINE)
    rid = _ridges(cam)
    worst = {}
    for s in (0.01, 0.1, 1.0):
        m, th, cov = joint_covariance(cam, NEAR_LINE, uv, 1.0, None, prior=LensPrior((0.0,), (s,)))
        assert m.name == "simple_k1"  # a pinhole held with its uncertainty gains k1
        worst[s] = _worst(m, th, cov)
    assert worst[0.01] < worst[0.1] < worst[1.0]
    # a held k1 of 1e-3 is the pinhole's prediction
    m0, th0, cov0 = joint_covariance(cam, NEAR_LINE, uv, 1.0)
    m, th, cov = joint_covariance(cam, NEAR_LINE, uv, 1.0, prior=LensPrior((0.0,), (1e-3,)))
    assert _worst(m, th, cov) == pytest.approx(_worst(m0, th0, cov0), rel=0.02)
    # lines pin the lens too: with them a loose prior costs little
    m, th, cov = joint_covariance(cam, NEAR_LINE, uv, 1.0, rid, prior=LensPrior((0.0,), (1.0,)))
    assert _worst(m, th, cov) < 2.0


def test_clicks_that_cannot_pin_the_camera_are_singular_until_lines_do():
    cam = _camera()
    uv = cam.project(FOUR_ON_LINE)
    m, th, cov = joint_covariance(cam, FOUR_ON_LINE, uv, 1.0)
    assert m.name == "simple"
    assert np.all(np.isinf(predicted_sd_px(m, th, cov, COURT, SIZE)[1]))
    m, th, cov = joint_covariance(cam, FOUR_ON_LINE, uv, 1.0, _ridges(cam), LINE_SIGMA_PX)
    assert _worst(m, th, cov) < 1.0
    # a free lens and four clicks: 8 rows for 8 parameters, no redundancy
    lens = _camera(k1=0.1)
    m, th, cov = joint_covariance(lens, FOUR_ON_LINE[:4], lens.project(FOUR_ON_LINE[:4]), 1.0)
    assert m.name == "simple_k1"
    assert not np.all(np.isfinite(cov))


@pytest.mark.parametrize(
    "rows",
    [np.zeros((0, 7)), np.zeros((10, 7)), np.full((10, 7), np.nan), np.ones((10, 7))],
    ids=["no rows", "zero column", "nan", "rank one"],
)
def test_degenerate_rows_give_an_infinite_covariance(rows):
    assert np.all(np.isinf(covariance(rows)))


def test_no_clicks_no_lines_is_infinite():
    cam = _camera()
    m, th, cov = joint_covariance(cam)
    assert np.isinf(_worst(m, th, cov))


def test_measured_line_noise_has_a_floor_and_ignores_outliers():
    w = np.ones(200)
    rng = np.random.default_rng(0)
    assert measured_line_sigma_px(rng.normal(0, 0.2, 200), w) == LINE_SIGMA_PX
    d = rng.normal(0, 1.2, 200)
    assert measured_line_sigma_px(d, w) == pytest.approx(1.2, rel=0.2)
    d[:20] = 40.0  # ridges on a player: not noise
    assert measured_line_sigma_px(d, w) < 1.5
    assert measured_line_sigma_px(np.zeros(1), np.ones(1)) == LINE_SIGMA_PX


def test_nothing_in_view():
    uv = np.array([[-10.0, 5.0], [np.nan, np.nan]])
    worst, k = worst_in_view(uv, np.array([1.0, 2.0]), SIZE)
    assert np.isnan(worst) and k is None

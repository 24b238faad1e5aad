"""The compiled one-focal camera fit (geometry._projection_kernels.one_focal_refine, which
geometry.levenberg_marquardt.refine takes for one-focal models) against the NumPy loop it
replaces (minimise_rows on the model's projector, kept as the oracle): the same optimum, steps
and verdicts on warm and cold starts, lenses, noise, and the degenerate starts (not finite,
singular, a focal step through zero)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from geometry._projection_kernels import one_focal_refine
from geometry.camera_params import ParamModel
from geometry.levenberg_marquardt import (
    REL_COST_TOL,
    focal_stays_positive,
    minimise_rows,
    refine,
)

SIZE = (1280, 720)


def _numpy_refine(model, theta0, X, uv, max_iter=100):
    """The loop refine ran before: minimise_rows on the model's projector."""
    project = model.projector(X, SIZE)
    flat = np.asarray(uv, float).ravel()

    def rows(theta):
        pred, J = project(theta)
        return pred.ravel() - flat, J

    return minimise_rows(rows, theta0, max_iter, valid=focal_stays_positive(model))


def _problem(rng, n_radial, n_points, noise_px):
    """A camera above a 24 x 11 m court looking at it, its points' clicks with noise, and a
    start perturbed from the truth."""
    model = ParamModel(("simple", "simple_k1", "simple_k1k2")[n_radial])
    X = np.column_stack([rng.uniform(0, 24, n_points), rng.uniform(0, 11, n_points)])
    X = np.column_stack([X, rng.choice([0.0, 0.0, 1.07], n_points)])
    rvec, _ = cv2.Rodrigues(np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], float))
    rvec = rvec.ravel() + rng.normal(0, 0.05, 3)
    R = cv2.Rodrigues(rvec)[0]
    C = np.array([12 + rng.normal(0, 2), -25 + rng.normal(0, 3), 8 + rng.normal(0, 2)])
    # aim roughly at the court's middle: adjust with the look-at of the rotation's third row
    z = np.array([12.0, 5.5, 0.0]) - C
    z /= np.linalg.norm(z)
    x = np.cross(z, [0, 0, 1.0])
    x /= np.linalg.norm(x)
    R = np.array([x, np.cross(z, x), z])
    rvec = cv2.Rodrigues(R)[0].ravel() + rng.normal(0, 0.01, 3)
    R = cv2.Rodrigues(rvec)[0]
    t = -R @ C
    f = rng.uniform(900, 2500)
    lens = [rng.normal(0, 0.1), rng.normal(0, 0.05)][:n_radial]
    truth = np.concatenate([rvec, t, [f], lens])
    uv = model.project_with_jacobian(truth, X, SIZE)[0] + rng.normal(0, noise_px, (n_points, 2))
    start = truth + np.concatenate(
        [rng.normal(0, 0.01, 3), rng.normal(0, 0.2, 3), [f * rng.normal(0, 0.03)]]
        + [rng.normal(0, 0.02, n_radial)]
    )
    return model, X, uv, start


@pytest.mark.parametrize("n_radial", [0, 1, 2])
def test_the_compiled_fit_reaches_the_numpy_loops_optimum(n_radial):
    rng = np.random.default_rng(40 + n_radial)
    worst_px = 0.0
    same_steps = 0
    for k in range(60):
        model, X, uv, start = _problem(rng, n_radial, int(rng.integers(6, 20)), [0, 0.5, 2][k % 3])
        want = _numpy_refine(model, start, X, uv)
        got = refine(model, start, X, uv, SIZE)
        assert got.converged == want.converged
        assert got.cost == pytest.approx(want.cost, rel=1e-8, abs=1e-12)
        uv_want = model.project_with_jacobian(want.theta, X, SIZE)[0]
        uv_got = model.project_with_jacobian(got.theta, X, SIZE)[0]
        worst_px = max(worst_px, float(np.max(np.abs(uv_got - uv_want))))
        np.testing.assert_allclose(got.residuals.ravel(), want.residuals, atol=1e-6)
        np.testing.assert_allclose(got.jacobian, want.jacobian, rtol=1e-6, atol=1e-6)
        same_steps += got.iterations == want.iterations
    assert worst_px < 1e-6
    assert same_steps >= 55  # the stopping test may fall one step either side of rounding


def test_a_warm_start_takes_the_same_steps_and_verdicts():
    # six clicks for seven parameters' worth of rows: the normal equations are poorly
    # conditioned, so the two roundings part at 5e-10 of theta, far inside a pixel's 1e-6
    rng = np.random.default_rng(7)
    model, X, uv, start = _problem(rng, 0, 6, 0.3)
    want = _numpy_refine(model, start, X, uv)
    got = refine(model, start, X, uv, SIZE)
    assert (got.iterations, got.converged) == (want.iterations, want.converged)
    np.testing.assert_allclose(got.theta, want.theta, rtol=1e-8, atol=1e-10)
    uv_got = model.project_with_jacobian(got.theta, X, SIZE)[0]
    uv_want = model.project_with_jacobian(want.theta, X, SIZE)[0]
    assert np.max(np.abs(uv_got - uv_want)) < 1e-6


def test_iteration_limits_and_exact_clicks_agree():
    rng = np.random.default_rng(3)
    model, X, uv, start = _problem(rng, 1, 12, 0.0)
    for max_iter in (0, 1, 2, 100):
        want = _numpy_refine(model, start, X, uv, max_iter)
        got = refine(model, start, X, uv, SIZE, max_iter=max_iter)
        assert got.iterations == want.iterations
        np.testing.assert_allclose(got.theta, want.theta, rtol=1e-9, atol=1e-9)
    assert refine(model, start, X, uv, SIZE, max_iter=0).theta.tolist() == start.tolist()
    assert refine(model, start, X, uv, SIZE).cost < 1e-12  # exact clicks: a zero residual


def test_a_start_that_is_not_finite_comes_back_unchanged():
    rng = np.random.default_rng(5)
    model, X, uv, start = _problem(rng, 0, 8, 0.5)
    for bad in (np.nan, np.inf):
        s = start.copy()
        s[4] = bad
        want = _numpy_refine(model, s, X, uv)
        got = refine(model, s, X, uv, SIZE)
        assert (got.iterations, got.converged) == (0, False) == (want.iterations, want.converged)
        assert not np.isfinite(got.cost) and not np.isfinite(want.cost)
        np.testing.assert_array_equal(got.theta, s)


def test_a_point_on_the_cameras_plane_and_collinear_points_stay_finite_verdicts():
    rng = np.random.default_rng(9)
    model, X, uv, start = _problem(rng, 0, 8, 0.5)
    # every point on one world line: the rows cannot fix the camera; both loops end
    X_line = np.column_stack([np.linspace(0, 24, 8), np.full(8, 5.5), np.zeros(8)])
    uv_line = model.project_with_jacobian(start, X_line, SIZE)[0] + 0.5
    want = _numpy_refine(model, start, X_line, uv_line)
    got = refine(model, start, X_line, uv_line, SIZE)
    assert got.converged == want.converged and np.isfinite(got.cost)
    start_uv = model.project_with_jacobian(start, X_line, SIZE)[0]
    assert got.cost <= float(np.sum((uv_line - start_uv) ** 2)) + 1e-9
    # a point at the camera's depth zero (OpenCV's rule: taken as depth 1), a finite answer
    R = cv2.Rodrigues(start[:3])[0]
    C = -R.T @ start[3:6]
    on_plane = C + R[0] * 3.0  # along the camera's own x axis: Z = 0
    X2 = np.vstack([X, on_plane])
    uv2 = np.vstack([uv, [640.0, 360.0]])
    want = _numpy_refine(model, start, X2, uv2)
    got = refine(model, start, X2, uv2, SIZE)
    assert got.converged == want.converged
    assert got.cost == pytest.approx(want.cost, rel=1e-6)


def test_the_focal_length_never_steps_through_zero():
    rng = np.random.default_rng(11)
    model, X, uv, start = _problem(rng, 0, 10, 0.5)
    s = start.copy()
    s[6] = 1e-3  # a start at a tiny focal: steps that cross zero are damped instead
    start_cost = float(np.sum((model.project_with_jacobian(s, X, SIZE)[0] - uv) ** 2))
    got = refine(model, s, X, uv, SIZE)
    assert 0 < got.theta[6] and got.cost <= start_cost
    # (from so far off, the path is chaotic: the NumPy loop ends elsewhere, as positive)
    assert _numpy_refine(model, s, X, uv).theta[6] > 0


def test_bad_layouts_are_refused():
    X = np.zeros((4, 3))
    with pytest.raises(ValueError, match="uv_flat"):
        one_focal_refine(
            cv2.Rodrigues, np.ones(7), 0, 640.0, 360.0, X, np.zeros(7), 10, REL_COST_TOL
        )
    with pytest.raises(ValueError, match="theta0"):
        one_focal_refine(
            cv2.Rodrigues, np.ones(8), 0, 640.0, 360.0, X, np.zeros(8), 10, REL_COST_TOL
        )
    with pytest.raises(ValueError, match="n_radial"):
        one_focal_refine(
            cv2.Rodrigues, np.ones(10), 3, 640.0, 360.0, X, np.zeros(8), 10, REL_COST_TOL
        )

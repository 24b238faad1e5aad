"""The compiled Levenberg-Marquardt loop (geometry._projection_kernels: one_focal_refine, which
geometry.levenberg_marquardt.refine takes for one-focal models, and minimise_rows_loop behind
levenberg_marquardt.minimise_rows) against the NumPy loop it replaces (kept here as the
oracle): the same optimum, steps and verdicts on warm and cold starts, lenses, noise, the full
model, the line refinement's robust rows, and the degenerate starts (not finite, singular, a
focal step through zero, rows that change their count)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from geometry._projection_kernels import one_focal_refine
from geometry.camera_params import ParamModel
from geometry.levenberg_marquardt import (
    REL_COST_TOL,
    RowsResult,
    focal_stays_positive,
    minimise_rows,
    refine,
)

SIZE = (1280, 720)


def _numpy_minimise_rows(
    rows,
    theta0: np.ndarray,
    max_iter: int = 100,
    rel_cost_tol: float = REL_COST_TOL,
    valid=None,
) -> RowsResult:
    """levenberg_marquardt.minimise_rows as it was in NumPy before 2026-12-04 (the oracle):
    minimise |r(theta)|^2 over theta from theta0 by Levenberg-Marquardt.

    rows: theta (P,) -> (r (M,), J (M, P)), residual rows and their Jacobian; valid: theta ->
    False for a step to refuse (it is damped further instead). Stops when a step lowers the
    cost by less than rel_cost_tol of it, the step is negligible, or no damping finds a
    downhill step (a local minimum). Marquardt's scaling by diag(J^T J) keeps metres, radians
    and pixels of focal length on one footing. Rows that are not finite at theta0 give
    theta0 back, not converged, with its cost (NaN or inf): no step can be judged.
    """
    theta = np.array(theta0, dtype=float)
    r, J = rows(theta)
    cost = float(r @ r)
    if not (math.isfinite(cost) and np.all(np.isfinite(J))):
        return RowsResult(theta, r, J, cost, 0, False)
    diag = np.diag_indices(len(theta))
    lam = 1e-3
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (reported after the loop)
        JtJ = J.T @ J
        minus_g = -(J.T @ r)
        d = np.maximum(JtJ[diag], 1e-12)  # Marquardt's scaling, diag(J^T J)
        improved = False
        while lam < 1e8:
            A = JtJ.copy()
            A[diag] += lam * d
            try:
                step = np.linalg.solve(A, minus_g)
            except np.linalg.LinAlgError:  # singular at this damping
                lam *= 10
                continue
            cand = theta + step
            if valid is not None and not valid(cand):
                lam *= 10
                continue
            r_c, J_c = rows(cand)
            cost_c = float(r_c @ r_c)
            if math.isfinite(cost_c) and cost_c <= cost:
                rel = (cost - cost_c) / max(cost, 1e-30)
                theta, J, r, cost = cand, J_c, r_c, cost_c
                lam = max(lam / 10, 1e-12)
                improved = True
                small_step = math.sqrt(step @ step) <= 1e-12 * (1 + math.sqrt(theta @ theta))
                if rel < rel_cost_tol or small_step or cost < 1e-20:
                    converged = True
                break
            lam *= 10
        if not improved:
            converged = True  # no downhill step exists at any damping: a (local) minimum
            break
        if converged:
            break
    return RowsResult(theta, r, J, cost, it, converged)


def _numpy_refine(model, theta0, X, uv, max_iter=100):
    """The loop refine ran before: minimise_rows on the model's projector."""
    project = model.projector(X, SIZE)
    flat = np.asarray(uv, float).ravel()

    def rows(theta):
        pred, J = project(theta)
        return pred.ravel() - flat, J

    return _numpy_minimise_rows(rows, theta0, max_iter, valid=focal_stays_positive(model))


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


def test_minimise_rows_on_python_rows_matches_the_numpy_loop():
    """A curve fit through a Python rows callable, a refused region, and the full model
    (12 parameters) through its own projector."""
    rng = np.random.default_rng(21)
    t = np.linspace(0, 4, 40)
    y = 2.5 * np.exp(-0.7 * t) + 0.3 + rng.normal(0, 0.01, t.size)

    def rows(theta):
        e = np.exp(-theta[1] * t)
        r = theta[0] * e + theta[2] - y
        return r, np.column_stack([e, -theta[0] * t * e, np.ones_like(t)])

    for start in ([1.0, 0.1, 0.0], [5.0, 2.0, 1.0]):
        want = _numpy_minimise_rows(rows, np.array(start))
        got = minimise_rows(rows, np.array(start))
        assert (got.iterations, got.converged) == (want.iterations, want.converged)
        np.testing.assert_allclose(got.theta, want.theta, rtol=1e-9)
        np.testing.assert_allclose(got.residuals, want.residuals, atol=1e-9)

    def positive_rate(theta):
        return bool(theta[1] > 0.75)  # refuses the optimum's side: steps damped instead

    want = _numpy_minimise_rows(rows, np.array([2.0, 1.5, 0.0]), valid=positive_rate)
    got = minimise_rows(rows, np.array([2.0, 1.5, 0.0]), valid=positive_rate)
    assert got.theta[1] > 0.75 and want.theta[1] > 0.75
    assert got.cost == pytest.approx(want.cost, rel=1e-9)

    full = ParamModel("full", True)
    model, X, uv, start = _problem(rng, 0, 14, 0.5)
    th = np.concatenate([start[:6], [start[6], start[6]], [639.5, 359.5], [0.0, 0.0]])
    project = full.projector(X, SIZE)

    def full_rows(theta):
        pred, J = project(theta)
        return pred.ravel() - uv.ravel(), J

    want = _numpy_minimise_rows(full_rows, th)
    got = refine(full, th, X, uv, SIZE)
    assert got.converged == want.converged
    assert got.cost == pytest.approx(want.cost, rel=1e-6)


def test_the_line_fit_reaches_the_numpy_loops_camera():
    """line_refine's robust fit (line and click rows, a lens prior) through the compiled loop
    and through the NumPy one: the same camera within 1e-6 px at the court's keypoints."""
    import geometry.line_refine as lr
    from court_specs import load_spec
    from courtstudio.pipeline.propagation_court import ground_lines
    from courtstudio.synth.synthetic import sample_broadcast_camera
    from geometry.joint_covariance import LensPrior
    from geometry.line_ridges import find_ridges
    from geometry.projection import densify_all, project_polylines

    spec = load_spec("tennis")
    lines = ground_lines(spec)
    rng = np.random.default_rng(33)
    cam = sample_broadcast_camera(spec, SIZE, rng, zoom=(0.9, 1.2))
    img = np.full((SIZE[1], SIZE[0]), 70, np.uint8)
    for run in project_polylines(cam, *densify_all(lines, 0.25)):
        cv2.polylines(img, [np.round(run).astype(np.int32)], False, 230, 3, cv2.LINE_AA)
    model = ParamModel("simple_k1")
    theta0 = np.concatenate([model.from_camera(cam)[:7] * (1 + 1e-4), [0.0]])
    ridges = find_ridges(cv2.GaussianBlur(img, (3, 3), 0).astype(np.float32), cam, lines, 8.0)
    assert len(ridges) > 100
    names = ["far_left_corner", "far_right_corner", "near_left_corner", "near_right_corner"]
    X = np.array([spec.keypoints[n] for n in names], float)
    x = cam.project(X) + rng.normal(0, 0.5, (4, 2))
    prior = LensPrior((0.0,), (0.3,))
    got = lr._fit(model, theta0, ridges, X, x, SIZE, 1.0, prior)
    real = lr.minimise_rows
    try:
        lr.minimise_rows = _numpy_minimise_rows
        want = lr._fit(model, theta0, ridges, X, x, SIZE, 1.0, prior)
    finally:
        lr.minimise_rows = real
    P = np.array(list(spec.keypoints.values()), float)
    uv_got = model.project_with_jacobian(got[0], P, SIZE)[0]
    uv_want = model.project_with_jacobian(want[0], P, SIZE)[0]
    assert np.max(np.abs(uv_got - uv_want)) < 1e-6
    assert got[1] == pytest.approx(want[1], rel=1e-9)


def test_rows_that_change_their_count_or_shape_are_refused():
    calls = []

    def rows(theta):
        calls.append(1)
        n = 5 if len(calls) == 1 else 6  # a different count after the start
        return np.zeros(n) + theta[0], np.ones((n, 2))

    with pytest.raises(ValueError, match="rows gave"):
        minimise_rows(rows, np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="J \\(M, 2\\)"):
        minimise_rows(lambda th: (np.zeros(4), np.ones((4, 3))), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="1-16 parameters"):
        minimise_rows(lambda th: (np.zeros(4), np.ones((4, 17))), np.ones(17))

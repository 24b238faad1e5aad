"""A small Levenberg-Marquardt loop for camera fits (a handful of parameters, tens of points).

scipy.optimize.least_squares and cv2.calibrateCamera reach the same optimum, but from the same
start take 0.53 and 0.43 ms CPU against this loop's 0.17 ms (median over 700 synthetic cameras,
bench/solver_vs_opencv.py, 2026-12-01; docs/solver.md), and the solver runs on every drag of a
keypoint in the app. Since 2026-12-04 the loop is compiled (geometry._projection_kernels):
0.054 ms against scipy's 0.46 ms in the same minutes (800 cameras).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from geometry._projection_kernels import minimise_rows_loop, one_focal_refine
from geometry.camera import image_centre_uv
from geometry.camera_params import ParamModel


@dataclass(frozen=True)
class LMResult:
    theta: np.ndarray  # (P,)
    residuals: np.ndarray  # (N, 2) pixels, projected - observed
    jacobian: np.ndarray  # (2N, P) at theta
    cost: float  # sum of squared residuals, px^2
    iterations: int
    converged: bool


REL_COST_TOL = 1e-10
Projector = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def _projector(model: Any, points_world: np.ndarray, image_size: tuple[int, int]) -> Projector:
    """theta -> (uv (N, 2), J (2N, P)): the model's own projector when it has one (its layout
    built once per fit), else its project_with_jacobian."""
    if hasattr(model, "projector"):
        return model.projector(points_world, image_size)  # type: ignore[no-any-return]
    return lambda theta: model.project_with_jacobian(theta, points_world, image_size)


Rows = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class RowsResult:
    theta: np.ndarray  # (P,)
    residuals: np.ndarray  # (M,) the rows at theta
    jacobian: np.ndarray  # (M, P) at theta
    cost: float  # sum of squared rows
    iterations: int
    converged: bool


def focal_stays_positive(model: Any) -> Callable[[np.ndarray], bool] | None:
    """minimise_rows' ``valid`` for a model's parameters: a one-focal model's focal length
    (theta[6]) must stay positive; None (every step valid) for the others."""
    if getattr(model, "one_focal", False):
        return lambda theta: bool(theta[6] > 0)
    return None


def minimise_rows(
    rows: Rows,
    theta0: np.ndarray,
    max_iter: int = 100,
    rel_cost_tol: float = REL_COST_TOL,
    valid: Callable[[np.ndarray], bool] | None = None,
) -> RowsResult:
    """Minimise |r(theta)|^2 over theta from theta0 by Levenberg-Marquardt.

    rows: theta (P,) -> (r (M,), J (M, P)), residual rows and their Jacobian, M the same at
    every theta (P at most 16); valid: theta -> False for a step to refuse (it is damped
    further instead). Stops when a step lowers the cost by less than rel_cost_tol of it, the
    step is negligible, or no damping finds a downhill step (a local minimum). Marquardt's
    scaling by diag(J^T J) keeps metres, radians and pixels of focal length on one footing.
    Rows that are not finite at theta0 give theta0 back, not converged, with its cost (NaN or
    inf): no step can be judged.

    The loop is compiled (geometry._projection_kernels.minimise_rows_loop; rows and valid
    are called back): its normal equations are summed and solved in C, where this loop's
    NumPy form called BLAS and LAPACK, so the two part in the last bits
    (tests/test_one_focal_refine.py keeps that form as the oracle). A line refinement's robust
    fit takes about ten iterations of some 30 NumPy calls each around its rows.
    """
    theta, r, J, cost, it, converged = minimise_rows_loop(
        rows, np.asarray(theta0, dtype=float), int(max_iter), float(rel_cost_tol), valid
    )
    return RowsResult(theta, r, J, float(cost), int(it), bool(converged))


def _refine_one_focal(
    model: ParamModel,
    theta0: np.ndarray,
    points_world: np.ndarray,
    uv: np.ndarray,
    image_size: tuple[int, int],
    max_iter: int,
) -> LMResult:
    """refine for a one-focal ParamModel: minimise_rows's loop on the projection's rows,
    compiled (geometry._projection_kernels.one_focal_refine: the same steps and stopping
    rules; the normal equations summed and solved in C, so the last bits differ from NumPy's
    BLAS and LAPACK). A warm propagation frame's fit: 4 iterations, 0.15-0.25 ms of Python
    a frame before."""
    cx, cy = (float(c) for c in image_centre_uv(image_size))
    theta, r, J, cost, iterations, converged = one_focal_refine(
        cv2.Rodrigues,
        np.asarray(theta0, dtype=float),
        model.n_radial,
        cx,
        cy,
        np.ascontiguousarray(points_world, dtype=float),
        np.ascontiguousarray(uv, dtype=float).ravel(),
        int(max_iter),
        REL_COST_TOL,
    )
    return LMResult(theta, r.reshape(-1, 2), J, float(cost), int(iterations), bool(converged))


def refine(
    model: ParamModel,
    theta0: np.ndarray,
    points_world: np.ndarray,
    uv: np.ndarray,
    image_size: tuple[int, int],
    max_iter: int = 100,
) -> LMResult:
    """Minimise sum |project(theta, X) - uv|^2 over theta from theta0 (minimise_rows).

    points_world: (N, 3) metres; uv: (N, 2) pixels. A one-focal model's focal length
    (theta[6]) stays positive.
    """
    if type(model) is ParamModel and model.one_focal:
        return _refine_one_focal(model, theta0, points_world, uv, image_size, max_iter)
    project = _projector(model, points_world, image_size)
    uv_flat = np.asarray(uv, dtype=float).ravel()

    def rows(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pred, J = project(theta)
        return pred.ravel() - uv_flat, J

    res = minimise_rows(rows, theta0, max_iter, valid=focal_stays_positive(model))
    return LMResult(
        theta=res.theta,
        residuals=res.residuals.reshape(-1, 2),
        jacobian=res.jacobian,
        cost=res.cost,
        iterations=res.iterations,
        converged=res.converged,
    )

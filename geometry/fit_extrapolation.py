"""How far a fitted camera's uncertainty reaches beyond its points (docs/propagation.md, step 7).

A camera fitted to a few points nearly on one line is pinned down along that line and free
across it: its projections of the points themselves agree with them, while other court
keypoints in view may be far off. The fit's covariance says so before any error is seen: the
predicted 1-sigma error of a projected point, per px of noise on the fitted points, is at
most sqrt(2) at the fitted points (their leverage, on two image axes) and grows with the
distance from them across the line they nearly lie on. Its largest value over the keypoints
in the picture is the fit's *extrapolation gain*, a pure number (px per px) independent of
the image's resolution.
"""

from __future__ import annotations

import numpy as np

from geometry.arrays import as_array
from geometry.calibration import CameraFit

NOISE_FLOOR_PX = 1.0  # solve_camera's default click noise: the floor of fit_noise_px


def predicted_sd_per_px(fit: CameraFit, points_world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Predicted 1-sigma projection error of each world point, per px of fit noise.

    points_world: (N, 3) float64, metres, world frame. Returns (uv (N, 2) px, as the fit's
    model projects them; sd (N,) px per px): sqrt(trace(J_k (J^T J)^-1 J_k^T)), J the fit's
    Jacobian, J_k the point's (2, P) projection Jacobian; the fit's covariance divided by its
    sigma_px squared is (J^T J)^-1. At a fitted point sd is at most sqrt(2) (its leverage);
    a singular fit (infinite covariance) gives inf. Points behind the camera project to
    non-finite uv.

    >>> import numpy as np
    >>> from geometry.calibration import solve_camera
    >>> from geometry.camera import Camera, rotation_look_at
    >>> c = np.array([0.0, -20.0, 8.0])
    >>> R = rotation_look_at(c, np.zeros(3))
    >>> K = np.array([[1000.0, 0, 639.5], [0, 1000.0, 359.5], [0, 0, 1]])
    >>> cam = Camera(K, R, -R @ c, (1280, 720))
    >>> X = np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0], [0, 0, 0]], float)
    >>> fit = solve_camera(X, cam.project(X), (1280, 720), model="simple")
    >>> uv, sd = predicted_sd_per_px(fit, X)
    >>> bool(np.all(sd <= np.sqrt(2) + 1e-9))
    True
    """
    X = as_array("points_world", points_world, (None, 3))
    uv, J = fit.model.project_with_jacobian(fit.theta, X, fit.camera.image_size)
    C = fit.covariance / fit.sigma_px**2
    if not np.all(np.isfinite(C)):
        return uv, np.full(len(X), np.inf)
    Jk = J.reshape(len(X), 2, -1)  # rows u0, v0, u1, v1, ...
    var = np.einsum("kip,pq,kiq->k", Jk, C, Jk)
    return uv, np.sqrt(np.maximum(var, 0.0))


def extrapolation_gain(fit: CameraFit, points_world: np.ndarray) -> float:
    """The largest predicted_sd_per_px over the points that project inside the fit's image
    (px per px of fit noise); nan when none does.

    points_world: (N, 3) float64, metres, world frame (a court's keypoints). Large (tens)
    when the fitted points nearly lie on one line and other keypoints in view lie off it.
    """
    uv, sd = predicted_sd_per_px(fit, points_world)
    w, h = fit.camera.image_size
    with np.errstate(invalid="ignore"):
        inside = (uv[:, 0] >= 0) & (uv[:, 0] <= w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= h - 1)
    return float(np.max(sd[inside])) if inside.any() else float("nan")


def fit_noise_px(fit: CameraFit, floor_px: float = NOISE_FLOOR_PX) -> float:
    """The noise of the fitted points, 1-sigma px per axis, as solve_camera scales its
    covariance: sqrt(residual cost / (2N - P)), at least floor_px (floor_px when N points
    leave no spare equation). Unlike the calibration's estimate_click_sigma it uses no prior
    for few points, so the predictions of a reference and of its frames share one noise."""
    dof = 2 * len(fit.residuals_uv) - fit.model.size
    if dof <= 0:
        return float(floor_px)
    return max(float(floor_px), float(np.sqrt(np.sum(fit.residuals_uv**2) / dof)))

"""First-order propagation of calibration and click noise, and the Cramer-Rao bound.

A lifted point X = F(theta, clicks) has covariance J_theta S_theta J_theta^T + s^2 J_c J_c^T,
with S_theta the calibration's parameter covariance and s the click noise (px). Jacobians are
central differences: F is a few microseconds, so this is exact enough and needs no algebra
that would have to be kept in step with the lifting code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from geometry.arrays import as_array
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.rays import lift_ball


@dataclass(frozen=True)
class ParamCovariance:
    """A calibration's parameters and their covariance: model, theta (P,), matrix (P, P)."""

    model: ParamModel
    theta: np.ndarray
    matrix: np.ndarray

    def to_dict(self) -> dict:
        return {
            "model": self.model.name,
            "radial": self.model.radial,
            "param_names": self.model.names,
            "params": self.theta.tolist(),
            "matrix": self.matrix.tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "ParamCovariance":
        model = ParamModel(d["model"], bool(d.get("radial", False)))
        theta = as_array("covariance.params", d["params"], (model.size,))
        matrix = as_array("covariance.matrix", d["matrix"], (model.size, model.size))
        return cls(model=model, theta=theta, matrix=matrix)


def numeric_jacobian(
    fn: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    rel_step: float = 1e-6,
    abs_step: float = 1e-6,
) -> np.ndarray:
    """(M, P) central-difference Jacobian of fn: (P,) -> (M,) at x0."""
    x0 = np.asarray(x0, float)
    cols = []
    for i in range(x0.size):
        h = max(abs_step, rel_step * abs(x0[i]))
        xp, xm = x0.copy(), x0.copy()
        xp[i] += h
        xm[i] -= h
        cols.append((fn(xp) - fn(xm)) / (2 * h))
    return np.stack(cols, axis=1)


def lifted_ball_covariance(
    camera: Camera,
    uv_ball,
    uv_ground,
    plane_z: float,
    click_sigma_px: float,
    param_cov: ParamCovariance | None = None,
) -> np.ndarray:
    """(3, 3) m^2 covariance of the lifted ball (world frame) from both error sources.

    Without ``param_cov`` (a camera from elsewhere) only the click noise is propagated.
    """
    clicks0 = np.concatenate(
        [as_array("uv_ball", uv_ball, (2,)), as_array("uv_ground", uv_ground, (2,))]
    )

    def from_clicks(c):
        return lift_ball(camera, c[:2], c[2:], plane_z).world

    Jc = numeric_jacobian(from_clicks, clicks0, abs_step=1e-3)
    cov = click_sigma_px**2 * (Jc @ Jc.T)
    if param_cov is not None:
        model, size = param_cov.model, camera.image_size

        def from_theta(th):
            return lift_ball(model.to_camera(th, size), clicks0[:2], clicks0[2:], plane_z).world

        Jt = numeric_jacobian(from_theta, param_cov.theta)
        cov = cov + Jt @ param_cov.matrix @ Jt.T
    return cov


def cramer_rao_covariance(
    model: ParamModel,
    theta_true: np.ndarray,
    points_world: np.ndarray,
    image_size: tuple[int, int],
    sigma_px: float,
) -> np.ndarray:
    """(P, P) lower bound on any unbiased estimator's covariance: sigma^2 (J^T J)^-1 at truth.

    points_world: (N, 3) metres, the keypoints used; sigma_px: isotropic click noise.
    """
    _, J = model.project_with_jacobian(
        np.asarray(theta_true, float), as_array("points_world", points_world, (None, 3)), image_size
    )
    return sigma_px**2 * np.linalg.inv(J.T @ J)

"""The ball tool's result: lifted position, height and their 1-sigma uncertainty."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry.camera import Camera
from geometry.rays import lift_ball
from geometry.uncertainty import ParamCovariance, lifted_ball_covariance


@dataclass(frozen=True)
class BallResult:
    """world (3,) m; ground_world (3,) m; height_m above the plane; sigma_world_m (3,) 1-sigma
    along world x, y, z, metres; uv_ground_snapped (2,) px."""

    world: np.ndarray
    ground_world: np.ndarray
    height_m: float
    sigma_world_m: np.ndarray
    uv_ground_snapped: np.ndarray
    plane: str
    plane_z: float

    def to_json(self) -> dict:
        return {
            "world": [round(float(v), 5) for v in self.world],
            "height_m": round(self.height_m, 5),
            "sigma_world_m": [round(float(v), 5) for v in self.sigma_world_m],
            "sigma_cm": [round(float(v) * 100, 2) for v in self.sigma_world_m],
            "ground_world": [round(float(v), 5) for v in self.ground_world],
            "ground_uv_snapped": [round(float(v), 3) for v in self.uv_ground_snapped],
            "plane": self.plane,
            "plane_z": self.plane_z,
        }


def lift_ball_with_uncertainty(
    camera: Camera,
    uv_ball,
    uv_ground,
    plane: str,
    plane_z: float,
    click_sigma_px: float = 1.0,
    param_cov: ParamCovariance | None = None,
    uncertainty: bool = True,
) -> BallResult:
    """Lift the ball (geometry.rays.lift_ball) and propagate click and calibration noise.
    ``uncertainty=False`` skips the propagation (a few ms; the app skips it while a drag is
    under way): sigma_world_m is then NaN."""
    lift = lift_ball(camera, uv_ball, uv_ground, plane_z)
    if uncertainty:
        cov = lifted_ball_covariance(camera, uv_ball, uv_ground, plane_z, click_sigma_px, param_cov)
        sigma = np.sqrt(np.clip(np.diag(cov), 0, None))
    else:
        sigma = np.full(3, np.nan)
    return BallResult(
        world=lift.world,
        ground_world=lift.ground_world,
        height_m=lift.height_m,
        sigma_world_m=sigma,
        uv_ground_snapped=lift.uv_ground_snapped,
        plane=plane,
        plane_z=float(plane_z),
    )

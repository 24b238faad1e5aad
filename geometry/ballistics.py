"""Ball flights with constant acceleration (between a hit and the next bounce or hit).

p(t) = p0 + v0 (t - t0) + a (t - t0)^2 / 2, fitted by linear least squares to 3D points from the
ball tool (3 points determine it; more are fitted). Spin and drag bend real flights, so the
acceleration is free (not fixed to gravity) but must look like a flight: mostly downward and
within MAX_ACCEL_G of gravity, else the fit fails its quality check and the caller falls back
to per-frame annotation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array
from geometry.camera import Camera
from geometry.errors import GeometryError

GRAVITY = np.array([0.0, 0.0, -9.81])
MAX_ACCEL_G = 2.5  # |a - g| allowed, in g: spin and drag, not a different motion
MAX_RMS_M = 0.10


@dataclass(frozen=True)
class BallFlight:
    """t0 s; p0, v0, a (3,) metres, m/s, m/s^2 (world frame); residuals_m (N,) of the fitted
    points; ok and message from the quality check."""

    t0: float
    p0: np.ndarray
    v0: np.ndarray
    a: np.ndarray
    residuals_m: np.ndarray
    ok: bool
    message: str

    @property
    def rms_m(self) -> float:
        return float(np.sqrt(np.mean(self.residuals_m**2))) if len(self.residuals_m) else 0.0

    def position(self, times_s: ArrayLike) -> np.ndarray:
        """(N, 3) world positions at times (N,) seconds."""
        dt = np.asarray(times_s, float).reshape(-1, 1) - self.t0
        return self.p0 + self.v0 * dt + 0.5 * self.a * dt**2

    def reprojection_px(
        self, cameras: list[Camera], times_s: ArrayLike, uv: ArrayLike
    ) -> np.ndarray:
        """(N,) px: distance between each clicked ball pixel uv (N, 2) and the fitted ball
        projected by that frame's camera; the fit's residual against per-frame clicks."""
        P = self.position(times_s)
        uv = as_array("uv", uv, (len(P), 2))
        return np.array(
            [np.linalg.norm(c.project(p[None])[0] - q) for c, p, q in zip(cameras, P, uv)]
        )


def fit_flight(times_s: ArrayLike, points_world: ArrayLike) -> BallFlight:
    """Fit a constant-acceleration flight to N >= 3 points (N, 3) at distinct times (N,).

    Raises GeometryError for fewer than 3 points or repeated times."""
    t = as_array("times_s", times_s, (None,))
    P = as_array("points_world", points_world, (len(t), 3))
    if len(t) < 3:
        raise GeometryError(f"a flight needs at least 3 points (start, middle, end); got {len(t)}")
    if len(np.unique(t)) != len(t):
        raise GeometryError("two points of the flight have the same time")
    t0 = float(t.min())
    dt = t - t0
    A = np.column_stack([np.ones_like(dt), dt, 0.5 * dt**2])
    coef, *_ = np.linalg.lstsq(A, P, rcond=None)
    p0, v0, a = coef
    res = np.linalg.norm(A @ coef - P, axis=1)
    problems = []
    if np.linalg.norm(a - GRAVITY) > MAX_ACCEL_G * 9.81:
        problems.append(f"acceleration {np.linalg.norm(a):.1f} m/s^2 is not a flight's")
    if a[2] > 0:
        problems.append("the ball accelerates upward")
    if len(t) > 3 and np.sqrt(np.mean(res**2)) > MAX_RMS_M:
        problems.append(
            f"points are {np.sqrt(np.mean(res**2)) * 100:.0f} cm RMS off a "
            "parabola (a bounce or hit inside the segment?)"
        )
    msg = "; ".join(problems) if problems else "ok"
    return BallFlight(t0, p0, v0, a, res, not problems, msg)

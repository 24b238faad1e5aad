"""Camera parameter vectors for the solver and for covariance propagation.

Models (see docs/solver.md):

- ``simple`` (the pinhole): theta = (rx, ry, rz, tx, ty, tz, f); fx = fy = f, principal point
  at the image centre, no distortion (PromptHMR's assumption).
- ``simple_k1``: theta = (..., f, k1): the simple model plus OpenCV's first radial coefficient
  (normalised image coordinates), the one lens term real broadcast/webcam/phone frames need.
- ``simple_k1k2``: theta = (..., f, k1, k2).
- ``full``: theta = (rx, ry, rz, tx, ty, tz, fx, fy, cx, cy); with ``radial``, (..., k1, k2).

Every ``simple*`` model keeps f at theta[6], so a pinhole theta warm-starts any of them.

rvec is a Rodrigues vector (radians), t metres, focal lengths and principal point pixels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from geometry._projection_kernels import one_focal_point_rows
from geometry.arrays import as_array
from geometry.camera import Camera, image_centre_uv
from geometry.errors import GeometryError

# Columns of cv2.projectPoints' Jacobian: rvec 0-2, tvec 3-5, fx 6, fy 7, cx 8, cy 9, k1 10, k2 11.
# The one-focal models take rvec, tvec, fx (+ fy, added) and their radial terms.
MODEL_NAMES = ("simple", "simple_k1", "simple_k1k2", "full")


def _one_focal_points(
    theta: np.ndarray, X: np.ndarray, cx: float, cy: float, n_radial: int
) -> tuple[np.ndarray, np.ndarray]:
    """(uv (N, 2), J (2N, 7 + n_radial)) of a one-focal model's theta for world points X
    (N, 3) float64 C-contiguous, principal point (cx, cy): cv2.projectPoints's projection,
    bit for bit, and its Jacobian for these terms to rounding (3e-16 of its largest entry),
    without building the other intrinsics' columns (geometry._projection_kernels)."""
    R, dR_dr = cv2.Rodrigues(theta[:3])
    return one_focal_point_rows(
        R,
        dR_dr,
        np.ascontiguousarray(theta[3:6], dtype=float),
        float(theta[6]),
        float(theta[7]) if n_radial >= 1 else 0.0,
        float(theta[8]) if n_radial >= 2 else 0.0,
        n_radial,
        cx,
        cy,
        X,
    )


@dataclass(frozen=True)
class ParamModel:
    """Which camera parameters are free. ``name`` is one of MODEL_NAMES."""

    name: str
    radial: bool = False

    def __post_init__(self) -> None:
        if self.name not in MODEL_NAMES:
            raise GeometryError(
                f"model: expected one of {', '.join(MODEL_NAMES)}, got {self.name!r}"
            )
        if self.name != "full" and self.radial:
            raise GeometryError(f"model: radial applies to the full model only, not {self.name!r}")

    @property
    def one_focal(self) -> bool:
        """fx = fy = theta[6], principal point at the image centre."""
        return self.name != "full"

    @property
    def n_radial(self) -> int:
        """How many radial coefficients (k1, k2) are free."""
        if self.name == "full":
            return 2 if self.radial else 0
        return {"simple": 0, "simple_k1": 1, "simple_k1k2": 2}[self.name]

    @property
    def label(self) -> str:
        """The name users see: 'full' with radial reads 'full+radial'."""
        return "full+radial" if self.name == "full" and self.radial else self.name

    @property
    def names(self) -> list[str]:
        base = ["rx", "ry", "rz", "tx", "ty", "tz"]
        if self.one_focal:
            return base + ["f"] + ["k1", "k2"][: self.n_radial]
        return base + ["fx", "fy", "cx", "cy"] + (["k1", "k2"] if self.radial else [])

    @property
    def size(self) -> int:
        return len(self.names)

    def intrinsics(
        self, theta: np.ndarray, image_size: tuple[int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """theta (P,) -> K (3, 3), dist (5,). No validation: the solver's hot path."""
        if self.one_focal:
            c = image_centre_uv(image_size)
            K = np.array([[theta[6], 0, c[0]], [0, theta[6], c[1]], [0, 0, 1.0]])
            dist = np.zeros(5)
            dist[: self.n_radial] = theta[7 : 7 + self.n_radial]
            return K, dist
        K = np.array([[theta[6], 0, theta[8]], [0, theta[7], theta[9]], [0, 0, 1.0]])
        dist = np.zeros(5)
        if self.radial:
            dist[:2] = theta[10:12]
        return K, dist

    def to_camera(self, theta: np.ndarray, image_size: tuple[int, int]) -> Camera:
        """theta: (P,) -> Camera."""
        theta = as_array("theta", theta, (self.size,))
        K, dist = self.intrinsics(theta, image_size)
        R = cv2.Rodrigues(theta[:3])[0]
        return Camera(K=K, R=R, t=theta[3:6].copy(), image_size=image_size, dist=dist)

    def from_camera(self, cam: Camera) -> np.ndarray:
        """Camera -> theta (P,). For the one-focal models f is the mean of fx and fy; the
        camera's k1 (and k2) are carried over where the model has them."""
        rt = np.concatenate([cam.rvec, cam.t])
        if self.one_focal:
            return np.concatenate(
                [rt, [(cam.K[0, 0] + cam.K[1, 1]) / 2], cam.dist[: self.n_radial]]
            )
        intr = [cam.K[0, 0], cam.K[1, 1], cam.K[0, 2], cam.K[1, 2]]
        if self.radial:
            intr += [cam.dist[0], cam.dist[1]]
        return np.concatenate([rt, intr])

    def project_with_jacobian(
        self, theta: np.ndarray, points_world: np.ndarray, image_size: tuple[int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Project (N, 3) world points; return uv (N, 2) pixels and J (2N, P) d(uv)/d(theta).

        Rows of J are ordered u0, v0, u1, v1, ...
        """
        if self.one_focal and type(self) is ParamModel:  # the projector's arithmetic, without
            # laying one out (a subclass, as geometry.held_lens's, projects through its own)
            cx, cy = image_centre_uv(image_size)
            X = np.ascontiguousarray(points_world, dtype=float)
            return _one_focal_points(theta, X, float(cx), float(cy), self.n_radial)
        return self.projector(points_world, image_size)(theta)

    def projector(
        self, points_world: np.ndarray, image_size: tuple[int, int]
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """theta (P,) -> (uv (N, 2) pixels, J (2N, P)) for fixed (N, 3) world points: the
        solver's hot path, with K, the distortion vector and the Jacobian's columns laid out
        once per fit instead of once per evaluation. Each call returns new arrays."""
        n_radial = self.n_radial
        if self.one_focal:
            cx, cy = (float(c) for c in image_centre_uv(image_size))
            X = np.ascontiguousarray(points_world, dtype=float)

            def project_one_focal(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                return _one_focal_points(theta, X, cx, cy, n_radial)

            return project_one_focal
        n_cols = 10 + n_radial
        K = np.zeros((3, 3))
        K[2, 2] = 1.0
        dist = np.zeros(5)

        def project_full(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            K[0, 0], K[1, 1], K[0, 2], K[1, 2] = theta[6:10]
            dist[:n_radial] = theta[10 : 10 + n_radial]
            uv, jac = cv2.projectPoints(points_world, theta[:3], theta[3:6], K, dist)
            return uv.reshape(-1, 2), jac[:, :n_cols]

        return project_full


def camera_centre_jacobian(model: ParamModel, theta: np.ndarray) -> np.ndarray:
    """(3, P) d(C)/d(theta) for C = -R(r)^T t; rvec part by central differences."""
    J = np.zeros((3, model.size))
    R = cv2.Rodrigues(theta[:3])[0]
    t = theta[3:6]
    J[:, 3:6] = -R.T
    h = 1e-7
    for k in range(3):
        dp = theta[:3].copy()
        dm = theta[:3].copy()
        dp[k] += h
        dm[k] -= h
        cp = -cv2.Rodrigues(dp)[0].T @ t
        cm = -cv2.Rodrigues(dm)[0].T @ t
        J[:, k] = (cp - cm) / (2 * h)
    return J

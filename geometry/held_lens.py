"""A camera fit with a known lens held fixed: pose and focal length refitted, the distortion
kept as a field over the image (docs/propagation.md, "Lens distortion").

A propagated frame that shows only a few of its reference's keypoints cannot determine the
lens (k1 needs more points than the pinhole), yet the lens is still there: dropping it for a
pinhole left real frames 7-16 px off at court corners the points do not cover (BENCHMARKS.md,
volleyball pans). The reference's lens is known, so it is held and only the pinhole
parameters theta = (rvec, t, f) are fitted.

What is held is the reference's *pixel field* (geometry.pixel_lens.PixelLens): the map from
ideal to distorted pixels about the image centre, whatever the focal length. Propagation
registers every frame in that field's ideal pixels and bends the transferred keypoints back
with it, so a camera that holds the same field reproduces exactly what registration measured.
In OpenCV's normalised coefficients the field at focal f is (k1 s^2, k2 s^4, 0, 0, k3 s^6),
s = f / f_field: under a zoom the normalised coefficients follow the focal length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from geometry.calibration import (
    CameraFit,
    _check_plausible,
    _make_fit,
    _pose_problem,
    check_correspondences,
    solve_camera,
)
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.errors import CalibrationError
from geometry.levenberg_marquardt import LMResult, refine
from geometry.pixel_lens import PixelLens


def field_dist(lens: PixelLens, focal_px: float) -> np.ndarray:
    """(5,) OpenCV coefficients that draw ``lens``'s pixel field with focal length focal_px
    (principal point at the lens's): k1 (f / f_lens)^2, k2 (f / f_lens)^4, k3 (f / f_lens)^6;
    the tangential terms are dropped (the one-focal models have none)."""
    s2 = (float(focal_px) / float(lens.K[0, 0])) ** 2
    d = lens.dist
    return np.array([d[0] * s2, d[1] * s2**2, 0.0, 0.0, d[4] * s2**3])


@dataclass(frozen=True)
class HeldLensModel(ParamModel):
    """The pinhole's parameters theta = (rx, ry, rz, tx, ty, tz, f) (ParamModel 'simple'),
    projected through a fixed pixel field ``lens``: a pinhole projection u_i, then
    u = c + (u_i - c) g(|u_i - c|^2 / f_lens^2), g = 1 + k1 s + k2 s^2 + k3 s^3 (the field's
    radial terms, c its principal point). The field's principal point must be the image
    centre, as the one-focal models put it."""

    name: str = "simple"
    lens: PixelLens | None = None

    def to_camera(self, theta: np.ndarray, image_size: tuple[int, int]) -> Camera:
        cam = super().to_camera(theta, image_size)
        if self.lens is None:
            return cam
        return Camera(cam.K, cam.R, cam.t, cam.image_size, dist=field_dist(self.lens, theta[6]))

    def projector(
        self, points_world: np.ndarray, image_size: tuple[int, int]
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """theta -> (uv (N, 2) distorted pixels, J (2N, 7)): the pinhole's projection and
        Jacobian, chained through the field's (2, 2) derivative at each ideal pixel."""
        pinhole = super().projector(points_world, image_size)
        lens = self.lens
        if lens is None:
            return pinhole
        c = lens.K[:2, 2]
        f_lens = float(lens.K[0, 0])
        k1, k2, k3 = lens.dist[0], lens.dist[1], lens.dist[4]

        def project(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            uv_i, J_i = pinhole(theta)
            d = uv_i - c
            s = np.sum(d * d, axis=1) / f_lens**2
            g = 1 + s * (k1 + s * (k2 + s * k3))
            dg_ds = k1 + s * (2 * k2 + 3 * k3 * s)
            # D = g I + d (grad g)^T, grad g = dg_ds * 2 d / f_lens^2
            D = g[:, None, None] * np.eye(2)[None] + (2 * dg_ds / f_lens**2)[
                :, None, None
            ] * np.einsum("ni,nj->nij", d, d)
            J = np.einsum("nij,njp->nip", D, J_i.reshape(len(d), 2, -1)).reshape(J_i.shape)
            return c + d * g[:, None], J

        return project


WARM_RMS_PX = 2.0  # a warm refit worse than this is retried from the pinhole's own starts


def solve_held_lens(
    points_world: ArrayLike,
    uv: ArrayLike,
    image_size: tuple[int, int],
    lens: PixelLens,
    theta0: ArrayLike,
    names: list[str] | None = None,
    surface_z_m: float | None = 0.0,
) -> CameraFit:
    """A camera through the fixed field ``lens``: pose and focal fitted to N correspondences.

    points_world: (N, 3) metres, world frame; uv: (N, 2) distorted pixels; image_size (w, h);
    theta0: a one-focal start (rvec, t, f[, ...]; its first 7 values are used), e.g. the last
    good frame's. Refined from theta0; when that leaves more than WARM_RMS_PX or an
    unphysical camera, the pinhole is solved from scratch on the clicks straightened by the
    field (geometry.calibration.solve_camera, whose input checks then apply to them) and
    refined through the field. Returns a CameraFit of a HeldLensModel (covariance in
    distorted pixels, as solve_camera scales it); raises CalibrationError for degenerate
    input or when no physical, plausible camera fits."""
    image_size = (int(image_size[0]), int(image_size[1]))
    X, x, names = check_correspondences(  # type: ignore[no-untyped-call]
        points_world, uv, image_size, names
    )
    model = HeldLensModel(lens=lens)
    start = np.asarray(theta0, float)[:7]
    res = refine(model, start, X, x, image_size)
    if not _acceptable(res, X, surface_z_m):
        pin = solve_camera(
            X, lens.undistort(x), image_size, theta0=start, names=names, surface_z_m=surface_z_m
        )
        res = refine(model, pin.theta, X, x, image_size)
        if not np.isfinite(res.cost) or _pose_problem(res.theta, X, surface_z_m) is not None:
            raise CalibrationError("no physical camera fits these points through the lens")
    fit = _make_fit(model, res, X, image_size, 1.0)
    _check_plausible(fit, image_size)
    return fit


def _acceptable(res: LMResult, X: np.ndarray, surface_z_m: float | None) -> bool:
    return (
        bool(np.isfinite(res.cost))
        and np.sqrt(res.cost / len(X)) <= WARM_RMS_PX
        and _pose_problem(res.theta, X, surface_z_m) is None
    )

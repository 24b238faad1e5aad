"""Cameras sharing one centre: per-frame rotation and focal length only.

A broadcast camera pans, tilts and zooms about a fixed mount. Within a shot its centre C is
one point, so each frame has 4 unknowns (rotation, f) instead of 7: steadier, and the focal
length no longer trades off against the centre. theta = (rx, ry, rz, f); t = -R(r) C. The
lens distortion (dist, OpenCV (5,)) is the start camera's, held fixed: a zoom lens's
distortion changes slowly, and a per-frame k1 is not determined by a few transferred points.
"""

from __future__ import annotations

import cv2
import numpy as np

from geometry.arrays import as_array
from geometry.camera import Camera, image_centre_uv
from geometry.levenberg_marquardt import refine


class FixedCentreModel:
    """A parameter model for levenberg_marquardt.refine: theta = (rvec (3), f)."""

    name = "fixed_centre"
    size = 4

    def __init__(self, camera_centre_world, dist=None):
        self.C = as_array("camera_centre_world", camera_centre_world, (3,))
        self.dist = np.zeros(5) if dist is None else np.asarray(dist, float)

    def intrinsics(self, theta, image_size):
        c = image_centre_uv(image_size)
        return np.array([[theta[3], 0, c[0]], [0, theta[3], c[1]], [0, 0, 1.0]])

    def to_camera(self, theta, image_size) -> Camera:
        R = cv2.Rodrigues(np.asarray(theta[:3], float))[0]
        return Camera(
            K=self.intrinsics(theta, image_size),
            R=R,
            t=-R @ self.C,
            image_size=image_size,
            dist=self.dist,
        )

    def project_with_jacobian(self, theta, points_world, image_size):
        """uv (N, 2) and J (2N, 4); t depends on r, so d/dr = J_r + J_t dt/dr."""
        R, dR = cv2.Rodrigues(np.asarray(theta[:3], float))  # dR: (3, 9) d vec(R) / d r
        t = -R @ self.C
        K = self.intrinsics(theta, image_size)
        uv, jac = cv2.projectPoints(points_world, theta[:3], t, K, self.dist)
        # dt/dr_k = -(dR/dr_k) C, with vec(R) row-major in OpenCV's Jacobian
        dt_dr = np.stack([-(dR[k].reshape(3, 3) @ self.C) for k in range(3)], axis=1)
        J = np.concatenate(
            [jac[:, :3] + jac[:, 3:6] @ dt_dr, (jac[:, 6] + jac[:, 7])[:, None]], axis=1
        )
        return uv.reshape(-1, 2), J


def solve_fixed_centre(
    points_world, uv, image_size, camera_centre_world, start: Camera
) -> tuple[Camera, float]:
    """Rotation and focal of a camera at a known centre; returns (camera, RMS px)."""
    X = as_array("points_world", points_world, (None, 3))
    x = as_array("uv", uv, (len(X), 2))
    model = FixedCentreModel(camera_centre_world, start.dist)
    theta0 = np.concatenate([start.rvec, [(start.K[0, 0] + start.K[1, 1]) / 2]])
    res = refine(model, theta0, X, x, tuple(image_size))
    return model.to_camera(res.theta, tuple(image_size)), float(np.sqrt(res.cost / len(X)))

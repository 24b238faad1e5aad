"""The pinhole camera (OpenCV convention) and world <-> camera <-> pixel transforms.

World frame: conventions.md (x toward the camera along the sidelines, y right along the far
baseline, z up, metres). Camera frame: x right, y down, z forward. ``X_cam = R X_world + t``,
camera centre ``C = -R^T t``, pixel ``uv = K X_cam / z`` then OpenCV distortion
``dist = (k1, k2, p1, p2, k3)``. Pixel (0, 0) is the centre of the top-left pixel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from geometry._projection_kernels import project_points
from geometry.arrays import as_array
from geometry.distortion import max_radius
from geometry.errors import GeometryError

DIST_LEN = 5
_EYE3 = np.eye(3)
_ROTATION_TOL = 1e-6 + 1e-5 * _EYE3  # np.allclose's atol + rtol |b| against the identity
_K_ROW = np.array([0.0, 0.0, 1.0])
_K_ROW_TOL = 1e-8 + 1e-5 * _K_ROW  # np.allclose's defaults against (0, 0, 1)


def _det3(m: np.ndarray) -> float:
    """The determinant of a (3, 3) array (its sign is what Camera tests)."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    return float(a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g))


def image_centre_uv(image_size: tuple[int, int]) -> np.ndarray:
    """Principal point of the ``simple`` model: ``((w - 1) / 2, (h - 1) / 2)`` pixels."""
    w, h = image_size
    return np.array([(w - 1) / 2.0, (h - 1) / 2.0])


@dataclass(frozen=True)
class Camera:
    """A calibrated camera.

    K: (3, 3) intrinsics, pixels. R: (3, 3) world-to-camera rotation. t: (3,) world-to-camera
    translation, metres. image_size: (w, h) pixels. dist: (5,) OpenCV (k1, k2, p1, p2, k3).
    """

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    image_size: tuple[int, int]
    dist: np.ndarray = field(default_factory=lambda: np.zeros(DIST_LEN))

    def __post_init__(self):
        K = as_array("K", self.K, (3, 3))
        R = as_array("R", self.R, (3, 3))
        t = as_array("t", self.t, (3,))
        dist = np.zeros(DIST_LEN)
        d = as_array("dist", self.dist, (None,))
        if d.size > DIST_LEN:
            raise GeometryError(f"dist: at most {DIST_LEN} coefficients, got {d.size}")
        dist[: d.size] = d
        # np.allclose(R R^T, I, atol=1e-6) and np.allclose(K[2], (0, 0, 1)) spelt out (their
        # rtol 1e-5 included): the same tests at a tenth of the cost, for the propagation's
        # camera per frame
        if not (np.abs(R @ R.T - _EYE3) <= _ROTATION_TOL).all() or _det3(R) < 0:
            raise GeometryError("R: not a rotation matrix (R R^T != I or det(R) < 0)")
        if K[0, 0] <= 0 or K[1, 1] <= 0 or not (np.abs(K[2] - _K_ROW) <= _K_ROW_TOL).all():
            raise GeometryError("K: focal lengths must be positive and the last row (0, 0, 1)")
        w, h = (int(v) for v in self.image_size)
        if w <= 0 or h <= 0:
            raise GeometryError(f"image_size: must be positive, got {self.image_size}")
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "dist", dist)
        object.__setattr__(self, "image_size", (w, h))

    @property
    def camera_centre_world(self) -> np.ndarray:
        """(3,) metres, world frame: ``-R^T t``."""
        return -self.R.T @ self.t

    @property
    def has_distortion(self) -> bool:
        return bool(np.any(self.dist != 0))

    @property
    def rvec(self) -> np.ndarray:
        """(3,) Rodrigues vector of R."""
        return cv2.Rodrigues(self.R)[0].ravel()

    def world_to_cam(self, points_world: np.ndarray) -> np.ndarray:
        """points_world: (N, 3) metres, world -> (N, 3) metres, camera frame."""
        p = as_array("points_world", points_world, (None, 3))
        return p @ self.R.T + self.t

    def cam_to_world(self, points_cam: np.ndarray) -> np.ndarray:
        """points_cam: (N, 3) metres, camera frame -> (N, 3) metres, world frame."""
        p = as_array("points_cam", points_cam, (None, 3))
        return (p - self.t) @ self.R

    def project(self, points_world: np.ndarray) -> np.ndarray:
        """points_world: (N, 3) metres -> uv: (N, 2) pixels (with distortion).

        Points at or behind the camera plane get NaN (they have no image), and so do points
        beyond the radius where the lens polynomial folds back (geometry.distortion): a
        strongly barrel-distorted camera would otherwise draw far-off court lines back
        across the image.
        """
        p = as_array("points_world", points_world, (None, 3))
        if len(p) == 0:
            return np.zeros((0, 2))
        # one compiled pass (geometry._projection_kernels): a propagation projects a few
        # hundred to two thousand points some seventeen times a frame
        return project_points(*self.projection_args(), np.ascontiguousarray(p))

    def projection_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """(R, t, K, dist, r_max): this camera for geometry._projection_kernels's passes, C
        contiguous; r_max the lens's fold radius (inf without distortion)."""
        r_max = max_radius(self.dist) if self.has_distortion else np.inf
        c = np.ascontiguousarray
        return c(self.R), c(self.t), c(self.K), self.dist, float(r_max)

    def undistort_uv(self, uv: np.ndarray) -> np.ndarray:
        """uv: (N, 2) distorted pixels -> (N, 2) ideal (undistorted) pixels with the same K."""
        uv = as_array("uv", uv, (None, 2))
        if not self.has_distortion or len(uv) == 0:
            return uv.copy()
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-10)
        pts = uv.reshape(-1, 1, 2)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4.x
            und = cv2.undistortPointsIter(pts, self.K, self.dist, None, self.K, criteria)
        else:  # OpenCV 5 folded the criteria into undistortPoints
            und = cv2.undistortPoints(pts, self.K, self.dist, None, None, self.K, criteria)
        return und.reshape(-1, 2)

    def in_image(self, uv: np.ndarray, margin_px: float = 0.0) -> np.ndarray:
        """uv: (N, 2) pixels -> (N,) bool, inside [-0.5 - m, w - 0.5 + m] x [...]."""
        uv = as_array("uv", uv, (None, 2), finite=False)
        w, h = self.image_size
        lo = -0.5 - margin_px
        with np.errstate(invalid="ignore"):
            return (
                (uv[:, 0] >= lo)
                & (uv[:, 0] <= w - 0.5 + margin_px)
                & (uv[:, 1] >= lo)
                & (uv[:, 1] <= h - 0.5 + margin_px)
            )

    def to_dict(self) -> dict:
        """The camera contract shared by every command that takes ``--camera``."""
        return {
            "K": self.K.tolist(),
            "R": self.R.tolist(),
            "t": self.t.tolist(),
            "image_size": list(self.image_size),
            "dist": self.dist.tolist(),
            "camera_centre_world": self.camera_centre_world.tolist(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "camera") -> "Camera":
        """The one constructor from a camera dict (``to_dict``'s contract: camera JSON, a
        cameras.jsonl record, a scene file's camera, a calibration's output); extra keys are
        ignored.

        d: K (3, 3) pixels, R (3, 3), t (3,) metres, image_size [w, h] positive integer
        pixels, dist (up to 5 numbers, optional). Untrusted input: raises GeometryError naming
        ``where`` and the field (``camera.K: expected shape (3, 3), got (2, 2)``) for a missing
        field, a wrong shape, a non-numeric or non-finite entry, a non-integer image size, a
        non-rotation R or a K with non-positive focal lengths.
        """
        if not isinstance(d, Mapping):
            raise GeometryError(f"{where}: expected a JSON object")
        for key in ("K", "R", "t", "image_size"):
            if key not in d:
                raise GeometryError(f"{where}.{key}: missing")
        K = as_array(f"{where}.K", d["K"], (3, 3))
        R = as_array(f"{where}.R", d["R"], (3, 3))
        t = as_array(f"{where}.t", d["t"], (3,))
        dist = as_array(f"{where}.dist", d.get("dist", [0.0] * DIST_LEN), (None,))
        raw_size = d["image_size"]
        if (
            not isinstance(raw_size, (list, tuple))
            or len(raw_size) != 2
            or not all(_is_whole_number(v) for v in raw_size)
        ):
            raise GeometryError(
                f"{where}.image_size: expected [width, height] in whole "
                f"pixels, got {raw_size!r:.60}"
            )
        try:
            return cls(K=K, R=R, t=t, image_size=(int(raw_size[0]), int(raw_size[1])), dist=dist)
        except GeometryError as exc:  # the dataclass names the field: K, R, dist, image_size
            raise GeometryError(f"{where}.{exc}") from None


def _is_whole_number(v: object) -> bool:
    """A JSON number (not a bool) with an integral, finite value."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        return False
    return bool(np.isfinite(v)) and float(v) == int(v)


def rotation_look_at(
    camera_centre_world: np.ndarray, target_world: np.ndarray, roll_rad: float = 0.0
) -> np.ndarray:
    """(3, 3) world-to-camera R looking from the centre at the target, world z up, plus roll.

    Raises GeometryError when the viewing direction is vertical (no defined 'up').
    """
    c = as_array("camera_centre_world", camera_centre_world, (3,))
    tgt = as_array("target_world", target_world, (3,))
    z = tgt - c
    n = np.linalg.norm(z)
    if n < 1e-12:
        raise GeometryError("target_world: coincides with the camera centre")
    z /= n
    x = np.cross(z, [0.0, 0.0, 1.0])
    if np.linalg.norm(x) < 1e-9:
        raise GeometryError("target_world: viewing direction is vertical; roll is undefined")
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.stack([x, y, z])
    cr, sr = np.cos(roll_rad), np.sin(roll_rad)
    roll = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1.0]])
    return roll @ R

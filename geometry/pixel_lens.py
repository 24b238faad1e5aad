"""A lens's distortion as a fixed field over the image, for homographies between frames.

A broadcast camera pans, tilts and zooms about a fixed point: the motion between two frames is
one homography only in *ideal* (undistorted) pixels. The lens bends the court lines the same
way wherever the camera points (the distortion belongs to the sensor position, not to the
scene), so each frame of a clip is straightened by the same field - the reference camera's -
before it is registered, and transferred keypoints are bent back by it afterwards. Exact for a
prime lens; for a zoom lens the field changes slowly with focal length (a first-order
approximation over moderate zooms, far better than ignoring a visible distortion).

Ideal pixels use the same intrinsics K as the distorted ones (OpenCV's P = K).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array
from geometry.distortion import distort_normalised

if TYPE_CHECKING:
    from geometry.camera import Camera


class PixelLens:
    """The distortion field of intrinsics K (3, 3) and OpenCV coefficients dist (5,) over an
    image of image_size (w, h) pixels."""

    def __init__(self, K: ArrayLike, dist: ArrayLike, image_size: tuple[int, int]) -> None:
        self.K = as_array("K", K, (3, 3)).copy()
        d = np.zeros(5)
        dd = np.asarray(dist, float).ravel()[:5]
        d[: len(dd)] = dd
        self.dist = d
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self._maps: dict[tuple[int, int, float], tuple[np.ndarray, np.ndarray]] = {}
        self._valid: dict[tuple[int, int, float, int], np.ndarray] = {}
        # straighten_mask's last (scale, input copy, result)
        self._last_mask: tuple[float, np.ndarray, np.ndarray] | None = None

    @classmethod
    def of_camera(cls, camera: Camera) -> PixelLens | None:
        """The field of a geometry.camera.Camera; None for a pinhole (no distortion)."""
        if not camera.has_distortion:
            return None
        return cls(camera.K, camera.dist, camera.image_size)

    def undistort(self, uv: ArrayLike) -> np.ndarray:
        """(N, 2) distorted pixels -> (N, 2) ideal pixels (iterative inverse, 1e-10 px)."""
        uv = as_array("uv", uv, (None, 2))
        if len(uv) == 0:
            return uv.copy()
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-10)
        pts = uv.reshape(-1, 1, 2).astype(np.float64)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4.x
            out = cv2.undistortPointsIter(pts, self.K, self.dist, None, self.K, criteria)
        else:  # OpenCV 5 folded the criteria into undistortPoints
            out = cv2.undistortPoints(pts, self.K, self.dist, None, None, self.K, criteria)
        return np.asarray(out, np.float64).reshape(-1, 2)

    def distort(self, uv_ideal: ArrayLike) -> np.ndarray:
        """(N, 2) ideal pixels -> (N, 2) distorted pixels (the radial terms of dist)."""
        uv = as_array("uv_ideal", uv_ideal, (None, 2))
        if len(uv) == 0:
            return uv.copy()
        f = np.array([self.K[0, 0], self.K[1, 1]])
        c = np.array([self.K[0, 2], self.K[1, 2]])
        return np.asarray(distort_normalised((uv - c) / f, self.dist) * f + c, np.float64)

    def straighten(self, image: np.ndarray, scale: float, nearest: bool = False) -> np.ndarray:
        """An image of this lens reduced by scale (its (h', w') = the full size * scale),
        resampled into ideal pixels at the same scale; nearest=True for masks."""
        h, w = image.shape[:2]
        key = (w, h, round(float(scale), 9))
        maps = self._maps.get(key)
        if maps is None:
            S = np.diag([scale, scale, 1.0])
            Ks = S @ self.K
            Ks[:2, 2] = (self.K[:2, 2] + 0.5) * scale - 0.5  # pixel-centre convention
            maps = cv2.initUndistortRectifyMap(Ks, self.dist, None, Ks, (w, h), cv2.CV_32FC1)
            if len(self._maps) > 8:
                self._maps.clear()
            self._maps[key] = maps
        return cv2.remap(
            image,
            maps[0],
            maps[1],
            cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )

    def straighten_mask(self, mask: np.ndarray, scale: float) -> np.ndarray:
        """A reduced uint8 mask (0 = ignore) resampled into ideal pixels (nearest), with the
        straightening border (valid) masked too: read-only (h', w') uint8. The last input and
        its result are kept: a propagation straightens the same graphics and user masks frame
        after frame (two nearest remaps, 0.7 ms a 720p frame), so an input equal to the last
        one gives the last result back."""
        last = self._last_mask
        if (
            last is not None
            and last[0] == scale
            and last[1].shape == mask.shape
            and np.array_equal(last[1], mask)
        ):
            return last[2]
        out = cv2.bitwise_and(
            self.straighten(mask, scale, nearest=True), self.valid(mask.shape[:2], scale)
        )
        out.flags.writeable = False
        self._last_mask = (scale, mask.copy(), out)
        return out

    def valid(self, shape_hw: tuple[int, int], scale: float, margin_px: int = 3) -> np.ndarray:
        """uint8 (h', w') mask of a straightened reduced image: 255 where its pixels come
        from inside the source image (at least margin_px from its border), 0 elsewhere
        (the border straighten fills with black must not be registered). Computed once per
        size and kept: the array is read-only, shared by every caller."""
        h, w = shape_hw
        key = (w, h, round(float(scale), 9), int(margin_px))
        cached = self._valid.get(key)
        if cached is None:
            self.straighten(np.zeros((h, w), np.uint8), scale)  # builds the maps
            mx, my = self._maps[key[:3]]
            m = (
                (mx >= margin_px)
                & (mx <= w - 1 - margin_px)
                & (my >= margin_px)
                & (my <= h - 1 - margin_px)
            )
            cached = np.where(m, 255, 0).astype(np.uint8)
            cached.flags.writeable = False  # shared between calls: callers copy to change it
            if len(self._valid) > 8:
                self._valid.clear()
            self._valid[key] = cached
        return cached

"""Image motion between broadcast frames as a homography (OpenCV features + RANSAC).

A broadcast camera pans, tilts and zooms about a nearly fixed point: then the image motion of
*every* point (on the court or not) is one homography, H = K_b R K_a^-1. Frames are registered
directly to a reference frame, never only to their predecessor: the reference is warped by the
predicted homography (the previous frame's), the small residual motion is measured, and the two
are composed. Errors therefore do not accumulate along the clip.

Masks exclude what must not drive the estimate (players, scoreboard graphics): 0 = ignore.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from geometry.arrays import as_array

MIN_INLIERS = 40
RANSAC_PX = 2.0
_ORB = None


@dataclass(frozen=True)
class Registration:
    """H (3, 3) maps reference pixels to frame pixels; inliers: RANSAC inlier count;
    rms_px: inlier reprojection RMS; ok: enough inliers."""

    H: np.ndarray
    inliers: int
    rms_px: float
    ok: bool


def _orb():
    global _ORB
    if _ORB is None:
        _ORB = cv2.ORB_create(nfeatures=3000, scaleFactor=1.2, nlevels=6, fastThreshold=10)
    return _ORB


def gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _estimate(a: np.ndarray, b: np.ndarray, mask_a=None, mask_b=None):
    """Homography a -> b from ORB matches (ratio test) and RANSAC; None when too few."""
    orb = _orb()
    ka, da = orb.detectAndCompute(a, mask_a)
    kb, db = orb.detectAndCompute(b, mask_b)
    if da is None or db is None or len(ka) < 8 or len(kb) < 8:
        return None
    matches = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(da, db, k=2)
    good = [m for m, *rest in matches if rest and m.distance < 0.8 * rest[0].distance]
    if len(good) < 8:
        return None
    pa = np.float32([ka[m.queryIdx].pt for m in good])
    pb = np.float32([kb[m.trainIdx].pt for m in good])
    H, inl = cv2.findHomography(pa, pb, cv2.RANSAC, RANSAC_PX, maxIters=2000, confidence=0.999)
    if H is None:
        return None
    inl = inl.ravel().astype(bool)
    proj = cv2.perspectiveTransform(pa[inl][None], H)[0]
    rms = float(np.sqrt(np.mean(np.sum((proj - pb[inl]) ** 2, axis=1)))) if inl.any() else 0.0
    return H, int(inl.sum()), rms


def register_to_reference(reference: np.ndarray, frame: np.ndarray, H_pred: np.ndarray,
                          mask_reference=None, mask_frame=None) -> Registration:
    """Homography reference -> frame, starting from the prediction H_pred (3, 3).

    reference, frame: images (BGR or gray) of the same size; masks: uint8, 0 = ignore."""
    H_pred = as_array("H_pred", H_pred, (3, 3))
    a, b = gray(reference), gray(frame)
    h, w = b.shape[:2]
    warped = cv2.warpPerspective(a, H_pred, (w, h), flags=cv2.INTER_LINEAR)
    valid = cv2.warpPerspective(np.full(a.shape[:2], 255, np.uint8) if mask_reference is None
                                else mask_reference, H_pred, (w, h), flags=cv2.INTER_NEAREST)
    valid = cv2.erode(valid, np.ones((5, 5), np.uint8))
    m_b = valid if mask_frame is None else cv2.bitwise_and(valid, mask_frame)
    est = _estimate(warped, b, valid, m_b)
    if est is None:
        return Registration(H_pred, 0, np.inf, False)
    H_res, n, rms = est
    H = H_res @ H_pred
    return Registration(H / H[2, 2], n, rms, n >= MIN_INLIERS)


def transfer_points(H: np.ndarray, uv) -> np.ndarray:
    """(N, 2) pixels mapped by the homography H (3, 3)."""
    uv = as_array("uv", uv, (None, 2))
    if len(uv) == 0:
        return uv.copy()
    return cv2.perspectiveTransform(uv[None].astype(np.float64), H)[0]


def histogram_change(a: np.ndarray, b: np.ndarray) -> float:
    """1 - correlation of the two frames' hue-saturation histograms: near 0 within a shot,
    large across a cut."""
    def hist(img):
        hsv = cv2.cvtColor(cv2.resize(img, (160, 90)), cv2.COLOR_BGR2HSV)
        hh = cv2.calcHist([hsv], [0, 1], None, [30, 32], [0, 180, 0, 256])
        return cv2.normalize(hh, hh).flatten()
    return float(1.0 - cv2.compareHist(hist(a), hist(b), cv2.HISTCMP_CORREL))


CUT_HIST = 0.5
CUT_LAYOUT = 0.25


def _thumb(img: np.ndarray) -> np.ndarray:
    g = cv2.resize(gray(img), (64, 36), interpolation=cv2.INTER_AREA).astype(np.float32)
    return (g - g.mean()) / (g.std() + 1e-6)


def layout_change(a: np.ndarray, b: np.ndarray) -> float:
    """1 - correlation of 64 x 36 thumbnails after aligning them by phase correlation (so a
    pan within a shot scores low; a different view of the same court scores high)."""
    ta, tb = _thumb(a), _thumb(b)
    (dx, dy), _ = cv2.phaseCorrelate(ta, tb)
    shifted = cv2.warpAffine(tb, np.float32([[1, 0, -dx], [0, 1, -dy]]), (64, 36))
    mx, my = int(np.ceil(abs(dx))) + 1, int(np.ceil(abs(dy))) + 1
    if mx * 2 >= 64 or my * 2 >= 36:
        return 1.0
    A, B = ta[my:-my, mx:-mx], shifted[my:-my, mx:-mx]
    A, B = A - A.mean(), B - B.mean()
    return float(1.0 - (A * B).sum() / (np.sqrt((A * A).sum() * (B * B).sum()) + 1e-9))


def is_cut(a: np.ndarray, b: np.ndarray) -> bool:
    """A shot cut between consecutive frames a and b: the colours or the layout jump."""
    return histogram_change(a, b) > CUT_HIST or layout_change(a, b) > CUT_LAYOUT


def is_identity(H: np.ndarray, image_size: tuple[int, int], tol_px: float = 0.5) -> bool:
    """True when H moves every image corner by less than tol_px (a static camera)."""
    w, h = image_size
    c = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], float)
    return bool(np.max(np.linalg.norm(transfer_points(H, c) - c, axis=1)) < tol_px)

"""Starting cameras for the solver (geometry.calibration): the court plane's homography gives
the focal length in closed form and IPPE both planar poses; a log-spaced focal sweep with SQPnP
serves clicks without four on one plane. Every start is theta = (rvec, t, f) of the ``simple``
model (geometry.camera_params)."""

from __future__ import annotations

import cv2
import numpy as np

from geometry.camera import image_centre_uv

COLLINEAR_RATIO = 2e-3
SWEEP_FOCALS_REL = np.geomspace(0.25, 25.0, 24)


def collinear(points: np.ndarray) -> bool:
    """True when (N, 2) or (N, 3) points (nearly) lie on one line."""
    c = points - points.mean(axis=0)
    s = np.linalg.svd(c, compute_uv=False)
    return bool(s[0] == 0 or s[1] / s[0] < COLLINEAR_RATIO)


def focal_from_plane_homography(H: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """Focal length (px) from a plane-to-image homography H (3, 3), square pixels, principal
    point at the image centre. None when the plane's geometry does not determine it (e.g. a
    fronto-parallel plane) or the constraints are inconsistent (negative f^2)."""
    c = image_centre_uv(image_size)
    s = float(max(image_size))
    T = np.array([[1 / s, 0, -c[0] / s], [0, 1 / s, -c[1] / s], [0, 0, 1.0]])
    Hn = T @ H
    Hn = Hn / np.linalg.norm(Hn)
    h1, h2 = Hn[:, 0], Hn[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denom = float(a @ a)
    if denom < 1e-18:
        return None
    w_inv_f2 = -float(a @ b) / denom
    if not np.isfinite(w_inv_f2) or w_inv_f2 <= 0:
        return None
    return float(s / np.sqrt(w_inv_f2))


def _simple_K(f: float, image_size: tuple[int, int]) -> np.ndarray:
    c = image_centre_uv(image_size)
    return np.array([[f, 0, c[0]], [0, f, c[1]], [0, 0, 1.0]])


def _planar_subset(X: np.ndarray) -> np.ndarray | None:
    """Indices of the largest set of >= 4 points sharing one height z, or None."""
    zs = np.round(X[:, 2], 6)
    vals, counts = np.unique(zs, return_counts=True)
    k = int(np.argmax(counts))
    if counts[k] < 4:
        return None
    idx = np.nonzero(zs == vals[k])[0]
    if collinear(X[idx]):
        return None
    return idx


def initial_candidates(
    X: np.ndarray, x: np.ndarray, image_size: tuple[int, int]
) -> list[np.ndarray]:
    """Starting thetas of the simple model (rvec, t, f) from the plane homography."""
    idx = _planar_subset(X)
    if idx is None:
        return []
    H, _ = cv2.findHomography(X[idx, :2], x[idx], 0)
    if H is None:
        return []
    f = focal_from_plane_homography(H, image_size)
    if f is None:
        return []
    K = _simple_K(f, image_size)
    cands = []
    try:
        n_sol, rvecs, tvecs, _ = cv2.solvePnPGeneric(
            X[idx].astype(np.float64), x[idx].astype(np.float64), K, None, flags=cv2.SOLVEPNP_IPPE
        )
    except cv2.error:
        n_sol, rvecs, tvecs = 0, [], []
    for k in range(n_sol):
        cands.append(np.concatenate([rvecs[k].ravel(), tvecs[k].ravel(), [f]]))
    return cands


def sweep_candidates(
    X: np.ndarray, x: np.ndarray, image_size: tuple[int, int], keep: int = 3
) -> list[np.ndarray]:
    """Starting thetas from SQPnP at log-spaced focal lengths; the `keep` best by RMS."""
    scored = []
    for rel in SWEEP_FOCALS_REL:
        f = rel * max(image_size)
        K = _simple_K(f, image_size)
        try:
            ok, rvec, tvec = cv2.solvePnP(X, x, K, None, flags=cv2.SOLVEPNP_SQPNP)
        except cv2.error:
            continue
        if not ok:
            continue
        theta = np.concatenate([rvec.ravel(), tvec.ravel(), [f]])
        pred = cv2.projectPoints(X, rvec, tvec, K, None)[0].reshape(-1, 2)
        scored.append((float(np.sum((pred - x) ** 2)), theta))
    scored.sort(key=lambda s: s[0])
    return [t for _, t in scored[:keep]]

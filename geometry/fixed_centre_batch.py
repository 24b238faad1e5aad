"""geometry.fixed_centre's solve for many frames at once: every frame of a shot refitted for
rotation and focal length about one shared camera centre, in one vectorised
Levenberg-Marquardt loop (the per-frame loop spends most of its time in Python overhead on a
handful of points: 1.3 ms a frame, against a few tens of microseconds here).

The model is geometry.fixed_centre.FixedCentreModel's: theta = (rvec (3), f), t = -R C,
principal point at the image centre, the lens (OpenCV's (k1, k2, p1, p2, k3)) held fixed;
the same cost, minimised from the same starts, to the same optimum.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array
from geometry.camera import image_centre_uv

REL_COST_TOL = 1e-10  # as geometry.levenberg_marquardt
MAX_ITER = 60
FD_STEP = 1e-6  # relative central-difference step of the Jacobian


def rodrigues_many(rvec: np.ndarray) -> np.ndarray:
    """(F, 3) rotation vectors (radians) -> (F, 3, 3) rotation matrices (Rodrigues' formula,
    as cv2.Rodrigues)."""
    theta = np.linalg.norm(rvec, axis=1)
    small = theta < 1e-12
    k = rvec / np.where(small, 1.0, theta)[:, None]
    Kx = np.zeros((len(rvec), 3, 3))
    Kx[:, 0, 1], Kx[:, 0, 2] = -k[:, 2], k[:, 1]
    Kx[:, 1, 0], Kx[:, 1, 2] = k[:, 2], -k[:, 0]
    Kx[:, 2, 0], Kx[:, 2, 1] = -k[:, 1], k[:, 0]
    s, c = np.sin(theta)[:, None, None], np.cos(theta)[:, None, None]
    R = np.eye(3)[None] + s * Kx + (1 - c) * (Kx @ Kx)
    R[small] = np.eye(3)
    return np.asarray(R, np.float64)


def _project(
    theta: np.ndarray, Xc: np.ndarray, centre_uv: np.ndarray, dist: np.ndarray
) -> np.ndarray:
    """theta (F, 4); Xc (F, N, 3) = X - C; dist (F, 5) -> uv (F, N, 2) pixels (OpenCV's
    lens model)."""
    R = rodrigues_many(theta[:, :3])
    p = np.einsum("fij,fnj->fni", R, Xc)
    z = p[..., 2]
    z = np.where(np.abs(z) < 1e-12, 1e-12, z)
    x, y = p[..., 0] / z, p[..., 1] / z
    k1, k2, p1, p2, k3 = (dist[:, j : j + 1] for j in range(5))  # each (F, 1)
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    f = theta[:, 3:4]
    return np.stack([f * xd + centre_uv[0], f * yd + centre_uv[1]], axis=-1)


def solve_fixed_centre_many(
    points_world: ArrayLike,
    uv: ArrayLike,
    weight: ArrayLike,
    image_size: tuple[int, int],
    camera_centre_world: ArrayLike,
    theta0: ArrayLike,
    dist: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and focal length of F cameras at one known centre.

    points_world: (F, N, 3) metres, world frame; uv: (F, N, 2) pixels; weight: (F, N) 1 for
    a frame's points, 0 for padding (frames with fewer than N points); image_size (w, h);
    camera_centre_world: (3,) metres; theta0: (F, 4) starts (rvec, f px); dist: OpenCV's
    (5,) lens coefficients, or (F, 5) one per frame (None: pinhole). Returns (theta (F, 4),
    rms (F,) px over each frame's own points)."""
    X = as_array("points_world", points_world, (None, None, 3))
    F, N = X.shape[:2]
    x = as_array("uv", uv, (F, N, 2))
    w = as_array("weight", weight, (F, N))
    C = as_array("camera_centre_world", camera_centre_world, (3,))
    theta = as_array("theta0", theta0, (F, 4)).copy()
    d = np.zeros((F, 5))
    if dist is not None:
        dd = np.asarray(dist, float)
        dd = np.broadcast_to(dd if dd.ndim == 2 else dd.ravel()[None], (F, dd.shape[-1]))
        d[:, : min(5, dd.shape[1])] = dd[:, :5]
    cuv = image_centre_uv(image_size)
    Xc = X - C
    sw = np.sqrt(w)[..., None]

    def jacobian(
        th: np.ndarray, sub: np.ndarray
    ) -> np.ndarray:  # (F', 2N, 4) of frames sub, central differences
        J = np.empty((len(th), 2 * N, 4))
        for k in range(4):
            h = FD_STEP * np.maximum(1.0, np.abs(th[:, k]))
            tp, tm = th.copy(), th.copy()
            tp[:, k] += h
            tm[:, k] -= h
            rp = residuals_sub(tp, Xc[sub], cuv, d[sub], x[sub], sw[sub])
            rm = residuals_sub(tm, Xc[sub], cuv, d[sub], x[sub], sw[sub])
            J[:, :, k] = (rp - rm) / (2 * h[:, None])
        return J

    r = residuals_sub(theta, Xc, cuv, d, x, sw)
    cost = np.einsum("fi,fi->f", r, r)
    lam = np.full(F, 1e-3)
    active = np.ones(F, bool)
    for _ in range(MAX_ITER):
        if not active.any():
            break
        idx = np.nonzero(active)[0]
        J = jacobian(theta[idx], idx)
        JtJ = np.einsum("fik,fil->fkl", J, J)
        g = np.einsum("fik,fi->fk", J, r[idx])
        D = np.maximum(np.einsum("fkk->fk", JtJ), 1e-12)
        A = JtJ + (lam[idx, None] * D)[:, :, None] * np.eye(4)[None]
        step, singular = _solve_each(A, g)
        cand = theta[idx] + step
        r_c = residuals_sub(cand, Xc[idx], cuv, d[idx], x[idx], sw[idx])
        cost_c = np.einsum("fi,fi->f", r_c, r_c)
        cost_c[singular] = np.inf  # no step: more damping, as for an uphill one
        better = np.isfinite(cost_c) & (cost_c <= cost[idx])
        rel = (cost[idx] - cost_c) / np.maximum(cost[idx], 1e-30)
        ok = idx[better]
        theta[ok], r[ok], cost[ok] = cand[better], r_c[better], cost_c[better]
        lam[ok] = np.maximum(lam[ok] / 10, 1e-12)
        bad = idx[~better]
        lam[bad] *= 10
        done_ok = better & ((rel < REL_COST_TOL) | (cost_c < 1e-20))
        active[idx[done_ok]] = False
        active[bad[lam[bad] >= 1e8]] = False  # no downhill step at any damping: a minimum
    n = np.maximum(w.sum(axis=1), 1.0)
    return theta, np.sqrt(cost / n)


def _solve_each(A: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Steps -A^-1 g (F', 4) of F' damped normal equations A (F', 4, 4), g (F', 4), and which
    were singular (F',) bool (their step 0). One singular frame leaves the others' steps as
    they are: every frame's iterations are its own, whatever else is in the batch."""
    singular = np.zeros(len(A), bool)
    try:
        return -np.linalg.solve(A, g[..., None])[..., 0], singular
    except np.linalg.LinAlgError:
        step = np.zeros_like(g)
        for k in range(len(A)):
            try:
                step[k] = -np.linalg.solve(A[k], g[k])
            except np.linalg.LinAlgError:
                singular[k] = True
        return step, singular


def residuals_sub(
    th: np.ndarray,
    Xc: np.ndarray,
    cuv: np.ndarray,
    d: np.ndarray,
    x: np.ndarray,
    sw: np.ndarray,
) -> np.ndarray:
    """Weighted residuals (F', 2N) of a subset of frames."""
    out = (_project(th, Xc, cuv, d) - x) * sw
    return np.asarray(out.reshape(len(th), -1), np.float64)

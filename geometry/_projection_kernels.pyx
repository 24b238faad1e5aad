# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled residual rows of the line fit (geometry.joint_covariance.line_rows), one-focal models.

A line refinement's Levenberg-Marquardt loop evaluates its rows some twenty times a fit, each
time for a few hundred line samples. Through cv2.projectPoints each evaluation built the full
(2N, 15) Jacobian (every intrinsic and distortion term) and then folded it onto the line
normals in NumPy: 0.27 ms an evaluation, 13 ms a frame on a basketball pan. Here the chain
rule runs per sample in C, for the terms the one-focal models have (rotation, translation, f,
k1, k2; principal point fixed, no tangential terms), and folds onto the normal at once.

The model and the derivative chain are OpenCV's (calib3d's projectPoints): the point in the
camera frame X = R P + t, x = X/Z, y = Y/Z (a zero depth taken as 1, as OpenCV does), the
radial factor 1 + k1 r^2 + k2 r^4, and the rotation's Jacobian from cv2.Rodrigues; rows agree
with that route to rounding (tests/test_projection_kernels.py).
"""

import numpy as np

from libc.math cimport hypot, INFINITY, NAN


def one_focal_line_rows(const double[:, ::1] R, const double[:, ::1] dR_dr,
                        const double[::1] t, double f, double k1, double k2, int n_radial,
                        double cx, double cy, const double[:, ::1] points_world,
                        const double[:, ::1] uv_target, const double[:, ::1] normals,
                        const double[::1] weights, double sigma_px):
    """(r (S,), J (S, 7 + n_radial)) float64: each line sample's signed offset px of its
    projection from its painted-line centre along the line's image normal, / sigma_px, times
    its weight, and the row's derivatives by (rx, ry, rz, tx, ty, tz, f[, k1[, k2]]).

    R: (3, 3) world-to-camera rotation of the Rodrigues vector (rx, ry, rz); dR_dr: (3, 9),
    cv2.Rodrigues's Jacobian (row k: dR / d r_k, R row-major); t: (3,) metres; f: focal px;
    k1, k2: radial terms (those beyond n_radial must be 0); cx, cy: principal point px;
    points_world: (S, 3) metres; uv_target: (S, 2) px, the centres found; normals: (S, 2)
    unit image normals; weights: (S,)."""
    cdef Py_ssize_t S = points_world.shape[0], i
    cdef int P = 7 + n_radial, k
    if R.shape[0] != 3 or R.shape[1] != 3 or dR_dr.shape[0] != 3 or dR_dr.shape[1] != 9:
        raise ValueError("one_focal_line_rows: R (3, 3) and dR_dr (3, 9)")
    if t.shape[0] != 3 or points_world.shape[1] != 3 or not 0 <= n_radial <= 2:
        raise ValueError("one_focal_line_rows: t (3,), points_world (S, 3), n_radial 0-2")
    if (uv_target.shape[0] != S or uv_target.shape[1] != 2 or normals.shape[0] != S
            or normals.shape[1] != 2 or weights.shape[0] != S):
        raise ValueError("one_focal_line_rows: uv_target, normals (S, 2) and weights (S,)")
    r_arr = np.empty(S)
    J_arr = np.empty((S, P))
    cdef double[::1] r = r_arr
    cdef double[:, ::1] J = J_arr
    cdef double X, Y, Z, iz, x, y, r2, r4, cdist, xd, yd, u, v, nx, ny, s
    cdef double dXr[3]
    cdef double dYr[3]
    cdef double dZr[3]
    cdef double dx, dy, dr2, dc, du, dv, px_, py_, pz_
    with nogil:
        for i in range(S):
            px_ = points_world[i, 0]
            py_ = points_world[i, 1]
            pz_ = points_world[i, 2]
            X = R[0, 0] * px_ + R[0, 1] * py_ + R[0, 2] * pz_ + t[0]
            Y = R[1, 0] * px_ + R[1, 1] * py_ + R[1, 2] * pz_ + t[1]
            Z = R[2, 0] * px_ + R[2, 1] * py_ + R[2, 2] * pz_ + t[2]
            iz = 1.0 / Z if Z != 0.0 else 1.0
            x = X * iz
            y = Y * iz
            r2 = x * x + y * y
            r4 = r2 * r2
            cdist = 1.0 + k1 * r2 + k2 * r4
            xd = x * cdist
            yd = y * cdist
            u = f * xd + cx
            v = f * yd + cy
            nx = normals[i, 0]
            ny = normals[i, 1]
            s = weights[i] / sigma_px
            r[i] = ((u - uv_target[i, 0]) * nx + (v - uv_target[i, 1]) * ny) / sigma_px * weights[i]
            for k in range(3):
                dXr[k] = dR_dr[k, 0] * px_ + dR_dr[k, 1] * py_ + dR_dr[k, 2] * pz_
                dYr[k] = dR_dr[k, 3] * px_ + dR_dr[k, 4] * py_ + dR_dr[k, 5] * pz_
                dZr[k] = dR_dr[k, 6] * px_ + dR_dr[k, 7] * py_ + dR_dr[k, 8] * pz_
            dc = k1 + 2.0 * k2 * r2  # d cdist / d r2
            for k in range(6):
                if k < 3:  # rotation: X moves by dR/dr_k P
                    dx = iz * (dXr[k] - x * dZr[k])
                    dy = iz * (dYr[k] - y * dZr[k])
                elif k == 3:  # translation along the camera's x, y, z
                    dx = iz
                    dy = 0.0
                elif k == 4:
                    dx = 0.0
                    dy = iz
                else:
                    dx = -x * iz
                    dy = -y * iz
                dr2 = 2.0 * (x * dx + y * dy)
                du = f * (dx * cdist + x * dc * dr2)
                dv = f * (dy * cdist + y * dc * dr2)
                J[i, k] = (du * nx + dv * ny) * s
            J[i, 6] = (xd * nx + yd * ny) * s
            if n_radial >= 1:
                J[i, 7] = f * r2 * (x * nx + y * ny) * s
            if n_radial >= 2:
                J[i, 8] = f * r4 * (x * nx + y * ny) * s
    return r_arr, J_arr


def project_points(const double[:, ::1] R, const double[::1] t, const double[:, ::1] K,
                   const double[::1] dist, double r_max, const double[:, ::1] points_world):
    """(N, 2) float64 px: geometry.camera.Camera.project's model in one pass. Each point in the
    camera frame X = R P + t; at depth Z <= 1e-9 (at or behind the camera plane) NaN; else
    OpenCV's model, x = X/Z, y = Y/Z, radial 1 + r2 (k1 + r2 (k2 + r2 k3)) and the tangential
    p1, p2 (applied only when a coefficient is non-zero), u = fx x + cx, v = fy y + cy (K's
    skew ignored, as OpenCV ignores it); NaN where the normalised radius is not below r_max
    (the lens's fold, geometry.distortion.max_radius; inf for none).

    R: (3, 3); t: (3,) metres; K: (3, 3); dist: (5,) k1, k2, p1, p2, k3; points_world:
    (N, 3) metres."""
    cdef Py_ssize_t N = points_world.shape[0], i
    if (R.shape[0] != 3 or R.shape[1] != 3 or K.shape[0] != 3 or K.shape[1] != 3
            or t.shape[0] != 3 or dist.shape[0] != 5 or points_world.shape[1] != 3):
        raise ValueError("project_points: R, K (3, 3), t (3,), dist (5,), points_world (N, 3)")
    out_arr = np.empty((N, 2))
    cdef double[:, ::1] out = out_arr
    cdef double k1 = dist[0], k2 = dist[1], p1 = dist[2], p2 = dist[3], k3 = dist[4]
    cdef bint distorted = k1 != 0 or k2 != 0 or p1 != 0 or p2 != 0 or k3 != 0
    cdef bint folds = r_max < INFINITY
    cdef double X, Y, Z, x, y, r2, radial, xy2, xd, yd, px_, py_, pz_
    with nogil:
        for i in range(N):
            px_ = points_world[i, 0]
            py_ = points_world[i, 1]
            pz_ = points_world[i, 2]
            X = px_ * R[0, 0] + py_ * R[0, 1] + pz_ * R[0, 2] + t[0]
            Y = px_ * R[1, 0] + py_ * R[1, 1] + pz_ * R[1, 2] + t[1]
            Z = px_ * R[2, 0] + py_ * R[2, 1] + pz_ * R[2, 2] + t[2]
            if not Z > 1e-9 or (folds and not hypot(X, Y) / Z < r_max):
                out[i, 0] = NAN
                out[i, 1] = NAN
                continue
            x = X * (1.0 / Z)
            y = Y * (1.0 / Z)
            if distorted:
                r2 = x * x + y * y
                radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                xy2 = 2 * x * y
                xd = x * radial + p1 * xy2 + p2 * (r2 + 2 * x * x)
                yd = y * radial + p1 * (r2 + 2 * y * y) + p2 * xy2
                x = xd
                y = yd
            out[i, 0] = K[0, 0] * x + K[0, 2]
            out[i, 1] = K[1, 1] * y + K[1, 2]
    return out_arr

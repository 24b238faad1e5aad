# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled residual rows of the line fit (geometry.joint_covariance.line_rows), one-focal models.

A line refinement's Levenberg-Marquardt loop evaluates its rows some twenty times a fit, each
time for a few hundred line samples. Through cv2.projectPoints each evaluation built the full
(2N, 15) Jacobian (every intrinsic and distortion term) and then folded it onto the line
normals in NumPy: 0.27 ms an evaluation, 13 ms a frame on a basketball pan. Here the chain
rule runs per sample in C, for the terms the one-focal models have (rotation, translation, f,
k1, k2; principal point fixed, no tangential terms), and folds onto the normal at once.

The same chain gives a camera fit's keypoint rows. The Levenberg-Marquardt loop runs here too
(_minimise): one_focal_refine on those rows in C (geometry.levenberg_marquardt.refine for the
one-focal models: every propagated frame's warm recalibration) and minimise_rows_loop on rows a
Python callable gives (levenberg_marquardt.minimise_rows: the line refinement's robust fits);
each iteration was some 30 NumPy calls around a 7 x 7 to 12 x 12 solve.

The model and the derivative chain are OpenCV's (calib3d's projectPoints): the point in the
camera frame X = R P + t, x = X/Z, y = Y/Z (a zero depth taken as 1, as OpenCV does), the
radial factor 1 + k1 r^2 + k2 r^4, and the rotation's Jacobian from cv2.Rodrigues; rows agree
with that route to rounding (tests/test_projection_kernels.py).
"""

import numpy as np

from libc.math cimport fabs, hypot, isfinite, sqrt, INFINITY, NAN


cdef struct PointTerms:
    # one world point under a one-focal camera: normalised x, y, r^2, r^4, the radial factor,
    # the distorted xd, yd, d(factor)/d(r^2), and d(x, y)/d(rx, ry, rz, tx, ty, tz)
    double x, y, r2, r4, cdist, xd, yd, dc
    double dx[6]
    double dy[6]


cdef inline void _point_terms(const double[:, ::1] R, const double[:, ::1] dR_dr,
                              const double[::1] t, double k1, double k2, double px_,
                              double py_, double pz_, PointTerms* p) noexcept nogil:
    """OpenCV's projectPoints chain for one point (module docstring), without f and the
    principal point."""
    cdef double X, Y, Z, iz
    cdef double dXr[3]
    cdef double dYr[3]
    cdef double dZr[3]
    cdef int k
    X = R[0, 0] * px_ + R[0, 1] * py_ + R[0, 2] * pz_ + t[0]
    Y = R[1, 0] * px_ + R[1, 1] * py_ + R[1, 2] * pz_ + t[1]
    Z = R[2, 0] * px_ + R[2, 1] * py_ + R[2, 2] * pz_ + t[2]
    iz = 1.0 / Z if Z != 0.0 else 1.0
    p.x = X * iz
    p.y = Y * iz
    p.r2 = p.x * p.x + p.y * p.y
    p.r4 = p.r2 * p.r2
    p.cdist = 1.0 + k1 * p.r2 + k2 * p.r4
    p.xd = p.x * p.cdist
    p.yd = p.y * p.cdist
    for k in range(3):
        dXr[k] = dR_dr[k, 0] * px_ + dR_dr[k, 1] * py_ + dR_dr[k, 2] * pz_
        dYr[k] = dR_dr[k, 3] * px_ + dR_dr[k, 4] * py_ + dR_dr[k, 5] * pz_
        dZr[k] = dR_dr[k, 6] * px_ + dR_dr[k, 7] * py_ + dR_dr[k, 8] * pz_
    p.dc = k1 + 2.0 * k2 * p.r2  # d cdist / d r2
    for k in range(6):
        if k < 3:  # rotation: X moves by dR/dr_k P
            p.dx[k] = iz * (dXr[k] - p.x * dZr[k])
            p.dy[k] = iz * (dYr[k] - p.y * dZr[k])
        elif k == 3:  # translation along the camera's x, y, z
            p.dx[k] = iz
            p.dy[k] = 0.0
        elif k == 4:
            p.dx[k] = 0.0
            p.dy[k] = iz
        else:
            p.dx[k] = -p.x * iz
            p.dy[k] = -p.y * iz


cdef int _check_camera(const double[:, ::1] R, const double[:, ::1] dR_dr, const double[::1] t,
                       int n_radial, const double[:, ::1] points_world, str name) except -1:
    if R.shape[0] != 3 or R.shape[1] != 3 or dR_dr.shape[0] != 3 or dR_dr.shape[1] != 9:
        raise ValueError(f"{name}: R (3, 3) and dR_dr (3, 9)")
    if t.shape[0] != 3 or points_world.shape[1] != 3 or not 0 <= n_radial <= 2:
        raise ValueError(f"{name}: t (3,), points_world (S, 3), n_radial 0-2")
    return 0


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
    _check_camera(R, dR_dr, t, n_radial, points_world, "one_focal_line_rows")
    if (uv_target.shape[0] != S or uv_target.shape[1] != 2 or normals.shape[0] != S
            or normals.shape[1] != 2 or weights.shape[0] != S):
        raise ValueError("one_focal_line_rows: uv_target, normals (S, 2) and weights (S,)")
    r_arr = np.empty(S)
    J_arr = np.empty((S, P))
    cdef double[::1] r = r_arr
    cdef double[:, ::1] J = J_arr
    cdef PointTerms p
    cdef double u, v, nx, ny, s, dr2, du, dv
    with nogil:
        for i in range(S):
            _point_terms(R, dR_dr, t, k1, k2, points_world[i, 0], points_world[i, 1],
                         points_world[i, 2], &p)
            u = f * p.xd + cx
            v = f * p.yd + cy
            nx = normals[i, 0]
            ny = normals[i, 1]
            s = weights[i] / sigma_px
            r[i] = ((u - uv_target[i, 0]) * nx + (v - uv_target[i, 1]) * ny) / sigma_px * weights[i]
            for k in range(6):
                dr2 = 2.0 * (p.x * p.dx[k] + p.y * p.dy[k])
                du = f * (p.dx[k] * p.cdist + p.x * p.dc * dr2)
                dv = f * (p.dy[k] * p.cdist + p.y * p.dc * dr2)
                J[i, k] = (du * nx + dv * ny) * s
            J[i, 6] = (p.xd * nx + p.yd * ny) * s
            if n_radial >= 1:
                J[i, 7] = f * p.r2 * (p.x * nx + p.y * ny) * s
            if n_radial >= 2:
                J[i, 8] = f * p.r4 * (p.x * nx + p.y * ny) * s
    return r_arr, J_arr


cdef inline void _point_jacobian(const PointTerms* p, double f, int n_radial,
                                 double[:, ::1] J, Py_ssize_t i) noexcept nogil:
    """Rows 2i (u) and 2i + 1 (v) of a keypoint's Jacobian by (rx, ry, rz, tx, ty, tz, f[,
    k1[, k2]]) from its _point_terms."""
    cdef int k
    cdef double dr2
    for k in range(6):
        dr2 = 2.0 * (p.x * p.dx[k] + p.y * p.dy[k])
        J[2 * i, k] = f * (p.dx[k] * p.cdist + p.x * p.dc * dr2)
        J[2 * i + 1, k] = f * (p.dy[k] * p.cdist + p.y * p.dc * dr2)
    J[2 * i, 6] = p.xd
    J[2 * i + 1, 6] = p.yd
    if n_radial >= 1:
        J[2 * i, 7] = f * p.r2 * p.x
        J[2 * i + 1, 7] = f * p.r2 * p.y
    if n_radial >= 2:
        J[2 * i, 8] = f * p.r4 * p.x
        J[2 * i + 1, 8] = f * p.r4 * p.y


def one_focal_point_rows(const double[:, ::1] R, const double[:, ::1] dR_dr,
                         const double[::1] t, double f, double k1, double k2, int n_radial,
                         double cx, double cy, const double[:, ::1] points_world):
    """(uv (N, 2), J (2N, 7 + n_radial)) float64: the points' projections px and their
    derivatives by (rx, ry, rz, tx, ty, tz, f[, k1[, k2]]), rows u0, v0, u1, v1, ... (what
    cv2.projectPoints gives for these terms, its fx and fy columns summed into f; the
    arguments as one_focal_line_rows's)."""
    cdef Py_ssize_t N = points_world.shape[0], i
    cdef int P = 7 + n_radial
    _check_camera(R, dR_dr, t, n_radial, points_world, "one_focal_point_rows")
    uv_arr = np.empty((N, 2))
    J_arr = np.empty((2 * N, P))
    cdef double[:, ::1] uv = uv_arr
    cdef double[:, ::1] J = J_arr
    cdef PointTerms p
    with nogil:
        for i in range(N):
            _point_terms(R, dR_dr, t, k1, k2, points_world[i, 0], points_world[i, 1],
                         points_world[i, 2], &p)
            uv[i, 0] = f * p.xd + cx
            uv[i, 1] = f * p.yd + cy
            _point_jacobian(&p, f, n_radial, J, i)
    return uv_arr, J_arr


cdef struct Lens:
    double R[9]
    double t[3]
    double fx, fy, cx, cy
    double k1, k2, p1, p2, k3
    bint distorted, folds
    double r_max


cdef Lens _lens(const double[:, ::1] R, const double[::1] t, const double[:, ::1] K,
                const double[::1] dist, double r_max) except *:
    if (R.shape[0] != 3 or R.shape[1] != 3 or K.shape[0] != 3 or K.shape[1] != 3
            or t.shape[0] != 3 or dist.shape[0] != 5):
        raise ValueError("a camera: R, K (3, 3), t (3,), dist (5,)")
    cdef Lens c
    cdef int i, j
    for i in range(3):
        c.t[i] = t[i]
        for j in range(3):
            c.R[3 * i + j] = R[i, j]
    c.fx, c.fy, c.cx, c.cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    c.k1, c.k2, c.p1, c.p2, c.k3 = dist[0], dist[1], dist[2], dist[3], dist[4]
    c.distorted = c.k1 != 0 or c.k2 != 0 or c.p1 != 0 or c.p2 != 0 or c.k3 != 0
    c.folds = r_max < INFINITY
    c.r_max = r_max
    return c


cdef inline bint _project(const Lens* c, double px_, double py_, double pz_, double* u,
                          double* v) noexcept nogil:
    """One point's pixel (project_points's model); False (u, v NaN) where it has none."""
    cdef double X, Y, Z, x, y, r2, radial, xy2, xd, yd
    X = px_ * c.R[0] + py_ * c.R[1] + pz_ * c.R[2] + c.t[0]
    Y = px_ * c.R[3] + py_ * c.R[4] + pz_ * c.R[5] + c.t[1]
    Z = px_ * c.R[6] + py_ * c.R[7] + pz_ * c.R[8] + c.t[2]
    if not Z > 1e-9 or (c.folds and not hypot(X, Y) / Z < c.r_max):
        u[0] = NAN
        v[0] = NAN
        return False
    x = X * (1.0 / Z)
    y = Y * (1.0 / Z)
    if c.distorted:
        r2 = x * x + y * y
        radial = 1 + r2 * (c.k1 + r2 * (c.k2 + r2 * c.k3))
        xy2 = 2 * x * y
        xd = x * radial + c.p1 * xy2 + c.p2 * (r2 + 2 * x * x)
        yd = y * radial + c.p1 * (r2 + 2 * y * y) + c.p2 * xy2
        x = xd
        y = yd
    u[0] = c.fx * x + c.cx
    v[0] = c.fy * y + c.cy
    return isfinite(u[0]) and isfinite(v[0])


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
    cdef Lens c = _lens(R, t, K, dist, r_max)
    if points_world.shape[1] != 3:
        raise ValueError("project_points: points_world (N, 3)")
    cdef Py_ssize_t N = points_world.shape[0], i
    out_arr = np.empty((N, 2))
    cdef double[:, ::1] out = out_arr
    with nogil:
        for i in range(N):
            _project(&c, points_world[i, 0], points_world[i, 1], points_world[i, 2],
                     &out[i, 0], &out[i, 1])
    return out_arr


def line_sample_geometry(const double[:, ::1] R, const double[::1] t, const double[:, ::1] K,
                         const double[::1] dist, double r_max,
                         const double[:, ::1] points_world, const double[:, ::1] directions,
                         int width, int height, double inside_px, double along_m,
                         double across_m):
    """The painted-line search's image geometry of S line samples in one pass
    (geometry.line_ridges.find_ridges): (index (M,) int64 of the samples kept, uv (M, 2) px,
    normals (M, 2) unit image normals, width_px (M,) the painted line's width across it).

    A sample is kept when its pixel lies inside the image by inside_px (in
    [-0.5 + inside_px, w - 0.5 - inside_px] x [...]) and the points along_m either side along
    its line and across_m across it (horizontal side = direction x z, normalised) all have
    pixels; its normal is the image tangent's (the two along-points' pixels' difference,
    normalised) turned by +90 degrees, its width the across-point's offset along it.
    Camera as project_points; points_world, directions: (S, 3) metres, world frame (unit
    directions)."""
    cdef Lens c = _lens(R, t, K, dist, r_max)
    if points_world.shape[1] != 3 or directions.shape[1] != 3 or (
        directions.shape[0] != points_world.shape[0]
    ):
        raise ValueError("line_sample_geometry: points_world and directions (S, 3)")
    cdef Py_ssize_t S = points_world.shape[0], i, m = 0
    keep_arr = np.empty(S, np.int64)
    uv_arr = np.empty((S, 2))
    nrm_arr = np.empty((S, 2))
    wid_arr = np.empty(S)
    cdef long long[::1] keep = keep_arr
    cdef double[:, ::1] uv = uv_arr
    cdef double[:, ::1] nrm = nrm_arr
    cdef double[::1] wid = wid_arr
    cdef double lo = -0.5 + inside_px, hi_u = width - 0.5 - inside_px
    cdef double hi_v = height - 0.5 - inside_px
    cdef double u, v, ua, va, ub, vb, uw, vw, px_, py_, pz_, dx, dy, dz, sx, sy, n, tx, ty
    with nogil:
        for i in range(S):
            px_ = points_world[i, 0]
            py_ = points_world[i, 1]
            pz_ = points_world[i, 2]
            if not _project(&c, px_, py_, pz_, &u, &v):
                continue
            if not (u >= lo and u <= hi_u and v >= lo and v <= hi_v):
                continue
            dx = directions[i, 0]
            dy = directions[i, 1]
            dz = directions[i, 2]
            # np.cross(d, (0, 0, 1)) = (dy, -dx, 0), over its norm + 1e-12
            n = sqrt(dy * dy + dx * dx + 0.0) + 1e-12
            sx = (dy * 1.0 - dz * 0.0) / n
            sy = (dz * 0.0 - dx * 1.0) / n
            if not _project(&c, px_ - along_m * dx, py_ - along_m * dy, pz_ - along_m * dz,
                            &ua, &va):
                continue
            if not _project(&c, px_ + along_m * dx, py_ + along_m * dy, pz_ + along_m * dz,
                            &ub, &vb):
                continue
            if not _project(&c, px_ + across_m * sx, py_ + across_m * sy,
                            pz_ + across_m * ((dx * 0.0 - dy * 0.0) / n), &uw, &vw):
                continue
            tx = ub - ua
            ty = vb - va
            n = sqrt(tx * tx + ty * ty) + 1e-12
            tx = tx / n
            ty = ty / n
            keep[m] = i
            uv[m, 0] = u
            uv[m, 1] = v
            nrm[m, 0] = -ty
            nrm[m, 1] = tx
            wid[m] = fabs((uw - u) * -ty + (vw - v) * tx)
            m += 1
    return keep_arr[:m], uv_arr[:m], nrm_arr[:m], wid_arr[:m]


# ------------------------------------------------------------------ Levenberg-Marquardt
cdef enum:
    MAX_PARAMS = 16  # the richest camera model has 12 (full, with k1 and k2)
cdef int _lu_solve(double* A, double* b, int n) noexcept nogil:
    """Solve A x = b in place (A (n, n) row-major, destroyed; b (n,) becomes x) by LU with
    partial pivoting, the pivot the first of largest magnitude in its column (LAPACK's
    dgetf2 and dgetrs, unblocked). Returns 1 (b undefined) when a pivot is exactly zero, as
    numpy.linalg.solve raises LinAlgError."""
    cdef int i, j, k, p
    cdef double big, v, inv
    for j in range(n):
        p = j
        big = fabs(A[j * n + j])
        for i in range(j + 1, n):
            v = fabs(A[i * n + j])
            if v > big:
                big, p = v, i
        if A[p * n + j] == 0.0:
            return 1
        if p != j:
            for k in range(n):
                A[j * n + k], A[p * n + k] = A[p * n + k], A[j * n + k]
            b[j], b[p] = b[p], b[j]
        inv = 1.0 / A[j * n + j]
        for i in range(j + 1, n):
            A[i * n + j] *= inv
            v = A[i * n + j]
            for k in range(j + 1, n):
                A[i * n + k] -= v * A[j * n + k]
    for i in range(n):  # L y = P b (L unit lower)
        v = b[i]
        for k in range(i):
            v -= A[i * n + k] * b[k]
        b[i] = v
    for i in range(n - 1, -1, -1):  # U x = y
        v = b[i]
        for k in range(i + 1, n):
            v -= A[i * n + k] * b[k]
        b[i] = v / A[i * n + i]
    return 0


cdef class _Rows:
    """What the loop minimises: eval fills r (M,) and J (M, P) at theta (P,) and returns
    sum(r^2) (not finite where a row is not), setting finite_J; valid refuses a step."""
    cdef int P
    cdef Py_ssize_t M

    cdef double eval(self, double[::1] theta, double[::1] r, double[:, ::1] J,
                     bint* finite_J) except? -1.0:
        raise NotImplementedError

    cdef bint valid(self, double[::1] theta) except -1:
        return True


cdef class _OneFocalPointRows(_Rows):
    """A one-focal model's keypoint rows, projection - uv_obs (u0, v0, u1, ...), in C
    (one_focal_point_rows's chain; R and dR/dr from ``rodrigues``); the focal stays > 0."""
    cdef object rodrigues
    cdef int n_radial
    cdef double cx, cy
    cdef const double[:, ::1] X
    cdef const double[::1] uv_obs

    def __init__(self, rodrigues, int n_radial, double cx, double cy,
                 const double[:, ::1] X, const double[::1] uv_obs):
        self.rodrigues, self.n_radial, self.cx, self.cy = rodrigues, n_radial, cx, cy
        self.X, self.uv_obs = X, uv_obs
        self.P, self.M = 7 + n_radial, 2 * X.shape[0]

    cdef double eval(self, double[::1] theta, double[::1] r, double[:, ::1] J,
                     bint* finite_J) except? -1.0:
        R_arr, dR_arr = self.rodrigues(np.asarray(theta[:3]))
        cdef const double[:, ::1] R = R_arr
        cdef const double[:, ::1] dR = dR_arr
        cdef const double[::1] t = theta[3:6]
        cdef Py_ssize_t N = self.X.shape[0], i
        cdef int k, P = self.P, n_radial = self.n_radial
        cdef double f = theta[6], cx = self.cx, cy = self.cy
        cdef double k1 = theta[7] if n_radial >= 1 else 0.0
        cdef double k2 = theta[8] if n_radial >= 2 else 0.0
        cdef double cost = 0.0
        cdef bint finite = True
        cdef PointTerms p
        cdef const double[:, ::1] X = self.X
        cdef const double[::1] uv_obs = self.uv_obs
        with nogil:
            for i in range(N):
                _point_terms(R, dR, t, k1, k2, X[i, 0], X[i, 1], X[i, 2], &p)
                r[2 * i] = f * p.xd + cx - uv_obs[2 * i]
                r[2 * i + 1] = f * p.yd + cy - uv_obs[2 * i + 1]
                _point_jacobian(&p, f, n_radial, J, i)
                cost += r[2 * i] * r[2 * i] + r[2 * i + 1] * r[2 * i + 1]
                for k in range(P):
                    finite = finite and isfinite(J[2 * i, k]) and isfinite(J[2 * i + 1, k])
        finite_J[0] = finite
        return cost

    cdef bint valid(self, double[::1] theta) except -1:
        return theta[6] > 0


cdef class _PythonRows(_Rows):
    """Rows from a Python callable theta (P,) -> (r (M,), J (M, P)), copied into the loop's
    buffers; valid: a callable theta -> bool or None (every step valid)."""
    cdef object rows, valid_fn

    def __init__(self, rows, valid_fn, int P):
        self.rows, self.valid_fn, self.P, self.M = rows, valid_fn, P, -1

    cdef tuple call(self, double[::1] theta):
        r_obj, J_obj = self.rows(np.array(theta))
        r_arr = np.ascontiguousarray(r_obj, dtype=np.float64).reshape(-1)
        J_arr = np.ascontiguousarray(J_obj, dtype=np.float64)
        if J_arr.ndim != 2 or J_arr.shape[0] != r_arr.shape[0] or J_arr.shape[1] != self.P:
            raise ValueError(
                f"minimise_rows: rows must give r (M,) and J (M, {self.P}), got "
                f"{r_arr.shape} and {J_arr.shape}"
            )
        return r_arr, J_arr

    cdef double eval(self, double[::1] theta, double[::1] r, double[:, ::1] J,
                     bint* finite_J) except? -1.0:
        r_arr, J_arr = self.call(theta)
        return self.copy_in(r_arr, J_arr, r, J, finite_J)

    cdef double copy_in(self, r_arr, J_arr, double[::1] r, double[:, ::1] J,
                        bint* finite_J) except? -1.0:
        """call's rows copied into the loop's r and J; their sum of squares."""
        cdef const double[::1] rv = r_arr
        cdef const double[:, ::1] Jv = J_arr
        if rv.shape[0] != self.M:
            raise ValueError(f"minimise_rows: rows gave {rv.shape[0]} rows, then {self.M}")
        cdef Py_ssize_t i
        cdef int k
        cdef double cost = 0.0
        cdef bint finite = True
        for i in range(self.M):
            r[i] = rv[i]
            cost += rv[i] * rv[i]
            for k in range(self.P):
                J[i, k] = Jv[i, k]
                finite = finite and isfinite(Jv[i, k])
        finite_J[0] = finite
        return cost

    cdef bint valid(self, double[::1] theta) except -1:
        if self.valid_fn is None:
            return True
        return bool(self.valid_fn(np.array(theta)))


cdef tuple _minimise(_Rows rows, theta0, int max_iter, double rel_cost_tol):
    """Levenberg-Marquardt on rows from theta0 (geometry.levenberg_marquardt.minimise_rows's
    loop: Marquardt's scaling, lambda from 1e-3 by tens within 1e-12..1e8, a refused or
    singular step damped further; stops on a relative cost drop under rel_cost_tol, a
    negligible step, a cost under 1e-20, or no downhill step). The normal equations summed in
    row order and solved by LU with partial pivoting (numpy's solve: LAPACK's; the two round
    differently in the last bits). Returns (theta, r, J, cost, iterations, converged); rows
    not finite at theta0 give theta0 back, not converged, with its cost (NaN or inf)."""
    cdef int P = rows.P
    theta_arr = np.array(theta0, dtype=np.float64).ravel()
    if theta_arr.shape[0] != P or P > MAX_PARAMS or P < 1:
        raise ValueError(f"minimise_rows: theta0 ({P},) with 1-{MAX_PARAMS} parameters")
    cdef Py_ssize_t M = rows.M, i
    cdef double[::1] theta = theta_arr
    cdef double cost, cost_c, lam = 1e-3, rel, s, ss, tt
    cdef bint finite_J
    r0 = J0 = None
    if M < 0:  # rows from Python: their count from the start's evaluation, used as it
        r0, J0 = (<_PythonRows>rows).call(theta)
        M = rows.M = r0.shape[0]
    r_arr, J_arr = np.empty(M), np.empty((M, P))
    rc_arr, Jc_arr = np.empty(M), np.empty((M, P))
    cand_arr = np.empty(P)
    cdef double[::1] cand = cand_arr
    cdef double[::1] r = r_arr
    cdef double[:, ::1] J = J_arr
    cdef double[::1] rc
    cdef double[:, ::1] Jc
    cdef double JtJ[MAX_PARAMS * MAX_PARAMS]
    cdef double A[MAX_PARAMS * MAX_PARAMS]
    cdef double g[MAX_PARAMS]
    cdef double step[MAX_PARAMS]
    cdef double d[MAX_PARAMS]
    cdef int it = 0, a, b, k
    cdef bint converged = False, improved
    if r0 is not None:
        cost = (<_PythonRows>rows).copy_in(r0, J0, r, J, &finite_J)
    else:
        cost = rows.eval(theta, r, J, &finite_J)
    if not (isfinite(cost) and finite_J):  # not finite at the start: no step can be judged
        return theta_arr, r_arr, J_arr, cost, 0, False
    for it in range(1, max_iter + 1):
        for a in range(P):
            for b in range(a, P):
                s = 0.0
                for i in range(M):
                    s += J[i, a] * J[i, b]
                JtJ[a * P + b] = s
                JtJ[b * P + a] = s
            s = 0.0
            for i in range(M):
                s += J[i, a] * r[i]
            g[a] = -s
            d[a] = JtJ[a * P + a] if JtJ[a * P + a] > 1e-12 else 1e-12
        improved = False
        while lam < 1e8:
            for k in range(P * P):
                A[k] = JtJ[k]
            for a in range(P):
                A[a * P + a] += lam * d[a]
                step[a] = g[a]
            if _lu_solve(A, step, P):  # singular at this damping
                lam *= 10
                continue
            for a in range(P):
                cand[a] = theta[a] + step[a]
            if not rows.valid(cand):
                lam *= 10
                continue
            rc, Jc = rc_arr, Jc_arr
            cost_c = rows.eval(cand, rc, Jc, &finite_J)
            if isfinite(cost_c) and cost_c <= cost:  # as before: J_c's finiteness not asked
                rel = (cost - cost_c) / (cost if cost > 1e-30 else 1e-30)
                theta_arr, cand_arr = cand_arr, theta_arr
                theta, cand = cand, theta
                r_arr, rc_arr = rc_arr, r_arr
                J_arr, Jc_arr = Jc_arr, J_arr
                r, J = rc, Jc
                cost = cost_c
                lam = lam / 10 if lam / 10 > 1e-12 else 1e-12
                improved = True
                ss = 0.0
                tt = 0.0
                for a in range(P):
                    ss += step[a] * step[a]
                    tt += theta[a] * theta[a]
                if rel < rel_cost_tol or sqrt(ss) <= 1e-12 * (1 + sqrt(tt)) or cost < 1e-20:
                    converged = True
                break
            lam *= 10
        if not improved:
            converged = True  # no downhill step at any damping: a (local) minimum
            break
        if converged:
            break
    return theta_arr, r_arr, J_arr, cost, it, converged


def minimise_rows_loop(rows, theta0, int max_iter, double rel_cost_tol, valid=None):
    """_minimise on the rows of a Python callable theta (P,) -> (r (M,), J (M, P)) (copied;
    M fixed by the start's rows, a later other count raises ValueError) and an optional
    valid(theta) -> bool (a refused step is damped further)."""
    P = int(np.asarray(theta0).size)
    return _minimise(_PythonRows(rows, valid, P), theta0, max_iter, rel_cost_tol)


def one_focal_refine(object rodrigues, theta0, int n_radial, double cx, double cy,
                     const double[:, ::1] points_world, const double[::1] uv_flat,
                     int max_iter, double rel_cost_tol):
    """_minimise on a one-focal model's keypoint rows computed in C (the projection and
    Jacobian of one_focal_point_rows; rodrigues: cv2.Rodrigues), the focal kept positive:
    geometry.levenberg_marquardt.refine for the one-focal models. theta0 (7 + n_radial,);
    points_world (N, 3) m; uv_flat (2N,) px (u0, v0, u1, ...). Returns (theta (P,), r (2N,),
    J (2N, P), cost, iterations, converged)."""
    if not 0 <= n_radial <= 2 or points_world.shape[1] != 3:
        raise ValueError("one_focal_refine: n_radial 0-2, points_world (N, 3)")
    if uv_flat.shape[0] != 2 * points_world.shape[0]:
        raise ValueError("one_focal_refine: uv_flat (2N,)")
    if np.asarray(theta0).size != 7 + n_radial:
        raise ValueError(f"one_focal_refine: theta0 ({7 + n_radial},)")
    return _minimise(
        _OneFocalPointRows(rodrigues, n_radial, cx, cy, points_world, uv_flat),
        theta0, max_iter, rel_cost_tol,
    )

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled robust homography fit of a registration's pairs (geometry.plane_motion._fit).

A propagation fits one homography a frame to the 100-300 KLT tracks of its reference's corners,
about 90 % of them inliers. cv2.findHomography's USAC_DEFAULT took 0.8 ms a fit on this
project's 720p frames (its general machinery: SPRT, graph-cut local optimisation, a final
polish), for a problem a few dozen C-speed hypotheses solve. Here one loop does what its result
needs:

- RANSAC with MSAC scoring (a pair's squared forward error, truncated at 1.5 thresholds), on
  Hartley-normalised points; samples from a fixed-seed generator (the same pairs give the same
  answer), a sample refused when three of its points are nearly collinear or when it folds
  (its four orientations differ between the images); iterations adapt to the inlier ratio
  found (confidence, at most max_iters).
- Local optimisation at each new best (Chum's LO-RANSAC): least squares on the pairs within
  a threshold that shrinks from 3x to 1x (LO_SCALES), each fit (a Gauss-Newton step on the
  forward errors) taking the pairs the last one puts within it. The best-scoring of the
  models met replaces the hypothesis.
- The best model polished the same way at the threshold until its inliers no longer change.

The answer is the inlier set of the best model at the threshold; plane_motion refits the
homography on it (cv2.findHomography, least squares and Levenberg-Marquardt) as before.
"""

import numpy as np

from libc.math cimport fabs, log, pow, sqrt


# squared: pairs up to 1.5 thresholds off still count towards a model's score (as OpenCV's
# MSAC quality in USAC does): a model that fits a tight cluster perfectly does not beat one
# that fits more pairs, spread over the image, a little less well
cdef double MSAC_TRUNCATION = 2.25
cdef double LOCAL_SHARE = 0.5  # a sample with this share of the best's inliers is optimised
cdef int MAX_LOCAL = 50  # ... up to this many times a fit
cdef int POLISH_STEPS = 10  # Gauss-Newton steps of the final least squares


cdef inline unsigned long long _next(unsigned long long *s) noexcept nogil:
    # splitmix64: a small, well-mixed, reproducible generator
    s[0] += 0x9E3779B97F4A7C15ULL
    cdef unsigned long long z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef int _solve8(double *A, double *b, double *x) noexcept nogil:
    """Solve the 8x8 system A x = b (A row-major, both overwritten) by Gaussian elimination
    with partial pivoting: 0, or 1 when A is (nearly) singular."""
    cdef int i, j, k, p
    cdef double m, t, big
    for k in range(8):
        p = k
        big = fabs(A[k * 8 + k])
        for i in range(k + 1, 8):
            if fabs(A[i * 8 + k]) > big:
                big = fabs(A[i * 8 + k])
                p = i
        if big < 1e-12:
            return 1
        if p != k:
            for j in range(8):
                t = A[k * 8 + j]
                A[k * 8 + j] = A[p * 8 + j]
                A[p * 8 + j] = t
            t = b[k]
            b[k] = b[p]
            b[p] = t
        for i in range(k + 1, 8):
            m = A[i * 8 + k] / A[k * 8 + k]
            if m != 0.0:
                for j in range(k, 8):
                    A[i * 8 + j] -= m * A[k * 8 + j]
                b[i] -= m * b[k]
    for k in range(7, -1, -1):
        t = b[k]
        for j in range(k + 1, 8):
            t -= A[k * 8 + j] * x[j]
        x[k] = t / A[k * 8 + k]
    return 0


cdef inline double _cross(double ax, double ay, double bx, double by, double cx,
                          double cy) noexcept nogil:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


cdef int _minimal(const double *xa, const double *ya, const double *xb, const double *yb,
                  const int *idx, double *h) noexcept nogil:
    """h (9,): the homography (h33 = 1) of the four normalised pairs idx; 0, or 1 for a
    degenerate sample (three points nearly collinear in either image, or one that folds)."""
    cdef double A[64]
    cdef double b[8]
    cdef int r, i, j, k, q
    cdef double ca, cb
    cdef int tri[12]
    tri[0] = 0; tri[1] = 1; tri[2] = 2
    tri[3] = 0; tri[4] = 1; tri[5] = 3
    tri[6] = 0; tri[7] = 2; tri[8] = 3
    tri[9] = 1; tri[10] = 2; tri[11] = 3
    for q in range(4):
        i = idx[tri[3 * q]]
        j = idx[tri[3 * q + 1]]
        k = idx[tri[3 * q + 2]]
        ca = _cross(xa[i], ya[i], xa[j], ya[j], xa[k], ya[k])
        cb = _cross(xb[i], yb[i], xb[j], yb[j], xb[k], yb[k])
        if fabs(ca) < 1e-6 or fabs(cb) < 1e-6 or (ca > 0) != (cb > 0):
            return 1
    for r in range(4):
        i = idx[r]
        A[(2 * r) * 8 + 0] = xa[i]
        A[(2 * r) * 8 + 1] = ya[i]
        A[(2 * r) * 8 + 2] = 1.0
        A[(2 * r) * 8 + 3] = 0.0
        A[(2 * r) * 8 + 4] = 0.0
        A[(2 * r) * 8 + 5] = 0.0
        A[(2 * r) * 8 + 6] = -xa[i] * xb[i]
        A[(2 * r) * 8 + 7] = -ya[i] * xb[i]
        b[2 * r] = xb[i]
        A[(2 * r + 1) * 8 + 0] = 0.0
        A[(2 * r + 1) * 8 + 1] = 0.0
        A[(2 * r + 1) * 8 + 2] = 0.0
        A[(2 * r + 1) * 8 + 3] = xa[i]
        A[(2 * r + 1) * 8 + 4] = ya[i]
        A[(2 * r + 1) * 8 + 5] = 1.0
        A[(2 * r + 1) * 8 + 6] = -xa[i] * yb[i]
        A[(2 * r + 1) * 8 + 7] = -ya[i] * yb[i]
        b[2 * r + 1] = yb[i]
    if _solve8(A, b, h):
        return 1
    h[8] = 1.0
    return 0


cdef int _least_squares(const double *xa, const double *ya, const double *xb,
                        const double *yb, const double *e2, double thr2, Py_ssize_t n,
                        const double *h_in, double *h) noexcept nogil:
    """h (9,): one Gauss-Newton step from h_in (h33 = 1) on the forward errors of the pairs
    whose e2 < thr2 (least squares of the geometric error, linearised at h_in); 0, or 1 with
    fewer than 8 such pairs or a singular system."""
    cdef double A[64]
    cdef double b[8]
    cdef double jx[8]
    cdef double jy[8]
    cdef double delta[8]
    cdef Py_ssize_t i
    cdef int j, k, m = 0
    cdef double d, x, y, px, py, rx, ry
    for j in range(64):
        A[j] = 0.0
    for j in range(8):
        b[j] = 0.0
    for i in range(n):
        if e2[i] >= thr2:
            continue
        x = xa[i]
        y = ya[i]
        d = h_in[6] * x + h_in[7] * y + h_in[8]
        if d <= 1e-12:
            continue
        m += 1
        d = 1.0 / d
        px = (h_in[0] * x + h_in[1] * y + h_in[2]) * d
        py = (h_in[3] * x + h_in[4] * y + h_in[5]) * d
        rx = xb[i] - px
        ry = yb[i] - py
        jx[0] = x * d; jx[1] = y * d; jx[2] = d; jx[3] = 0.0; jx[4] = 0.0; jx[5] = 0.0
        jx[6] = -x * px * d; jx[7] = -y * px * d
        jy[0] = 0.0; jy[1] = 0.0; jy[2] = 0.0; jy[3] = x * d; jy[4] = y * d; jy[5] = d
        jy[6] = -x * py * d; jy[7] = -y * py * d
        for j in range(8):
            for k in range(j, 8):
                A[j * 8 + k] += jx[j] * jx[k] + jy[j] * jy[k]
            b[j] += jx[j] * rx + jy[j] * ry
    if m < 8:
        return 1
    for j in range(8):
        for k in range(j):
            A[j * 8 + k] = A[k * 8 + j]
    if _solve8(A, b, delta):
        return 1
    for j in range(8):
        h[j] = h_in[j] + delta[j]
    h[8] = 1.0
    return 0


cdef double _score(const double *xa, const double *ya, const double *xb, const double *yb,
                   Py_ssize_t n, const double *h, double thr2, double *e2,
                   Py_ssize_t *count) noexcept nogil:
    """MSAC score of h on the normalised pairs: the sum of each pair's squared forward error
    truncated at MSAC_TRUNCATION * thr2; e2 (n,) is filled with the squared errors, count with
    the pairs below thr2 (the inliers)."""
    cdef Py_ssize_t i, c = 0
    cdef double s = 0.0, d, u, v, e, cap = MSAC_TRUNCATION * thr2
    for i in range(n):
        d = h[6] * xa[i] + h[7] * ya[i] + h[8]
        if d <= 1e-12:  # behind: never an inlier
            e = 1e300
        else:
            u = (h[0] * xa[i] + h[1] * ya[i] + h[2]) / d - xb[i]
            v = (h[3] * xa[i] + h[4] * ya[i] + h[5]) / d - yb[i]
            e = u * u + v * v
        e2[i] = e
        if e < thr2:
            c += 1
        s += e if e < cap else cap
    count[0] = c
    return s


LO_SCALES = (9.0, 4.0, 2.25, 1.0, 1.0, 1.0)  # squared threshold multipliers of the steps
cdef double[6] _LO = [9.0, 4.0, 2.25, 1.0, 1.0, 1.0]


cdef double _local(const double *xa, const double *ya, const double *xb, const double *yb,
                   Py_ssize_t n, double *h, double *e2, double score, double thr2,
                   double *lo_e2, Py_ssize_t *count, const double *scales,
                   int steps) noexcept nogil:
    """Local optimisation of h (9,) whose squared errors e2 (n,) score `score`: least squares
    on the pairs within scales[r] * thr2 of the last model, for each step r; h, e2 and count
    become the best-scoring model met (h itself when none beats it). Returns its score."""
    cdef double cur[9]
    cdef double nxt[9]
    cdef double s
    cdef Py_ssize_t c, i
    cdef int r, k
    for k in range(9):
        cur[k] = h[k]
    for i in range(n):
        lo_e2[i] = e2[i]
    for r in range(steps):
        if _least_squares(xa, ya, xb, yb, lo_e2, thr2 * scales[r], n, cur, nxt):
            break
        s = _score(xa, ya, xb, yb, n, nxt, thr2, lo_e2, &c)
        for k in range(9):
            cur[k] = nxt[k]
        if s < score:
            score = s
            count[0] = c
            for k in range(9):
                h[k] = nxt[k]
            for i in range(n):
                e2[i] = lo_e2[i]
    return score


def robust_homography(const double[:, ::1] pa, const double[:, ::1] pb, double threshold_px,
                      int max_iters=2000, double confidence=0.999,
                      unsigned long long seed=0x5EED):
    """(H (3, 3) pixels pa -> pb, or None; inliers (N,) bool): the best homography RANSAC and
    its local optimisation find for the pairs pa (N, 2) -> pb (N, 2) (pixels), and the pairs
    within threshold_px of it (forward error, in pb's pixels); None and all False when there
    is none (fewer than 8 pairs, or no sample that is not degenerate)."""
    cdef Py_ssize_t n = pa.shape[0], i
    if pa.shape[1] != 2 or pb.shape[1] != 2 or pb.shape[0] != n:
        raise ValueError("robust_inliers: pa and pb (N, 2)")
    out_arr = np.zeros(n, bool)
    if not (np.isfinite(pa).all() and np.isfinite(pb).all()):
        raise ValueError("robust_homography: pa and pb must be finite")
    if n < 8:
        return None, out_arr
    cdef unsigned char[::1] out = out_arr.view(np.uint8)
    work = np.empty((7, n), np.float64)
    cdef double[:, ::1] wk = work
    cdef double *xa = &wk[0, 0]
    cdef double *ya = &wk[1, 0]
    cdef double *xb = &wk[2, 0]
    cdef double *yb = &wk[3, 0]
    cdef double *e2 = &wk[4, 0]
    cdef double *best_e2 = &wk[5, 0]
    cdef double *lo_e2 = &wk[6, 0]
    cdef double ma_x = 0.0, ma_y = 0.0, mb_x = 0.0, mb_y = 0.0, sa = 0.0, sb = 0.0
    cdef double thr2, score, best_score = 1e308, w, denom, want
    cdef double h[9]
    cdef double best[9]
    cdef double polish[6]
    cdef int idx[4]
    cdef int k, j, r
    cdef Py_ssize_t count, best_count = 0, it = 0, needed = max_iters, lo_runs = 0
    cdef unsigned long long state = seed
    cdef bint found = False, again
    for k in range(6):
        polish[k] = 1.0
    with nogil:
        for i in range(n):
            ma_x += pa[i, 0]; ma_y += pa[i, 1]; mb_x += pb[i, 0]; mb_y += pb[i, 1]
        ma_x /= n; ma_y /= n; mb_x /= n; mb_y /= n
        for i in range(n):
            sa += sqrt((pa[i, 0] - ma_x) ** 2 + (pa[i, 1] - ma_y) ** 2)
            sb += sqrt((pb[i, 0] - mb_x) ** 2 + (pb[i, 1] - mb_y) ** 2)
        sa = sqrt(2.0) * n / sa if sa > 0 else 1.0
        sb = sqrt(2.0) * n / sb if sb > 0 else 1.0
        for i in range(n):
            xa[i] = (pa[i, 0] - ma_x) * sa
            ya[i] = (pa[i, 1] - ma_y) * sa
            xb[i] = (pb[i, 0] - mb_x) * sb
            yb[i] = (pb[i, 1] - mb_y) * sb
        thr2 = (threshold_px * sb) ** 2  # errors are measured in pb's normalised units
        while it < needed:
            it += 1
            for k in range(4):  # four distinct pairs
                while True:
                    idx[k] = <int>(_next(&state) % <unsigned long long>n)
                    again = False
                    for j in range(k):
                        if idx[j] == idx[k]:
                            again = True
                    if not again:
                        break
            if _minimal(xa, ya, xb, yb, idx, h):
                continue
            score = _score(xa, ya, xb, yb, n, h, thr2, e2, &count)
            # a minimal sample's model scores worse than the polished model of a tight cluster
            # even when it is the sample of a larger consensus spread over the image: any with
            # nearly the best's inliers is optimised too (at most MAX_LOCAL times)
            if score >= best_score and (count < LOCAL_SHARE * best_count or lo_runs >= MAX_LOCAL):
                continue
            lo_runs += 1
            score = _local(xa, ya, xb, yb, n, h, e2, score, thr2, lo_e2, &count, _LO, 6)
            if score >= best_score:
                continue
            best_score = score
            best_count = count
            for k in range(9):
                best[k] = h[k]
            for i in range(n):
                best_e2[i] = e2[i]
            found = True
            w = <double>best_count / n
            denom = 1.0 - pow(w, 4)
            if denom <= 1e-12:
                needed = it
            elif denom < 1.0:
                want = log(1.0 - confidence) / log(denom) + 1.0
                needed = max_iters if want > max_iters else <Py_ssize_t>want
        if found:
            _local(xa, ya, xb, yb, n, best, best_e2, best_score, thr2, lo_e2, &best_count,
                   polish, 6)
            for i in range(n):
                out[i] = best_e2[i] < thr2
            # the answer: least squares of the forward error on exactly those inliers
            for r in range(POLISH_STEPS):
                if _least_squares(xa, ya, xb, yb, best_e2, thr2, n, best, h):
                    break
                for k in range(9):
                    best[k] = h[k]
    if not found:
        return None, out_arr
    Hn = np.array([[best[0], best[1], best[2]], [best[3], best[4], best[5]],
                   [best[6], best[7], best[8]]])
    Ta = np.array([[sa, 0.0, -sa * ma_x], [0.0, sa, -sa * ma_y], [0.0, 0.0, 1.0]])
    Tb_inv = np.array([[1.0 / sb, 0.0, mb_x], [0.0, 1.0 / sb, mb_y], [0.0, 0.0, 1.0]])
    H = Tb_inv @ Hn @ Ta
    return H / H[2, 2], out_arr

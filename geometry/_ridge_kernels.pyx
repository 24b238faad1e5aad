# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled inner loops of the painted-line search (geometry.line_ridges), one pass per sample.

A propagation searches the court's lines about four times a frame, a few hundred samples a
call. Written as whole-array NumPy, each call was some twenty short array operations per side-
probe width and per robust round, each paying Python's and NumPy's overhead on arrays of a few
hundred rows: 4.6 ms of a 7.3 ms search on a basketball court, where the arithmetic itself is
a few microseconds. Here each sample (each line, for the robust fit) is one C loop.

The arithmetic is line_ridges's NumPy formulation, in the same order and precision (float32
where the profiles are float32), so the centres and inlier sets agree with it bit for bit on
recorded real profiles (tests/test_ridge_kernels.py holds them to a NumPy reference).
"""

import numpy as np

from libc.math cimport fabs, sqrt, INFINITY
from libc.stdlib cimport malloc, free, qsort

cdef inline float fmax32(float a, float b) noexcept nogil:
    return a if a >= b else b


cdef inline float fmin32(float a, float b) noexcept nogil:
    return a if a <= b else b


def ridge_centres(const float[:, ::1] prof, const double[::1] offsets,
                  const long long[::1] half_widths, const double[::1] widths_px,
                  double search_px, double step_px, bint strict, float min_contrast,
                  float ambiguous_ratio, float edge_line_ratio):
    """(S,) float64 px: the sub-pixel centre offset of the one clear ridge in each row of prof
    (S, O) float32 grey sampled at offsets (O,) px, NaN where there is none.

    half_widths: (S,) int64, each row's side-probe distance in profile steps; widths_px: (S,)
    float64, the painted line's expected width; search_px: the peak must lie within this of
    0; step_px: the profile's spacing; strict: ridge_offsets's rules for a click's evidence;
    min_contrast, ambiguous_ratio, edge_line_ratio: line_ridges's thresholds (taken in float32,
    as the profiles are, so a product they scale is rounded as NumPy rounds it). The rules are
    line_ridges._ridge_centres's docstring's."""
    cdef Py_ssize_t S = prof.shape[0], n = prof.shape[1]
    if offsets.shape[0] != n or half_widths.shape[0] != S or widths_px.shape[0] != S:
        raise ValueError("ridge_centres: prof (S, O), offsets (O,), half_widths and widths_px (S,)")
    out_arr = np.full(S, np.nan)
    cdef double[::1] out = out_arr
    cdef Py_ssize_t i, j, k, a, m, kp, left_b, right_b, lo, hi
    cdef float r, best, rival, rival_dark, peak, side_l, side_r, half_l, half_r
    cdef float pl, pl1, ph, ph1
    cdef double left, right, measured, w
    with nogil:
        for i in range(S):
            a = half_widths[i]
            if n <= 2 * a + 2 or a < 0:
                continue
            m = n - 2 * a
            k = -1
            best = -INFINITY
            for j in range(m):
                if fabs(offsets[j + a]) > search_px:
                    continue
                r = prof[i, j + a] - fmax32(prof[i, j], prof[i, j + 2 * a])
                if k < 0 or r > best:
                    k = j
                    best = r
            if k < 0 or not best > min_contrast:
                continue
            rival = -INFINITY
            rival_dark = -INFINITY
            for j in range(m):
                if (j - k if j >= k else k - j) <= 2 * a or fabs(offsets[j + a]) > search_px:
                    continue
                r = prof[i, j + a] - fmax32(prof[i, j], prof[i, j + 2 * a])
                rival = fmax32(rival, r)
                if strict and r > min_contrast:
                    rival_dark = fmax32(
                        rival_dark, prof[i, j + a] - fmin32(prof[i, j], prof[i, j + 2 * a])
                    )
            if rival > ambiguous_ratio * best:
                continue
            kp = k + a
            peak = prof[i, kp]
            side_l = prof[i, kp - a]
            side_r = prof[i, kp + a]
            if strict and rival_dark > ambiguous_ratio * (peak - fmin32(side_l, side_r)):
                continue
            half_l = <float>0.5 * (peak + <float>0.5 * (side_l + side_r))
            half_r = half_l
            if strict and peak - fmax32(side_l, side_r) < edge_line_ratio * (
                peak - fmin32(side_l, side_r)
            ):
                half_l = <float>0.5 * (peak + side_l)
                half_r = <float>0.5 * (peak + side_r)
            left_b = kp - 1
            while left_b >= 0 and not prof[i, left_b] < half_l:
                left_b -= 1
            right_b = kp + 1
            while right_b < n and not prof[i, right_b] < half_r:
                right_b += 1
            if left_b < 0 or right_b > n - 1:
                continue
            lo = left_b + 1
            hi = right_b - 1
            pl = prof[i, lo - 1]
            pl1 = prof[i, lo]
            ph = prof[i, hi]
            ph1 = prof[i, hi + 1]
            left = offsets[lo - 1] + step_px * ((half_l - pl) / fmax32(pl1 - pl, <float>1e-6))
            right = offsets[hi] + step_px * ((ph - half_r) / fmax32(ph - ph1, <float>1e-6))
            measured = right - left
            w = widths_px[i]
            if measured <= 2.5 * w + 2.0 and measured >= 0.3 * w:
                out[i] = 0.5 * (left + right)
    return out_arr


cdef int _cmp_double(const void* x, const void* y) noexcept nogil:
    cdef double a = (<const double*>x)[0], b = (<const double*>y)[0]
    return (a > b) - (a < b)


cdef double _median(double* v, Py_ssize_t n) noexcept nogil:
    """np.median of v[:n] (n >= 1; v is sorted in place): the mean of the two middle values."""
    qsort(v, n, sizeof(double), _cmp_double)
    return 0.5 * (v[(n - 1) // 2] + v[n // 2])


cdef void _solve3(double* A, double* b, int size, double* x) noexcept nogil:
    """x[:3] solving A[:size, :size] x = b[:size] (A row-major 3x3), by elimination with
    partial pivoting; x[size:] = 0. A and b are overwritten."""
    cdef int c, p, r, q
    cdef double f, s, t
    x[0] = x[1] = x[2] = 0.0
    for c in range(size):
        p = c
        for r in range(c + 1, size):
            if fabs(A[3 * r + c]) > fabs(A[3 * p + c]):
                p = r
        if p != c:
            for q in range(size):
                t = A[3 * c + q]
                A[3 * c + q] = A[3 * p + q]
                A[3 * p + q] = t
            t = b[c]
            b[c] = b[p]
            b[p] = t
        for r in range(c + 1, size):
            f = A[3 * r + c] / A[3 * c + c]
            for q in range(c, size):
                A[3 * r + q] -= f * A[3 * c + q]
            b[r] -= f * b[c]
    for c in range(size - 1, -1, -1):
        s = b[c]
        for q in range(c + 1, size):
            s -= A[3 * c + q] * x[q]
        x[c] = s / A[3 * c + c]


cdef void _line_inliers(const double* arc, const double* off, Py_ssize_t N, double tol_px,
                        char* keep, double* scratch) noexcept nogil:
    """keep[:N] for one line: the samples within max(tol_px, 3 robust sigma) of a robust
    polynomial of offset off (px) against arc length arc (m): degree 2 from 8 samples, 1 from
    5, the median below 5; at most 4 refits on the samples kept, stopping when the set is
    stable or would fall below degree + 2. scratch: 3N doubles."""
    cdef double* s = scratch
    cdef double* r = scratch + N
    cdef double* tmp = scratch + 2 * N
    cdef Py_ssize_t i, n_kept, n_new
    cdef double med, lim, lo, hi, total, p, pq, fit
    cdef double A[9]
    cdef double b[3]
    cdef double c[3]
    cdef int deg, size, q, cc, rnd
    cdef bint changed
    cdef char nw
    if N < 5:
        for i in range(N):
            tmp[i] = off[i]
        med = _median(tmp, N)
        for i in range(N):
            r[i] = fabs(off[i] - med)
            tmp[i] = r[i]
        lim = 3 * 1.4826 * _median(tmp, N)
        if lim < tol_px:
            lim = tol_px
        for i in range(N):
            keep[i] = r[i] <= lim
        return
    lo = arc[0]
    hi = arc[0]
    total = 0.0
    for i in range(N):
        if arc[i] < lo:
            lo = arc[i]
        if arc[i] > hi:
            hi = arc[i]
        total += arc[i]
    for i in range(N):
        s[i] = (arc[i] - total / N) / ((hi - lo) + 1e-9)
        keep[i] = 1
    deg = 2 if N >= 8 else 1
    size = deg + 1
    for rnd in range(4):
        for q in range(9):
            A[q] = 0.0
        b[0] = b[1] = b[2] = 0.0
        for i in range(N):
            if keep[i]:
                p = 1.0
                for q in range(size):
                    pq = p
                    for cc in range(size):
                        A[3 * q + cc] += pq
                        pq *= s[i]
                    b[q] += p * off[i]
                    p *= s[i]
        _solve3(A, b, size, c)
        n_kept = 0
        for i in range(N):
            fit = c[0] + c[1] * s[i] + c[2] * s[i] * s[i]
            r[i] = fabs(off[i] - fit)
            if keep[i]:
                tmp[n_kept] = r[i]
                n_kept += 1
        lim = 3.0 * (1.4826 * _median(tmp, n_kept))
        if lim < tol_px:
            lim = tol_px
        n_new = 0
        changed = False
        for i in range(N):
            nw = r[i] <= lim
            n_new += nw
            if nw != keep[i]:
                changed = True
        if not changed or n_new < deg + 2:
            return
        for i in range(N):
            keep[i] = r[i] <= lim


def smooth_inliers_per_line(line, arc, off, double tol_px):
    """(N,) bool: each line's samples that follow a smooth robust curve of offset along the
    line (see _line_inliers). line (N,) int polyline index, arc (N,) m, off (N,) px."""
    line = np.asarray(line)
    arc = np.asarray(arc, float)
    off = np.asarray(off, float)
    if line.ndim != 1 or arc.shape != line.shape or off.shape != line.shape:
        raise ValueError(
            f"smooth_inliers_per_line: line, arc and off must all be (N,), got "
            f"{line.shape}, {arc.shape}, {off.shape}"
        )
    order = np.argsort(line, kind="stable")
    sorted_line = line[order]
    cuts = np.flatnonzero(np.diff(sorted_line)) + 1
    starts_arr = np.concatenate([[0], cuts, [len(line)]]).astype(np.intp)
    cdef const double[::1] arc_s = np.ascontiguousarray(arc[order])
    cdef const double[::1] off_s = np.ascontiguousarray(off[order])
    cdef Py_ssize_t N = arc_s.shape[0]
    keep_s_arr = np.zeros(N, np.bool_)
    if N == 0:
        return keep_s_arr
    cdef char[::1] keep_s = keep_s_arr.view(np.int8)
    cdef Py_ssize_t[::1] starts = starts_arr
    cdef Py_ssize_t g, a, e, G = starts.shape[0] - 1
    cdef double* scratch = <double*>malloc(3 * N * sizeof(double))
    if scratch == NULL:
        raise MemoryError()
    try:
        with nogil:
            for g in range(G):
                a = starts[g]
                e = starts[g + 1]
                _line_inliers(&arc_s[a], &off_s[a], e - a, tol_px, &keep_s[a], scratch)
    finally:
        free(scratch)
    keep = np.empty(N, np.bool_)
    keep[order] = keep_s_arr
    return keep


ctypedef fused real:
    float
    double


def profile_maps(const real[:, ::1] uv, const real[:, ::1] normals, const real[::1] offsets):
    """(mx, my), each (S, O) float32: the pixels uv + offsets * normals at which the S
    profiles across the lines are read (cv2.remap's maps). The NumPy expression's bits in
    the arrays' own precision (all three float64, or all three float32): each coordinate
    uv + (offset * normal), the product and the sum rounded to that precision (the build
    fuses no multiply-add), then to float32. For line_ridges's float64 search and
    line_support's float32 evidence; as broadcast NumPy expressions and their casts this
    cost twice the remap itself."""
    cdef Py_ssize_t S = uv.shape[0], O = offsets.shape[0], i, j
    if uv.shape[1] != 2 or normals.shape[0] != S or normals.shape[1] != 2:
        raise ValueError("profile_maps: uv and normals (S, 2)")
    mx_arr = np.empty((S, O), np.float32)
    my_arr = np.empty((S, O), np.float32)
    cdef float[:, ::1] mx = mx_arr
    cdef float[:, ::1] my = my_arr
    cdef real x, y, nx, ny, a, b
    cdef float* rx
    cdef float* ry
    cdef const real* off
    if S == 0 or O == 0:
        return mx_arr, my_arr
    off = &offsets[0]
    with nogil:
        for i in range(S):
            x = uv[i, 0]
            y = uv[i, 1]
            nx = normals[i, 0]
            ny = normals[i, 1]
            rx = &mx[i, 0]
            ry = &my[i, 0]
            for j in range(O):
                a = off[j] * nx
                b = off[j] * ny
                rx[j] = <float>(x + a)
                ry[j] = <float>(y + b)
    return mx_arr, my_arr


cdef enum:
    MAX_PROFILE = 256  # ridge_evidence's longest profile, px
    MAX_WIDTHS = 8  # ... and most ridge widths


def in_view_normals(const double[:, ::1] run, const long long[::1] starts, double reach,
                    double width, double height):
    """(uv, normals), each (M, 2) float32: the line samples of run (N, 2) float64 px, runs end
    to end (each of 2 or more points; starts (R - 1,) int64, the indices where runs 2..R
    begin), whose profile reaches reach px along the unit image normal to both sides inside
    an image of width x height px, with those normals; M <= N, in run's order.

    line_support's NumPy formulation to the bit: the tangent is np.gradient along each run
    (central differences, one-sided at a run's ends), the normal (-dy, dx) divided by its
    length + 1e-9, both ends of the profile (uv +- reach * normal) within [0, width - 1] x
    [0, height - 1]."""
    cdef Py_ssize_t n = run.shape[0], R = starts.shape[0], i, j, m = 0, nx_i, pv
    if run.shape[1] != 2:
        raise ValueError("in_view_normals: run (N, 2)")
    for j in range(R):
        if starts[j] < 0 or starts[j] >= n:
            raise ValueError("in_view_normals: a run start outside run")
    uv_arr = np.empty((n, 2), np.float32)
    nn_arr = np.empty((n, 2), np.float32)
    first_arr = np.zeros(n + 1, np.uint8)
    cdef float[:, ::1] uv = uv_arr
    cdef float[:, ::1] nn = nn_arr
    cdef unsigned char[::1] first = first_arr
    cdef double dx, dy, ex, ey, length, ax, ay, bx, by, right = width - 1, bottom = height - 1
    cdef bint is_last
    if n == 0:
        return uv_arr, nn_arr
    first[0] = 1
    for j in range(R):
        first[starts[j]] = 1
    with nogil:
        for i in range(n):
            nx_i = i + 1 if i + 1 < n else n - 1
            pv = i - 1 if i > 0 else 0
            is_last = i == n - 1 or first[i + 1]
            if is_last:
                dx = run[i, 0] - run[pv, 0]
                dy = run[i, 1] - run[pv, 1]
            elif first[i]:
                dx = run[nx_i, 0] - run[i, 0]
                dy = run[nx_i, 1] - run[i, 1]
            else:
                dx = 0.5 * (run[nx_i, 0] - run[pv, 0])
                dy = 0.5 * (run[nx_i, 1] - run[pv, 1])
            ex = -dy
            ey = dx
            length = sqrt(ex * ex + ey * ey) + 1e-9
            ex = ex / length
            ey = ey / length
            ax = run[i, 0] + reach * ex
            ay = run[i, 1] + reach * ey
            bx = run[i, 0] - reach * ex
            by = run[i, 1] - reach * ey
            if not (ax >= 0 and bx >= 0 and ax <= right and bx <= right
                    and ay >= 0 and by >= 0 and ay <= bottom and by <= bottom):
                continue
            uv[m, 0] = <float>run[i, 0]
            uv[m, 1] = <float>run[i, 1]
            nn[m, 0] = <float>ex
            nn[m, 1] = <float>ey
            m += 1
    return uv_arr[:m], nn_arr[:m]


def ridge_evidence(const unsigned char[:, ::1] samples, int channels,
                   const float[::1] gray_weights, Py_ssize_t first_offset, Py_ssize_t offsets,
                   const long long[::1] side_px, float min_contrast, double first_offset_px,
                   double tol_px):
    """(found, support, residual_px) of S brightness profiles across the court's lines:
    samples (S, P * channels) uint8, each row P pixels read along a line's normal (cv2.remap's
    output, BGR when channels is 3, weighted by gray_weights (3,) float32 into a gray level as
    line_support's ``vals @ weights`` rounds it, or gray when 1).

    At the offsets candidate columns from first_offset (offset first_offset_px px, then
    1 px apart), the ridge
    response is the column minus the brighter of the columns side_px (D,) int64 away on
    either side, the best over those widths; a sample's ridge is its strongest response
    (the first of equals), found when above min_contrast. found: samples with a ridge;
    support: the share of all S samples whose ridge lies within tol_px of 0 (NaN when S is
    0); residual_px: the median |offset| of the found ridges (NaN with none). The float32
    arithmetic of line_support.line_evidence's NumPy formulation, in its order."""
    cdef Py_ssize_t S = samples.shape[0], P, i, j, k, q, best_k, D = side_px.shape[0]
    cdef Py_ssize_t found = 0, near = 0
    if channels != 1 and channels != 3:
        raise ValueError("ridge_evidence: 1 or 3 channels")
    if gray_weights.shape[0] != 3 or samples.shape[1] % channels:
        raise ValueError("ridge_evidence: gray_weights (3,), samples (S, P * channels)")
    P = samples.shape[1] // channels
    for q in range(D):
        if side_px[q] < 0 or first_offset - side_px[q] < 0 or (
            first_offset + offsets - 1 + side_px[q] >= P
        ):
            raise ValueError("ridge_evidence: a side probe outside the profile")
    if offsets < 1 or D < 1:
        raise ValueError("ridge_evidence: no candidate offset or no ridge width")
    if P > MAX_PROFILE or D > MAX_WIDTHS:
        raise ValueError(f"ridge_evidence: at most {MAX_PROFILE} px a profile, {MAX_WIDTHS} widths")
    if S == 0:
        return 0, float("nan"), float("nan")
    # local arrays: the compiler knows they do not overlap, so the response loops vectorise
    cdef float prof[MAX_PROFILE]
    cdef float resp[MAX_PROFILE]
    cdef float side[MAX_PROFILE]
    cdef Py_ssize_t sides[MAX_WIDTHS]
    cdef double* away = <double*>malloc(S * sizeof(double))
    cdef Py_ssize_t d, lo, hi
    cdef float w0 = gray_weights[0], w1 = gray_weights[1], w2 = gray_weights[2]
    cdef float lut0[256]  # each channel's level times its weight, as float32 rounds it
    cdef float lut1[256]
    cdef float lut2[256]
    for j in range(256):
        lut0[j] = <float>j * w0
        lut1[j] = <float>j * w1
        lut2[j] = <float>j * w2
    cdef float r, best
    cdef double off
    cdef const unsigned char* row
    if away == NULL:
        raise MemoryError()
    for q in range(D):
        sides[q] = side_px[q]
    try:
        with nogil:
            for i in range(S):
                row = &samples[i, 0]
                if channels == 3:
                    for j in range(P):
                        prof[j] = (lut0[row[3 * j]] + lut1[row[3 * j + 1]]) + lut2[row[3 * j + 2]]
                else:
                    for j in range(P):
                        prof[j] = <float>row[j]
                for k in range(offsets):
                    resp[k] = -INFINITY
                for q in range(D):  # each width over all offsets
                    d = sides[q]
                    lo = first_offset - d
                    hi = first_offset + d
                    for k in range(offsets):
                        side[k] = prof[lo + k] if prof[lo + k] >= prof[hi + k] else prof[hi + k]
                    for k in range(offsets):
                        r = prof[first_offset + k] - side[k]
                        resp[k] = resp[k] if resp[k] >= r else r
                best = resp[0]
                best_k = 0
                for k in range(1, offsets):
                    if resp[k] > best:
                        best = resp[k]
                        best_k = k
                if best > min_contrast:
                    off = fabs(<double>best_k + first_offset_px)
                    away[found] = off
                    found += 1
                    if off <= tol_px:
                        near += 1
        support = near / <double>S
        residual = _median(away, found) if found else float("nan")
    finally:
        free(away)
    return found, support, residual

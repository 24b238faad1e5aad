"""Is a click on its painted crossing? The frame's own paint as evidence for the doctor.

Most court keypoints are crossings of painted lines (a corner, a T), and the annotator clicks
the crossing of the two line centres. A camera solved from few clicks absorbs a wrong click
(the leave-one-out residuals cannot tell which one moved), but the image does not: a click
12 px off its crossing sits 12 px off the painted lines' centres.

For each click and each painted line through its keypoint, the line is followed in the image
from the click (its direction from the camera) over ``REACH_PX``; across it, within
``SEARCH_PX``, the painted-line centre is found as a sub-pixel ridge (geometry.line_ridges.
ridge_offsets: ambiguous and too-wide profiles are dropped; a line at the edge of a painted
area, such as the NBA key's lines between the dark key and the bright floor, stands little
above its bright side, so any other line as high above its darker side makes the profile
ambiguous rather than losing to a line inside the area), and a straight line is fitted to the
centres robustly (a lone centre that tilts the line through itself is dropped; centres along
a line turned more than MAX_TURN_DEG from the camera's direction are another line crossing the
search). The click's signed distance from each fitted line is the evidence; with two lines at
a clear angle, their crossing gives the click's full 2D offset. No ridge, too few or
scattered centres, or a keypoint on no painted line = no evidence (NaN), never a suspect:
ambiguous paint gives no evidence, not a wrong offset.

Paint can mislead (the keypoint's own line unpainted and a neighbouring line's ridge found, a
painted area's edge instead of a line), so ``off_paint_z`` counts the evidence only where the
camera solved without the click backs it: the keypoint it predicts is likelier on the paint
than at the click (geometry.doctor.find_suspects then names such clicks first).

Plain arrays only (pixels of the image as it is; world metres), no court spec types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geometry.camera import Camera
from geometry.line_ridges import mask_allows, ridge_offsets, robust_polyfit_inliers

SEARCH_PX = 18.0  # half-width of the search across each line, px (a 12 px slip is inside)
START_PX = 7.0  # samples start this far from the click (clear of the crossing line)
REACH_PX = 60.0  # and end this far along the line
STEP_PX = 3.0
MIN_RIDGES = 6  # painted-line centres needed for a line's fit
MIN_SPAN_PX = 20.0  # ... spread over at least this length along the line
MAX_SCATTER_PX = 1.5  # robust scatter of the centres about the fitted line
MAX_TURN_DEG = 8.0  # the centres' line may turn this far from the camera's (a camera of 5
# clicks, one of them 12 px off: < 6 degrees on the dev set; another line crossing: > 10)
MIN_SIN_ANGLE = 0.35  # two lines give a crossing only when they meet at >= ~20 degrees
ON_LINE_TOL_M = 1e-3
STRAIGHT_COS = float(np.cos(np.radians(1.0)))  # a polyline runs straight while it turns less
MIN_LINE_SIGMA_PX = 0.5  # a fitted line centre is never trusted below this (bias, curvature)


@dataclass(frozen=True)
class PaintCheck:
    """The painted lines near N clicks.

    offset_uv: (N, 2) px, painted crossing minus click (the component along the one painted
    line found is 0 when only one line was found); NaN rows: no evidence. normals: (N, 2, 2)
    unit image normals of the (up to two) lines used, NaN rows where absent; offsets: (N, 2)
    px, the click's signed distance from each fitted line centre (along that normal: the line
    centre is at click + offset * normal), NaN where absent; sigma_px: (N, 2) px, 1-sigma of
    those offsets (the line fits' own, from the ridges' scatter about them, at least
    MIN_LINE_SIGMA_PX); lines: (N,) int, painted lines found.
    """

    offset_uv: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    sigma_px: np.ndarray
    lines: np.ndarray

    def distance_px(self) -> np.ndarray:
        """(N,) px: |offset_uv|, NaN without evidence."""
        return np.asarray(np.linalg.norm(self.offset_uv, axis=1))

    def z(self, uv: np.ndarray, predicted_uv: np.ndarray, click_sigma_px: float) -> np.ndarray:
        """(N,) how far predicted_uv (N, 2) px lies from the paint, in 1-sigma units: the
        root of the chi-square of the line offsets (one or two) at predicted_uv, their
        covariance the click noise click_sigma_px (isotropic, px) seen along the lines'
        normals plus the line fits' own; NaN without evidence. uv: (N, 2) px, the clicks the
        evidence was measured from (predicted_uv = uv: each click's own distance)."""
        x = np.asarray(uv, float)
        q = np.asarray(predicted_uv, float)
        out = np.full(len(x), np.nan)
        for i in np.flatnonzero(self.lines > 0):
            k = int(self.lines[i])
            N = self.normals[i, :k]
            c = self.offsets[i, :k] - N @ (q[i] - x[i])
            S = click_sigma_px**2 * (N @ N.T) + np.diag(self.sigma_px[i, :k] ** 2)
            out[i] = float(np.sqrt(c @ np.linalg.solve(S, c)))
        return out


def _straight_run(P: np.ndarray, j: int, X: np.ndarray, forward: bool) -> tuple[np.ndarray, float]:
    """(unit (3,) direction, length m) of the polyline P (M, 3) from X on its segment j,
    onward (forward: toward P[j + 1]) for as long as it runs straight (STRAIGHT_COS)."""
    step = 1 if forward else -1
    end = j + 1 if forward else j
    d = P[end] - X
    length = float(np.linalg.norm(d))
    u = d / length
    k = end
    while 0 <= k + step < len(P):
        e = P[k + step] - P[k]
        n = float(np.linalg.norm(e))
        if n < 1e-9:
            k += step
            continue
        if float(np.dot(e / n, u)) < STRAIGHT_COS:
            break
        length += n
        k += step
    return u, length


Arm = tuple[np.ndarray, float]  # (unit (3,) world direction, length m)


def lines_through(
    point_world: np.ndarray, polylines: Sequence[np.ndarray]
) -> list[tuple[int, list[Arm]]]:
    """The straight painted lines through point_world (3,) metres: [(polyline index,
    [(unit (3,) world direction, length m)])], one entry per straight line (within
    ON_LINE_TOL_M), with one arm where the line ends at the point (a corner: a polyline
    turning there gives two lines) and two opposite arms where it runs through. An arm's
    length is how far the polyline runs straight from the point (an arc: a few centimetres)."""
    out = []
    X = np.asarray(point_world, float)
    for k, pl in enumerate(polylines):
        P = np.asarray(pl, float)
        arms: list[tuple[np.ndarray, float]] = []
        A, D = P[:-1], P[1:] - P[:-1]
        L2 = np.sum(D**2, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            S = np.clip(np.sum((X - A) * D, axis=1) / L2, 0.0, 1.0)
        near = (L2 > 1e-18) & (np.linalg.norm(A + S[:, None] * D - X, axis=1) <= ON_LINE_TOL_M)
        for j in map(int, np.flatnonzero(near)):
            s, n = float(S[j]), float(np.sqrt(L2[j]))
            if s * n > ON_LINE_TOL_M:
                arms.append(_straight_run(P, j, X, forward=False))
            if (1 - s) * n > ON_LINE_TOL_M:
                arms.append(_straight_run(P, j, X, forward=True))
        uniq: list[tuple[np.ndarray, float]] = []
        for arm in arms:
            if all(np.dot(arm[0], e[0]) < 0.999 for e in uniq):
                uniq.append(arm)
        used: set[int] = set()
        for i, arm in enumerate(uniq):
            if i in used:
                continue
            group = [arm]
            for m in range(i + 1, len(uniq)):
                if m not in used and np.dot(arm[0], uniq[m][0]) < -0.999:
                    group.append(uniq[m])
                    used.add(m)
                    break
            out.append((k, group))
    return out


def _ends(X: np.ndarray, arms: list[Arm], width_m: float) -> list[np.ndarray]:
    """World points (3,) metres whose projections place one straight line through X: X, X
    a line width to its side, then per arm a point 5 cm along it and its straight end."""
    side = np.cross(arms[0][0], [0.0, 0.0, 1.0])
    ends = [X, X + width_m * side]
    for d, length_m in arms:
        ends += [X + d * min(0.05, length_m), X + d * length_m]
    return ends


def _samples(
    uv: np.ndarray, click: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
    """Where to look for one straight painted line: (image points (S, 2) px along the line
    from the click, their signed distance r (S,) px from it, the line's unit image normal
    (2,), its painted width px), or None. uv: the projections (px) of _ends. The points run
    from the click along the line's image direction (the camera's) on each arm, START_PX to
    REACH_PX or the arm's straight extent."""
    if not np.all(np.isfinite(uv[:2])):
        return None
    uv0 = uv[0]
    tangent: np.ndarray | None = None
    pts, rs = [], []
    for k in range((len(uv) - 2) // 2):
        near, far = uv[2 + 2 * k], uv[3 + 2 * k]
        t = near - uv0
        if not (np.all(np.isfinite(near)) and np.all(np.isfinite(far))) or np.hypot(*t) < 1e-6:
            continue
        t = t / np.hypot(*t)
        if tangent is None:
            tangent = t
        sgn = 1.0 if np.dot(t, tangent) > 0 else -1.0
        r = np.arange(START_PX, min(REACH_PX, float(np.hypot(*(far - uv0))) - 2.0), STEP_PX)
        pts.append(click[None] + sgn * r[:, None] * tangent[None])
        rs.append(sgn * r)
    if tangent is None or not pts:
        return None
    normal = np.array([-tangent[1], tangent[0]])
    width_px = max(abs(float(np.dot(uv[1] - uv0, normal))), 1.0)
    return np.concatenate(pts), np.concatenate(rs), normal, width_px


def _fit_line(r: np.ndarray, c: np.ndarray) -> tuple[float, float] | None:
    """(offset at r = 0 px, its 1-sigma px) of a straight line c(r) through the ridge
    centres c (S,) px (NaN: none found) at signed distances r (S,) px along the line, with
    the centres off it dropped; None when too few, too short, too scattered or turned more
    than MAX_TURN_DEG from the camera's direction (another line crossing the search)."""
    good = np.isfinite(c)
    r, c = r[good], c[good]
    if len(r) < MIN_RIDGES or np.ptp(r) < MIN_SPAN_PX:
        return None
    # a straight line through the centres, the centres off it (> 1 px and 3 sigma) dropped
    keep = robust_polyfit_inliers(r, c, 1, 1.0, MIN_RIDGES)
    keep = _drop_leverage(r, c, keep)
    rk = r[keep]
    if len(rk) < MIN_RIDGES or np.ptp(rk) < MIN_SPAN_PX:
        return None
    b, a = np.polyfit(rk, c[keep], 1)
    if abs(b) > np.tan(np.radians(MAX_TURN_DEG)):
        return None
    scatter = float(np.sqrt(np.mean((c[keep] - (a + b * rk)) ** 2)))
    if scatter > MAX_SCATTER_PX:
        return None
    # 1-sigma of the intercept of a straight-line fit
    sxx = float(np.sum((rk - rk.mean()) ** 2))
    var = max(scatter, 0.3) ** 2 * (1.0 / len(rk) + rk.mean() ** 2 / sxx)
    return float(a), float(np.sqrt(var))


def _drop_leverage(r: np.ndarray, c: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """keep (S,) bool less the centres that the straight line through the others misses by
    more than max(1 px, 3 robust sigma), worst first. A lone centre far along r from the rest
    (a ridge next to the crossing, the others 30 px on) pulls a straight line through itself,
    so its own residual is small; its deleted residual (residual / (1 - leverage)) is not."""
    keep = keep.copy()
    while keep.sum() > MIN_RIDGES:
        rk, ck = r[keep], c[keep]
        dr = rk - rk.mean()
        sxx = max(float(dr @ dr), 1e-12)
        e = ck - ck.mean() - (float(dr @ ck) / sxx) * dr  # least-squares residuals
        h = 1.0 / len(rk) + dr**2 / sxx  # their leverages
        deleted = np.abs(e) / np.maximum(1.0 - h, 1e-9)
        tol = max(1.0, 3.0 * 1.4826 * float(np.median(np.abs(e))))
        worst = int(np.argmax(deleted))
        if deleted[worst] <= tol:
            break
        keep[np.flatnonzero(keep)[worst]] = False
    return keep


def check_clicks_on_paint(
    gray: np.ndarray,
    camera: Camera,
    points_world: np.ndarray,
    uv: np.ndarray,
    polylines: Sequence[np.ndarray],
    widths_m: Sequence[float] | None = None,
    through: Sequence[list[tuple[int, list[Arm]]]] | None = None,
    mask: np.ndarray | None = None,
) -> PaintCheck:
    """Paint evidence for each click.

    gray: (h, w) float32 of geometry.line_ridges.to_gray, the frame of camera.image_size;
    camera: the clicks' camera (only the lines' directions and widths are taken from it);
    points_world: (N, 3) metres, world frame, the clicked keypoints; uv: (N, 2) px, the
    clicks; polylines: painted lines (M, 3) metres on the playing surface; widths_m: their
    painted widths, metres (default 5 cm each); through: lines_through(points_world[i],
    polylines) per click when the caller keeps them (they depend on the court only); mask:
    uint8 over the image at any scale, 0 where the picture is not the court's (graphics): no
    line sample lies there and no painted centre found there counts
    (geometry.line_ridges.mask_allows).
    """
    X = np.asarray(points_world, float).reshape(-1, 3)
    x = np.asarray(uv, float).reshape(-1, 2)
    n = len(X)
    widths = [0.05] * len(polylines) if widths_m is None else list(widths_m)
    h, w = gray.shape[:2]
    if tuple(camera.image_size) != (w, h):
        raise ValueError(f"image is {w}x{h}, the camera's {camera.image_size}")
    # every line near every click first, then all the profiles in one pass
    inside = np.all(np.isfinite(x), axis=1) & camera.in_image(x, 0.0)
    todo = [
        (i, k, arms)
        for i in map(int, np.flatnonzero(inside))
        for k, arms in (through[i] if through is not None else lines_through(X[i], polylines))
    ]
    ends = [_ends(X[i], arms, widths[k]) for i, k, arms in todo]
    proj = camera.project(np.array([e for es in ends for e in es])) if todo else np.zeros((0, 2))
    first = np.cumsum([0] + [len(es) for es in ends])
    lines: list[tuple[int, np.ndarray, np.ndarray]] = []  # (click, normal, r) per line
    pts, nrm, wid, owner = [], [], [], []
    for j, (i, _k, _arms) in enumerate(todo):
        sm = _samples(proj[first[j] : first[j + 1]], x[i])
        if sm is None:
            continue
        p, r, normal, width_px = sm
        ok = camera.in_image(p, -(SEARCH_PX + 12.0))
        if mask is not None:
            ok &= mask_allows(mask, p, (w, h))
        if not np.any(ok):
            continue
        owner.append(np.full(int(ok.sum()), len(lines)))
        lines.append((i, normal, r[ok]))
        pts.append(p[ok])
        nrm.append(np.repeat(normal[None], int(ok.sum()), axis=0))
        wid.append(np.full(int(ok.sum()), width_px))
    found = (
        ridge_offsets(
            gray, np.concatenate(pts), np.concatenate(nrm), np.concatenate(wid), SEARCH_PX
        )
        if pts
        else np.zeros(0)
    )
    if mask is not None and len(found):  # a centre found on a graphic is not paint
        at = np.concatenate(pts) + found[:, None] * np.concatenate(nrm)
        found = np.where(np.isfinite(found) & mask_allows(mask, at, (w, h)), found, np.nan)
    own = np.concatenate(owner) if owner else np.zeros(0, int)
    per_click: dict[int, list[tuple[np.ndarray, float, float]]] = {}
    for j, (i, normal, r) in enumerate(lines):
        f = _fit_line(r, found[own == j])
        if f is not None:
            per_click.setdefault(i, []).append((normal, f[0], f[1]))
    normals = np.full((n, 2, 2), np.nan)
    offsets = np.full((n, 2), np.nan)
    sig = np.full((n, 2), np.nan)
    nlines = np.zeros(n, int)
    offset_uv = np.full((n, 2), np.nan)
    for i, fits in per_click.items():
        if len(fits) > 2:  # the two lines crossing most squarely
            pairs = [(a, b) for a in range(len(fits)) for b in range(a + 1, len(fits))]
            a, b = max(pairs, key=lambda q: abs(_cross2(fits[q[0]][0], fits[q[1]][0])))
            fits = [fits[a], fits[b]]
        if len(fits) == 2 and abs(_cross2(fits[0][0], fits[1][0])) < MIN_SIN_ANGLE:
            fits = [min(fits, key=lambda f: f[2])]  # nearly parallel: one line's worth
        for j, (nv, off, s) in enumerate(fits):
            normals[i, j], offsets[i, j], sig[i, j] = nv, off, max(s, MIN_LINE_SIGMA_PX)
        nlines[i] = len(fits)
        if len(fits) == 2:
            offset_uv[i] = np.linalg.solve(normals[i], offsets[i])
        else:
            offset_uv[i] = offsets[i, 0] * normals[i, 0]
    return PaintCheck(offset_uv, normals, offsets, sig, nlines)


def off_paint_z(
    paint: PaintCheck,
    uv: np.ndarray,
    click_sigma_px: float,
    predicted_uv: np.ndarray | None = None,
    predicted_cov: np.ndarray | None = None,
) -> np.ndarray:
    """(N,) how far each click lies off its painted lines in 1-sigma units (PaintCheck.z),
    NaN where there is no evidence or the camera does not back it.

    Backing: predicted_uv (N, 2) px, each keypoint as the camera solved without that click
    projects it, with predicted_cov (N, 2, 2) px^2 its covariance, must be more likely
    under "the keypoint is on the paint" (within the line fits' own sigma) than under "the
    keypoint is at the click" (within click_sigma_px): a ridge found on a neighbouring line
    (the keypoint's own line unpainted, a painted key's edge) lies as far from the
    prediction as the click does, or farther, and is then no evidence. With predicted_uv
    None the paint alone speaks."""
    x = np.asarray(uv, float).reshape(-1, 2)
    z = paint.z(x, x, click_sigma_px)
    if predicted_uv is None:
        return z
    q = np.asarray(predicted_uv, float)
    cq = np.zeros((len(x), 2, 2)) if predicted_cov is None else np.asarray(predicted_cov, float)
    for i in np.flatnonzero(np.isfinite(z)):
        k = int(paint.lines[i])
        N = paint.normals[i, :k]
        if not (np.all(np.isfinite(q[i])) and np.all(np.isfinite(cq[i]))):
            z[i] = np.nan
            continue
        c_paint = paint.offsets[i, :k] - N @ (q[i] - x[i])  # paint relative to the prediction
        c_click = -N @ (q[i] - x[i])  # the click relative to the prediction
        s_pred = N @ cq[i] @ N.T
        if not _log_likelihood(c_paint, s_pred + np.diag(paint.sigma_px[i, :k] ** 2)) > (
            _log_likelihood(c_click, s_pred + click_sigma_px**2 * (N @ N.T))
        ):
            z[i] = np.nan
    return z


def _cross2(a: np.ndarray, b: np.ndarray) -> float:
    """z of the cross product of two 2D vectors (the sine of their angle for unit ones)."""
    return float(a[0] * b[1] - a[1] * b[0])


def _log_likelihood(c: np.ndarray, cov: np.ndarray) -> float:
    """Gaussian log-density of the offsets c (K,) px under covariance cov (K, K) px^2, up to
    the constant both hypotheses share."""
    sign, logdet = np.linalg.slogdet(cov)
    if sign <= 0:
        return -np.inf
    return float(-0.5 * (c @ np.linalg.solve(cov, c)) - 0.5 * logdet)

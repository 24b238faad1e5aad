"""Refine a camera on the painted court lines, jointly with the clicks.

Clicks are a few pixels off; the painted lines are visible along their whole length. Starting
from a camera (the clicks' fit), repeat with a shrinking search radius: find the painted-line
centres near the projected lines (geometry.line_ridges), then fit the camera's parameters to
the normal distances of the line samples from their centres *and* to the clicks (each
weighted by its noise; robust on the lines only, so the samples the ridge filter let through
on a player or a logo cannot pull, while the clicks keep their full say). With
``model='auto'`` the lens (k1) is freed when the lines support it (a BIC test on the line
cost). The result is kept only if it is no worse: enough line support from non-parallel
lines, a support (share of line samples on a painted line) that did not fall, the clicks still
explained by their noise, a plausible camera; otherwise the input camera is returned with the
reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from geometry.arrays import unique_sorted
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.chi2 import chi2_isf
from geometry.distortion import monotonic_over_pixels
from geometry.joint_covariance import (
    LINE_EFFECTIVE_SAMPLES,
    LINE_SIGMA_PX,
    LensPrior,
    click_rows,
    huber_weights,
    line_offsets_px,
    line_rows,
    line_weights,
)
from geometry.levenberg_marquardt import focal_stays_positive, minimise_rows
from geometry.line_ridges import Ridges, cached_line_samples, find_ridges, to_gray

SEARCH_PX = (20.0, 10.0, 5.0)
MIN_SAMPLES = 30
MIN_LINES = 3
SUPPORT_TOL_PX = 2.0  # a sample 'supports' a camera when its ridge is this close
CLICK_CHI2_QUANTILE = 0.99
SUPPORT_SLACK = 0.01  # support may not fall by more than this
IRLS_ROUNDS = 3
FIT_MAX_ITER = 40  # Levenberg-Marquardt steps a robust round may take
FIT_REL_COST_TOL = 1e-8  # a round stops when a step lowers the cost by less than this share


@dataclass(frozen=True)
class LineRefinement:
    """What refine_camera_on_lines did. Distances in px; support in [0, 1] is the fraction of
    in-view line samples whose painted-line centre lies within SUPPORT_TOL_PX of the
    projected line (measured with the same detector for both cameras)."""

    accepted: bool
    reason: str
    model: str
    support_before: float
    support_after: float
    line_rms_before_px: float
    line_rms_after_px: float
    click_rms_before_px: float | None
    click_rms_after_px: float | None
    samples: int
    lines_used: int
    per_line: dict = field(default_factory=dict)  # name -> {"tried", "found", "rms_px"}
    theta: np.ndarray | None = None  # (P,) the refined parameters of ``model``
    covariance: np.ndarray | None = None  # (P, P) their covariance (lines and clicks)
    # the painted-line samples found at the last search radius about the refined camera
    # (what its support_after was measured on), or None before a refined camera exists
    ridges_after: Ridges | None = None

    def to_dict(self) -> dict:
        def r(v):
            return None if v is None or not np.isfinite(v) else round(float(v), 4)

        return {
            "accepted": self.accepted,
            "reason": self.reason,
            "model": self.model,
            "support_before": r(self.support_before),
            "support_after": r(self.support_after),
            "line_rms_before_px": r(self.line_rms_before_px),
            "line_rms_after_px": r(self.line_rms_after_px),
            "click_rms_before_px": r(self.click_rms_before_px),
            "click_rms_after_px": r(self.click_rms_after_px),
            "samples": self.samples,
            "lines_used": self.lines_used,
            "per_line": self.per_line,
        }


def _click_rms(camera, X, x):
    if X is None or len(X) == 0:
        return None
    return float(np.sqrt(np.mean(np.sum((camera.project(X) - x) ** 2, axis=1))))


def _fit(model: ParamModel, theta0, ridges: Ridges, X, x, size, click_sigma_px, prior=None):
    """Joint least squares, robust on the lines only; returns (theta, cost, covariance).

    Line samples along one line share their errors (paint width, a lens term the model lacks),
    so each line counts as at most LINE_EFFECTIVE_SAMPLES independent ones; a sample's weight
    is also Huber's (k = HUBER_K sigma), by iterative reweighting, so a ridge on a player
    cannot pull. Clicks keep a plain quadratic cost: they are the annotator's, and the lines
    must agree with them, not outvote them. A LensPrior (or None) holds the radial terms near
    its mean. The cost is in sigma units; the rows are geometry.joint_covariance's. Each round
    is geometry.levenberg_marquardt's loop: on 16 real NBA frames scipy's least_squares took
    3.7 ms a fit against its 2.4 ms, to within 2e-5 px, and cost 0.36 s of import a run."""
    w_line = line_weights(ridges)
    w = w_line.copy()

    def parts(theta):
        r, J = line_rows(model, theta, ridges, size, LINE_SIGMA_PX, w)
        rs, Js = [r], [J]
        if X is not None and len(X):
            r_c, J_c = click_rows(model, theta, X, x, size, click_sigma_px)
            rs.append(r_c)
            Js.append(J_c)
        if prior is not None:
            r_p, J_p = prior.rows(theta, model.size)
            rs.append(r_p)
            Js.append(J_p)
        return np.concatenate(rs), np.vstack(Js)

    theta = np.asarray(theta0, float)
    for _ in range(IRLS_ROUNDS):
        res = minimise_rows(
            parts,
            theta,
            max_iter=FIT_MAX_ITER,
            rel_cost_tol=FIT_REL_COST_TOL,
            valid=focal_stays_positive(model),
        )
        if not np.isfinite(res.cost):  # a sample or click without an image at the start
            raise ValueError("the line and click residuals are not finite at the start")
        theta = res.theta
        w = w_line * huber_weights(line_offsets_px(model, theta, ridges, size), LINE_SIGMA_PX)
    r, J = parts(theta)
    try:
        cov = np.linalg.inv(J.T @ J)  # residuals are in sigma units
    except np.linalg.LinAlgError:
        cov = np.full((len(theta), len(theta)), np.inf)
    return theta, float(r @ r), cov


def clicks_within_noise(camera: Camera, X: np.ndarray, x: np.ndarray, sigma_px: float) -> bool:
    """Whether a camera explains clicks x (N, 2) px of world points X (N, 3) metres within
    their noise sigma_px: the chi-square of the residuals at most its CLICK_CHI2_QUANTILE
    quantile (2N degrees of freedom). A click the camera gives no image (behind it, or
    folded away by its lens: NaN) is not explained."""
    chi = float(np.sum((camera.project(X) - x) ** 2)) / sigma_px**2
    return chi <= chi2_isf(1.0 - CLICK_CHI2_QUANTILE, 2 * len(X))  # False for NaN


def default_step_m(polylines) -> float:
    """Sample spacing along lines, metres: the longest polyline ((M, 3) metres each) / 120,
    at least 0.02 m."""
    longest = max(
        (np.sum(np.linalg.norm(np.diff(np.asarray(p, float), axis=0), axis=1)) for p in polylines),
        default=1.0,
    )
    return max(longest / 120.0, 0.02)


def _support(
    gray, camera, polylines, step_m, samples=None, mask=None
) -> tuple[float, float, Ridges]:
    """(support, inlier line RMS px, ridges) of a camera at the final search radius (samples,
    mask: find_ridges's)."""
    rid = find_ridges(gray, camera, polylines, SEARCH_PX[-1], step_m, samples=samples, mask=mask)
    tried = int(rid.tried.sum())
    if tried == 0 or len(rid) == 0:
        return 0.0, float("nan"), rid
    d = rid.distances_px(camera)
    close = np.abs(d) <= SUPPORT_TOL_PX
    rms = float(np.sqrt(np.mean(d[close] ** 2))) if close.any() else float("nan")
    return float(close.sum() / tried), rms, rid


def _directions_ok(polylines, line_idx) -> bool:
    """At least MIN_LINES lines found, not all parallel."""
    used = unique_sorted(line_idx)
    if len(used) < MIN_LINES:
        return False
    dirs = []
    for k in used:
        d = np.asarray(polylines[k][-1], float) - np.asarray(polylines[k][0], float)
        dirs.append(d[:2] / (np.linalg.norm(d[:2]) + 1e-12))
    dirs = np.array(dirs)
    return bool(np.max(np.abs(dirs[:, 0] * dirs[0, 1] - dirs[:, 1] * dirs[0, 0])) > 0.3)


def refine_camera_on_lines(
    camera: Camera,
    polylines,
    image,
    points_world=None,
    uv=None,
    model: str | ParamModel = "auto",
    click_sigma_px: float = 2.0,
    line_names=None,
    step_m: float | None = None,
    lens_prior: LensPrior | None = None,
    search_px: tuple[float, ...] = SEARCH_PX,
    baseline: Camera | None = None,
    gray: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> tuple[Camera, LineRefinement]:
    """Refine ``camera`` on painted lines (and clicks); never return a worse camera.

    camera: the starting camera (e.g. the clicks' fit); polylines: list of (M, 3) metres,
    world frame, the painted lines of one plane (no net line); image: (h, w) grey or
    (h, w, 3) BGR uint8, the frame as shot; points_world (N, 3) metres and uv (N, 2) pixels:
    the clicks, or None for lines only; model: 'auto' (pinhole, k1 freed when the lines
    support it), or a one-focal model name ('simple', 'simple_k1', 'simple_k1k2'), or 'keep'
    (the starting camera's own model), or a ParamModel (e.g. geometry.held_lens's, a lens
    held fixed); click_sigma_px: the clicks' 1-sigma noise, px;
    line_names: (L,) names for the report; step_m: sample spacing along lines, metres
    (default: the longest line / 120); lens_prior: a geometry.joint_covariance.LensPrior
    holding the model's radial terms near a reference's (None: free, or fixed by the model);
    search_px: the shrinking search radii, px (SEARCH_PX; a start already within a pixel or
    two of the lines, such as a neighbouring frame's refined camera carried to this frame,
    needs only the last, SEARCH_PX[-1:]);
    baseline: the camera the result must be no worse than (its line support, its line RMS
    and clicks in the report's "before" fields; None: the starting camera), e.g. a frame's
    point fit when the search starts from a neighbour's camera;
    gray: line_ridges.to_gray(image) when the caller has it (a propagation makes it on its
    scan thread, and refines some frames twice), else made here;
    mask: uint8 (hm, wm) over the image at any scale, 0 over what is not the court's picture
    (screen-fixed graphics, user masks): no line sample is searched or found there
    (line_ridges.find_ridges), in the fit and in the support alike. On a synthetic clay clip
    the ridges on a ticker's letters and a score box's edges put refined cameras 8-10 px off
    at the keypoints under the graphics (BENCHMARKS.md, twenty-third session).

    Returns (camera, report): the refined camera when report.accepted, else ``camera``
    unchanged and report.reason says why.
    """
    if not search_px or not all(r > 0 for r in search_px):
        raise ValueError(f"search_px: one or more positive radii, got {search_px!r}")
    polylines = [np.asarray(p, float) for p in polylines]
    names = (
        list(line_names) if line_names is not None else [f"line {i}" for i in range(len(polylines))]
    )
    X = None if points_world is None else np.asarray(points_world, float).reshape(-1, 3)
    x = None if uv is None else np.asarray(uv, float).reshape(-1, 2)
    size = camera.image_size
    if step_m is None:
        step_m = default_step_m(polylines)
    gray = to_gray(image) if gray is None else gray
    if gray.shape[::-1] != tuple(size):
        raise ValueError(
            f"image: {gray.shape[1]}x{gray.shape[0]} does not match the camera's "
            f"{size[0]}x{size[1]}"
        )
    base = camera if baseline is None else baseline
    samples = cached_line_samples(polylines, step_m)  # the same lines, searched 3-7 times
    sup0, rms0, _ = _support(gray, base, polylines, step_m, samples, mask)
    click0 = _click_rms(base, X, x)

    if isinstance(model, ParamModel):
        models = [model]
    elif model == "keep":
        k = int(np.count_nonzero(camera.dist[:2]))
        models = [ParamModel(("simple", "simple_k1", "simple_k1k2")[k])]
    elif model == "auto":
        models = [ParamModel("simple"), ParamModel("simple_k1")]
    else:
        models = [ParamModel(model)]

    def fail(reason, rid=None, name=models[-1].name):
        return camera, LineRefinement(
            False,
            reason,
            name,
            sup0,
            sup0,
            rms0,
            rms0,
            click0,
            click0,
            0 if rid is None else len(rid),
            0 if rid is None else len(unique_sorted(rid.line)),
            _per_line(rid, camera, names) if rid is not None else {},
        )

    results = []
    for m in models:
        theta = m.from_camera(camera)
        rid = None
        cost = np.inf
        for radius in search_px:
            cur = m.to_camera(theta, size)
            rid = find_ridges(gray, cur, polylines, radius, step_m, samples=samples, mask=mask)
            if len(rid) < MIN_SAMPLES or not _directions_ok(polylines, rid.line):
                break
            theta, cost, cov = _fit(m, theta, rid, X, x, size, click_sigma_px, lens_prior)
        else:
            results.append((m, theta, cost, rid, cov))
            continue
        if not results and m is models[-1]:
            n_found = 0 if rid is None else len(rid)
            return fail(
                f"too little line support: {n_found} line samples found on "
                f"{0 if rid is None else len(unique_sorted(rid.line))} lines (need "
                f"{MIN_SAMPLES} on {MIN_LINES} non-parallel lines)",
                rid,
            )
    if not results:
        return fail("too little line support")
    m, theta, cost, rid, cov = results[0]
    if len(results) > 1:  # BIC: the richer lens must pay for its parameter
        m2, theta2, cost2, rid2, cov2 = results[1]
        counts = np.bincount(rid2.line)
        n_eff = float(np.sum(np.minimum(counts, LINE_EFFECTIVE_SAMPLES)))
        if cost - cost2 > (m2.size - m.size) * np.log(max(n_eff, 2.0)):
            m, theta, cost, rid, cov = m2, theta2, cost2, rid2, cov2
    if not np.all(np.isfinite(cov)):
        return fail("the lines and clicks do not determine the camera (singular fit)", rid, m.name)
    try:
        new = m.to_camera(theta, size)
    except ValueError as exc:
        return fail(f"the refined camera is invalid ({exc})", rid, m.name)
    if m.n_radial and not monotonic_over_pixels(new.K, new.dist, rid.uv):
        return fail("the refined lens folds back among the painted lines", rid, m.name)
    f0, f1 = camera.K[0, 0], new.K[0, 0]
    if not 0.5 < f1 / f0 < 2.0 or new.camera_centre_world[2] <= 0:
        return fail(f"the refined camera is implausible (f {f0:.0f} -> {f1:.0f} px)", rid, m.name)
    sup1, rms1, rid1 = _support(gray, new, polylines, step_m, samples, mask)
    click1 = _click_rms(new, X, x)
    rep = dict(
        model=m.name,
        support_before=sup0,
        support_after=sup1,
        line_rms_before_px=rms0,
        line_rms_after_px=rms1,
        click_rms_before_px=click0,
        click_rms_after_px=click1,
        samples=len(rid),
        lines_used=len(unique_sorted(rid.line)),
        per_line=_per_line(rid, new, names),
        theta=theta,
        covariance=cov,
        ridges_after=rid1,
    )
    if not sup1 >= sup0 - SUPPORT_SLACK:
        return camera, LineRefinement(
            False, f"line support fell ({sup0:.2f} -> {sup1:.2f}): kept the clicks' camera", **rep
        )
    if X is not None and len(X):
        if not clicks_within_noise(new, X, x, click_sigma_px):
            return camera, LineRefinement(
                False,
                f"the lines disagree with the clicks (click RMS {click1:.2f} px for "
                f"{click_sigma_px:.2g} px noise): kept the clicks' camera",
                **rep,
            )
    return new, LineRefinement(True, "refined on the painted lines", **rep)


def _per_line(rid: Ridges, camera: Camera, names) -> dict:
    out = {}
    d = rid.distances_px(camera) if len(rid) else np.zeros(0)
    for k, name in enumerate(names):
        sel = rid.line == k
        tried = int(rid.tried[k]) if k < len(rid.tried) else 0
        if tried == 0:
            continue
        out[name] = {
            "tried": tried,
            "found": int(sel.sum()),
            "rms_px": round(float(np.sqrt(np.mean(d[sel] ** 2))), 3) if sel.any() else None,
        }
    return out

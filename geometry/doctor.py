"""The calibration doctor: which click is wrong, and what it probably should have been.

A single RMS tells an annotator that something is off, not what. The doctor reports:

- leave-one-out residuals: each point's distance from where the camera solved *without it*
  projects it (an outlier cannot hide by dragging the fit toward itself);
- labelling fixes: relabellings that explain the clicks far better, tried in order of how
  often annotators make them: a whole-court symmetry (left/right or near/far swapped, which
  only a camera under the court fits, or both, which puts the camera on the wrong side for
  the world convention, geometry.labelling), two clicks transposed, one click given a wrong
  name. Every fix must give a physical camera on the convention's side.

Works on plain dicts of names -> coordinates so it needs no court spec types.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Mapping

import numpy as np

from geometry.calibration import MIN_POINTS, CameraFit, solve_camera
from geometry.camera_params import ParamModel
from geometry.click_paint import PaintCheck, off_paint_z
from geometry.errors import GeometryError
from geometry.labelling import WorldConvention
from geometry.levenberg_marquardt import refine

IMPROVEMENT_FACTOR = 3.0
SIDE_FIX_RMS_FACTOR = 4.0
# Click noise estimated from a frame (``estimate_click_sigma``) is kept within these bounds:
# below the floor, sub-pixel residuals of a lucky fit would make every later click a suspect;
# above the cap, a badly clicked frame would "explain" its own errors as noise.
NOISE_FLOOR_PX = 1.0
NOISE_CAP_PX = 3.0
# With fewer spare equations than this the residuals cannot tell the noise; a typical real
# annotator's (2-4 px on broadcast frames) is assumed instead.
MIN_DOF_FOR_ESTIMATE = 8
PRIOR_NOISE_PX = 2.0
RAYLEIGH_MEDIAN = float(np.sqrt(2 * np.log(2)))  # median of |r| for 2D unit Gaussian noise
POOR_CHI2_QUANTILE = 0.999


def robust_residual_scale(fit: CameraFit) -> float:
    """Per-axis click noise (px) implied by the fit's residuals: the median residual length
    over the Rayleigh median, inflated for the degrees of freedom the fit absorbed. The median
    lets a few bad clicks through without inflating the estimate."""
    n, p = len(fit.residuals_px), fit.model.size
    if 2 * n <= p:
        return float("nan")
    return float(np.median(fit.residuals_px) / RAYLEIGH_MEDIAN * np.sqrt(2 * n / (2 * n - p)))


def estimate_click_sigma(
    fit: CameraFit, floor_px: float = NOISE_FLOOR_PX, cap_px: float = NOISE_CAP_PX
) -> float:
    """The frame's click noise, 1-sigma px per axis: robust_residual_scale clipped to
    [floor_px, cap_px]; PRIOR_NOISE_PX when the clicks are too few to tell (fewer than
    MIN_DOF_FOR_ESTIMATE spare equations)."""
    if 2 * len(fit.residuals_px) - fit.model.size < MIN_DOF_FOR_ESTIMATE:
        return PRIOR_NOISE_PX
    s = robust_residual_scale(fit)
    if not np.isfinite(s):
        return floor_px
    return float(np.clip(s, floor_px, cap_px))


class FitQuality(StrEnum):
    """A calibration's quality (calibration JSON ``quality``; docs/formats.md)."""

    OK = "ok"
    POOR = "poor"  # residuals beyond what the click noise explains


def fit_quality(fit: CameraFit, click_sigma_px: float) -> tuple[FitQuality, str]:
    """(quality, reason): POOR when the residuals are larger than click noise of
    click_sigma_px explains (chi-square test of the cost at POOR_CHI2_QUANTILE)."""
    n, p = len(fit.residuals_px), fit.model.size
    dof = 2 * n - p
    if dof <= 0:
        return FitQuality.OK, ""
    cost = float(np.sum(fit.residuals_uv**2)) / click_sigma_px**2
    limit = _chi2_limit(dof)
    if cost > limit:
        expl = click_sigma_px * np.sqrt(limit / (2 * n))
        return FitQuality.POOR, (
            f"RMS {fit.rms_px:.2f} px is more than {click_sigma_px:.2g} "
            f"px click noise explains (at most {expl:.2f} px): check the "
            "clicks"
        )
    return FitQuality.OK, ""


@functools.lru_cache(maxsize=256)
def _chi2_limit(dof: int) -> float:
    """The chi-square quantile POOR_CHI2_QUANTILE at dof degrees of freedom (cached: every
    solve of a keypoint drag asks, and scipy's ppf costs milliseconds). geometry.chi2 gives
    the same quantile without importing SciPy (1-2 s of start-up a propagation run would
    otherwise pay)."""
    from geometry.chi2 import chi2_isf

    return chi2_isf(1.0 - POOR_CHI2_QUANTILE, dof)


@dataclass(frozen=True)
class LabelFix:
    """A suggested relabelling. mapping: clicked name -> the name it should have."""

    kind: str  # 'left_right' | 'near_far' | 'rotate_180' | 'transpose' | 'relabel'
    mapping: dict[str, str]
    rms_px: float
    camera_centre_world: np.ndarray
    message: str

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "mapping": self.mapping,
            "rms_px": self.rms_px,
            "camera_centre_world": self.camera_centre_world.tolist(),
            "message": self.message,
        }


@dataclass(frozen=True)
class LeaveOneOut:
    """residual_px (N,): distance of each click from its projection by the camera fitted
    without it; z (N,): that residual in units of its predicted 1-sigma spread (click noise
    plus the reduced fit's uncertainty), so z > SUSPECT_Z flags a click whatever its leverage.
    NaN where the other points cannot fit a camera."""

    residual_px: np.ndarray
    z: np.ndarray
    predicted_uv: np.ndarray | None = None  # (N, 2) px: each click as the others predict it
    predicted_cov: np.ndarray | None = None  # (N, 2, 2) px^2: that prediction's covariance


SUSPECT_Z = 3.5  # set on the real-frames dev set at the frame's own click noise (BENCHMARKS.md)


def leave_one_out(
    fit: CameraFit, points_world: np.ndarray, uv: np.ndarray, click_sigma_px: float = 1.0
) -> LeaveOneOut:
    """Leave-one-out residuals of every click (the fit's model when it has one focal length,
    else the simple model; warm-started from ``fit``)."""
    n = len(points_world)
    res_px, z = np.full(n, np.nan), np.full(n, np.nan)
    pred_uv = np.full((n, 2), np.nan)
    pred_cov = np.full((n, 2, 2), np.nan)
    if n - 1 < MIN_POINTS:
        return LeaveOneOut(res_px, z, pred_uv, pred_cov)
    simple = fit.model if fit.model.one_focal else ParamModel("simple")
    if 2 * (n - 1) <= simple.size:
        simple = ParamModel("simple")
    theta0 = simple.from_camera(fit.camera)
    size = fit.camera.image_size
    for i in range(n):
        keep = np.arange(n) != i
        res = refine(simple, theta0, points_world[keep], uv[keep], size, max_iter=30)
        if not np.all(np.isfinite(res.theta)) or res.theta[6] <= 0:
            continue
        pred, j = simple.project_with_jacobian(res.theta, points_world[i : i + 1], size)
        r = pred[0] - uv[i]
        pred_uv[i] = pred[0]
        res_px[i] = float(np.linalg.norm(r))
        try:
            pred_cov[i] = click_sigma_px**2 * (
                j @ np.linalg.inv(res.jacobian.T @ res.jacobian) @ j.T
            )
            cov = click_sigma_px**2 * np.eye(2) + pred_cov[i]
            q = float(r @ np.linalg.solve(cov, r))
        except np.linalg.LinAlgError:
            continue
        if np.isfinite(q) and q >= 0:  # an ill-conditioned reduced fit can give q < 0
            z[i] = float(np.sqrt(q))
    return LeaveOneOut(res_px, z, pred_uv, pred_cov)


def find_suspects(
    fit: CameraFit,
    points_world: np.ndarray,
    uv: np.ndarray,
    names: list[str],
    click_sigma_px: float = 1.0,
    paint: PaintCheck | None = None,
    loo: LeaveOneOut | None = None,
) -> list[str]:
    """Clicks that do not fit.

    With paint (geometry.click_paint, the frame's painted lines near each click), the clicks
    lying off their painted lines by more than SUSPECT_Z sigma, where the camera solved
    without them agrees the paint is closer, come first (worst first): a few clicks cannot
    tell which of them moved, the paint can. Then, on the remaining clicks, one at a time:
    the worst leave-one-out z above SUSPECT_Z is a suspect; it is removed and the rest
    re-examined. (Judging all clicks from one pass would blame good clicks for the pull of a
    bad one.) loo: the fit's leave_one_out, when already computed."""
    keep = list(range(len(names)))
    suspects: list[str] = []
    cur: CameraFit | None = fit
    if paint is not None and len(keep) - 1 >= MIN_POINTS:
        if loo is None:
            loo = leave_one_out(fit, points_world, uv, click_sigma_px)
        z = off_paint_z(paint, uv, click_sigma_px, loo.predicted_uv, loo.predicted_cov)
        for i in np.argsort(-np.nan_to_num(z, nan=-1.0)):
            if not z[i] > SUSPECT_Z or len(keep) - 1 < MIN_POINTS:
                break
            suspects.append(names[i])
            keep.remove(int(i))
        if suspects:
            cur = _resolve(fit, points_world, uv, names, keep, click_sigma_px)
    while cur is not None and len(keep) - 1 >= MIN_POINTS:
        if cur is fit and loo is not None:  # every click, the fit's own: already computed
            z = loo.z
        else:
            z = leave_one_out(cur, points_world[keep], uv[keep], click_sigma_px).z
        if not np.any(np.isfinite(z)) or np.nanmax(z) <= SUSPECT_Z:
            break
        worst = keep[int(np.nanargmax(z))]
        suspects.append(names[worst])
        keep.remove(worst)
        cur = _resolve(fit, points_world, uv, names, keep, click_sigma_px)
    return suspects


def _resolve(fit, points_world, uv, names, keep, click_sigma_px) -> CameraFit | None:
    """The camera of the clicks keep (indices), with the fit's one-focal model (the simple
    one below 6 clicks); None when they do not solve."""
    try:
        model = fit.model.name if fit.model.one_focal else "simple"
        return solve_camera(
            points_world[keep],
            uv[keep],
            fit.camera.image_size,
            model=model if len(keep) >= 6 else "simple",
            click_sigma_px=click_sigma_px,
            names=[names[k] for k in keep],
        )
    except GeometryError:
        return None


def _try(
    keypoints_world, uv_list, image_size, names, sigma, trial: bool = False
) -> CameraFit | None:
    """Solve with the clicks uv_list labelled as names; None if that labelling cannot solve
    (which includes fitting only a camera under the court). trial: solve_camera's quick
    trial of a whole-court relabelling."""
    X = np.array([keypoints_world[n] for n in names])
    x = np.array(uv_list)
    try:
        return solve_camera(X, x, image_size, click_sigma_px=sigma, names=names, trial=trial)
    except GeometryError:
        return None


def whole_court_message(kind: str, view: str | None) -> str:
    """What a whole-court relabelling means to the annotator (kind: a symmetry_maps key;
    view: 'end' or 'side', the convention of the relabelled camera)."""
    side = view == "side"
    if kind == "left_right":
        return "left and right look swapped" + (
            " (in a side view 'left' is the near sideline)" if side else ""
        )
    if kind == "near_far":
        return "near and far look swapped" + (
            " (in a side view 'far' is the end on the image's left)" if side else ""
        )
    if side:
        return (
            "near/far and left/right both look swapped (the camera would be beyond the far "
            "sideline)"
        )
    return "near/far and left/right both look swapped (the camera would be on the far side)"


def suggest_labelling_fixes(
    keypoints_world: Mapping[str, np.ndarray],
    clicks_uv: Mapping[str, np.ndarray],
    image_size,
    symmetries: Mapping[str, Mapping[str, str]],
    fit: CameraFit | None,
    click_sigma_px: float = 1.0,
    convention: WorldConvention | None = None,
) -> list[LabelFix]:
    """Relabellings of the clicks that fit much better (or put the camera where the world
    convention wants it).

    keypoints_world: name -> (3,) metres for every keypoint of the court; clicks_uv: name ->
    (2,) pixels for the clicked ones; symmetries: kind -> {name: mirrored name}; fit: the
    current solution (None if the clicks as labelled did not solve); convention: which of the
    two proper labellings is the world frame (every fix must put the camera on its side),
    None to skip that test. Sorted best first.
    """
    names = list(clicks_uv)
    uv = [np.asarray(clicks_uv[n], float) for n in names]
    cur_rms = fit.rms_px if fit is not None else np.inf
    good_rms = max(2.5, 3.0 * click_sigma_px)

    def on_near_side(f: CameraFit) -> bool:
        return convention is None or convention.on_conventional_side(f.camera.camera_centre_world)

    cur_ok_side = fit is not None and on_near_side(fit)
    fixes: list[LabelFix] = []
    for kind in ("left_right", "near_far", "rotate_180"):
        m = symmetries.get(kind, {})
        if not all(n in m for n in names):
            continue
        new_names = [m[n] for n in names]
        f = _try(keypoints_world, uv, image_size, new_names, click_sigma_px, trial=True)
        if f is None or not on_near_side(f):
            continue
        better_fit = f.rms_px * IMPROVEMENT_FACTOR < cur_rms and f.rms_px < good_rms
        # the labelling as clicked has no acceptable camera (mirrored, or the wrong side):
        # the symmetric relabelling is the same clicks' own fit, so it is offered unless
        # the clicks are poor anyway (their own check: suspects, RMS warning)
        fixes_side = not cur_ok_side and f.rms_px < SIDE_FIX_RMS_FACTOR * good_rms
        if better_fit or fixes_side:
            what = whole_court_message(
                kind,
                None if convention is None else convention.view_for(f.camera.camera_centre_world),
            )
            fixes.append(
                LabelFix(
                    kind,
                    {a: b for a, b in zip(names, new_names) if a != b},
                    f.rms_px,
                    f.camera.camera_centre_world,
                    f"{what}; relabelled, RMS {f.rms_px:.2f} px",
                )
            )
    if fixes:  # a whole-court relabelling explains the clicks: the other fixes are moot
        fixes.sort(key=lambda fx: fx.rms_px)
        return fixes
    if cur_rms > good_rms:
        # the camera the swaps are screened from: the fit, or when the clicks as labelled did
        # not solve with the caller's model (an undetermined full model, say), their pinhole
        # camera; with neither, every swap is solved in full
        screen = fit or _try(keypoints_world, uv, image_size, names, click_sigma_px)
        fixes += _transpositions(
            keypoints_world,
            names,
            uv,
            image_size,
            screen,
            cur_rms,
            good_rms,
            click_sigma_px,
            on_near_side,
        )
    if fit is not None and cur_rms > good_rms:
        fixes += _relabel_worst(
            keypoints_world,
            names,
            uv,
            image_size,
            fit,
            cur_rms,
            good_rms,
            click_sigma_px,
            on_near_side,
        )
    fixes.sort(key=lambda fx: fx.rms_px)
    return fixes


def _transpositions(
    keypoints_world, names, uv, image_size, fit, cur_rms, good_rms, sigma, on_near_side
) -> list[LabelFix]:
    """Swap each pair of clicks; a quick refit warm-started from ``fit`` (the camera to screen
    from) screens, a full solve confirms. Without one every pair is fully solved."""
    out = []
    X = np.array([keypoints_world[n] for n in names])
    simple = ParamModel("simple")
    theta0 = simple.from_camera(fit.camera) if fit is not None else None
    for i, j in combinations(range(len(names)), 2):
        x = np.array(uv)
        x[[i, j]] = x[[j, i]]
        if theta0 is not None:
            res = refine(simple, theta0, X, x, image_size, max_iter=30)
            rms = float(np.sqrt(res.cost / len(X)))
            if not (rms * IMPROVEMENT_FACTOR < cur_rms and rms < good_rms):
                continue
        f = _try(keypoints_world, list(x), image_size, names, sigma)
        if f is None or not on_near_side(f) or f.rms_px >= good_rms:
            continue
        out.append(
            LabelFix(
                "transpose",
                {names[i]: names[j], names[j]: names[i]},
                f.rms_px,
                f.camera.camera_centre_world,
                f"{names[i]!r} and {names[j]!r} look transposed; swapped, RMS {f.rms_px:.2f} px",
            )
        )
    return out


def _relabel_worst(
    keypoints_world, names, uv, image_size, fit, cur_rms, good_rms, sigma, on_near_side
) -> list[LabelFix]:
    """The click with the largest residual may belong to another (unclicked) keypoint."""
    if len(names) - 1 < MIN_POINTS:
        return []
    X = np.array([keypoints_world[n] for n in names])
    loo = leave_one_out(fit, X, np.array(uv), sigma).z
    if not np.any(np.isfinite(loo)):
        return []
    i = int(np.nanargmax(loo))
    keep = [k for k in range(len(names)) if k != i]
    f_wo = _try(keypoints_world, [uv[k] for k in keep], image_size, [names[k] for k in keep], sigma)
    if f_wo is None or f_wo.rms_px >= good_rms:
        return []
    others = [n for n in keypoints_world if n not in names]
    if not others:
        return []
    proj = f_wo.camera.project(np.array([keypoints_world[n] for n in others]))
    d = np.linalg.norm(proj - uv[i], axis=1)
    if not np.any(np.isfinite(d)):
        return []
    k = int(np.nanargmin(d))
    new_names = list(names)
    new_names[i] = others[k]
    f = _try(keypoints_world, uv, image_size, new_names, sigma)
    if (
        f is None
        or f.rms_px >= good_rms
        or f.rms_px * IMPROVEMENT_FACTOR >= cur_rms
        or not on_near_side(f)
    ):
        return []
    return [
        LabelFix(
            "relabel",
            {names[i]: others[k]},
            f.rms_px,
            f.camera.camera_centre_world,
            f"the click named {names[i]!r} looks like {others[k]!r}; relabelled, RMS "
            f"{f.rms_px:.2f} px",
        )
    ]

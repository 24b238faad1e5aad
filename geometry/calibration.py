"""Metric camera from 2D-3D correspondences: focal-free initialisation + least squares.

``solve_camera`` is the only entry point. It needs no focal-length guess:

1. If four or more points lie on one horizontal plane (the court, the table top), the plane's
   homography gives the focal length in closed form (orthogonality and equal norm of the first
   two rotation columns), and IPPE gives both planar pose candidates for that focal length.
2. Otherwise, or if that fails, a log-spaced sweep of focal lengths with SQPnP picks starts.
3. Every start is refined by Levenberg-Marquardt over all points; candidates that put a point
   behind the camera or the camera below the playing surface are discarded
   (``geometry.labelling.pose_problem``: a mirrored labelling fits only such cameras); the
   lowest cost wins.

The starts of steps 1 and 2: geometry.calibration_starts. Degenerate input raises
``CalibrationError`` naming the cause (docs/solver.md lists them).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from geometry.arrays import as_array
from geometry.calibration_starts import (
    collinear,
    initial_candidates,
    sweep_candidates,
)
from geometry.camera import Camera, image_centre_uv
from geometry.camera_params import ParamModel, camera_centre_jacobian
from geometry.errors import CalibrationError
from geometry.labelling import pose_problem
from geometry.levenberg_marquardt import LMResult, refine
from geometry.model_selection import MIN_POINTS as MODEL_MIN_POINTS
from geometry.model_selection import choose_model, extend_theta

MIN_POINTS = 4
DUPLICATE_PX = 1.0
FOCAL_RANGE_REL = (0.05, 100.0)


@dataclass(frozen=True)
class CameraFit:
    """A solved camera and its statistics. N points, P parameters (``model.names``)."""

    camera: Camera
    model: ParamModel
    theta: np.ndarray  # (P,)
    covariance: np.ndarray  # (P, P), units of theta squared
    residuals_uv: np.ndarray  # (N, 2) pixels, projected - clicked
    jacobian: np.ndarray  # (2N, P)
    sigma_px: float  # click noise used for the covariance, px
    iterations: int
    selection: dict | None = None  # model='auto': which model and why (model_selection)

    @property
    def residuals_px(self) -> np.ndarray:
        """(N,) reprojection error per point, pixels."""
        return np.linalg.norm(self.residuals_uv, axis=1)

    @property
    def rms_px(self) -> float:
        return float(np.sqrt(np.mean(np.sum(self.residuals_uv**2, axis=1))))

    @property
    def focal_sigma_pct(self) -> float:
        """1-sigma of f (fx for 'full') relative to its value, percent."""
        return 100 * standard_deviation(float(self.covariance[6, 6])) / float(self.theta[6])

    @property
    def camera_centre_covariance(self) -> np.ndarray:
        """(3, 3) m^2, world frame."""
        Jc = camera_centre_jacobian(self.model, self.theta)
        return Jc @ self.covariance @ Jc.T

    @property
    def camera_centre_sigma_m(self) -> np.ndarray:
        """(3,) 1-sigma of the camera centre along world x, y, z, metres."""
        return np.sqrt(np.diag(self.camera_centre_covariance))

    def parameter_sigmas(self) -> dict[str, float]:
        return {
            n: standard_deviation(float(self.covariance[i, i]))
            for i, n in enumerate(self.model.names)
        }


def check_correspondences(points_world, uv, image_size, names=None, min_points=MIN_POINTS):
    """Validate inputs; return (points_world (N, 3), uv (N, 2), names). Raise CalibrationError.

    Checks: shapes, NaN, count, points outside the image, duplicated clicks, collinear clicks
    or collinear world points.
    """
    try:
        X = as_array("points_world", points_world, (None, 3))
        x = as_array("uv", uv, (None, 2))
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    n = len(X)
    names = list(names) if names is not None else [f"point {i}" for i in range(n)]
    if len(x) != n or len(names) != n:
        raise CalibrationError(f"got {n} world points, {len(x)} clicks and {len(names)} names")
    if n < min_points:
        raise CalibrationError(f"too few points: {n} given, at least {min_points} needed")
    w, h = image_size
    outside = ~((x[:, 0] >= -0.5) & (x[:, 0] <= w - 0.5) & (x[:, 1] >= -0.5) & (x[:, 1] <= h - 0.5))
    if outside.any():
        i = int(np.argmax(outside))  # the first one
        u, v = x[i]
        raise CalibrationError(
            f"click {names[i]!r} at ({u:.1f}, {v:.1f}) is outside the {w}x{h} image"
        )
    d = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
    iu = _pairs(n)
    close = np.nonzero(d[iu] < DUPLICATE_PX)[0]
    if close.size:
        i, j = iu[0][close[0]], iu[1][close[0]]
        raise CalibrationError(
            f"duplicated click: {names[i]!r} and {names[j]!r} are {d[i, j]:.2f} px apart"
        )
    same, in_line = _world_layout(X.tobytes(), n)
    if same is not None:
        i, j = same
        raise CalibrationError(f"{names[i]!r} and {names[j]!r} are the same world point")
    if collinear(x):
        raise CalibrationError("the clicks are (nearly) collinear: they cannot fix a camera")
    if in_line:
        raise CalibrationError(
            "the chosen keypoints are collinear in the world: add points off that line"
        )
    return X, x, names


@functools.lru_cache(maxsize=256)
def _world_layout(points_world: bytes, n: int) -> tuple[tuple[int, int] | None, bool]:
    """(the first pair (i, j) of the same world point or None, whether the points are
    collinear) of n world points (N, 3) float64 given as their bytes: a propagation checks the
    same keypoints on every frame, so the answer is kept per point set."""
    X = np.frombuffer(points_world, dtype=np.float64).reshape(n, 3)
    iu = _pairs(n)
    dw = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)
    close = np.nonzero(dw[iu] < 1e-6)[0]
    if close.size:
        return (int(iu[0][close[0]]), int(iu[1][close[0]])), False
    return None, collinear(X)


@functools.lru_cache(maxsize=64)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """np.triu_indices(n, 1), made once per n (read-only)."""
    iu = np.triu_indices(n, 1)
    for a in iu:
        a.flags.writeable = False
    return iu


def _pose_problem(theta: np.ndarray, X: np.ndarray, surface_z_m) -> str | None:
    """'behind', 'below' or None for the pose in theta[:6] (rvec, t), shared by every model."""
    R = cv2.Rodrigues(np.asarray(theta[:3], float))[0]
    return pose_problem(R, theta[3:6], X, surface_z_m)


def _best_refined(
    model,
    starts,
    X,
    x,
    image_size,
    surface_z_m=0.0,
    rejected: list | None = None,
    refine_below: bool = True,
) -> LMResult | None:
    """The lowest-cost physical refinement of the starts; unphysical refinements are appended
    to ``rejected`` as (problem, LMResult) so the caller can say why nothing was left.

    Starts with the camera below the surface are refined last, and only when no other start
    gives a physical camera (and ``refine_below``): a refinement does not carry the camera
    through the court plane (the planar points would image on one line on the way), so they
    end below it and serve only to tell a mirrored labelling (the caller's message). Over the
    calibration and doctor tests none of 1,486 such refinements ended above the surface."""
    best = None
    below = []
    for th in starts:
        problem = _pose_problem(th, X, surface_z_m)
        if problem == "behind":  # points behind the start: LM cannot cross
            continue
        if problem == "below":
            below.append(th)
            continue
        best = _refined_pick(best, model, th, X, x, image_size, surface_z_m, rejected)
    if best is None and refine_below:
        for th in below:
            best = _refined_pick(best, model, th, X, x, image_size, surface_z_m, rejected)
    return best


def _refined_pick(best, model, th, X, x, image_size, surface_z_m, rejected) -> LMResult | None:
    """best, or th's refinement when that is physical and cheaper."""
    res = refine(model, th, X, x, image_size)
    if not np.isfinite(res.cost):
        return best
    problem = _pose_problem(res.theta, X, surface_z_m)
    if problem is not None:
        if rejected is not None:
            rejected.append((problem, res))
        return best
    if best is None or res.cost < best.cost:
        return res
    return best


SOLVER_MODELS = ("auto", "simple", "simple_k1", "simple_k1k2", "full")
MODEL_ALIASES = {"pinhole": "simple"}


def solve_camera(
    points_world,
    uv,
    image_size,
    model: str = "simple",
    radial: bool = False,
    click_sigma_px: float = 1.0,
    names=None,
    theta0=None,
    surface_z_m: float | None = 0.0,
    trial: bool = False,
) -> CameraFit:
    """Solve a metric camera from N correspondences.

    points_world: (N, 3) metres, world frame. uv: (N, 2) pixels. image_size: (w, h).
    model: 'simple' (alias 'pinhole': f, centred principal point, no distortion), 'simple_k1'
    / 'simple_k1k2' (the same plus radial distortion), 'full' (fx, fy, cx, cy and, with
    radial=True, k1, k2) or 'auto' (the richest one-focal model the clicks determine, chosen
    on held-out clicks: geometry.model_selection; ``CameraFit.selection`` says which and why).
    click_sigma_px: assumed 1-sigma click noise; the covariance uses max(this, the residuals'
    own estimate). theta0: optional one-focal start (rvec, t, f[, k1, k2]), e.g. the previous
    solution while a keypoint is dragged; the focal-free initialisation is used when it is
    absent or fails. With model 'simple_k1' / 'simple_k1k2' and a theta0 of that model's
    size, the lens model is refined from it directly (no pinhole search) when that gives a
    physical, determined camera. surface_z_m: the playing surface's height in the world frame; only
    cameras above it with every point in front are accepted (None: no height test). A
    labelling that fits only a camera under the surface is refused with a message saying it
    looks mirrored. trial: a quick trial of a relabelling (the doctor's whole-court trials):
    no focal sweep when the plane homography gave starts (exact for the planar clicks: a
    relabelling they do not fit is no fix; the sweep serves clicks without four on one plane),
    and starts below the surface are not refined (see _best_refined), so a failure says less.

    Raises CalibrationError for degenerate input or an undeterminable/implausible solution.
    """
    image_size = (int(image_size[0]), int(image_size[1]))
    X, x, names = check_correspondences(points_world, uv, image_size, names)
    simple = ParamModel("simple")
    model = MODEL_ALIASES.get(model, model)
    if model not in SOLVER_MODELS:
        raise CalibrationError(f"model: expected one of {', '.join(SOLVER_MODELS)}, got {model!r}")
    full = ParamModel(model, radial) if model == "full" else None
    theta0_lens = None
    if theta0 is not None:
        theta0_lens = np.asarray(theta0, float)
        theta0 = theta0_lens[:7]

    if model in ("simple_k1", "simple_k1k2") and theta0_lens is not None:
        warm = _warm_lens_fit(
            ParamModel(model), theta0_lens, X, x, image_size, click_sigma_px, surface_z_m
        )
        if warm is not None:
            return warm
    best = None
    rejected: list = []
    kw = dict(surface_z_m=surface_z_m, rejected=rejected, refine_below=not trial)
    if theta0 is not None:
        best = _best_refined(simple, [np.asarray(theta0, float)], X, x, image_size, **kw)
    plane_starts: list[np.ndarray] = []
    if best is None or _rms(best) > 2.0 * max(click_sigma_px, 1.0):
        plane_starts = initial_candidates(X, x, image_size)
        cand = _best_refined(simple, plane_starts, X, x, image_size, **kw)
        best = _pick(best, cand)
    sweep = not trial or not plane_starts
    if sweep and (best is None or _rms(best) > 2.0 * max(click_sigma_px, 1.0)):
        cand = _best_refined(simple, sweep_candidates(X, x, image_size), X, x, image_size, **kw)
        best = _pick(best, cand)
    if best is None:
        below = [_rms(r) for p, r in rejected if p == "below"]
        if below:
            raise CalibrationError(
                f"the only cameras that fit the clicks are below the court surface (best RMS "
                f"{min(below):.2f} px), as for a mirrored court: the labelling looks mirrored "
                f"(left and right, or near and far, swapped)"
            )
        raise CalibrationError(
            "no camera puts every clicked point in front of it; check that "
            "the clicks match their keypoint names"
        )
    fit_model, res = simple, best
    selection = None
    if model == "auto":
        fit_model, res, selection = choose_model(best, X, x, image_size)
    elif model in ("simple_k1", "simple_k1k2"):
        fit_model = ParamModel(model)
        need = MODEL_MIN_POINTS[model] - 1
        if len(X) < need:
            raise CalibrationError(
                f"the {model} model needs at least {need} points; got {len(X)}. Use --model "
                "simple or auto, or click more keypoints"
            )
        res = refine(fit_model, extend_theta(best.theta, fit_model), X, x, image_size)
        if _pose_problem(res.theta, X, surface_z_m) is not None:
            raise CalibrationError(
                f"the {model} solution puts points behind the camera or "
                "the camera below the court; use --model simple"
            )
    if full is not None:
        p = full.size
        if 2 * len(X) <= p:
            raise CalibrationError(
                f"the full model has {p} parameters and needs at least {p // 2 + 1} points; "
                f"got {len(X)}. Use --model simple or click more keypoints"
            )
        th = np.concatenate(
            [best.theta[:6], [best.theta[6], best.theta[6]], image_centre_uv(image_size)]
            + ([[0.0, 0.0]] if radial else [])
        )
        res = refine(full, th, X, x, image_size)
        if _pose_problem(res.theta, X, surface_z_m) is not None:
            raise CalibrationError(
                "the full-model solution puts points behind the camera or "
                "the camera below the court; use --model simple"
            )
        fit_model = full
    fit = _make_fit(fit_model, res, X, image_size, click_sigma_px, selection)
    _check_plausible(fit, image_size)
    if full is not None:
        _check_full_determined(fit, image_size, X)
    if model in ("simple_k1", "simple_k1k2"):
        _check_radial_determined(fit, X)
    return fit


def _warm_lens_fit(
    lens: ParamModel, theta0, X, x, image_size, click_sigma_px, surface_z_m
) -> CameraFit | None:
    """The lens model refined from its own previous solution (theta0: (lens.size,), e.g. a
    keypoint being dragged a pixel at a time): one local refinement instead of the pinhole
    search and its fallbacks. None when theta0 is not of this model, too few points, or the
    result is unphysical or undetermined (the caller then solves from scratch)."""
    if len(theta0) != lens.size or len(X) < MODEL_MIN_POINTS[lens.name] - 1:
        return None
    res = _best_refined(lens, [theta0], X, x, image_size, surface_z_m=surface_z_m)
    if res is None:
        return None
    fit = _make_fit(lens, res, X, image_size, click_sigma_px)
    try:
        _check_plausible(fit, image_size)
        _check_radial_determined(fit, X)
    except CalibrationError:
        return None
    return fit


def _rms(res: LMResult) -> float:
    return float(np.sqrt(res.cost / max(len(res.residuals), 1)))


def _pick(a: LMResult | None, b: LMResult | None) -> LMResult | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a.cost <= b.cost else b


def _make_fit(
    model, res: LMResult, X, image_size, click_sigma_px, selection: dict | None = None
) -> CameraFit:
    n, p = len(X), model.size
    dof = 2 * n - p
    sigma = float(click_sigma_px)
    if dof > 0:
        sigma = max(sigma, float(np.sqrt(res.cost / dof)))
    JtJ = res.jacobian.T @ res.jacobian
    try:
        cov = sigma**2 * np.linalg.inv(JtJ)
    except np.linalg.LinAlgError:
        cov = np.full((p, p), np.inf)
    return CameraFit(
        camera=model.to_camera(res.theta, image_size),
        model=model,
        theta=res.theta,
        covariance=cov,
        residuals_uv=res.residuals,
        jacobian=res.jacobian,
        sigma_px=sigma,
        iterations=res.iterations,
        selection=selection,
    )


def _check_plausible(fit: CameraFit, image_size) -> None:
    size = max(image_size)
    lo, hi = FOCAL_RANGE_REL
    for name, f in (("fx", fit.camera.K[0, 0]), ("fy", fit.camera.K[1, 1])):
        if not (lo * size <= f <= hi * size):
            raise CalibrationError(
                f"implausible focal length {name} = {f:.0f} px for a {image_size[0]}x"
                f"{image_size[1]} image (RMS {fit.rms_px:.1f} px): check the clicks"
            )
    if not determined(fit.covariance):
        if fit.model.n_radial:
            raise CalibrationError(
                f"these points cannot determine the {fit.model.name} lens (singular "
                "Jacobian): spread clicks toward the image edges, or use --model auto or "
                "simple"
            )
        raise CalibrationError(
            "the points do not determine the camera (singular Jacobian): "
            "add points spread over the court"
        )


def determined(covariance: np.ndarray) -> bool:
    """Whether a fit's covariance (P, P) describes a determined solution: finite, with no
    negative variance. Inverting a Jacobian that is singular to working precision (five
    collinear baseline clicks and one more, fitted with k1: condition 1e16 after scaling)
    gives variances such as -1e16 px^2 for f, which would pass every "sigma too large" test
    as NaN."""
    return bool(np.all(np.isfinite(covariance)) and np.all(np.diag(covariance) >= 0))


def standard_deviation(variance: float) -> float:
    """sqrt(variance), and inf for a variance that is negative or not finite (a singular
    fit's: see determined), so that a limit on it refuses rather than passes."""
    return float(np.sqrt(variance)) if np.isfinite(variance) and variance >= 0 else np.inf


MAX_DISTORTION_SIGMA_PX = 3.0


def radial_sigma_px(fit: CameraFit, points_world: np.ndarray) -> float:
    """1-sigma (px) of the radial displacement the fitted k1 (k2) cause at the clicked point
    farthest from the principal point: k1 and k2 are strongly correlated, so they are judged
    jointly by their effect where the lens is used."""
    k = fit.model.n_radial
    K = fit.camera.K
    offsets = fit.camera.project(points_world) - K[:2, 2]
    far = offsets[int(np.nanargmax(np.sum(offsets**2, axis=1)))]
    r2 = float(np.sum((far / np.diag(K)[:2]) ** 2))
    g = np.array([r2, r2**2])[:k] * float(np.linalg.norm(far))  # d(px)/d(k1, k2)
    cov = fit.covariance[-k:, -k:]
    return standard_deviation(float(g @ cov @ g))


RADIAL_SIGMA_PER_NOISE = 5.0


def _check_radial_determined(fit: CameraFit, points_world: np.ndarray) -> None:
    """The lens is refused when its effect at the farthest click is uncertain by more than
    RADIAL_SIGMA_PER_NOISE times the click noise (a guess, not a measurement)."""
    sigma_px = radial_sigma_px(fit, points_world)
    if sigma_px > RADIAL_SIGMA_PER_NOISE * fit.sigma_px:
        raise CalibrationError(
            f"these points cannot determine the {fit.model.name} lens: radial distortion "
            f"1-sigma {sigma_px:.1f} px at the farthest click; spread clicks toward the image "
            "edges, or use --model auto or simple"
        )


def _check_full_determined(fit: CameraFit, image_size, points_world: np.ndarray) -> None:
    """Refuse a full-model fit whose extra parameters the points do not pin down.

    Principal point and focal lengths are judged by their own 1-sigma; k1 and k2 are strongly
    correlated, so they are judged jointly by the 1-sigma of the radial displacement they
    cause at the clicked point farthest from the principal point (px): the model is used on
    the court, and extrapolating a polynomial beyond the clicks is never trustworthy."""
    diag = float(np.hypot(*image_size))
    s = fit.parameter_sigmas()
    limits = {
        "cx": 0.025 * diag,
        "cy": 0.025 * diag,
        "fx": 0.05 * fit.theta[6],
        "fy": 0.05 * fit.theta[7],
    }
    loose = [f"{k} (1-sigma {s[k]:.3g})" for k, lim in limits.items() if s[k] > lim]
    if fit.model.radial:
        sigma_px = radial_sigma_px(fit, points_world)
        if sigma_px > MAX_DISTORTION_SIGMA_PX:
            loose.append(f"radial distortion (1-sigma {sigma_px:.1f} px at the image corner)")
    if loose:
        raise CalibrationError(
            "these points cannot determine the full model: "
            + ", ".join(loose)
            + " would be guesses. Click keypoints off the court plane and spread over the "
            "image, or use --model auto (one focal, centred principal point and the radial "
            "terms the clicks determine)"
        )

"""How uncertain a propagated camera is at the court keypoints in its picture, from what it was
fitted to (docs/propagation.md, step 7).

A frame's camera is fitted to its transferred keypoints, which carry the reference clicks'
noise, and, when it was refined on its painted lines, to those lines too. Its lens is held with
the reference's uncertainty (a Gaussian prior on k1, and k2 where the reference has one) rather
than taken as exact: a pinhole reference whose clicks cannot tell a pinhole from a lens must
not make its frames look certain far from the clicks. geometry.joint_covariance does the
arithmetic; this module names the court's keypoints and lines and finds the ridges.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.line_refinement import painted_ground_lines
from courtstudio.pipeline.propagation_flags import plane_keypoint_names, plane_keypoints
from geometry.calibration import standard_deviation
from geometry.camera import Camera
from geometry.joint_covariance import (
    K1_INDEX,
    LensPrior,
    joint_covariance,
    lens_model,
    predicted_sd_px,
    worst_in_view,
)
from geometry.line_refine import SEARCH_PX, LineRefinement, default_step_m
from geometry.line_ridges import Ridges, find_ridges, to_gray
from geometry.model_selection import MAX_ABS_K1

LENS_SIGMA_MAX = MAX_ABS_K1  # a lens nothing else bounds is within the plausible range
# A weak frame's refinements, in order (refine_weak_frame): the lens under its prior only. The
# frame's own lens kept fixed (a pinhole reference's k1 = 0 taken as exact, against the prior)
# was tried second and kept a real NBA frame 9.1 px off (focal 6 % from its neighbours',
# predicted 2.2 px): BENCHMARKS.md, "Full covariance".
REFINE_MODELS: tuple[str, ...] = ("lens",)
# The least 1-sigma of a lens prior taken from a weak reference's own painted lines
# (lined_reference): a frame's lens follows its zoom, which one frame's lines do not see.
# Measured on the real NBA clips, 0.1 and 0.2 leave the same held-out errors and 9 frames off
# the other references' consensus each (BENCHMARKS.md, fifth session).
LINED_LENS_SIGMA_MIN = 0.1
# How far a weak reference's own lines may move its camera off its clicks (click RMS after /
# before, lined_reference). Measured on real references: NBA 1.5-1.6x (lens k1 0.44-0.67,
# kept: 22 -> 5 frames off the consensus); badminton 5.5x and 7.2x (k1 -0.02 and -0.13:
# the held-out median went 0.73 -> 1.06 px when kept; BENCHMARKS.md, fifth session).
LINED_CLICK_RMS_RATIO = 3.0


def _clicks(spec: CourtSpec, points: dict | None) -> tuple[np.ndarray, np.ndarray] | None:
    if not points:
        return None
    names = list(points)
    X = np.array([spec.keypoints[n] for n in names], float)
    return X, np.array([points[n] for n in names], float).reshape(-1, 2)


def reference_lens_prior(
    spec: CourtSpec, camera: Camera, points: dict, noise_px: float
) -> LensPrior:
    """The lens prior a reference's frames are held to: mean the reference camera's radial
    terms (k1, and k2 when it has one), 1-sigma what its clicks {name: (u, v) px}, at noise_px
    per axis, leave of them, at most LENS_SIGMA_MAX (the plausible range bounds what they do
    not). A pinhole reference whose clicks nearly lie on one line gets k1 = 0 +- 1.5."""
    n = 2 if camera.dist[1] != 0 else 1
    mean = tuple(float(k) for k in camera.dist[:n])
    loose = LensPrior(mean, (LENS_SIGMA_MAX,) * n)
    c = _clicks(spec, points)
    X, uv = c if c is not None else (None, None)
    model, _, cov = joint_covariance(camera, X, uv, noise_px, prior=loose)
    sig = []
    for k in range(n):
        v = cov[7 + k, 7 + k] if model.n_radial > k else np.inf
        sig.append(min(LENS_SIGMA_MAX, standard_deviation(float(v))))
    return LensPrior(mean, tuple(sig))


def painted_ridges(camera: Camera, spec: CourtSpec, image: np.ndarray) -> Ridges:
    """The painted-line samples found within the last line-refinement search radius
    (geometry.line_refine.SEARCH_PX[-1], px) of the camera's projected painted lines, in the
    image (h, w[, 3]) uint8 it was fitted on: what the camera's lines were fitted to."""
    _, lines = painted_ground_lines(spec)
    return find_ridges(to_gray(image), camera, lines, SEARCH_PX[-1], default_step_m(lines))


def keypoint_sd_px(
    camera: Camera,
    spec: CourtSpec,
    points: dict | None,
    noise_px: float,
    prior: LensPrior | None,
    ridges: Ridges | None = None,
    points_world: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(uv (K, 2) px, sd (K,) px): projections and predicted 1-sigma errors of points_world
    (K, 3) metres (default: the spec's plane keypoints) under the camera, from what it was
    fitted to: points {name: (u, v) px} at noise_px per axis, the lens prior, and the
    painted-line samples ridges (None: not refined on lines). inf sd where the evidence
    does not determine the camera."""
    c = _clicks(spec, points)
    X, uv = c if c is not None else (None, None)
    model, theta, cov = joint_covariance(camera, X, uv, noise_px, ridges, prior=prior)
    P = plane_keypoints(spec) if points_world is None else points_world
    return predicted_sd_px(model, theta, cov, P, camera.image_size)


def predicted_error(
    camera: Camera,
    spec: CourtSpec,
    points: dict | None,
    noise_px: float,
    prior: LensPrior | None,
    ridges: Ridges | None = None,
) -> tuple[float, str | None]:
    """(px, keypoint): the largest predicted 1-sigma projection error over the spec's plane
    keypoints inside the camera's picture (keypoint_sd_px), and where it is (nan, None when
    none is in view; inf when the evidence does not determine the camera)."""
    uv_k, sd = keypoint_sd_px(camera, spec, points, noise_px, prior, ridges)
    worst, k = worst_in_view(uv_k, sd, camera.image_size)
    return worst, (None if k is None else plane_keypoint_names(spec)[k])


def keypoints_to_click(
    camera: Camera,
    spec: CourtSpec,
    points: dict,
    noise_px: float,
    prior: LensPrior | None,
    limit_px: float,
    most: int = 3,
) -> list[str]:
    """The unclicked plane keypoints in the camera's picture predicted worst (1-sigma above
    limit_px), worst first, at most ``most``: clicking them pins what the clicks {name: (u,
    v) px} leave free (a far corner, the far end of the other sideline)."""
    names = plane_keypoint_names(spec)
    uv_k, sd = keypoint_sd_px(camera, spec, points, noise_px, prior)
    w, h = camera.image_size
    with np.errstate(invalid="ignore"):
        inside = (uv_k[:, 0] >= 0) & (uv_k[:, 0] <= w - 1) & (uv_k[:, 1] >= 0)
        inside &= uv_k[:, 1] <= h - 1
    order = [int(i) for i in np.argsort(-sd) if inside[i] and sd[i] > limit_px]
    return [names[i] for i in order if names[i] not in points][:most]


@dataclass(frozen=True)
class WeakRefinement:
    """What refine_weak_frame did: camera (refined when report.accepted), predicted_px and at
    (predicted_error of that camera), report (geometry.line_refine.LineRefinement), ridges
    (the painted-line samples of the refined camera, None when not accepted) and
    click_sigma_px (the keypoints' 1-sigma in the prediction)."""

    camera: Camera
    predicted_px: float
    at: str | None
    report: LineRefinement
    ridges: Ridges | None
    click_sigma_px: float


def refine_weak_frame(
    camera: Camera,
    spec: CourtSpec,
    image: np.ndarray,
    points: dict,
    noise_px: float,
    prior: LensPrior | None,
    ref_rms_px: float,
    start: Camera | None = None,
    gray: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> WeakRefinement:
    """A weakly determined frame's camera refined on its painted lines, jointly with its
    transferred keypoints {name: (u, v) px}, and its prediction from both and the lens prior.

    Tried in the order of REFINE_MODELS: "lens", the lens freed under the prior (courtstudio.
    pipeline.line_refinement.refine_on_lines with a LensPrior; the frame's own lens when
    there is no prior), "keep", the frame's own lens fixed. The first refinement
    line_refine accepts (line support not lower, the keypoints within their noise: 1.5x the
    reference's RMS ref_rms_px, at least noise_px) that also brings the painted lines closer
    (inlier line RMS not higher: a camera the lines moved without fitting them better locked
    onto other paint, as on a real NBA frame whose lens went from 0.6 to -0.4 and whose far
    keypoint from 1.9 to 6.7 px) is kept.
    None kept: the input camera and its prediction from the keypoints (at noise_px) and the
    prior alone, with the last refinement's report. start: the camera the search starts from
    (None: ``camera``, over every radius of geometry.line_refine.SEARCH_PX; a neighbour's
    refined camera carried to this frame: the last radius alone); every test still compares
    with ``camera``, the keypoints' fit. gray: geometry.line_ridges.to_gray(image), when the
    caller has it (None: made here, once). mask: the screen mask the lines are not looked
    for under (refine_on_lines)."""
    from courtstudio.pipeline.line_refinement import refine_on_lines

    sigma = max(1.5 * float(ref_rms_px), float(noise_px))
    gray = to_gray(image) if gray is None else gray  # one for every refinement tried
    rep = None
    for kind in REFINE_MODELS:
        held = kind == "lens" and prior is not None
        new, rep = refine_on_lines(
            camera if start is None else start,
            spec,
            image,
            clicks=points,
            model=lens_model(camera, prior) if held else "keep",
            click_sigma_px=sigma,
            lens_prior=prior if held else None,
            search_px=SEARCH_PX if start is None else SEARCH_PX[-1:],
            baseline=None if start is None else camera,
            gray=gray,
            mask=mask,
        )
        if rep.accepted and not rep.line_rms_after_px > rep.line_rms_before_px:
            ridges = rep.ridges_after  # found by the refinement (under its mask)
            px, at = predicted_error(new, spec, points, sigma, prior, ridges)
            return WeakRefinement(new, px, at, rep, ridges, sigma)
    px, at = predicted_error(camera, spec, points, noise_px, prior)
    assert rep is not None
    return WeakRefinement(camera, px, at, dataclasses.replace(rep, accepted=False), None, noise_px)


@dataclass(frozen=True)
class LinedReference:
    """A weak reference's camera refined on its own painted lines (lined_reference): camera
    (with its lens), the lens prior its frames are held to (mean its radial terms, 1-sigma
    what its clicks, lines and the loose prior leave, at least LINED_LENS_SIGMA_MIN),
    predicted_px and at (its prediction from its clicks, lines and the loose prior),
    click_rms_px (its clicks' RMS under the refined camera)."""

    camera: Camera
    prior: LensPrior
    predicted_px: float
    at: str | None
    click_rms_px: float


def lined_reference(
    camera: Camera,
    spec: CourtSpec,
    image: np.ndarray,
    points: dict,
    noise_px: float,
    prior: LensPrior,
    rms_px: float,
    weak_px: float,
    mask: np.ndarray | None = None,
) -> LinedReference | None:
    """A reference whose clicks {name: (u, v) px} leave it weakly determined (predicted above
    weak_px with the loose lens prior ``prior``, reference_lens_prior) refined on its own
    painted lines with them, as its weak frames are (refine_weak_frame, rms_px its clicks'
    residual): when that is accepted and its prediction comes within weak_px, the refined
    camera becomes the reference's, and its lens the prior's mean, unless it moved off the
    clicks by more than LINED_CLICK_RMS_RATIO times their own residual. None otherwise.

    Why: such a reference's pinhole, held by every frame's point fit, put the frames' line
    refinements in the wrong one of two optima (focal length 7 % apart on a court of many
    parallel lines), 24-27 px off and predicted within 2 px: on the real NYK-BOS pan,
    reference 80 (clicks leaving 16 px open, k1 = 0 +- 0.58) had 18 frames off the other
    references' consensus (24-28 px), unflagged; refined on its lines (k1 0.67) 5 (7-14 px),
    and its held-out median went 0.99 -> 0.71 px (BENCHMARKS.md, fifth session).
    mask: the user's masks, where no painted line is looked for (refine_weak_frame)."""
    wr = refine_weak_frame(camera, spec, image, points, noise_px, prior, rms_px, mask=mask)
    cov = wr.report.covariance
    if not wr.report.accepted or not wr.predicted_px <= weak_px or cov is None:
        return None
    after = wr.report.click_rms_after_px
    if after is None or not after <= LINED_CLICK_RMS_RATIO * rms_px:
        return None  # the lines pull it off the clicks
    n = len(prior.mean)
    mean = tuple(float(k) for k in wr.camera.dist[:n])
    sigma = []
    for k in range(n):
        i = K1_INDEX + k
        v = float(cov[i, i]) if cov.shape[0] > i else np.inf
        sd = standard_deviation(v)
        sigma.append(float(min(max(sd, LINED_LENS_SIGMA_MIN), prior.sigma[k])))
    prior_lined = LensPrior(mean, tuple(sigma))
    return LinedReference(wr.camera, prior_lined, wr.predicted_px, wr.at, float(after))

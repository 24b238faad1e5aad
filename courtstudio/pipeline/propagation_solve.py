"""Solve one propagated frame's camera: refit its reference's lens model to the frame's
transferred keypoints (holding the reference's lens where they cannot determine it), and
choose that model once per reference, from its clicks or, where they are too few to test a
lens, its painted lines (docs/propagation.md, "Lens distortion")."""

from __future__ import annotations

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.calibration import CourtCalibration, calibrate_court, world_convention
from courtstudio.pipeline.propagation_flags import plane_keypoints
from geometry.calibration import CameraFit, solve_camera
from geometry.camera_params import ParamModel
from geometry.distortion import corner_displacement_px
from geometry.errors import CalibrationError
from geometry.fit_extrapolation import extrapolation_gain, fit_noise_px
from geometry.held_lens import HeldLensModel, solve_held_lens
from geometry.model_selection import MIN_POINTS as MODEL_MIN_POINTS
from geometry.model_selection import lens_determined
from geometry.pixel_lens import PixelLens

LENS_PX = 0.05  # a reference lens moving no pixel this far is a pinhole for its frames
WEAK_PX_1080 = 10.0  # issue 11's "off" distance at 1080p: a frame predicted beyond it is weak


def recalibrate(
    spec: CourtSpec,
    size,
    points: dict,
    theta0: np.ndarray,
    model: str,
    lens: PixelLens | None = None,
    hold_lens: bool = False,
) -> CameraFit:
    """A frame's camera from its transferred keypoints {name: (u, v) px} (names of the
    spec's, taken from a reference that calibrate_court accepted), warm-started from theta0
    (the last good frame's parameters of ``model``): the reference's lens model is refitted
    locally (no model selection and no diagnosis per frame: one local solve in the common
    case). hold_lens (with a lens): the lens is held whatever the points (a reference that
    took its lens from its painted lines: propagation_uncertainty.lined_reference; its
    frames' keypoints refitting k1 freely gave k1 = 1.69 beside 0.3-0.45 on a real NBA pan).
    A lens model the frame's points do not determine (k1 needs 5 points and a spread
    that fixes it) keeps the reference's lens ``lens`` (its pixel field, the one registration
    straightens with: geometry.held_lens) and refits pose and focal; without a lens it falls
    back to the pinhole. The camera must stand on the world convention's side, as
    calibrate_court demands. Returns the CameraFit (a held lens: its model is a
    geometry.held_lens.HeldLensModel); raises CalibrationError (a ValueError) when no
    camera fits."""
    names = list(points)
    X = np.array([spec.keypoints[n] for n in names], float)
    uv = np.array([points[n] for n in names], float).reshape(-1, 2)
    kw = dict(names=names, surface_z_m=spec.plane_z())
    if hold_lens and lens is not None:
        fit = solve_held_lens(X, uv, size, lens, theta0, **kw)
    else:
        try:
            fit = solve_camera(X, uv, size, model=model, theta0=theta0, **kw)
        except ValueError:
            if model == "simple":
                raise
            if lens is None:
                theta7 = np.asarray(theta0)[:7]
                fit = solve_camera(X, uv, size, model="simple", theta0=theta7, **kw)
            else:
                fit = solve_held_lens(X, uv, size, lens, theta0, **kw)
    conv = world_convention(spec)
    centre = fit.camera.camera_centre_world
    if not conv.on_conventional_side(centre):
        raise CalibrationError(conv.wrong_side_message(centre))
    return fit


def reference_calibration(
    spec: CourtSpec, points: dict, image: np.ndarray, masks=()
) -> CourtCalibration:
    """A reference's calibration from its clicks {name: (u, v) px} on image ((h, w[, 3])
    uint8). When the clicks are too few to test a lens (the model selection needs
    MIN_POINTS["simple_k1"] of them, so 5 clicks always give the pinhole), its painted lines
    decide: the clicks' camera is refined on the lines with k1 freed only where the lines
    support it (courtstudio.pipeline.line_refinement, model 'auto': a BIC test on the line
    cost), and the refinement is kept only when it is accepted (line support not lower, the
    clicks within their noise), its lens moves pixels (frame_model) and it explains the
    clicks better than their own pinhole fit does (a real lens bends the clicks too; a lens
    the lines invent pulls the camera off them). On the FIVB volleyball pans the lines of
    5-click references gave k1 = 0.97-1.14 (the clips' joint fits of all clicks: 0.96-1.07)
    and click RMS 0.3-0.9 px against the pinhole's 1.4-2.7 px; a pinhole reference left its
    frames 7-16 px off, unflagged. On a real NBA frame the lines alone chose k1 = 2.8 and
    moved the clicks from 1.3 to 3.6 px RMS: refused. A lens the clicks chose but do not determine
    (geometry.model_selection.lens_determined) is not carried to the frames: held by frames
    that show fewer points, k1 = 1.46 +- 3.57 on six NBA clicks left them 7-11 px off,
    unflagged; the reference is calibrated as the pinhole instead.
    masks: the user's [x0, y0, x1, y1] px boxes, where no painted line is looked for."""
    size = (image.shape[1], image.shape[0])
    cal = calibrate_court(spec, size, points, diagnose=False)
    if frame_model(cal.fit) != "simple" and not lens_determined(cal.fit):
        return calibrate_court(spec, size, points, model="simple", diagnose=False)
    if len(points) >= MODEL_MIN_POINTS["simple_k1"] or frame_model(cal.fit) != "simple":
        return cal
    from courtstudio.pipeline.line_refinement import refine_calibration

    try:
        lined = refine_calibration(cal, spec, image, model="auto", masks=masks)
    except (ValueError, np.linalg.LinAlgError, cv2.error):
        return cal
    if not (lined.refinement or {}).get("accepted") or frame_model(lined.fit) == "simple":
        return cal
    if not lined.fit.rms_px < cal.fit.rms_px:  # the clicks say no to the lines' lens
        return cal
    return lined


def lens_source(model: str, n_clicks: int) -> str:
    """Where a reference's lens model came from (summary.json ``reference_quality``):
    "clicks" (enough of them to test a lens: the model selection chose, pinhole or not),
    "lines" (reference_calibration took k1 from its painted lines) or "untested" (too few
    clicks to test a lens and the lines gave none: a distorting lens would leave frames off
    where the clicks do not reach, which no flag sees; the CLI says so)."""
    if n_clicks >= MODEL_MIN_POINTS["simple_k1"]:
        return "clicks"
    return "lines" if model != "simple" else "untested"


def lens_kind(fit: CameraFit | None) -> str | None:
    """A frame record's ``lens``: "held" when its point fit (None for a static frame) held
    its reference's lens (recalibrate; the shared-centre refit then keeps that field), else
    None."""
    return "held" if fit is not None and isinstance(fit.model, HeldLensModel) else None


def line_model(fit: CameraFit | None) -> str | ParamModel:
    """The model a frame's camera is refined in on its painted lines (line_refinement): a
    held lens stays held (the lines of a frame that shows part of the court freed k1 to 2.3
    on a real NBA frame whose reference has 0.7), else the camera's own ('keep')."""
    return fit.model if fit is not None and isinstance(fit.model, HeldLensModel) else "keep"


def frame_model(fit: CameraFit) -> str:
    """The lens model every frame of a reference's run refits: the reference's own choice,
    or the pinhole when its lens moves no pixel of the image by LENS_PX or more (a k1 of
    1e-18 chosen over the pinhole on exact clicks is a pinhole)."""
    cam = fit.camera
    if fit.model.name == "simple" or not cam.has_distortion:
        return "simple"
    shift_px = corner_displacement_px(cam.K, cam.dist, cam.image_size)
    return fit.model.name if abs(shift_px) >= LENS_PX else "simple"


def weak_px(height: int) -> float:
    """The predicted 1-sigma (px) above which a frame is weakly determined: issue 11's "off"
    distance, WEAK_PX_1080 at 1080p, scaled by the image height."""
    return WEAK_PX_1080 * height / 1080


def reference_prediction(
    spec: CourtSpec, points: dict, ref_fit: CameraFit, model: str, height: int
) -> dict:
    """A reference's extrapolation gain, noise (px) and weak_px, measured as its frames' are:
    its own clicks {name: (u, v)} refitted the way a frame's keypoints are (recalibrate: the
    frames' lens ``model``, or the pinhole where that lens is not determined), warm-started
    from ref_fit, its calibrate_court fit. So a frame is compared with its reference under
    one camera model: the selection's richer lens would inflate the reference's gain (3.1
    against 1.3 for the same ten clicks) and let weak frames pass."""
    size = (ref_fit.camera.image_size[0], ref_fit.camera.image_size[1])
    theta = ParamModel(model).from_camera(ref_fit.camera)
    try:
        lens = PixelLens.of_camera(ref_fit.camera) if model != "simple" else None
        fit = recalibrate(spec, size, dict(points), theta, model, lens)
    except (ValueError, np.linalg.LinAlgError):
        fit = ref_fit  # calibrate_court accepted these clicks: its own fit
    return {
        "gain": extrapolation_gain(fit, plane_keypoints(spec)),
        "sigma_px": fit_noise_px(fit),
        "weak_px": weak_px(height),
    }

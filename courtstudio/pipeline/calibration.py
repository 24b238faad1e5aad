"""Court calibration: named clicks on a sport's keypoints -> a metric camera with diagnostics.

This is where court knowledge meets the solver: names are checked against the spec, the
camera must be above the court (a mirrored labelling is refused with the relabelling that
fixes it) and on the side the world convention wants (end view: x > L/2; side view: y < W/2;
geometry/labelling.py, docs/frames.md), and the doctor's findings are attached.
``CourtCalibration.to_json`` is the camera-file contract (docs/formats.md).
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field

import numpy as np

from court_specs import CourtSpec
from geometry.calibration import CameraFit, check_correspondences, solve_camera
from geometry.camera import Camera
from geometry.doctor import (
    FitQuality,
    LabelFix,
    LeaveOneOut,
    estimate_click_sigma,
    find_suspects,
    fit_quality,
    leave_one_out,
    suggest_labelling_fixes,
)
from geometry.errors import CalibrationError
from geometry.labelling import WHOLE_COURT_KINDS, WorldConvention
from geometry.model_selection import lens_corner_shift_px, lens_determined
from geometry.uncertainty import ParamCovariance

CAMERA_FORMAT = "courtstudio.camera"
CAMERA_FORMAT_VERSION = 1
HIGH_RMS_PX = 3.0
DEFAULT_MODEL = "auto"


@dataclass(frozen=True)
class CourtCalibration:
    """A solved court camera. names/clicks in the order used; loo and fixes from the doctor."""

    spec_id: str
    fit: CameraFit
    names: list[str]
    clicks_uv: np.ndarray  # (N, 2) pixels
    loo: LeaveOneOut
    fixes: list[LabelFix]
    click_sigma_px: float
    suspects: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    world_convention: str = "end_on"  # 'end_on' | 'side_on' (docs/frames.md)
    click_sigma_source: str = "user"  # 'user' (given) or 'estimated' (from the residuals)
    quality: FitQuality = FitQuality.OK  # POOR: residuals beyond what the click noise explains
    quality_reason: str = ""
    refinement: dict | None = None  # line refinement report (geometry.line_refine)
    paint_offsets_px: dict | None = None  # name -> painted crossing minus click (an image given)

    @property
    def camera(self) -> Camera:
        return self.fit.camera

    @property
    def param_covariance(self) -> ParamCovariance:
        return ParamCovariance(self.fit.model, self.fit.theta, self.fit.covariance)

    def to_json(self) -> dict:
        cam = self.camera
        f = self.fit

        def num(v):
            return None if not np.isfinite(v) else round(float(v), 4)

        return {
            "format": CAMERA_FORMAT,
            "format_version": CAMERA_FORMAT_VERSION,
            "sport": self.spec_id,
            "world_convention": self.world_convention,
            "model": f.model.name,
            "radial": f.model.radial,
            **({"model_selection": f.selection} if f.selection else {}),
            "quality": self.quality,
            **({"quality_reason": self.quality_reason} if self.quality_reason else {}),
            **cam.to_dict(),
            "rms_px": round(f.rms_px, 4),
            "residuals_px": {n: round(float(r), 4) for n, r in zip(self.names, f.residuals_px)},
            "residual_vectors_px": {
                n: [round(float(a), 4) for a in v] for n, v in zip(self.names, f.residuals_uv)
            },
            "loo_residuals_px": {n: num(r) for n, r in zip(self.names, self.loo.residual_px)},
            "loo_z": {n: num(z) for n, z in zip(self.names, self.loo.z)},
            "suspects": self.suspects,
            "focal_sigma_pct": round(f.focal_sigma_pct, 5),
            "camera_centre_sigma_m": [round(float(s), 5) for s in f.camera_centre_sigma_m],
            "parameter_sigmas": {k: float(v) for k, v in f.parameter_sigmas().items()},
            "click_sigma_px": self.click_sigma_px,
            "click_sigma_source": self.click_sigma_source,
            "sigma_px_used": round(f.sigma_px, 4),
            "covariance": self.param_covariance.to_dict(),
            "points": {n: [float(u), float(v)] for n, (u, v) in zip(self.names, self.clicks_uv)},
            "warnings": list(self.warnings),
            "suggestions": [fx.to_dict() for fx in self.fixes],
            **({"line_refinement": self.refinement} if self.refinement else {}),
            **(
                {"paint_offsets_px": self.paint_offsets_px}
                if self.paint_offsets_px is not None
                else {}
            ),
        }


def check_names(spec: CourtSpec, names) -> None:
    """Raise CalibrationError for a name the spec lacks, suggesting the closest ones."""
    for n in names:
        if n not in spec.keypoints:
            close = difflib.get_close_matches(n, spec.keypoint_names, n=3)
            hint = (
                f"; did you mean {', '.join(close)}?"
                if close
                else f"; `courtstudio specs {spec.id}` lists them"
            )
            raise CalibrationError(f"{spec.id} has no keypoint {n!r}{hint}")


def world_convention(spec: CourtSpec, view: str | None = None) -> WorldConvention:
    """The spec's world convention; view 'end' | 'side' | 'auto' overrides its
    broadcast_view."""
    try:
        return WorldConvention(view or spec.broadcast_view, spec.length_m, spec.width_m)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None


def calibrate_court(
    spec: CourtSpec,
    image_size,
    clicks: dict,
    model: str = DEFAULT_MODEL,
    radial: bool = False,
    click_sigma_px: float | None = None,
    diagnose: bool = True,
    theta0=None,
    view: str | None = None,
    image: np.ndarray | None = None,
    masks=(),
) -> CourtCalibration:
    """Calibrate from named clicks.

    clicks: {keypoint name: (u, v) pixels}; image_size: (w, h). model: see
    geometry.calibration.solve_camera ('auto' by default). click_sigma_px: the annotator's
    click noise, 1-sigma px; None estimates it from the residuals (geometry.doctor.
    estimate_click_sigma, floor 1 px, cap 3 px). view: 'end', 'side' or 'auto' (the world
    convention, docs/frames.md), None for the spec's broadcast_view. Raises
    CalibrationError for unknown names, degenerate input, clicks that only a mirrored court
    fits, or clicks that put the camera on the wrong side for the convention (with the
    relabelling that would fix it, when the doctor finds one). image: the frame the clicks
    were made on ((h, w) grey or (h, w, 3) BGR uint8) or None: with it the doctor also checks
    each click against the painted lines through its keypoint (courtstudio.pipeline.
    click_paint); a frame of another size is not used (a warning says so). masks: [x0, y0,
    x1, y1] px boxes of that frame's graphics, where the doctor reads no paint.
    """
    names = list(clicks)
    check_names(spec, names)
    conv = world_convention(spec, view)
    X = np.array([spec.keypoints[n] for n in names])
    uv = np.array([np.asarray(clicks[n], float) for n in names]).reshape(-1, 2)
    kw = {k: v for k, v in spec.keypoints.items()}
    check_correspondences(X, uv, image_size, names)  # input errors are reported as they are
    sigma_source = "user" if click_sigma_px is not None else "estimated"
    click_sigma_px = float(click_sigma_px) if click_sigma_px is not None else 1.0

    def doctor(fit_or_none):
        return suggest_labelling_fixes(
            kw,
            dict(zip(names, uv)),
            image_size,
            spec.symmetry_maps(),
            fit_or_none,
            click_sigma_px,
            conv,
        )

    try:
        fit = solve_camera(
            X,
            uv,
            image_size,
            model=model,
            radial=radial,
            click_sigma_px=click_sigma_px,
            names=names,
            theta0=theta0,
            surface_z_m=spec.plane_z(),
        )
    except CalibrationError as exc:
        if not diagnose:
            raise
        raise _error_with_fixes(str(exc), doctor(None)) from None
    if sigma_source == "estimated":
        click_sigma_px = estimate_click_sigma(fit)
        if click_sigma_px > fit.sigma_px:  # the covariance follows the estimated noise
            scale = click_sigma_px / fit.sigma_px
            fit = dataclasses.replace(
                fit, covariance=fit.covariance * scale**2, sigma_px=click_sigma_px
            )
    quality, quality_reason = fit_quality(fit, click_sigma_px)
    centre = fit.camera.camera_centre_world
    if not conv.on_conventional_side(centre):
        raise _error_with_fixes(conv.wrong_side_message(centre), doctor(fit))
    warnings = []
    unusual = conv.unusual_position_warning(centre)
    if unusual:
        warnings.append(unusual)
    if quality == FitQuality.POOR:
        warnings.append(quality_reason)
    elif fit.rms_px > max(HIGH_RMS_PX, 3 * click_sigma_px):
        warnings.append(
            f"RMS reprojection {fit.rms_px:.2f} px is high for "
            f"{click_sigma_px:.2g} px click noise: check the suspects and suggestions"
        )
    if not lens_determined(fit):
        shift, sigma = lens_corner_shift_px(fit)
        warnings.append(
            f"the lens is not determined by these clicks (it moves the farthest image corner "
            f"{shift:.0f} +- {sigma:.0f} px): click keypoints nearer the image's edges, or "
            "choose the pinhole (--model simple; in the app, Lens: pinhole)"
        )
    suspects: list[str] = []
    paint = None
    if diagnose:
        loo = leave_one_out(fit, X, uv, click_sigma_px)
        if image is not None:
            from courtstudio.pipeline.click_paint import check_paint, image_mismatch

            why = image_mismatch(image, image_size)
            if why:
                warnings.append(why)
            else:
                paint = check_paint(spec, fit.camera, image, names, uv, masks)
        suspects = find_suspects(fit, X, uv, names, click_sigma_px, paint, loo)
        fixes = doctor(fit)
        mirrored = [fx for fx in fixes if fx.kind in WHOLE_COURT_KINDS]
        if mirrored:
            raise _error_with_fixes(
                f"the clicks fit the court only relabelled as a whole (RMS {fit.rms_px:.2f} px "
                f"as labelled)",
                mirrored + [fx for fx in fixes if fx not in mirrored],
            )
    else:
        loo = LeaveOneOut(np.full(len(names), np.nan), np.full(len(names), np.nan))
        fixes = []
    if suspects:
        off = paint.distance_px() if paint is not None else np.full(len(names), np.nan)
        warnings.append(
            "suspect click(s): "
            + ", ".join(
                f"{n} (leave-one-out {r:.1f} px"
                + (f"; {d:.1f} px off its painted lines" if np.isfinite(d) else "")
                + ")"
                for n, r, d in zip(names, loo.residual_px, off)
                if n in suspects
            )
        )
    return CourtCalibration(
        spec.id,
        fit,
        names,
        uv,
        loo,
        fixes,
        click_sigma_px,
        suspects,
        warnings,
        conv.name_for(centre),
        sigma_source,
        quality,
        quality_reason,
        paint_offsets_px=_paint_offsets(paint, names),
    )


def _paint_offsets(paint, names) -> dict | None:
    """{name: [du, dv] px, the painted crossing minus the click (along the one painted line
    found, when only one was)} for the clicks with paint evidence; None without an image."""
    if paint is None:
        return None
    return {
        n: [round(float(a), 3) for a in o]
        for n, o, k in zip(names, paint.offset_uv, paint.lines)
        if k > 0
    }


def _error_with_fixes(message: str, fixes: list[LabelFix]) -> CalibrationError:
    """A CalibrationError whose text names the best fix; ``.fixes`` holds them all (the app
    offers to apply them)."""
    err = CalibrationError(_with_fix_hint(message, fixes))
    err.fixes = fixes
    return err


def _with_fix_hint(message: str, fixes: list[LabelFix]) -> str:
    if not fixes:
        return message + "; no relabelling explains the clicks: check each click"
    fx = fixes[0]
    pairs = ", ".join(f"{a} -> {b}" for a, b in list(fx.mapping.items())[:6])
    more = "" if len(fx.mapping) <= 6 else f" (+{len(fx.mapping) - 6} more)"
    return f"{message}. Suggested fix: {fx.message}: {pairs}{more}"

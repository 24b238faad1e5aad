"""Court calibration refined on the painted lines: the spec-level entry point.

``refine_on_lines`` is what the CLI (``calibrate --image F --refine-lines``), the app's
"Refine on lines" button and propagation call; geometry.line_refine does the work on plain
arrays. ``refine_calibration`` folds an accepted refinement into a CourtCalibration so the
camera file carries the refined camera, the clicks' residuals under it, and the report.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.calibration import CourtCalibration
from geometry.calibration import CameraFit
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.joint_covariance import LensPrior
from geometry.line_refine import SEARCH_PX, LineRefinement, refine_camera_on_lines

NOT_PAINTED = ("net_line",)


def painted_ground_lines(spec: CourtSpec) -> tuple[list[str], list[np.ndarray]]:
    """(names, polylines (M, 3) metres) of the spec's painted lines on its playing surface."""
    z0 = spec.plane_z()
    names, lines = [], []
    for name, pl in spec.lines.items():
        if name in NOT_PAINTED or not np.all(np.abs(pl[:, 2] - z0) < 1e-9):
            continue
        names.append(name)
        lines.append(pl)
    return names, lines


def refine_on_lines(
    camera: Camera,
    spec: CourtSpec,
    image: np.ndarray,
    clicks: dict | None = None,
    model: str | ParamModel = "auto",
    click_sigma_px: float = 2.0,
    lens_prior: LensPrior | None = None,
    search_px: tuple[float, ...] = SEARCH_PX,
    baseline: Camera | None = None,
    gray: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> tuple[Camera, LineRefinement]:
    """Refine a court camera on the painted lines (and the clicks).

    camera: the starting camera; image: (h, w) grey or (h, w, 3) BGR uint8 frame of the
    camera's size; clicks: {keypoint name: (u, v) px} or None; model: 'auto', 'keep', a
    one-focal model name or a ParamModel (geometry.line_refine); lens_prior: a
    geometry.joint_covariance.LensPrior on the model's radial terms; search_px: the search
    radii (geometry.line_refine.SEARCH_PX); baseline: the camera the result must be no worse
    than (None: the starting one); gray: geometry.line_ridges.to_gray(image), when the
    caller has it; mask: uint8 (hm, wm) over the image at any scale, 0 over screen-fixed
    graphics and user masks, where no painted line is looked for. Returns (camera, report);
    the camera is the input one when report.accepted is False (report.reason says why).
    """
    names, lines = painted_ground_lines(spec)
    X = uv = None
    if clicks:
        ks = list(clicks)
        X = np.array([spec.keypoints[k] for k in ks])
        uv = np.array([clicks[k] for k in ks], float)
    return refine_camera_on_lines(
        camera,
        lines,
        image,
        X,
        uv,
        model=model,
        click_sigma_px=click_sigma_px,
        line_names=names,
        lens_prior=lens_prior,
        search_px=search_px,
        baseline=baseline,
        gray=gray,
        mask=mask,
    )


def refine_calibration(
    cal: CourtCalibration,
    spec: CourtSpec,
    image: np.ndarray,
    model: str = "auto",
    masks=(),
) -> CourtCalibration:
    """The calibration with its camera refined on the lines (or unchanged, with the report
    saying why). Residuals are the clicks' under the refined camera; the covariance is the
    joint (lines and clicks) one. masks: [x0, y0, x1, y1] px boxes of the image where no
    painted line is looked for (graphics); the report lists them as ``masks`` when any."""
    from geometry.mask_rectangles import boxes_mask

    clicks = dict(zip(cal.names, map(tuple, cal.clicks_uv)))
    boxes = [[float(v) for v in b] for b in masks]
    h, w = image.shape[:2]
    cam, rep = refine_on_lines(
        cal.camera, spec, image, clicks, model, cal.click_sigma_px, mask=boxes_mask(boxes, (w, h))
    )
    report = {**rep.to_dict(), **({"masks": boxes} if boxes else {})}
    warnings = list(cal.warnings)
    if not rep.accepted:
        warnings.append(f"line refinement not used: {rep.reason}")
        return dataclasses.replace(cal, refinement=report, warnings=warnings)
    pm = ParamModel(rep.model)
    X = np.array([spec.keypoints[n] for n in cal.names])
    uv_pred, J = pm.project_with_jacobian(rep.theta, X, cam.image_size)
    fit = CameraFit(
        camera=cam,
        model=pm,
        theta=np.asarray(rep.theta, float),
        covariance=np.asarray(rep.covariance, float),
        residuals_uv=uv_pred - cal.clicks_uv,
        jacobian=J,
        sigma_px=cal.click_sigma_px,
        iterations=0,
        selection=cal.fit.selection,
    )
    return dataclasses.replace(cal, fit=fit, refinement=report, warnings=warnings)

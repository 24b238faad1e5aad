"""A propagation reference: its calibration, its images for registration and its quality
(docs/propagation.md, steps 1 and 7)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.propagation_court import court_region, ground_lines, zoom_of
from courtstudio.pipeline.propagation_lens import straightened, straightened_mask
from courtstudio.pipeline.propagation_result import _num
from courtstudio.pipeline.propagation_solve import (
    frame_model,
    lens_source,
    reference_calibration,
    reference_prediction,
)
from courtstudio.pipeline.propagation_uncertainty import (
    keypoints_to_click,
    lined_reference,
    predicted_error,
    reference_lens_prior,
)
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.joint_covariance import LensPrior, lens_model
from geometry.line_support import line_evidence
from geometry.pixel_lens import PixelLens
from geometry.plane_motion import WORK_WIDTH, Prepared, prepare, reduce_mask
from geometry.projection import densify_all

LINE_STEP_M = 0.5  # line evidence samples every this many metres of painted line
COURT_MARGIN_M = 4.0  # registration uses the court and this much of its surround
FINE_ZOOM = 1.4  # frames zoomed in this much on their reference use its finer copy


@dataclass(frozen=True)
class Reference:
    frame: int
    points: dict  # {keypoint: (u, v)}


@dataclass
class RefState:
    ref: Reference
    camera: Camera
    rms_px: float
    prepared: Prepared
    image_mask: np.ndarray | None  # the reference's own (players) mask, reduced
    court_mask: np.ndarray  # reduced: the court and its surround
    names: list
    uv: np.ndarray  # (N, 2) clicked keypoints
    evidence: dict
    last_H: np.ndarray | None = None
    last_frame: int | None = None
    theta: np.ndarray | None = None  # the last good frame's parameters of ``model``
    fine: Prepared | None = None  # the reference at twice the frames' scale
    model: str = "simple"  # the lens model every frame refits (frame_model of the reference)
    lens: PixelLens | None = None  # the reference's distortion: registration in ideal pixels
    uv_ideal: np.ndarray | None = None  # (N, 2) the clicks in ideal pixels (lens only)

    image: np.ndarray | None = None  # the full-resolution reference (for the finer copy)
    gain: float = float("nan")  # its calibration's extrapolation gain in its own picture
    sigma_px: float = 1.0  # its clicks' noise (geometry.fit_extrapolation.fit_noise_px)
    weak_px: float = float("inf")  # a prediction above this flags a frame (weak_geometry)
    lens_prior: LensPrior | None = None  # its frames' lens is held to it (reference_lens_prior)
    predicted_px: float = float("nan")  # its camera's predicted 1-sigma at its worst keypoint
    predicted_at: str | None = None  # ... that keypoint
    to_click: tuple = ()  # keypoints whose clicks would pin what its clicks leave free
    lined: bool = False  # its camera and lens prior from its own painted lines (lined_reference)

    def source(self, H_pred) -> Prepared:
        """The reference image to register with: the finer one (made at its first use) when
        H_pred zooms in and the reference is wider than WORK_WIDTH."""
        if zoom_of(H_pred, self.prepared.size) < FINE_ZOOM:
            return self.prepared
        if self.fine is None and self.image is not None:
            if self.image.shape[1] > WORK_WIDTH:
                self.fine = straightened(prepare(self.image, 2 * WORK_WIDTH), self.lens, True)
            self.image = None
        return self.fine if self.fine is not None else self.prepared

    def quality(self) -> dict:
        return {
            "frame": self.ref.frame,
            "rms_px": _num(self.rms_px),
            "line_support": _num(self.evidence["support"]),
            "line_residual_px": _num(self.evidence["residual_px"]),
            "lens": "lines" if self.lined else lens_source(self.model, len(self.ref.points)),
            **self.uncertainty(),
        }

    def uncertainty(self) -> dict:
        """Its clicks' noise, its extrapolation gain (clicks alone, px per px), its camera's
        predicted 1-sigma px at the keypoint of its picture its clicks and the lens prior
        determine worst (propagation_uncertainty.predicted_error) and that keypoint, the lens
        prior its frames are held to, the prediction above which a frame is flagged (weak_px)
        and, when its own prediction is above it, the keypoints to click."""
        prior = self.lens_prior
        return {
            "noise_px": _num(self.sigma_px),
            "extrapolation_gain": _num(self.gain),
            "predicted_px": _num(self.predicted_px),
            "predicted_at": self.predicted_at,
            "lens_prior": None
            if prior is None
            else {"mean": [_num(m) for m in prior.mean], "sigma": [_num(v) for v in prior.sigma]},
            "weak_px": _num(self.weak_px),
            "to_click": list(self.to_click),
        }


def make_ref_state(
    spec: CourtSpec, ref: Reference, image: np.ndarray, image_mask, dense, masks=()
) -> RefState:
    """A reference's state for the pass: its calibration (its own painted lines looked for
    outside ``masks``, the user's [x0, y0, x1, y1] px boxes), lens prior, prediction, masks
    and prepared image."""
    from geometry.mask_rectangles import boxes_mask

    cal = reference_calibration(spec, ref.points, image, masks)
    line_mask = boxes_mask(masks, (image.shape[1], image.shape[0]))
    model = frame_model(cal.fit)
    dense = dense if dense is not None else densify_all(ground_lines(spec), LINE_STEP_M)
    names = list(ref.points)
    uv = np.array([ref.points[n] for n in names], float)
    pred = reference_prediction(spec, ref.points, cal.fit, model, image.shape[0])
    camera = cal.camera
    prior = reference_lens_prior(spec, camera, ref.points, pred["sigma_px"])
    ref_px, ref_at = predicted_error(camera, spec, ref.points, pred["sigma_px"], prior)
    lined = None
    if not ref_px <= pred["weak_px"]:  # its clicks leave it weak: its own lines may pin it
        try:
            lined = lined_reference(
                camera, spec, image, ref.points, pred["sigma_px"], prior,
                float(cal.fit.rms_px), pred["weak_px"], line_mask,
            )  # fmt: skip
        except (ValueError, np.linalg.LinAlgError, cv2.error):
            lined = None
    rms_px = float(cal.fit.rms_px)
    if lined is not None:  # its clicks' residual is the one under its camera
        camera, prior, ref_px, ref_at = lined.camera, lined.prior, lined.predicted_px, lined.at
        model, rms_px = lens_model(camera, prior).name, lined.click_rms_px
    # a lens that moves no pixel by LENS_PX is a pinhole: no straightening (a remap of every
    # frame and its masks) for a field that is the identity within 0.05 px
    lens = PixelLens.of_camera(camera) if model != "simple" else None
    p = straightened(prepare(image), lens, corners=True)
    to_click = (
        keypoints_to_click(camera, spec, ref.points, pred["sigma_px"], prior, pred["weak_px"])
        if not ref_px <= pred["weak_px"]
        else []
    )
    pinhole = camera if lens is None else Camera(camera.K, camera.R, camera.t, camera.image_size)
    return RefState(
        ref,
        camera,
        rms_px,
        p,
        straightened_mask(reduce_mask(image_mask, p), lens, p),
        court_region(spec, pinhole, p, COURT_MARGIN_M),
        names,
        uv,
        line_evidence(image, camera, [], dense=dense),
        theta=ParamModel(model).from_camera(camera),
        model=model,
        lens=lens,
        uv_ideal=None if lens is None else lens.undistort(uv),
        image=image,  # its finer copy for zoomed frames is made when first needed
        **pred,
        lens_prior=prior,
        predicted_px=ref_px,
        predicted_at=ref_at,
        to_click=tuple(to_click),
        lined=lined is not None,
    )

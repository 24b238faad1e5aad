"""Live calibration of the frame being annotated: cached, warm-started, static-camera aware.

The app asks for a frame's camera after every edit; the answer is cached by the clicks that
produced it, so redraws cost nothing and a dragged keypoint re-solves from the previous
solution (about a millisecond). The doctor (leave-one-out, relabelling) runs when asked
(``diagnose=True``), e.g. once the drag ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from court_specs import CourtSpec
from courtstudio.io.project import FrameAnnotation
from courtstudio.pipeline.ball import BallResult, lift_ball_with_uncertainty
from courtstudio.pipeline.calibration import CourtCalibration, calibrate_court
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.rays import intersect_rays_with_plane, pixel_rays_world

MIN_POINTS = 4


@dataclass(frozen=True)
class CameraState:
    """A frame's camera: its own calibration, one inherited from a static-camera range's
    source frame, or none (``message`` says why)."""

    calibration: CourtCalibration | None
    message: str = ""
    source_frame_id: str | None = None  # set when inherited
    fixes: tuple = ()  # the doctor's relabellings when the clicks did not calibrate
    propagated: Camera | None = None  # a camera carried here by propagation

    @property
    def camera(self) -> Camera | None:
        if self.calibration is not None:
            return self.calibration.camera
        return self.propagated

    @property
    def inherited(self) -> bool:
        return self.source_frame_id is not None


class CalibrationCache:
    """model: the lens model ('auto', 'simple', 'simple_k1', 'simple_k1k2'); click_sigma_px:
    the annotator's click noise (None: estimated per frame). Set both with ``configure``."""

    def __init__(self, model: str = "auto", click_sigma_px: float | None = None):
        self._cache: dict[tuple, CameraState] = {}
        self._theta: dict[str, np.ndarray] = {}
        self._lens: dict[str, str] = {}  # frame -> the model 'auto' last chose
        self._refined: dict[str, tuple[tuple, CameraState]] = {}
        self.model = model
        self.click_sigma_px = click_sigma_px

    def configure(self, model: str = "auto", click_sigma_px: float | None = None) -> None:
        if (model, click_sigma_px) != (self.model, self.click_sigma_px):
            self.model, self.click_sigma_px = model, click_sigma_px
            self._cache.clear()
            self._refined.clear()

    def forget_refined(self) -> None:
        """Drop every frame's line refinement (the masks it was made under changed)."""
        self._refined.clear()

    def _key(self, frame_id, spec, ann) -> tuple:
        return (
            frame_id,
            spec.id,
            ann.image_size,
            tuple(sorted(ann.calibration_points.items())),
            self.model,
            self.click_sigma_px,
        )

    def solve(
        self,
        frame_id: str,
        spec: CourtSpec,
        ann: FrameAnnotation,
        diagnose: bool = True,
        image: np.ndarray | None = None,
        masks: Sequence[Sequence[float]] = (),
    ) -> CameraState:
        """The frame's camera from its clicks (cached). image: the frame ((h, w, 3) BGR
        uint8) or None; with diagnose, the doctor also checks the clicks against its painted
        lines (courtstudio.pipeline.click_paint), none read inside ``masks`` ([x0, y0, x1,
        y1] px boxes of the frame's graphics)."""
        image = image if diagnose else None
        points = ann.calibration_points  # occluded / estimated clicks are left out
        if len(points) < MIN_POINTS:
            n = len(points)
            extra = (
                f" ({len(ann.points) - n} flagged occluded/estimated, not used)"
                if len(ann.points) > n
                else ""
            )
            return CameraState(None, f"{n} of at least {MIN_POINTS} keypoints clicked{extra}")
        base = self._key(frame_id, spec, ann)
        refined = self._refined.get(frame_id)
        if refined is not None and refined[0] == base:
            return refined[1]  # refined on the lines, and the clicks have not changed since
        boxes = tuple(tuple(float(v) for v in b) for b in masks) if image is not None else ()
        key = base + (diagnose, image is not None, boxes)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        model = self.model
        if model == "auto" and not diagnose and frame_id in self._lens:
            model = self._lens[frame_id]  # while dragging: keep the lens, skip the selection
        try:
            theta0 = self._theta.get(frame_id)
            if theta0 is not None and diagnose:
                theta0 = theta0[:7]  # the pinhole start: a release solves afresh
            try:
                cal = calibrate_court(
                    spec,
                    ann.image_size,
                    dict(points),
                    model=model,
                    click_sigma_px=self.click_sigma_px,
                    diagnose=diagnose,
                    theta0=theta0,
                    image=image,
                    masks=boxes,
                )
            except ValueError:
                if model == self.model:
                    raise
                # the remembered lens no longer fits these clicks: choose again
                cal = calibrate_court(
                    spec,
                    ann.image_size,
                    dict(points),
                    model=self.model,
                    click_sigma_px=self.click_sigma_px,
                    diagnose=diagnose,
                    theta0=None if theta0 is None else theta0[:7],
                    image=image,
                    masks=boxes,
                )
            state = CameraState(cal)
            # a lens model's own parameters: a drag refines them directly (geometry.
            # calibration.solve_camera), the pinhole search runs once the drag ends
            self._theta[frame_id] = (
                cal.fit.theta.copy()
                if cal.fit.model.name in ("simple_k1", "simple_k1k2")
                else ParamModel("simple").from_camera(cal.camera)
            )
            if self.model == "auto" and diagnose:
                self._lens[frame_id] = cal.fit.model.name
        except ValueError as exc:
            state = CameraState(
                None, " ".join(str(exc).split()), fixes=tuple(getattr(exc, "fixes", ()))
            )
        if len(self._cache) > 512:
            self._cache.clear()
        self._cache[key] = state
        return state

    def refine_on_lines(
        self,
        frame_id: str,
        spec: CourtSpec,
        ann: FrameAnnotation,
        image: np.ndarray,
        masks: Sequence[Sequence[float]] = (),
    ) -> CameraState:
        """The frame's calibration refined on the painted lines of ``image`` (BGR uint8),
        none looked for inside ``masks`` ([x0, y0, x1, y1] px boxes of the image: the
        project's graphics masks); kept for this frame until its clicks change. The
        refinement report (accepted or the reason not) is in
        ``state.calibration.refinement``; forget_refined (a mask edit) and configure drop
        it too."""
        from courtstudio.pipeline.line_refinement import refine_calibration

        self._refined.pop(frame_id, None)
        state = self.solve(frame_id, spec, ann, diagnose=True)
        if state.calibration is None:
            return state
        cal = refine_calibration(
            state.calibration,
            spec,
            image,
            model="auto" if self.model == "auto" else "keep",
            masks=masks,
        )
        new = CameraState(cal)
        self._refined[frame_id] = (self._key(frame_id, spec, ann), new)
        return new


_BALL_CACHE: dict[tuple, BallResult] = {}
_BALL_CACHE_SIZE = 256


def _ball_key(
    camera: Camera, cal, uv, ground_uv, plane: str, plane_z: float, uncertainty: bool
) -> tuple:
    """Everything the lifted ball and its 1-sigma depend on (the camera, the calibration's
    covariance and click noise, the clicks), as bytes."""
    cov = (
        (
            cal.fit.theta.tobytes() + cal.fit.covariance.tobytes(),
            cal.fit.model.name,
            cal.fit.model.radial,
            cal.click_sigma_px,
        )
        if cal is not None
        else None
    )
    return (
        camera.K.tobytes(),
        camera.R.tobytes(),
        camera.t.tobytes(),
        camera.dist.tobytes(),
        tuple(camera.image_size),
        tuple(uv),
        tuple(ground_uv),
        plane,
        float(plane_z),
        cov,
        uncertainty,
    )


def lift_frame_ball(
    state: CameraState, spec: CourtSpec, ann: FrameAnnotation, uncertainty: bool = True
) -> tuple[BallResult | None, str]:
    """The frame's ball (or None with the reason); see lift_ball_with_uncertainty for
    ``uncertainty``. Results are cached by their inputs: stepping back to a frame does not
    propagate the 1-sigma again."""
    b = ann.ball
    if b is None:
        return None, "click the ball"
    if not b.visible:
        return None, "ball marked not visible"
    if b.uv is None:
        return None, "click the ball"
    if state.camera is None:
        return None, "calibrate the court first"
    if b.ground_uv is None:
        return None, "click the ball's ground point on the line"
    plane = b.plane or spec.default_plane
    cal = state.calibration  # a propagated camera has no covariance: click noise only
    key = _ball_key(state.camera, cal, b.uv, b.ground_uv, plane, spec.plane_z(plane), uncertainty)
    hit = _BALL_CACHE.get(key)
    if hit is not None:
        return hit, ""
    try:
        res = lift_ball_with_uncertainty(
            state.camera,
            b.uv,
            b.ground_uv,
            plane,
            spec.plane_z(plane),
            cal.click_sigma_px if cal else 1.0,
            cal.param_covariance if cal else None,
            uncertainty,
        )
    except ValueError as exc:
        return None, " ".join(str(exc).split())
    for arr in (res.world, res.ground_world, res.sigma_world_m, res.uv_ground_snapped):
        arr.flags.writeable = False  # shared by every caller of the cache
    if len(_BALL_CACHE) >= _BALL_CACHE_SIZE:
        _BALL_CACHE.pop(next(iter(_BALL_CACHE)))
    _BALL_CACHE[key] = res
    return res, ""


def box_ground_point(camera: Camera, box_xyxy, plane_z: float = 0.0) -> np.ndarray | None:
    """(3,) world point where the bottom-centre of a player box meets the plane (the feet),
    or None when that pixel's ray does not meet it in front of the camera."""
    x0, y0, x1, y1 = box_xyxy
    try:
        C, d = pixel_rays_world(camera, np.array([[(x0 + x1) / 2, y1]]))
        X, _ = intersect_rays_with_plane(C, d, plane_z)
    except ValueError:
        return None
    return X[0]

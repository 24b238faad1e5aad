"""One frame of a propagation run: register, recover, recalibrate, verify (docs/propagation.md).

A frame is registered to its reference, predicted by the last frame registered to it. When
that fails, or the resulting camera is not supported by the frame's own painted lines, the
frame is retried: directly against its reference (no prediction), against every other
reference, and against the last good frames (composing their homography to their reference).
Only when every attempt fails is the frame flagged, with the reason of the best attempt.

Verification uses the frame's own evidence only: its line support and line residual
(geometry.line_support.line_evidence), and its recalibration residual *beyond* the
reference's (a reference whose clicks fit badly is reported once, in its own record, instead
of flagging every frame it reaches).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.propagation_court import court_region, ground_lines, zoom_of
from courtstudio.pipeline.propagation_flags import (
    WEAK_GEOMETRY,
    frame_problem,
    plane_keypoints,
)
from courtstudio.pipeline.propagation_lens import straightened, straightened_mask
from courtstudio.pipeline.propagation_result import FrameCamera, _num
from courtstudio.pipeline.propagation_solve import (  # noqa: F401
    LENS_PX,
    WEAK_PX_1080,
    frame_model,
    lens_kind,
    lens_source,
    line_model,
    recalibrate,
    reference_calibration,
    reference_prediction,
    weak_px,
)
from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.corner_tracking import TrackMemory
from geometry.fit_extrapolation import extrapolation_gain
from geometry.line_snap import snap_keypoints
from geometry.line_support import line_evidence
from geometry.pixel_lens import PixelLens
from geometry.plane_motion import (
    WORK_WIDTH,
    Prepared,
    is_identity,
    prepare,
    reduce_mask,
    register_to_reference,
    transfer_points,
)
from geometry.projection import densify_all

MIN_POINTS_IN_VIEW = 4
SUPPORT_RATIO = 0.7  # a frame's line support below this fraction of its reference's: flagged
MIN_LINE_SAMPLES = 10
LINE_STEP_M = 0.5  # line evidence samples every this many metres of painted line
COURT_MARGIN_M = 4.0  # registration uses the court and this much of its surround
RECENT_GOOD = 3
RECENT_SPACING = 5  # frames between the kept recent good frames
PENDING = 12  # flagged frames kept for another try when the graphics mask changes
FINE_ZOOM = 1.4  # frames zoomed in this much on their reference use its finer copy
VIEW_MARGIN = 0.5  # keypoints this far outside the image (fraction of its size) still count
REFINE_BELOW_SUPPORT = 0.7  # a frame whose line support is lower is refined on its lines


@dataclass(frozen=True)
class Reference:
    frame: int
    points: dict  # {keypoint: (u, v)}


@dataclass
class Options:
    """flag_rms_px: a frame's recalibration RMS beyond its reference's that flags it; snap:
    snap transferred line crossings onto painted lines; masks: [x0, y0, x1, y1] full-res
    pixel boxes never used for registration (user masks); detect_graphics: find and mask
    screen-fixed graphics; line_refiner: optional hook (image, camera, spec) -> camera that
    refines each frame's camera on the painted lines before verification."""

    flag_rms_px: float = 3.0
    snap: bool = False
    masks: tuple = ()
    detect_graphics: bool = True
    line_refiner: Callable | None = None


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
            "lens": lens_source(self.model, len(self.ref.points)),
            **self.uncertainty(),
        }

    def uncertainty(self) -> dict:
        """Its clicks' noise, its extrapolation gain and their product (the predicted 1-sigma
        px at the keypoint of its picture its clicks determine worst), and the prediction
        above which a frame is flagged (weak_px)."""
        return {
            "noise_px": _num(self.sigma_px),
            "extrapolation_gain": _num(self.gain),
            "predicted_px": _num(self.gain * self.sigma_px),
            "weak_px": _num(self.weak_px),
        }


def make_ref_state(
    spec: CourtSpec, ref: Reference, image: np.ndarray, image_mask, dense
) -> RefState:
    cal = reference_calibration(spec, ref.points, image)
    model = frame_model(cal.fit)
    # a lens that moves no pixel by LENS_PX is a pinhole: no straightening (a remap of every
    # frame and its masks) for a field that is the identity within 0.05 px
    lens = PixelLens.of_camera(cal.camera) if model != "simple" else None
    p = straightened(prepare(image), lens, corners=True)
    dense = dense if dense is not None else densify_all(ground_lines(spec), LINE_STEP_M)
    names = list(ref.points)
    uv = np.array([ref.points[n] for n in names], float)
    pinhole = (
        cal.camera
        if lens is None
        else Camera(cal.camera.K, cal.camera.R, cal.camera.t, cal.camera.image_size)
    )
    return RefState(
        ref,
        cal.camera,
        float(cal.fit.rms_px),
        p,
        straightened_mask(reduce_mask(image_mask, p), lens, p),
        court_region(spec, pinhole, p, COURT_MARGIN_M),
        names,
        uv,
        line_evidence(image, cal.camera, [], dense=dense),
        theta=ParamModel(model).from_camera(cal.camera),
        model=model,
        lens=lens,
        uv_ideal=None if lens is None else lens.undistort(uv),
        image=image,  # its finer copy for zoomed frames is made when first needed
        **reference_prediction(spec, ref.points, cal.fit, model, image.shape[0]),
    )


def _and(*masks):
    out = None
    for m in masks:
        if m is not None:
            out = m if out is None else cv2.bitwise_and(out, m)
    return out


@dataclass
class _Good:
    frame: int
    prepared: Prepared
    H: np.ndarray  # reference -> this frame
    state: RefState


@dataclass
class Tracker:
    """Per-run state: references, the current screen-fixed graphics mask (set by the pass
    for each frame: propagation_scan), recent good frames, flagged frames kept for a retry."""

    spec: CourtSpec
    size: tuple
    states: dict  # {reference frame: RefState}
    options: Options
    dense: tuple = field(default=None)
    graphics: np.ndarray | None = None  # reduced uint8 mask, 0 over graphics (or None)
    recent: deque = field(default_factory=lambda: deque(maxlen=RECENT_GOOD))
    pending: deque = field(default_factory=lambda: deque(maxlen=PENDING))

    def __post_init__(self):
        self.dense = self.dense or densify_all(ground_lines(self.spec), LINE_STEP_M)
        self.plane = plane_keypoints(self.spec)
        self.user_mask = None
        self._masks: dict = {}  # _reference_mask's last results
        self._memories: dict = {}  # {id(reference Prepared): (it, TrackMemory)}
        if self.options.masks:
            w, h = self.size
            m = np.full((h, w), 255, np.uint8)
            for x0, y0, x1, y1 in self.options.masks:
                m[max(0, int(y0)) : max(0, int(y1)), max(0, int(x0)) : max(0, int(x1))] = 0
            self.user_mask = m

    # ---------------------------------------------------------------- masks
    def _screen_mask(self, p: Prepared):
        return _and(reduce_mask(self.user_mask, p), self.graphics)

    def _reference_mask(self, target: RefState, src: Prepared, screen, own: bool):
        """The mask of the reference image src (0 = ignore): the screen mask, and with own
        (src is the reference's) its players and the court's surround. The same object
        while its inputs stay the same objects (registration keeps what it derives from
        it: corner_tracking.usable_corners)."""
        key = (id(target), id(src), id(screen), own)
        hit = self._masks.get(key)
        if hit is not None and hit[0] is src and hit[1] is screen:
            return hit[2]
        m = _and(
            reduce_mask(target.image_mask, src) if own else None,
            reduce_mask(screen, src),
            reduce_mask(target.court_mask, src) if own else None,
        )
        if len(self._masks) > 8:
            self._masks.clear()
        self._masks[key] = (src, screen, m)
        return m

    def _memory(self, src: Prepared) -> TrackMemory | None:
        """The run's memory of which corners of src recent frames rejected (None: src has no
        corners); forgotten at a cut."""
        if src.corners is None or not len(src.corners):
            return None
        hit = self._memories.get(id(src))
        if hit is None or hit[0] is not src:
            hit = (src, TrackMemory.of(src.corners))
            self._memories[id(src)] = hit
        return hit[1]

    def reset_motion(self):
        """After a cut: no prediction carries over."""
        for st in self.states.values():
            st.last_H, st.last_frame = None, None
        self.recent.clear()
        self.pending.clear()
        self._memories.clear()

    # ---------------------------------------------------------------- one frame
    def retry_pending(self):
        """Flagged frames kept since the last cut, processed again (the graphics mask
        changed); yields the records that now pass, or now register soundly but are flagged
        for weak geometry (a camera, where the kept record has none)."""
        pending, self.pending = list(self.pending), deque(maxlen=PENDING)
        for i, image, mask, st, p in pending:
            rec = self.process(i, image, mask, st, p)
            if rec.status != Status.FLAGGED or rec.reason.startswith(WEAK_GEOMETRY):
                yield rec

    def process(
        self, i: int, image: np.ndarray, frame_mask, st: RefState, p: Prepared | None = None
    ) -> FrameCamera:
        p_raw = p if p is not None else prepare(image)
        screen_raw = self._screen_mask(p_raw)
        m_raw = _and(reduce_mask(frame_mask, p_raw), screen_raw)
        ideal: dict = {}  # per lens: the frame, its masks in that lens's ideal pixels
        best: FrameCamera | None = None
        weak = None  # (record, frame, reference state): registered, but weakly determined
        for label, target, H_pred, meth, via in self._attempts(st, i):
            if weak is not None and target is weak[2]:
                continue  # the same reference's keypoints again: only another one can help
            key = id(target.lens)
            if key not in ideal:
                ideal[key] = (
                    straightened(p_raw, target.lens),
                    straightened_mask(screen_raw, target.lens, p_raw),
                    straightened_mask(m_raw, target.lens, p_raw),
                )
            p, screen, m_frame = ideal[key]
            src = target.source(H_pred) if via is None else via.prepared
            m_ref = self._reference_mask(target, src, screen, via is None)
            memory = self._memory(src) if label == "predicted" else None
            reg = register_to_reference(src, p, H_pred, m_ref, m_frame, meth, memory)
            if not reg.ok and via is None and meth == "auto":  # court region too small
                reg = register_to_reference(
                    src,
                    p,
                    H_pred,
                    _and(reduce_mask(target.image_mask, src), reduce_mask(screen, src)),
                    m_frame,
                    method="match",
                )
            if not reg.ok:
                rec = FrameCamera(
                    i,
                    Status.FLAGGED,
                    reason=f"registration failed ({reg.reason})",
                    reference=target.ref.frame,
                )
            else:
                H = reg.H if via is None else reg.H @ via.H
                rec = self._evaluate(i, image, target, H)
                rec.registration = {
                    "inliers": reg.inliers,
                    "rms_px": _num(reg.rms_px),
                    "spread": round(reg.spread, 4),
                    "method": reg.method,
                    "attempt": label,
                }
            if rec.status != Status.FLAGGED:
                self._remember(i, p, rec, target)
                return rec
            if weak is None and rec.reason.startswith(WEAK_GEOMETRY):
                weak = (rec, p, target)
            best = best or rec
            if rec.H is not None and best.H is None:
                best = rec
        if weak is not None:  # its registration is sound: the next frames are predicted by it
            self._remember(i, weak[1], weak[0], weak[2])
            return weak[0]
        self.pending.append((i, image, frame_mask, st, p_raw))
        return best

    def _attempts(self, st: RefState, i: int):
        """(label, reference state, prediction, method, via good frame) in the order tried."""
        if st.last_H is not None and st.last_frame is not None and abs(i - st.last_frame) <= 3:
            yield "predicted", st, st.last_H, "auto", None
        yield "reference", st, np.eye(3), "auto", None
        for other in sorted(self.states.values(), key=lambda s: abs(s.ref.frame - i)):
            if other is not st:
                yield f"reference {other.ref.frame}", other, np.eye(3), "match", None
        for g in reversed(self.recent):
            if g.prepared.corners is None:  # trackable from now on
                g.prepared = prepare(
                    g.prepared.gray, corners=True, scale=g.prepared.scale, size=g.prepared.size
                )
            last = g.state.last_H
            pred = np.eye(3) if last is None else last @ np.linalg.inv(g.H)
            yield f"frame {g.frame}", g.state, pred / pred[2, 2], "auto", g

    def _remember(self, i, p: Prepared, rec: FrameCamera, st: RefState):
        if st.last_frame is None or i >= st.last_frame:
            st.last_H, st.last_frame = rec.H, i
        if not self.recent or i - self.recent[-1].frame >= RECENT_SPACING:
            self.recent.append(_Good(i, p, rec.H, st))

    def _evaluate(self, i: int, image, st: RefState, H: np.ndarray) -> FrameCamera:
        """The camera of frame i from the homography H (reference -> frame), verified."""
        opt, size = self.options, self.size
        w, h = size
        gain = st.gain
        if is_identity(H, size):
            cam, rms, pts, status, fit = st.camera, st.rms_px, None, Status.STATIC, None
        else:
            uv = (
                transfer_points(H, st.uv)
                if st.lens is None  # H maps ideal pixels:
                else st.lens.distort(transfer_points(H, st.uv_ideal))
            )  # bent back after
            inside = (uv[:, 0] >= 0) & (uv[:, 0] <= w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= h - 1)
            if inside.sum() < MIN_POINTS_IN_VIEW:
                return FrameCamera(
                    i,
                    Status.FLAGGED,
                    reason=f"only {int(inside.sum())} keypoints in view",
                    reference=st.ref.frame,
                    H=H,
                )
            pts = {n: tuple(q) for n, q, ok in zip(st.names, uv, inside) if ok}
            theta0 = (
                st.theta if st.theta is not None else ParamModel(st.model).from_camera(st.camera)
            )
            if opt.snap:
                ground = {
                    n: v
                    for n, v in pts.items()
                    if abs(self.spec.keypoints[n][2] - self.spec.plane_z()) < 1e-9
                }
                snapped, _ = snap_keypoints(
                    image,
                    ParamModel(st.model).to_camera(theta0, size),
                    ground,
                    self.spec.keypoints,
                    ground_lines(self.spec),
                )
                pts.update(snapped)
            try:
                fit = recalibrate(self.spec, size, pts, theta0, st.model, st.lens)
            except (ValueError, np.linalg.LinAlgError, cv2.error) as exc:
                return FrameCamera(
                    i,
                    Status.FLAGGED,
                    reason=f"recalibration failed: {exc}",
                    reference=st.ref.frame,
                    H=H,
                )
            cam, rms, status = fit.camera, float(fit.rms_px), Status.OK
            gain = extrapolation_gain(fit, self.plane)  # of the point fit, before any refining
            if opt.line_refiner is not None:  # the hook for per-frame painted-line refinement
                cam = opt.line_refiner(image, cam, self.spec)
        ev = line_evidence(image, cam, [], dense=self.dense)
        if (
            status == Status.OK
            and opt.line_refiner is None
            and np.isfinite(ev["support"])
            and ev["support"] < REFINE_BELOW_SUPPORT
        ):
            cam, rms, ev = self._refined(image, cam, rms, ev, pts, st.rms_px, line_model(fit))
        reason = self._problem(st, rms, ev, gain)
        rec = FrameCamera(
            i,
            Status.FLAGGED if reason else status,
            cam,
            rms,
            reason,
            st.ref.frame,
            H,
            points=pts,
            evidence=ev,
            uncertainty={"extrapolation_gain": gain, "predicted_px": gain * st.sigma_px},
            lens=lens_kind(fit),
        )
        if not reason and status == Status.OK:
            st.theta = ParamModel(st.model).from_camera(cam)
        return rec

    def _refined(self, image, cam: Camera, rms: float, ev: dict, pts: dict, ref_rms, model):
        """(camera, rms, evidence) refined on the frame's own painted lines with the
        transferred keypoints as clicks (``model``: line_model's), when that raises the line
        support; else the inputs. A reference clicked on part of the court (one half) leaves
        the rest to extrapolation: on a real clay clip 10.6 px at the far corners, unflagged,
        because the frames' support matched the weak reference's. The transferred keypoints
        carry the reference clicks' noise: their sigma is taken as 1.5x the reference's RMS
        (at least 2 px)."""
        from courtstudio.pipeline.line_refinement import refine_on_lines

        try:
            new, rep = refine_on_lines(
                cam,
                self.spec,
                image,
                clicks=pts,
                model=model,
                click_sigma_px=max(2.0, 1.5 * ref_rms),
            )
        except (ValueError, np.linalg.LinAlgError, cv2.error):
            return cam, rms, ev
        if not rep.accepted:
            return cam, rms, ev
        ev2 = line_evidence(image, new, [], dense=self.dense)
        if not ev2["support"] > ev["support"]:
            return cam, rms, ev
        rms2 = rep.click_rms_after_px if rep.click_rms_after_px is not None else rms
        return new, float(rms2), ev2

    def _problem(self, st: RefState, rms: float, ev: dict, gain: float) -> str:
        """Why this frame's own evidence rejects its camera ("" when it does not):
        propagation_flags.frame_problem."""
        return frame_problem(
            rms,
            st.rms_px,
            ev,
            st.evidence,
            flag_px=self.options.flag_rms_px,
            support_ratio=SUPPORT_RATIO,
            min_line_samples=MIN_LINE_SAMPLES,
            gain=gain,
            ref_gain=st.gain,
            noise_px=st.sigma_px,
            weak_px=st.weak_px,
        )

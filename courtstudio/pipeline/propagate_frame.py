"""One frame of a propagation run: register, recover, recalibrate, verify (docs/propagation.md).

A frame is registered to its reference, predicted by the last frame registered to it. When
that fails, or the resulting camera is not supported by the frame's own painted lines, the
frame is retried: directly against its reference (no prediction), against every other
reference, and against the last good frames (composing their homography to their reference).
Only when every attempt fails is the frame flagged, with the reason of the best attempt. A
reference whose sound registration shows too few of its keypoints in view (or a weakly
determined camera) is not tried again for the frame, directly or through its good frames: the
same keypoints would come back; only another reference can help.

Verification uses the frame's own evidence only: its line support and line residual
(geometry.line_support.line_evidence), and its recalibration residual *beyond* the
reference's (a reference whose clicks fit badly is reported once, in its own record, instead
of flagging every frame it reaches).
"""

from __future__ import annotations

import copy
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.line_refinement import painted_ground_lines
from courtstudio.pipeline.propagation_ahead import Inputs, RegisterAhead, Upcoming
from courtstudio.pipeline.propagation_backoff import RefinementBackoff
from courtstudio.pipeline.propagation_carry import (
    CARRY_FRAMES,
    LinedFrame,
    carried_camera,
    ground_samples,
)
from courtstudio.pipeline.propagation_court import ground_lines
from courtstudio.pipeline.propagation_flags import (
    LINES_OFF,
    REGISTRATION_FAILED,
    RESIDUAL,
    WEAK_GEOMETRY,
    frame_problem,
    plane_keypoint_names,
    plane_keypoints,
)
from courtstudio.pipeline.propagation_lens import straightened, straightened_mask
from courtstudio.pipeline.propagation_reference import (  # noqa: F401
    COURT_MARGIN_M,
    FINE_ZOOM,
    LINE_STEP_M,
    Reference,
    RefState,
    make_ref_state,
)
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
from courtstudio.pipeline.propagation_uncertainty import predicted_error, refine_weak_frame
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.corner_tracking import TrackMemory
from geometry.fit_extrapolation import extrapolation_gain
from geometry.line_refine import SUPPORT_SLACK
from geometry.line_ridges import to_gray
from geometry.line_snap import snap_keypoints
from geometry.line_support import line_evidence
from geometry.mask_rectangles import boxes_mask
from geometry.plane_motion import (
    Prepared,
    is_identity,
    prepare,
    reduce_mask,
    register_to_reference,
    transfer_points,
)
from geometry.projection import densify_all

MIN_POINTS_IN_VIEW = 4
OUT_OF_VIEW = "keypoints in view"  # how the reason of a frame showing too few of them ends
BACKWARD_WEAK = "refined on its lines in a retry back from a later frame"
SUPPORT_RATIO = 0.7  # a frame's line support below this fraction of its reference's: flagged
MIN_LINE_SAMPLES = 10
RECENT_GOOD = 3
RECENT_SPACING = 5  # frames between the kept recent good frames
PENDING = 12  # flagged frames kept for another try when the graphics mask changes
VIEW_MARGIN = 0.5  # keypoints this far outside the image (fraction of its size) still count
REFINE_BELOW_SUPPORT = 0.7  # a frame whose line support is lower is refined on its lines


@dataclass
class Options:
    """flag_rms_px: a frame's recalibration RMS beyond its reference's that flags it; snap:
    snap transferred line crossings onto painted lines; masks: [x0, y0, x1, y1] full-res
    pixel boxes never used for registration (user masks); detect_graphics: find and mask
    screen-fixed graphics; line_refiner: optional hook (image, camera, spec) -> camera that
    refines each frame's camera on the painted lines before verification; register_ahead:
    start each next frame's registration on a worker thread (propagation_ahead; the same
    records either way)."""

    flag_rms_px: float = 3.0
    snap: bool = False
    masks: tuple = ()
    detect_graphics: bool = True
    line_refiner: Callable | None = None
    register_ahead: bool = False


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
        self._masks: dict = {}  # _reference_mask's last results
        self._memories: dict = {}  # {id(reference Prepared): (it, TrackMemory)}
        self._backoff: dict = {}  # {id(RefState): RefinementBackoff}, since the cut
        self._lined: dict = {}  # {id(RefState): LinedFrame}, its last weak frame refined
        self._line_masks: tuple | None = None  # (graphics mask, _line_mask's result)
        self._gray: tuple | None = None  # (image, its to_gray, used): the current frame's
        self._carry_samples = ground_samples(painted_ground_lines(self.spec)[1])
        self.upcoming: Upcoming | None = None  # the frame the pass processes next (set by it)
        self.ahead = RegisterAhead()
        self.user_mask = boxes_mask(self.options.masks, self.size)

    # ---------------------------------------------------------------- the line search's grey
    def offer_line_gray(self, image: np.ndarray, gray: np.ndarray | None) -> None:
        """The pass hands over to_gray(image) when its scan thread made it (None: not made;
        the frame's first refinement makes it)."""
        if gray is not None:
            self._gray = (image, gray, False)

    def took_line_gray(self, image: np.ndarray) -> bool:
        """Whether frame ``image``'s refinements used its line-search grey (the scan makes
        the next frames' while the frames keep needing it)."""
        return self._gray is not None and self._gray[0] is image and self._gray[2]

    def _line_gray(self, image: np.ndarray) -> np.ndarray:
        """to_gray(image), made once per frame however many refinements it takes (a carried
        start refused is refined again from the point fit), or the scan thread's. Keyed by
        the image object, which the cache holds (so no other frame can take its identity);
        the pass never writes into a frame."""
        if self._gray is not None and self._gray[0] is image:
            gray = self._gray[1]
        else:
            gray = to_gray(image)
        self._gray = (image, gray, True)
        return gray

    # ---------------------------------------------------------------- masks
    def _screen_mask(self, p: Prepared):
        return _and(reduce_mask(self.user_mask, p), self.graphics)

    def _line_mask(self) -> np.ndarray | None:
        """The screen mask the painted lines are not looked for under (uint8, 0 over the
        user's masks and the graphics found so far; None: neither): at the graphics mask's
        reduced size when there is one, else the user's at full size. Letters and box edges
        on screen-fixed graphics make ridges the line refinement fitted to (BENCHMARKS.md,
        twenty-third session)."""
        if self.graphics is None or self.user_mask is None:
            return self.graphics if self.graphics is not None else self.user_mask
        hit = self._line_masks
        if hit is not None and hit[0] is self.graphics:
            return hit[1]  # made once per graphics mask (the user's do not change)
        hh, ww = self.graphics.shape[:2]
        # reduced conservatively: a reduced pixel any part of a user box covers is masked
        # (a nearest-pixel reduction moved a box's edges by up to the scale and lost boxes
        # narrower than it)
        area = cv2.resize(self.user_mask, (ww, hh), interpolation=cv2.INTER_AREA)
        user = np.where(area == 255, 255, 0).astype(np.uint8)
        both = cv2.bitwise_and(user, self.graphics)
        self._line_masks = (self.graphics, both)
        return both

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

    @contextmanager
    def backward_retry(self, st: RefState, frame: int, p: Prepared | None, H):
        """A backward retry (propagation_backward) of st's kept frames from the sound frame
        ``frame`` (its reduced copy p, its homography H), inside which process(...,
        backward=True) runs: the retry has its own recent good frames, starting from that
        frame, and on leaving, what it changed of st's forward tracking is put back (its
        prediction last_H and last_frame, its warm start theta, its last frame refined on its
        lines, its refinements' backoff and the recent good frames)."""
        backoff = self._backoff.get(id(st))
        saved = (st.last_H, st.last_frame, st.theta, self._lined.get(id(st)), self.recent)
        saved_backoff = None if backoff is None else copy.deepcopy(backoff)
        self.recent = deque(maxlen=RECENT_GOOD)
        if p is not None:
            self.recent.append(_Good(frame, p, H, st))
        try:
            yield
        finally:
            st.last_H, st.last_frame, st.theta, lined, self.recent = saved
            for store, kept in ((self._lined, lined), (self._backoff, saved_backoff)):
                if kept is None:
                    store.pop(id(st), None)
                else:
                    store[id(st)] = kept

    def reset_motion(self):
        """After a cut: no prediction carries over."""
        for st in self.states.values():
            st.last_H, st.last_frame = None, None
        self.recent.clear()
        self.pending.clear()
        self._memories.clear()
        self._backoff.clear()
        self._lined.clear()
        self.ahead.drop()

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
        self,
        i: int,
        image: np.ndarray,
        frame_mask,
        st: RefState,
        p: Prepared | None = None,
        backward: bool = False,
    ) -> FrameCamera:
        """Frame i's record, registered to st's reference (and retried: _attempts).
        backward: a retry of an earlier frame predicted from its successor, inside
        backward_retry (propagation_backward): no registration run ahead, no corner memory,
        not kept for the graphics retry, and a weak frame its lines alone rescue is flagged."""
        p_raw = p if p is not None else prepare(image)
        ahead = None if backward else self.ahead.inputs_for(i, st, p_raw, frame_mask, self.graphics)
        ideal: dict = {}  # per lens: the frame, its masks in that lens's ideal pixels
        if ahead is not None:  # made when this frame's registration started ahead
            screen_raw, m_raw = ahead.screen_raw, ahead.m_raw
            ideal[id(st.lens)] = ahead.ideal
        else:
            screen_raw = self._screen_mask(p_raw)
            m_raw = _and(reduce_mask(frame_mask, p_raw), screen_raw)
        best: FrameCamera | None = None
        weak = None  # (record, frame, reference state): registered, but weakly determined
        # references soundly registered that gave the weak record or too few keypoints in
        # view: another attempt on them would bring the same keypoints back
        settled: list[RefState] = []
        away = None  # (record, reference state): registered soundly, too few keypoints in view
        suspects: list = []  # the attempts whose camera the frame's own lines or residual refused
        for label, target, H_pred, meth, via in self._attempts(st, i):
            if any(target is t for t in settled):
                continue  # only another reference can help
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
            memory = self._memory(src) if label == "predicted" and not backward else None
            reg = None
            if label == "predicted" and ahead is not None:
                reg = self.ahead.result(ahead, src, H_pred, memory)
            if reg is None:
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
                    reason=f"{REGISTRATION_FAILED} ({reg.reason})",
                    reference=target.ref.frame,
                )
            else:
                H = reg.H if via is None else reg.H @ via.H
                if not backward:
                    self._register_next_ahead(i, target, H)
                rec = self._evaluate(
                    i, image, target, H, chained=via is not None, backward=backward
                )
                rec.registration = _registration_field(reg, label)
                if rec.reason.startswith((LINES_OFF, RESIDUAL)) and 2 * reg.still >= reg.inliers:
                    # refused, and most of its inliers did not move: locked onto graphics?
                    suspects.append((label, target, H_pred, meth, via, src, p, m_ref, m_frame))
            if rec.status != Status.FLAGGED:
                self._remember(i, p, rec, target)
                return rec
            if weak is None and rec.reason.startswith(WEAK_GEOMETRY):
                weak = (rec, p, target)
                settled.append(target)
            if rec.reason.endswith(OUT_OF_VIEW) and rec.H is not None:
                settled.append(target)
                away = away or (rec, target)
            best = best or rec
            if rec.H is not None and best.H is None:
                best = rec
        moving = self._moving_pairs_only(i, image, suspects, backward)
        if moving is not None:
            return moving
        if weak is not None:  # its registration is sound: the next frames are predicted by it
            self._remember(i, weak[1], weak[0], weak[2])
            return weak[0]
        if away is not None:  # so is this one's: it predicts the next frames (a pan that
            # leaves the court and comes back is tracked through it), and a retry with another
            # graphics mask would bring the same keypoints back
            if not backward:
                self._predict_from(i, away[0].H, away[1])
            return away[0] if backward else best
        if not backward:
            self.pending.append((i, image, frame_mask, st, p_raw))
        return best

    def _moving_pairs_only(
        self, i: int, image, suspects: list, backward: bool = False
    ) -> FrameCamera | None:
        """The last resort of a frame whose cameras its own evidence refused (court lines that
        do not match, a keypoint residual): each such attempt whose registration had at least
        half its inliers still in the image (Registration.still) registered again without the
        pairs that did not move (plane_motion's drop_still). A fast pan before the
        graphics detector has learnt the screen-fixed graphics (the first frames of a shot)
        is registered on the logo, score bug and ticker, which stay put while the court moves:
        a near-identity homography whose inliers span the image's corners. The first record
        that passes is kept, else None; it predicts the next frames but is not one of the good
        frames other frames are retried from (a last resort, often on fewer inliers: on the
        synthetic clay court with graphics, retries through such frames chained into a frame
        6.9 px off at its worst keypoint)."""
        for label, target, H_pred, meth, via, src, p, m_ref, m_frame in suspects:
            moving = register_to_reference(src, p, H_pred, m_ref, m_frame, meth, drop_still=True)
            if not moving.ok:
                continue
            # predicted by it, every pair registers the frame again (the graphics' pairs are
            # then outliers): as precise as a frame registered from a sound prediction
            again = register_to_reference(src, p, moving.H, m_ref, m_frame, meth)
            tries = [(again, "registered again"), (moving, "")] if again.ok else [(moving, "")]
            for reg, how in tries:
                H = reg.H if via is None else reg.H @ via.H
                if not backward:
                    self._register_next_ahead(i, target, H)
                rec = self._evaluate(
                    i, image, target, H, chained=via is not None, backward=backward
                )
                if rec.status != Status.FLAGGED:
                    how = f"{label}, moving pairs" + (f", {how}" if how else "")
                    rec.registration = _registration_field(reg, how)
                    if not backward:
                        self._predict_from(i, rec.H, target)  # not a good frame to retry from
                    return rec
        return None

    def _register_next_ahead(self, i: int, target: RefState, H: np.ndarray) -> None:
        """Start the next frame's first registration on the worker thread, predicted by H (this
        frame's, reference -> frame), when that frame is target's: it overlaps this frame's
        recalibration and verification, and is used only if this frame is kept with H
        (propagation_ahead)."""
        up = self.upcoming
        if not self.options.register_ahead or up is None:
            return
        if up.index != i + 1 or up.state is not target:
            return
        src = target.source(H)
        memory = self._memory(src)
        if memory is None:  # no corners to track: the next frame is matched in line
            return
        lens, q = target.lens, up.prepared
        screen_raw = _and(reduce_mask(self.user_mask, q), up.graphics)
        m_raw = _and(reduce_mask(up.mask, q), screen_raw)
        ideal = (
            straightened(q, lens),
            straightened_mask(screen_raw, lens, q),
            straightened_mask(m_raw, lens, q),
        )
        m_ref = self._reference_mask(target, src, ideal[1], True)
        self.ahead.start(Inputs(up, screen_raw, m_raw, ideal, src, m_ref, H, memory))

    def close(self) -> None:
        """End the worker thread of the registrations run ahead."""
        self.ahead.close()

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
        self._predict_from(i, rec.H, st)  # (a backward retry's frames predict nothing here)
        if not self.recent or abs(i - self.recent[-1].frame) >= RECENT_SPACING:
            self.recent.append(_Good(i, p, rec.H, st))

    @staticmethod
    def _predict_from(i, H: np.ndarray, st: RefState):
        """Frame i's homography H (reference -> frame) predicts the next frames of st."""
        if st.last_frame is None or i >= st.last_frame:
            st.last_H, st.last_frame = H, i

    def _evaluate(
        self,
        i: int,
        image,
        st: RefState,
        H: np.ndarray,
        chained: bool = False,
        backward: bool = False,
    ) -> FrameCamera:
        """The camera of frame i from the homography H (reference -> frame), verified.
        chained: H was registered to another frame and chained through that frame's
        homography (a retry through a recent good frame), so it carries that frame's error
        too: the frame is refined on its painted lines whatever its line support (below).
        backward: a backward retry's (process)."""
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
                    reason=f"only {int(inside.sum())} {OUT_OF_VIEW}",
                    reference=st.ref.frame,
                    H=H,
                )
            pts = {n: tuple(q) for n, q, ok in zip(st.names, uv, inside) if ok}
            theta0 = (
                st.theta if st.theta is not None else ParamModel(st.model).from_camera(st.camera)
            )
            if opt.snap:
                plane = plane_keypoint_names(self.spec)
                ground = {n: v for n, v in pts.items() if n in plane}
                snapped, _ = snap_keypoints(
                    image,
                    ParamModel(st.model).to_camera(theta0, size),
                    ground,
                    self.spec.keypoints,
                    ground_lines(self.spec),
                )
                pts.update(snapped)
            try:
                fit = recalibrate(self.spec, size, pts, theta0, st.model, st.lens, st.lined)
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
        on_lines = False  # the final camera was fitted to the frame's painted lines
        if status == Status.OK:
            predicted, at = predicted_error(cam, self.spec, pts, st.sigma_px, st.lens_prior)
        skipped = False  # a refinement skipped: this reference's last ones were refused
        kept_lines = False  # a frame its keypoints determine, refined on its lines (kept)
        carried = None  # the frame whose refined camera, carried here, started the refinement
        if status == Status.OK and not predicted <= st.weak_px:
            cam, rms, ev, predicted, at, on_lines, carried = self._weak_refined(
                image, st, cam, rms, ev, pts, predicted, at, i, H
            )
        elif (
            status == Status.OK
            and opt.line_refiner is None
            and np.isfinite(ev["support"])
            and (ev["support"] < REFINE_BELOW_SUPPORT or chained)
        ):
            backoff = self._backoff_of(st)
            skipped = not backoff.should_try(i)
            if not skipped:
                new, rms, ev = self._refined(image, cam, rms, ev, pts, st.rms_px, line_model(fit))
                backoff.record(i, new is not cam)
                kept_lines = new is not cam
                cam = new
        elif status == Status.STATIC:  # the reference's camera, and its prediction
            predicted, at = st.predicted_px, st.predicted_at
            if not predicted <= st.weak_px:  # a weak reference's view: refined as any frame
                pts = dict(zip(st.names, map(tuple, st.uv)))
                cam, rms, ev, predicted, at, on_lines, carried = self._weak_refined(
                    image, st, cam, rms, ev, pts, predicted, at, i, H
                )
                status = Status.OK if on_lines else Status.STATIC
        reason = self._problem(st, rms, ev, predicted, at)
        if not reason and on_lines and backward:
            # a weak frame reached only by a backward retry, at the edge of its reference's
            # reach: kept with its camera, flagged (on the real NBA pan one such frame was
            # 24.8 px off with a 1.8 px prediction)
            reason = f"{WEAK_GEOMETRY}: {BACKWARD_WEAK}"
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
            uncertainty={
                "extrapolation_gain": gain,
                "predicted_px": predicted,
                "predicted_at": at,
                **({"refined": "lines"} if on_lines or kept_lines else {}),
                **({"refined": "skipped"} if skipped else {}),
                **({"refined_from": carried} if carried is not None else {}),
            },
            lens=lens_kind(fit),
        )
        if not reason and status == Status.OK:
            st.theta = ParamModel(st.model).from_camera(cam)
        if not reason and on_lines:
            self._lined[id(st)] = LinedFrame(i, H, cam)
        return rec

    def _backoff_of(self, st: RefState) -> RefinementBackoff:
        """The refusals in a row of the refinements of st's frames that their keypoints
        determine, since the last cut (propagation_backoff)."""
        return self._backoff.setdefault(id(st), RefinementBackoff())

    def _refined(self, image, cam: Camera, rms: float, ev: dict, pts: dict, ref_rms, model):
        """(camera, rms, evidence) refined on the frame's own painted lines with the
        transferred keypoints as clicks (``model``: line_model's), when that raises the line
        support; else the inputs. Only for frames their keypoints determine (prediction within
        weak_px; the shared-centre refit of step 8 then refits them to their keypoints). A
        reference clicked on part of the court (one half) leaves the rest to extrapolation: on
        a real clay clip 10.6 px at the far corners, unflagged, because the frames' support
        matched the weak reference's. The transferred keypoints carry the reference clicks'
        noise: their sigma is taken as 1.5x the reference's RMS (at least 2 px)."""
        from courtstudio.pipeline.line_refinement import refine_on_lines

        try:
            new, rep = refine_on_lines(
                cam,
                self.spec,
                image,
                clicks=pts,
                model=model,
                click_sigma_px=max(2.0, 1.5 * ref_rms),
                gray=self._line_gray(image),
                mask=self._line_mask(),
            )
        except (ValueError, np.linalg.LinAlgError, cv2.error):
            return cam, rms, ev
        if not rep.accepted:
            return cam, rms, ev
        ev2 = line_evidence(image, new, [], dense=self.dense)
        if not self._more_support(image, new, cam, ev2, ev):
            return cam, rms, ev
        rms2 = rep.click_rms_after_px if rep.click_rms_after_px is not None else rms
        if not np.isfinite(rms2):  # a keypoint without an image under the refined camera
            return cam, rms, ev
        return new, float(rms2), ev2

    def _more_support(
        self, image, new: Camera, old: Camera, ev_new: dict, ev_old: dict, slack=None
    ) -> bool:
        """Whether the refined camera ``new`` has more line support than ``old`` in the
        frame (with ``slack``: not less by more than it; a NaN support, no sample in view,
        passes that test as it always has), both counted where the screen is the court's
        (_line_mask): a camera the refinement moved off a ticker's letters loses the support
        they gave and must not be refused for it. ev_new, ev_old: their line evidence over
        the whole picture, used as they are when nothing is masked."""
        mask = self._line_mask()
        if mask is None:
            a, b = ev_new["support"], ev_old["support"]
        else:
            a = line_evidence(image, new, [], dense=self.dense, mask=mask)["support"]
            b = line_evidence(image, old, [], dense=self.dense, mask=mask)["support"]
        return bool(a > b) if slack is None else not bool(a < b - slack)

    def _weak_refined(
        self, image, st: RefState, cam: Camera, rms: float, ev: dict, pts, px, at, i: int, H
    ):
        """(camera, rms, evidence, predicted px, at, on lines, carried from) of a frame whose
        keypoints alone leave it predicted beyond weak_px (px at ``at``: propagation_
        uncertainty.predicted_error): refined on its painted lines with them and the lens
        prior (refine_weak_frame); when that is accepted and the frame's line support does
        not fall by more than SUPPORT_SLACK, the refined camera and its prediction from
        keypoints, lines and prior (on lines: True; the shared-centre refit leaves it as it
        is), else the inputs (docs/propagation.md, step 7). The refinement starts from the
        camera of this reference's last frame refined so, carried to this frame by their
        homographies (propagation_carry; carried from: that frame) when one lies within
        CARRY_FRAMES: one search at the last radius; from the point fit ``cam`` otherwise,
        or when the carried start's refinement fails a test."""
        last = self._lined.get(id(st))
        if last is not None and 0 < abs(i - last.frame) <= CARRY_FRAMES:
            start = carried_camera(last, H, st.lens, self._carry_samples)
            if start is not None:
                out = self._weak_refined_from(image, st, cam, rms, ev, pts, start)
                if out is not None:
                    return (*out, True, last.frame)
        out = self._weak_refined_from(image, st, cam, rms, ev, pts, None)
        if out is not None:
            return (*out, True, None)
        return cam, rms, ev, px, at, False, None

    def _weak_refined_from(self, image, st: RefState, cam, rms, ev, pts, start):
        """(camera, rms, evidence, predicted px, at) of refine_weak_frame of the point fit
        cam (its evidence ev and rms the tests' baseline), searched from ``start`` at the
        last radius alone (a carried camera) or from cam over every radius (start None);
        None when it is not accepted."""
        try:
            wr = refine_weak_frame(
                cam,
                self.spec,
                image,
                pts,
                st.sigma_px,
                st.lens_prior,
                st.rms_px,
                start,
                self._line_gray(image),
                self._line_mask(),
            )
        except (ValueError, np.linalg.LinAlgError, cv2.error):
            return None
        if not wr.report.accepted:
            return None
        ev2 = line_evidence(image, wr.camera, [], dense=self.dense)
        if not self._more_support(image, wr.camera, cam, ev2, ev, slack=SUPPORT_SLACK):
            return None  # (one or two samples may go)
        rms2 = wr.report.click_rms_after_px
        if rms2 is not None and not np.isfinite(rms2):  # a keypoint without an image under it
            return None
        rms = float(rms if rms2 is None else rms2)
        return wr.camera, rms, ev2, wr.predicted_px, wr.at

    def _problem(self, st: RefState, rms: float, ev: dict, predicted: float, at) -> str:
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
            predicted_px=predicted,
            predicted_at=at,
            weak_px=st.weak_px,
        )


def _registration_field(reg, attempt: str) -> dict:
    """A record's ``registration``: the registration's inliers, RMS (px), inlier spread
    (fraction of the image), method, and the attempt that gave it."""
    return {
        "inliers": reg.inliers,
        "rms_px": _num(reg.rms_px),
        "spread": round(reg.spread, 4),
        "method": reg.method,
        "attempt": attempt,
    }

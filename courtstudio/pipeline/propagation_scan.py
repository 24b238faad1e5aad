"""The part of a propagation pass that needs no registration result (docs/propagation.md
"Speed"): each frame is read once and reduced (prepare_frame), its cut test against the
previous frame is made, and the screen-fixed graphics detector is fed.

None of this depends on how earlier frames registered. For a video, each frame's pixel work
alone (FramePrep: the reduction, the cut-test features, the cut test against the frame
before, the graphics detector's texture) is made on the decoder's thread while the pass keeps
it busy (VideoFrames.set_preparer, FrameScan.prepare_ahead), and the rest runs in the pass's
thread; another source is scanned up to AHEAD frames ahead on a thread of its own (OpenCV
releases the GIL while it works). The results are those of the same steps done in line:
frames come out in order, each with the graphics mask as it stood after that frame (the
detector may run a few frames ahead, its snapshot per frame does not).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from courtstudio.pipeline.propagation_checkpoint import (
    CHECKPOINT_EVERY,
    ScanState,
    save_scan_state,
)
from courtstudio.pipeline.propagation_frames import _read, frame_mask
from geometry.line_ridges import to_gray
from geometry.plane_motion import (
    CutFeatures,
    Prepared,
    cut_features,
    is_cut_features,
    prepare_frame,
    same_view,
)
from geometry.screen_fixed import MIN_FRAMES, ScreenFixedDetector, Texture, frame_texture

GRAPHICS_LAG = 8  # the graphics detector compares frames this far apart
GRAPHICS_EVERY = 2  # ... on every this many frames (its votes need no more)
GRAPHICS_STABLE = 10  # updates in a row that left the mask unchanged: it is stable, and
GRAPHICS_EVERY_STABLE = 8  # ... from then on a pair every this many frames is enough
AHEAD = 3  # frames the scan may run ahead of the pass (each holds one full image)


@contextmanager
def opencv_threads(n: int):
    """OpenCV's worker pool set to n threads for the block (restored after). A pass keeps
    its own threads busy (decoding, this scan, the main thread's registration): on 2 cores
    OpenCV's pool on top of them only adds hand-off work, 1.2-1.4 ms of CPU a 720p frame
    (BENCHMARKS.md "Propagation speed, third pass"); the results are the same. The setting
    is OpenCV's, process-wide: one pass at a time per process (as the CLI and the app run
    them); overlapping blocks would restore in the wrong order."""
    before = cv2.getNumThreads()
    cv2.setNumThreads(n)
    try:
        yield
    finally:
        cv2.setNumThreads(before)


@dataclass
class Scanned:
    """One frame as the scan leaves it: image (h, w[, 3]) uint8 or None (undecodable, or not
    read: a frame already done that a resumed scan passes with its record's cut flag); mask:
    the frame's own uint8 mask (0 = ignore, full resolution) or None; prepared: its reduced
    copy (None with no image); cut: a shot cut before it; graphics: the detector's uint8
    reduced mask after this frame (0 over graphics) or None; graphics_changed: that mask
    changed with this frame (flagged frames deserve another try); line_gray: the painted-line
    search's (h, w) float32 grey of the image (geometry.line_ridges.to_gray), made while the
    pass's frames keep being refined on their lines, else None."""

    index: int
    image: np.ndarray | None
    mask: np.ndarray | None
    prepared: Prepared | None
    cut: bool
    graphics: np.ndarray | None
    graphics_changed: bool
    line_gray: np.ndarray | None = None


@dataclass(frozen=True)
class FramePrep:
    """What the scan makes of one frame's pixels (no registration): its reduced copy, its
    cut-test features and, when asked for, its painted-line search grey ((h, w) float32,
    geometry.line_ridges.to_gray; else None). cut_after: (the previous frame's features,
    is_cut_features of those and these), when the previous frame was prepared with it (on a
    source's decode thread), else None. texture: what the graphics detector reads of the
    reduced copy (geometry.screen_fixed.frame_texture), when made ahead for it, else None."""

    prepared: Prepared
    features: CutFeatures
    line_gray: np.ndarray | None
    cut_after: tuple[CutFeatures, bool] | None = None
    texture: Texture | None = None


def frame_prep(
    image: np.ndarray,
    line_gray: bool,
    previous: CutFeatures | None = None,
    texture: bool = False,
) -> FramePrep:
    """FramePrep of a frame (h, w[, 3]) uint8, with its cut test against the previous
    frame's features when given and its texture when asked for: the same wherever and
    whenever it is made."""
    p, sig = prepare_frame(image)
    f = cut_features(sig)
    cut = None if previous is None else (previous, is_cut_features(previous, f))
    tex = frame_texture(p.gray) if texture else None
    return FramePrep(p, f, to_gray(image) if line_gray else None, cut, tex)


def _cut(prev: CutFeatures, fp: FramePrep) -> bool:
    """The cut test between the previous frame (its features prev) and this one: the one
    made with fp when it was made against these very features, else made now."""
    if fp.cut_after is not None and fp.cut_after[0] is prev:
        return fp.cut_after[1]
    return is_cut_features(prev, fp.features)


class FrameScan:
    """Frames lo..hi - 1 of ``frames`` scanned in order (iterate once). detect_graphics:
    feed the screen-fixed graphics detector (frames GRAPHICS_LAG apart, every
    GRAPHICS_EVERY consecutive pairs of a shot; once GRAPHICS_STABLE updates in a row left
    its mask unchanged, every GRAPHICS_EVERY_STABLE, until the mask changes or a cut).
    threaded=False runs the same steps in the caller's thread; a source that prepares frames
    on its own decode thread (VideoFrames.set_preparer) is then given prepare_ahead, and
    each frame's FramePrep comes from it when it made one. want_line_gray: () -> bool,
    asked before each frame: make its line-search grey (to_gray, 1-3 ms of a 720p-1080p frame
    moved off the pass's thread while its frames are refined; None: never)."""

    def __init__(
        self,
        frames,
        lo: int,
        hi: int,
        detect_graphics: bool,
        threaded: bool = True,
        want_line_gray: Callable[[], bool] | None = None,
        checkpoint: Path | None = None,
        resume: tuple[ScanState, Callable[[int], bool]] | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ):
        self.frames, self.lo, self.hi = frames, lo, hi
        self.checkpoint = checkpoint  # where to save the state every checkpoint_every frames
        self.every = max(1, int(checkpoint_every))
        self.resume = resume  # a saved state, and the cut flag of each frame before it
        self.report: dict = {}  # what became of the saved state: "resumed_at" or "state_unused"
        self.want_line_gray = want_line_gray
        self.detect_graphics = detect_graphics
        self.threaded = threaded
        self.detector: ScreenFixedDetector | None = None
        self.frame_scale = 1.0
        # the frames fed to the detector lately: (reduced gray, its Texture or None)
        self.history: deque = deque(maxlen=GRAPHICS_LAG + 1)
        self.observed = 0  # consecutive pairs fed to the detector
        self._observed_at = (-1, 0)  # (the last frame fed to the detector, observed then)
        self.unchanged = 0  # detector updates in a row that left its mask as it was
        self._ahead_last: tuple[int, FramePrep] | None = None  # prepare_ahead's last

    # ------------------------------------------------------------ the steps, in order
    def _steps(self) -> Iterator[Scanned]:
        prev_sig = prev_p = None
        start = self.lo
        resumed = self._resumed()
        if resumed is not None:  # frames before it: their records' cut flags, nothing read
            start, prev_p, prev_sig = resumed
            for i in range(self.lo, start):
                yield Scanned(i, None, None, None, bool(self.resume[1](i)), None, False)
        elif self.lo > 0:
            img = _read(self.frames, self.lo - 1)
            if img is not None:
                prev_p, s = prepare_frame(img)
                prev_sig = cut_features(s)
        for i in range(start, self.hi):
            img = _read(self.frames, i)
            fp = None if img is None else self._frame_prep(i, img)
            p, sig = (None, None) if fp is None else (fp.prepared, fp.features)
            cut = prev_sig is not None and sig is not None and _cut(prev_sig, fp)
            if cut and same_view(prev_p, p):  # a fast zoom or pan, not a cut
                cut = False
            prev_sig = sig
            changed = False
            if cut:
                self.history.clear()
                self.unchanged = 0  # a new shot may bring new graphics
            elif p is not None:
                changed = self._observe(prev_p, p, i, None if fp is None else fp.texture)
            prev_p = p
            graphics = self.detector.mask() if self.detector is not None else None
            if self.checkpoint is not None and p is not None and (i + 1) % self.every == 0:
                self._save(i + 1, p)
            line_gray = None if fp is None else fp.line_gray
            yield Scanned(i, img, frame_mask(self.frames, i), p, cut, graphics, changed, line_gray)

    def _wants_line_gray(self) -> bool:
        return self.want_line_gray is not None and bool(self.want_line_gray())

    def prepare_ahead(self, index: int, image: np.ndarray) -> FramePrep:
        """frame_prep of frame index, read ahead (run on the source's decode thread, in the
        frames' order), with the cut test against the previous frame when it prepared that
        one too."""
        last = self._ahead_last
        previous = last[1].features if last is not None and last[0] == index - 1 else None
        fp = frame_prep(image, self._wants_line_gray(), previous, self._texture_wanted(index))
        self._ahead_last = (index, fp)
        return fp

    def _texture_wanted(self, index: int) -> bool:
        """Whether the graphics detector will read frame index's texture, as far as the
        scan's progress (read from the decode thread, a few frames behind) tells: the frames
        its pairs take, at its current cadence, when no cut comes between. A wrong guess
        costs work, never a result (the detector makes a missing texture itself)."""
        if not self.detect_graphics:
            return False
        last, observed = self._observed_at
        if last < 0:
            return True
        return (observed + index - last) % self._every() == 0

    def _every(self) -> int:
        """The detector's cadence: a pair every this many consecutive frames (slower once its
        mask has stayed the same for GRAPHICS_STABLE updates)."""
        return GRAPHICS_EVERY_STABLE if self.unchanged >= GRAPHICS_STABLE else GRAPHICS_EVERY

    def _frame_prep(self, i: int, img: np.ndarray) -> FramePrep:
        """Frame i's FramePrep: the source's, when it made one of this image, else made now."""
        ahead = getattr(self.frames, "prepared", None)
        fp = ahead(i, img) if ahead is not None else None
        return fp if isinstance(fp, FramePrep) else frame_prep(img, self._wants_line_gray())

    # ------------------------------------------------------------ saved state
    def _save(self, k: int, p: Prepared) -> None:
        """Save the state before frame k (p: frame k-1's); a failed save stops the saving."""
        d = self.detector
        grays = [g for g, _ in self.history]
        history = np.stack(grays) if grays else np.zeros((0, *p.gray.shape))
        state = ScanState(
            k,
            self.frames.count,
            self.detect_graphics,
            p.gray,
            history.astype(np.uint8, copy=False),
            self.observed,
            self.unchanged,
            self.frame_scale,
            None if d is None else d.state(),
        )
        try:
            save_scan_state(self.checkpoint, state)
        except OSError as exc:
            self.report["state_not_saved"] = f"{self.checkpoint}: {exc}"
            self.checkpoint = None

    def _resumed(self) -> tuple[int, Prepared, object] | None:
        """(k, frame k-1 prepared, its cut features) with the saved state restored, when the
        saved frame k-1 is the one the video gives there; else None (the reason in report)."""
        if self.resume is None:
            return None
        state = self.resume[0]
        k = state.frame
        if not self.lo < k < self.hi:
            self.report["state_unused"] = f"saved before frame {k}, outside this pass"
            return None
        if len(state.history) > GRAPHICS_LAG + 1:
            self.report["state_unused"] = "more recent frames than the detector keeps"
            return None
        img = _read(self.frames, k - 1)
        p, s = (None, None) if img is None else prepare_frame(img)
        if p is None or not np.array_equal(p.gray, state.prev_gray):
            self.report["state_unused"] = (
                f"frame {k - 1} as read now is not the frame it was saved after (a seek that "
                "landed elsewhere, or another video)"
            )
            return None
        self.history.clear()
        self.history.extend((g.copy(), None) for g in state.history)
        self.observed, self.unchanged = state.observed, state.unchanged
        self.frame_scale = state.frame_scale
        if state.detector is not None:
            self.detector = ScreenFixedDetector.from_state(state.detector)
        self.report["resumed_at"] = k
        return k, p, cut_features(s)

    def _observe(
        self, prev: Prepared | None, p: Prepared, index: int, texture: Texture | None
    ) -> bool:
        """Feed a consecutive pair (same shot) to the detector (frame index, reduced p, its
        texture when made ahead); True when the detector's mask changed."""
        if not self.detect_graphics or prev is None:
            return False
        if self.detector is None:
            self.detector = ScreenFixedDetector(p.gray.shape[:2])
            self.frame_scale = p.scale
        self.history.append((p.gray, texture))
        self.observed += 1
        self._observed_at = (index, self.observed)
        if len(self.history) < self.history.maxlen or self.observed % self._every():
            return False
        before = self.detector.mask()
        lagged, lagged_texture = self.history[0]
        self.detector.update(lagged, p.gray, lagged_texture, texture)
        after = self.detector.mask()
        same = (before is None and after is None) or (
            before is not None and after is not None and np.array_equal(before, after)
        )
        verdict = self.detector.pairs >= MIN_FRAMES  # before that, no mask means no votes yet
        self.unchanged = self.unchanged + 1 if same and verdict else 0
        return after is not None and not same

    def graphics_boxes(self) -> list:
        """The screen-fixed graphics masked, [x0, y0, x1, y1] full-resolution px."""
        if self.detector is None:
            return []
        return self.detector.boxes_px(self.frame_scale)

    # ------------------------------------------------------------ running ahead
    def __iter__(self) -> Iterator[Scanned]:
        if not self.threaded:
            yield from self._steps()
            return
        q: queue.Queue = queue.Queue(maxsize=AHEAD)
        stop = threading.Event()

        def put(item) -> bool:
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def run():
            try:
                for item in self._steps():
                    if not put(("frame", item)):
                        return
            except BaseException as exc:  # handed to the pass, which raises it
                put(("error", exc))
                return
            put(("end", None))

        t = threading.Thread(target=run, name="propagation-scan", daemon=True)
        t.start()
        try:
            while True:
                kind, value = q.get()
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                yield value
        finally:
            stop.set()
            t.join()

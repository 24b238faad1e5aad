"""Frames that failed before a sound one, retried backwards from it.

The pass reads a clip forwards and predicts each frame's homography from the frame before.
Frames before a shot's first reference have no such prediction: they are registered straight
to a reference they may be far from, and where the camera is panned away (the first 53 frames
of the real NBA pan, from its reference at frame 300) every one fails, while the frames after
them, nearer the reference's view, register soundly. Run backwards from the first sound frame,
each failed frame is predicted by its successor, as the forward pass predicts its frames.

So the pass keeps each frame whose registration failed or was refused (its lines or keypoint
residual), up to HELD_BYTES of images; when a frame of the same reference then registers
soundly, the kept frames just before it are processed again from the last to the first, each
predicted by the homography of the frame after it, until one is still refused. A retried
frame's record replaces the kept one when it passes, or registers soundly but is flagged for
weak geometry or too few keypoints in view (the truer record, with the sound homography that
predicts the next retry). The retries leave the forward pass's state as it was
(Tracker.process with backward=True inside Tracker.backward_retry, which restores the
reference state's prediction, warm start, carried refinement and refinement backoff).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from courtstudio.pipeline.propagate_frame import OUT_OF_VIEW
from courtstudio.pipeline.propagation_flags import (
    LINES_OFF,
    REGISTRATION_FAILED,
    RESIDUAL,
    WEAK_GEOMETRY,
)
from courtstudio.pipeline.propagation_result import FrameCamera
from courtstudio.pipeline.propagation_status import PropagationStatus as Status

HELD_BYTES = 128 * 2**20  # images kept for a backward retry, at most (42 720p frames)
RETRIED = (REGISTRATION_FAILED, LINES_OFF, RESIDUAL)  # the reasons a frame is kept for


@dataclass(frozen=True)
class Held:
    """A frame kept for a backward retry: what Tracker.process takes, and its cut flag."""

    frame: int
    image: np.ndarray
    mask: object
    state: object  # its RefState
    prepared: object  # its reduced copy (plane_motion.Prepared)
    cut: bool

    @property
    def nbytes(self) -> int:
        gray = getattr(self.prepared, "gray", None)
        return int(self.image.nbytes) + (0 if gray is None else int(gray.nbytes))


def kept_for_retry(rec: FrameCamera) -> bool:
    """Whether a frame's record is one a backward retry may improve (registration failed, or
    its camera refused by its lines or its keypoint residual)."""
    return rec.status == Status.FLAGGED and rec.reason.startswith(RETRIED)


def sound(rec: FrameCamera) -> bool:
    """Whether a record's homography is sound enough to predict the frame before it: the
    frame passed, or registered and was flagged only for weak geometry or for showing too
    few keypoints."""
    if rec.H is None:
        return False
    if rec.status != Status.FLAGGED:
        return True
    return rec.reason.startswith(WEAK_GEOMETRY) or rec.reason.endswith(OUT_OF_VIEW)


class BackwardRetry:
    """The pass's kept frames and their retry (one per pass; cleared at a cut)."""

    def __init__(self, max_bytes: int = HELD_BYTES):
        self.max_bytes = int(max_bytes)
        self._held: deque[Held] = deque()
        self._bytes = 0
        self._recovered: set[int] = set()  # kept frames another retry has since passed

    def __len__(self) -> int:
        return len(self._held)

    def clear(self) -> None:
        self._held.clear()
        self._bytes = 0
        self._recovered.clear()

    def recovered(self, frame: int) -> None:
        """A kept frame has a sound record now (the graphics retry passed it): a backward
        retry still goes through it, but replaces its record only with one that passes."""
        self._recovered.add(frame)

    def hold(self, entry: Held) -> None:
        """Keep a frame (the pass's frames come in order); the oldest go past max_bytes."""
        if self._held and entry.frame <= self._held[-1].frame:
            self.clear()  # a new pass or a jump back: what was kept is not just before it
        self._held.append(entry)
        self._bytes += entry.nbytes
        while self._bytes > self.max_bytes and self._held:
            self._bytes -= self._held.popleft().nbytes

    def retry(self, tracker, frame: int, state, H: np.ndarray, prepared=None):
        """After frame ``frame`` registered soundly to ``state``'s reference with H (reference
        -> frame; the identity for the reference itself) from its reduced copy ``prepared``:
        the kept frames frame-1, frame-2, ... of the same reference processed again, each
        predicted by its successor's homography (and retried through the sound frames after
        it, as the forward pass retries through its recent good frames). Yields (record, cut)
        of each one whose retry gives a better record (module docstring), and stops at the
        first that does not. Everything kept is let go after (frames before a sound one
        cannot be reached by a later one)."""
        chain = []
        for h in reversed(self._held):
            if h.frame != frame - 1 - len(chain) or h.state is not state:
                break
            chain.append(h)
        recovered = set(self._recovered)
        self.clear()
        if not chain:
            return
        with tracker.backward_retry(state, frame, prepared, H):
            H_next, f_next = H, frame
            for h in chain:
                state.last_H, state.last_frame = H_next, f_next
                rec = tracker.process(h.frame, h.image, h.mask, state, h.prepared, backward=True)
                if not sound(rec):
                    return
                if rec.status != Status.FLAGGED or h.frame not in recovered:
                    yield rec, h.cut
                H_next, f_next = rec.H, h.frame

"""The next frame's registration, run ahead on its own thread while the pass verifies this
frame (docs/propagation.md "Speed").

A frame's first registration attempt is predicted by the last frame registered to its
reference: that homography is known as soon as the last frame's own registration is, long
before its recalibration, line refinement and verification end. So the pass starts the next
frame's tracking then, on a worker thread, with everything it reads made on the pass's thread
first (the frame straightened into the reference's lens, its masks, the reference image to
track, a copy of the corner memory). OpenCV releases the GIL while it tracks and fits, so the
two overlap on two cores.

The result is used only when the next frame's first attempt turns out to be exactly the one
run ahead: the same reference, the same prediction (the frame this one ran from was kept),
the same frame, masks and graphics, and a corner memory no other registration changed in
between. Otherwise it is dropped and the attempt is made in line, as without it: a run's
records are the same either way. Only tracking runs ahead (no feature matching, whose caches
the images share): a registration that would need matching is made in line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from geometry.corner_tracking import TrackMemory
from geometry.plane_motion import Prepared, Registration, register_to_reference

if TYPE_CHECKING:  # concurrent.futures costs 8-9 ms of start-up: loaded when a pass runs ahead
    from concurrent.futures import Future, ThreadPoolExecutor


@dataclass
class Upcoming:
    """The frame the pass processes next, as far as it knows before this one is done: index;
    mask: its own full-resolution uint8 mask or None; prepared: its reduced copy; graphics:
    the detector's reduced mask for it (None: none); state: the RefState it will take."""

    index: int
    mask: np.ndarray | None
    prepared: Prepared
    graphics: np.ndarray | None
    state: object


@dataclass
class Inputs:
    """What the next frame's first attempt reads, made on the pass's thread: the frame's
    screen mask and mask (reduced, raw pixels), its straightened copy and masks in the
    reference lens (ideal: (Prepared, screen, mask)), the reference image tracked (src), its
    mask, the prediction H_pred (3, 3) and the run's corner memory of src."""

    upcoming: Upcoming
    screen_raw: np.ndarray | None
    m_raw: np.ndarray | None
    ideal: tuple
    src: Prepared
    m_ref: np.ndarray | None
    H_pred: np.ndarray
    memory: TrackMemory


class RegisterAhead:
    """At most one registration run ahead at a time, on one worker thread (close() ends it)."""

    def __init__(self):
        self._pool: ThreadPoolExecutor | None = None
        self._job: tuple[Inputs, TrackMemory, TrackMemory, Future] | None = None

    def start(self, inputs: Inputs) -> None:
        """Register inputs.upcoming ahead (a job still running is dropped once it ends)."""
        self.drop()
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="propagation-register-ahead")
        learner = inputs.memory.copy()
        before = inputs.memory.copy()
        p, _, m_frame = inputs.ideal
        fut = self._pool.submit(
            register_to_reference,
            inputs.src,
            p,
            inputs.H_pred,
            inputs.m_ref,
            m_frame,
            "auto",
            learner,
            track_only=True,
        )
        self._job = (inputs, before, learner, fut)

    def inputs_for(self, index: int, state, prepared: Prepared, mask, graphics) -> Inputs | None:
        """The job's inputs when it ran ahead for this frame as the pass now processes it (the
        same reference state, reduced copy, mask and graphics objects), else None (the job
        is dropped)."""
        if self._job is None:
            return None
        up = self._job[0].upcoming
        if (
            up.index == index
            and up.state is state
            and up.prepared is prepared
            and up.mask is mask
            and up.graphics is graphics
        ):
            return self._job[0]
        self.drop()
        return None

    def result(self, inputs: Inputs, src: Prepared, H_pred, memory) -> Registration | None:
        """The registration run ahead when the attempt about to be made is its own (the same
        reference image, prediction and corner memory, unchanged since it started), with the
        memory brought to where that registration left it; else None (made in line)."""
        job, self._job = self._job, None
        if job is None:
            return None
        _, before, learner, fut = job
        if not (
            job[0] is inputs
            and src is inputs.src
            and memory is inputs.memory
            and memory.same_state(before)
            and np.array_equal(H_pred, inputs.H_pred)
        ):
            _end(fut)
            return None
        if fut.exception() is not None:  # made again in line, where it raises
            return None
        reg = fut.result()
        if not reg.ok:  # tracking failed: the attempt is made in line, matching too
            return None
        memory.take(learner)
        return reg

    def drop(self) -> None:
        """Forget the job (waiting for it to end, so one worker is never behind)."""
        job, self._job = self._job, None
        if job is not None:
            _end(job[3])

    def close(self) -> None:
        self.drop()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _end(fut: Future) -> None:
    """A dropped job cancelled, or waited for until it ends (its result unread)."""
    if not fut.cancel():
        fut.exception()

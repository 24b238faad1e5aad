"""When to skip a frame's line refinement: its reference's last frames all refused it.

A refinement on the painted lines costs 60-90 ms a frame on real broadcast footage (five
ridge searches and three robust fits). On some views it is refused frame after frame for
the same cause: on the real hand-held pickleball clip every one of 311 refinements lowered
the line support (0.6 -> 0.3: the far court's lines pull the camera off its clicks), 60 %
of the run's CPU for the point fit it returned each time. A refused refinement returns its
input camera, so skipping one changes nothing unless it would have been accepted.

The rule (docs/propagation.md, step 6), for the refinement of frames their keypoints
determine (a weak frame's is never skipped: left unrefined it is flagged): per reference,
after BACKOFF_AFTER refusals in a row on one stretch of the clip, the next frames skip it,
1, 2, 4, ... up to BACKOFF_MAX_SKIP of them between tries. One accepted refinement, a cut,
or a frame more than BACKOFF_GAP frames from the last one asked starts the count afresh, so
at most BACKOFF_MAX_SKIP frames in a row go unrefined and a view whose lines become usable
again is refined within that many frames. A frame retried against other references or good
frames counts once. On a synthetic clip of every hazard, counting each retry and across the
clip (its first frames' refusals, then the retries of frames kept from before the graphics
mask, then 80 frames later) made good frames skip refinements that would have been
accepted: 3.1 -> 6.7 and 4.6 -> 8.3 px at their worst keypoint.
"""

from __future__ import annotations

from dataclasses import dataclass

BACKOFF_AFTER = 6  # refusals in a row before frames start skipping (real runs of mixed
# outcomes hold up to 4: the London tennis drift from frame 40, "+++----+")
BACKOFF_MAX_SKIP = 8  # at most this many frames in a row skip between tries
BACKOFF_GAP = 2  # a frame farther than this from the last one asked starts the count afresh


@dataclass
class RefinementBackoff:
    """The refusals in a row of one reference's refinements, counted per frame, and how many
    of its next frames still skip. A frame retried against other references or good frames
    is asked again: it gets the answer its first try got, and its refusals count once."""

    refused: int = 0
    skip_left: int = 0
    _asked: int | None = None  # the last frame asked, and its answer
    _answer: bool = True
    _counted: int | None = None  # the last frame whose refusal was counted

    def should_try(self, frame: int) -> bool:
        """Whether frame is refined; a False answer counts the frame as skipped. A frame more
        than BACKOFF_GAP from the last one asked (another part of the clip: a retry of frames
        kept from before the graphics mask, a pan back) starts the count afresh."""
        if frame != self._asked:
            if self._asked is not None and abs(frame - self._asked) > BACKOFF_GAP:
                self.refused, self.skip_left = 0, 0
            self._asked = frame
            self._answer = self.skip_left <= 0
            if not self._answer:
                self.skip_left -= 1
        return self._answer

    def record(self, frame: int, accepted: bool) -> None:
        """The outcome of a refinement of frame tried (after should_try answered True)."""
        if accepted:
            self.refused = 0
            self.skip_left = 0
            return
        if frame == self._counted:
            return
        self._counted = frame
        self.refused += 1
        if self.refused >= BACKOFF_AFTER:
            self.skip_left = min(2 ** (self.refused - BACKOFF_AFTER), BACKOFF_MAX_SKIP)

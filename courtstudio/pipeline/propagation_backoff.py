"""When to skip a frame's line refinement: its reference's last frames all refused it.

A refinement on the painted lines costs 60-90 ms a frame on real broadcast footage (five
ridge searches and three robust fits). On some views it is refused frame after frame for
the same cause: on the real hand-held pickleball clip every one of 311 refinements lowered
the line support (0.6 -> 0.3: the far court's lines pull the camera off its clicks), 60 %
of the run's CPU for the point fit it returned each time. A refused refinement returns its
input camera, so skipping one changes nothing unless it would have been accepted.

The rule (docs/propagation.md, step 6), for the refinement of frames their keypoints
determine (a weak frame's is never skipped: left unrefined it is flagged): per reference,
after BACKOFF_AFTER refusals in a row the next frames skip it, 1, 2, 4, ... up to
BACKOFF_MAX_SKIP of them between tries; one accepted refinement, or a cut, starts the count
afresh. At most BACKOFF_MAX_SKIP frames in a row go unrefined, so a view whose lines become
usable again is refined again within that many frames (a frame retried against several
references counts each try).
"""

from __future__ import annotations

from dataclasses import dataclass

BACKOFF_AFTER = 6  # refusals in a row before frames start skipping (real runs of mixed
# outcomes hold up to 4: the London tennis drift from frame 40, "+++----+")
BACKOFF_MAX_SKIP = 8  # at most this many frames in a row skip between tries


@dataclass
class RefinementBackoff:
    """The refusals in a row of one reference's refinements of one kind, and how many of its
    next frames still skip."""

    refused: int = 0
    skip_left: int = 0

    def should_try(self) -> bool:
        """Whether this frame is refined; a False answer counts the frame as skipped."""
        if self.skip_left > 0:
            self.skip_left -= 1
            return False
        return True

    def record(self, accepted: bool) -> None:
        """The outcome of a refinement tried (after should_try answered True)."""
        if accepted:
            self.refused = 0
            self.skip_left = 0
            return
        self.refused += 1
        if self.refused >= BACKOFF_AFTER:
            self.skip_left = min(2 ** (self.refused - BACKOFF_AFTER), BACKOFF_MAX_SKIP)

"""The annotation document's project-level lists: static-camera ranges, ball flights, and the
ball-flight draft (the start / middle / end frames marked so far), each edit one undo step
(a mixin of ``AnnotationDocument``, courtstudio/editing/document.py).

The draft is not written to the project file (a flight is, once its third frame is marked),
but it is journaled with the ranges and flights, so it survives a crash
(courtstudio/editing/autosave.py).
"""

from __future__ import annotations

import numpy as np

from court_specs import load_spec
from courtstudio.editing.undo import Command
from courtstudio.io.project import BallFlightMarks, CameraRange, ProjectError
from courtstudio.pipeline.live_calibration import lift_frame_ball

FLIGHT_PARTS = ("start", "middle", "end")


class ProjectLists:
    """Ranges, flights and the flight draft over ``self.project`` and ``self.undo_stack``."""

    def _set_ranges(self, ranges: list) -> None:
        self.project.camera_ranges = [CameraRange(*r) for r in ranges]
        self._ranges_dirty = self._journal_ranges = True
        self.ranges_changed.emit()

    def set_camera_range(self, first: int, last: int, source_frame_id: str) -> None:
        """Frames first..last reuse source_frame_id's calibration."""
        first, last = sorted((int(first), int(last)))
        if not (0 <= first and last < self.frame_count):
            raise ProjectError(f"frames {first}..{last} are outside 0..{self.frame_count - 1}")
        self.project.frame(source_frame_id)
        before = [(r.first, r.last, r.source) for r in self.project.camera_ranges]
        after = before + [(first, last, source_frame_id)]
        self.undo_stack.push(
            Command(f"Static camera {first}..{last}", self._set_ranges, before, after)
        )

    def remove_camera_range_at(self, index: int) -> None:
        before = [(r.first, r.last, r.source) for r in self.project.camera_ranges]
        after = [r for r in before if not (r[0] <= index <= r[1])]
        if after != before:
            self.undo_stack.push(
                Command("Remove static camera range", self._set_ranges, before, after)
            )

    def _set_flights(self, flights: list) -> None:
        self.project.ball_flights = [BallFlightMarks(*f) for f in flights]
        self._ranges_dirty = self._journal_ranges = True
        self.ranges_changed.emit()

    def add_ball_flight(self, start: str, middle: str, end: str) -> None:
        """A flight from the balls lifted on three frames (ordered by frame index)."""
        idx = sorted((self.project.index_of(f), f) for f in (start, middle, end))
        if len({i for i, _ in idx}) != 3:
            raise ProjectError("a flight needs three different frames")
        before = [(b.start, b.middle, b.end) for b in self.project.ball_flights]
        after = before + [tuple(f for _, f in idx)]
        self.undo_stack.push(Command("Add ball flight", self._set_flights, before, after))

    def remove_ball_flight_at(self, index: int) -> None:
        before = [(b.start, b.middle, b.end) for b in self.project.ball_flights]
        after = [
            b
            for b in before
            if not (self.project.index_of(b[0]) <= index <= self.project.index_of(b[2]))
        ]
        if after != before:
            self.undo_stack.push(Command("Remove ball flight", self._set_flights, before, after))

    # the ball-flight draft: the frames marked so far, journaled but not saved
    @property
    def flight_draft(self) -> dict[str, str]:
        """The flight being marked: {part ("start", "middle", "end"): frame id}, in the
        order marked (a copy; edit with mark_ball_flight)."""
        return dict(self._flight_draft)

    def _flight_state(self) -> dict:
        return {
            "flights": [(b.start, b.middle, b.end) for b in self.project.ball_flights],
            "draft": dict(self._flight_draft),
        }

    def _set_flight_state(self, state: dict) -> None:
        """Set the flights and the draft (a mark's undo/redo); ranges_changed when the
        flights changed, else flight_draft_changed."""
        flights = [tuple(f) for f in state["flights"]]
        changed = flights != [(b.start, b.middle, b.end) for b in self.project.ball_flights]
        self._flight_draft = dict(state["draft"])
        self._journal_ranges = True
        if changed:
            self.project.ball_flights = [BallFlightMarks(*f) for f in flights]
            self._ranges_dirty = True
            self.ranges_changed.emit()
        else:
            self.flight_draft_changed.emit()

    def mark_ball_flight(self, part: str, frame_id: str) -> bool:
        """Mark ``frame_id`` as the flight's start, middle or end (one undo step). The third
        part marked adds the flight (add_ball_flight's ordering) and empties the draft, in the
        same undo step; three marks on fewer than three frames empty the draft and raise
        ProjectError. Returns True when a flight was added."""
        if part not in FLIGHT_PARTS:
            raise ProjectError(f"flight part: expected one of {', '.join(FLIGHT_PARTS)}")
        self.project.frame(frame_id)
        before = self._flight_state()
        draft = {**before["draft"], part: frame_id}
        if len(draft) < len(FLIGHT_PARTS):
            self.undo_stack.push(
                Command(
                    f"Mark flight {part}",
                    self._set_flight_state,
                    before,
                    {**before, "draft": draft},
                )
            )
            return False
        idx = sorted((self.project.index_of(f), f) for f in draft.values())
        if len({i for i, _ in idx}) != 3:
            self.undo_stack.push(
                Command(
                    "Clear ball flight draft",
                    self._set_flight_state,
                    before,
                    {**before, "draft": {}},
                )
            )
            raise ProjectError("a flight needs three different frames")
        after = {"flights": before["flights"] + [tuple(f for _, f in idx)], "draft": {}}
        self.undo_stack.push(Command("Add ball flight", self._set_flight_state, before, after))
        return True

    def ball_flight_at(self, index: int):
        """(BallFlight, marks) for the flight covering frame ``index``, or (None, message)."""
        from geometry.ballistics import fit_flight

        for b in self.project.ball_flights:
            idx = [self.project.index_of(f) for f in (b.start, b.middle, b.end)]
            if not idx[0] <= index <= idx[2]:
                continue
            pts = []
            for fid in (b.start, b.middle, b.end):
                frame = self.project.frame(fid)
                res, msg = lift_frame_ball(
                    self.camera_state(fid),
                    load_spec(frame.sport),
                    self.annotation(fid),
                    uncertainty=False,
                )
                if res is None:
                    return None, f"flight frame {fid}: {msg}"
                pts.append(res.world)
            return fit_flight(np.array(idx) / self.project.fps, np.array(pts)), b
        return None, ""

    def _project_lists(self) -> dict:
        return {
            "camera_ranges": [
                {"first": r.first, "last": r.last, "source": r.source}
                for r in self.project.camera_ranges
            ],
            "ball_flights": [[b.start, b.middle, b.end] for b in self.project.ball_flights],
            "flight_draft": dict(self._flight_draft),
        }

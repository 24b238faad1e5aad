"""Progress display of a propagation run.

A progress callback is called ``progress(done, total)``: frames with a record, of the clip's.
A resumed run first reads past the frames it has already done before it makes its first new
record: the frames since its scan's state was last saved (propagation_checkpoint), or, with no
usable saved state, every one of them (the cut test and the graphics detector must see them:
about 2.4 ms a 720p frame, two minutes at the middle of an hour). A callback with a
``resuming(passed, of)`` method is told how far that has gone (frames already done read past,
of those the run started with); a plain one is called again with the same ``(done, total)``
every RESUME_EVERY frames of it, so that a dialog's cancel button and event loop keep working
(ResumeProgress).
"""

from __future__ import annotations

import sys
from typing import Callable

RESUME_EVERY = 8  # frames already done read past between two reports of it


def print_progress(done: int, total: int) -> None:
    if done == total or done % 10 == 0:
        print(
            f"\rpropagating: {done}/{total} frames",
            end="\n" if done == total else "",
            file=sys.stderr,
            flush=True,
        )


class ResumeProgress:
    """Reports a resumed run's reading past its done frames to ``progress`` (None: nobody);
    had: the frames the run started with a record; total: the clip's frames."""

    def __init__(self, progress: Callable[[int, int], None] | None, had: int, total: int):
        self.progress, self.had, self.total = progress, had, total
        self.count = 0
        self._resuming = getattr(progress, "resuming", None)

    def passed(self, _frame: int) -> None:
        """One more frame already done read past (the pass's ``passed`` hook)."""
        self.passed_many(1)

    def passed_many(self, k: int) -> None:
        before, self.count = self.count, self.count + k
        if self.progress is None:
            return
        if self.count // RESUME_EVERY == before // RESUME_EVERY and self.count != self.had:
            return
        if self._resuming is not None:
            self._resuming(min(self.count, self.had), self.had)
        else:
            self.progress(self.had, self.total)


class ProgressBar:
    """A tqdm progress bar with ETA as a propagate progress callback (close when done). While
    a resumed run reads past its done frames it shows that ("resuming"); the propagation bar
    starts at the first new record, from the frames already done, so its rate and ETA count
    this run's frames only."""

    def __init__(self, total: int | None = None):
        self.total = total
        self.bar = None  # the tqdm bar shown
        self.propagating = False

    def _open(self, desc: str, total: int | None, initial: int, unit: str = "frame"):
        from tqdm import tqdm

        if self.bar is not None:
            self.bar.close()
        self.bar = tqdm(
            total=total,
            initial=initial,
            unit=unit,
            desc=desc,
            file=sys.stderr,
            dynamic_ncols=True,
        )

    def resuming(self, passed: int, of: int) -> None:
        if self.propagating:
            return
        if self.bar is None:
            self._open("resuming: frames already done", of, 0)
        self.bar.update(passed - self.bar.n)

    def __call__(self, done: int, total: int) -> None:
        if not self.propagating:
            self.propagating = True
            self._open("propagating", total, max(0, done - 1))
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

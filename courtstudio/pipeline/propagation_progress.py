"""Progress display of a propagation run: a progress callback ``(done, total)``."""

from __future__ import annotations

import sys


def print_progress(done: int, total: int) -> None:
    if done == total or done % 10 == 0:
        print(
            f"\rpropagating: {done}/{total} frames",
            end="\n" if done == total else "",
            file=sys.stderr,
            flush=True,
        )


class ProgressBar:
    """A tqdm progress bar with ETA as a propagate progress callback (close when done)."""

    def __init__(self, total: int | None = None):
        from tqdm import tqdm

        self.bar = tqdm(
            total=total, unit="frame", desc="propagating", file=sys.stderr, dynamic_ncols=True
        )

    def __call__(self, done: int, total: int) -> None:
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()

"""A propagation run's last steps (docs/propagation.md, steps 7-8), one shot at a time and
each shot in chunks of SHARE_CHUNK frames read back from cameras.jsonl: the shared camera
centre, the isolated line refinements flagged, and the file rewritten atomically with one
record per frame in frame order. Memory: a few chunks of records, whatever the shot's length
(an hour of one shot held 1.1 GB as a whole)."""

from __future__ import annotations

import json
from typing import Iterator

from court_specs import CourtSpec
from courtstudio.pipeline.propagation_isolated import flag_isolated_in_chunks
from courtstudio.pipeline.propagation_shots import SHARE_CHUNK, _shots, share_centre_chunks
from courtstudio.pipeline.propagation_store import LightView, RecordIndex
from safe_io.atomic import atomic_path


def finish_shots(
    done: RecordIndex,
    n: int,
    spec: CourtSpec,
    size,
    flag_rms_px: float,
    shared_centre: bool,
    keep_records: bool,
) -> list[dict] | None:
    """The last steps over every shot of frames 0..n-1 (``done``: the run's records, closed
    on return); returns every record (frame order) when keep_records, else None."""
    records: list[dict] | None = [] if keep_records else None
    try:
        with atomic_path(done.path) as tmp, open(tmp, "wb") as out:
            for s0, s1 in _shots(LightView(done), n):
                for chunk in _finished_shot(done, s0, s1, spec, size, flag_rms_px, shared_centre):
                    out.write("".join(json.dumps(r) + "\n" for r in chunk).encode("utf-8"))
                    if records is not None:
                        records.extend(chunk)
    finally:
        done.close()
    return records


def _finished_shot(done, s0, s1, spec, size, flag_rms_px, shared_centre) -> Iterator[list[dict]]:
    """The records of frames s0..s1-1 after the last steps, chunk by chunk."""
    bounds = range(s0, s1, SHARE_CHUNK)
    if len(bounds) <= 1:  # one chunk: read once, kept for both passes of the centre and
        whole = _read(done, s0, s1)  # for the referenced frames' records
        chunks = lambda: iter([whole])  # noqa: E731
        record_at = {r["frame"]: r for r in whole}.get
    else:
        chunks = lambda: (_read(done, a, min(a + SHARE_CHUNK, s1)) for a in bounds)  # noqa: E731

        def record_at(frame: int) -> dict | None:
            return done[frame] if s0 <= frame < s1 and frame in done else None

    steps = (
        share_centre_chunks(chunks, record_at, spec, size, flag_rms_px)
        if shared_centre
        else chunks()
    )
    yield from flag_isolated_in_chunks(steps)


def _read(done: RecordIndex, lo: int, hi: int) -> list[dict]:
    return [done[i] for i in range(lo, hi) if i in done]

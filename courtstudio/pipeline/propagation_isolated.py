"""Flag a weak frame whose line refinement succeeded alone among its neighbours.

A frame its keypoints leave weakly determined is refined on its painted lines
(propagation_uncertainty.refine_weak_frame) and left ok when that is accepted. On a view
where the refinement fails frame after frame, an isolated success is not evidence but
chance: the real IND-NYK clip from reference 250 leaves 321 of 329 frames flagged for weak
geometry, and the 7 it leaves ok are all 7-10 px off at 720p (where every other run of the
clip agrees), each an accepted refinement just within the click test among neighbours
flagged on both sides. A camera of a fixed broadcast mount changes little
from one frame to the next, so the same lines seen a frame earlier or later should have
allowed the same refinement.

The rule (docs/propagation.md, step 7): a frame left ok with ``refined`` "lines" is flagged
when, among the ISOLATION_SPAN frames either side of it in its shot registered to the same
reference (at least MIN_NEIGHBOURS of them), at most ISOLATED_MAX_OK are left ok (or are the
reference) and all but ISOLATED_MAX_OK + 2 are flagged for weak geometry. It keeps its
camera, as other weak-geometry frames do. The neighbours are judged as the pass left them:
one frame flagged here does not make another isolated, and the rule applied again (a resumed
run) flags nothing more.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from courtstudio.pipeline.propagation_flags import WEAK_GEOMETRY
from courtstudio.pipeline.propagation_shots import _shots
from courtstudio.pipeline.propagation_status import PropagationStatus as Status

ISOLATION_SPAN = 6  # frames either side
MIN_NEIGHBOURS = 6  # a frame with fewer neighbours in its shot is not judged
ISOLATED_MAX_OK = 1  # at most this many of its neighbours left ok: isolated
ISOLATED = "refined on its lines where its neighbours could not be"


def flag_isolated_refinements(records: list[dict], judge: range | None = None) -> list[int]:
    """Flag (in place) the isolated line refinements of one run's records (cameras.jsonl
    dicts of consecutive frames lo..hi-1 in frame order, a whole clip or one shot; a record's
    ``cut`` starts a shot); returns the frames flagged. With ``judge``, only the frames in
    that range are judged, the rest being their neighbours (records ISOLATION_SPAN frames
    either side of it, or to the shot's ends, make the same verdicts as the whole shot: see
    flag_isolated_in_chunks)."""
    by_frame = {r["frame"]: r for r in records}
    if not by_frame:
        return []
    found = []
    for s0, s1 in _shots(by_frame, max(by_frame) + 1, min(by_frame)):
        for f in range(s0, s1):
            if judge is not None and f not in judge:
                continue
            r = by_frame[f]
            if r["status"] != Status.OK or r.get("refined") != "lines":
                continue  # (one flagged by an earlier application is no longer ok)
            near = [
                by_frame[g]
                for g in range(max(s0, f - ISOLATION_SPAN), min(s1, f + ISOLATION_SPAN + 1))
                if g != f and by_frame[g].get("reference") == r.get("reference")
            ]
            if _isolated(near):
                found.append((r, near))
    for r, near in found:
        r["status"] = Status.FLAGGED
        r["reason"] = (
            f"{WEAK_GEOMETRY}: {ISOLATED} ({sum(map(_weak_flagged, near))} of its {len(near)} "
            f"nearest frames of its reference flagged for weak geometry)"
        )
    return [r["frame"] for r, _ in found]


def flag_isolated_in_chunks(chunks: Iterable[list[dict]]) -> Iterator[list[dict]]:
    """flag_isolated_refinements over one shot's records read in chunks (consecutive lists in
    frame order): yields each chunk once its frames are judged, which is once the
    ISOLATION_SPAN records after it are known (or the shot has ended). The same verdicts as
    over the whole shot: a frame is judged on the records ISOLATION_SPAN either side, and a
    neighbour flagged by this rule counts as it did before (_left_ok). Memory: the chunks
    that hold the next ISOLATION_SPAN records."""
    before: list[dict] = []  # the last ISOLATION_SPAN records already yielded
    waiting: list[list[dict]] = []  # chunks read but not judged yet
    for chunk in chunks:
        waiting.append(chunk)
        while len(waiting) > 1 and sum(map(len, waiting[1:])) >= ISOLATION_SPAN:
            before = yield from _release(before, waiting)
    while waiting:
        before = yield from _release(before, waiting)


def _release(before: list[dict], waiting: list[list[dict]]):
    """Judge and yield waiting[0] (popped); returns the new ``before``."""
    chunk = waiting.pop(0)
    after = [r for c in waiting for r in c][:ISOLATION_SPAN]
    _judge(before, chunk, after)
    yield chunk
    return (before + chunk)[-ISOLATION_SPAN:]


def _judge(before: list[dict], chunk: list[dict], after: list[dict]) -> None:
    if chunk:
        frames = range(chunk[0]["frame"], chunk[-1]["frame"] + 1)
        flag_isolated_refinements(before + chunk + after, judge=frames)


def _isolated(near: list[dict]) -> bool:
    """Whether a frame with these neighbours (records) is an isolated refinement."""
    if len(near) < MIN_NEIGHBOURS:
        return False
    n_ok = sum(map(_left_ok, near))
    return (
        n_ok <= ISOLATED_MAX_OK and sum(map(_weak_flagged, near)) >= len(near) - ISOLATED_MAX_OK - 2
    )


def _weak_flagged(r: dict) -> bool:
    """Flagged for weak geometry by the pass (not by this rule)."""
    return (
        r["status"] == Status.FLAGGED
        and r.get("reason", "").startswith(WEAK_GEOMETRY)
        and not _left_ok(r)
    )


def _left_ok(r: dict) -> bool:
    """Left ok by the pass: ok, static or the reference, or flagged by this rule (so that
    applying it again, as a resumed run does, flags no more)."""
    if r["status"] in (Status.OK, Status.STATIC, Status.REFERENCE):
        return True
    return r["status"] == Status.FLAGGED and ISOLATED in r.get("reason", "")

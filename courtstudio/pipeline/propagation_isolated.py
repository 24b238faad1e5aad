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

from courtstudio.pipeline.propagation_flags import WEAK_GEOMETRY
from courtstudio.pipeline.propagation_status import PropagationStatus as Status

ISOLATION_SPAN = 6  # frames either side
MIN_NEIGHBOURS = 6  # a frame with fewer neighbours in its shot is not judged
ISOLATED_MAX_OK = 1  # at most this many of its neighbours left ok: isolated
ISOLATED = "refined on its lines where its neighbours could not be"


def flag_isolated_refinements(records: list[dict]) -> list[int]:
    """Flag (in place) the isolated line refinements of one run's records (cameras.jsonl
    dicts in frame order, consecutive frames); returns the frames flagged."""
    by_frame = {r["frame"]: r for r in records}
    shot_of, shot = {}, 0
    for r in records:
        if r.get("cut"):
            shot += 1
        shot_of[r["frame"]] = shot
    found = []
    for r in records:
        if r["status"] != Status.OK or r.get("refined") != "lines":
            continue  # (one flagged by an earlier application is no longer ok)
        f, ref = r["frame"], r.get("reference")
        near = [
            by_frame[g]
            for g in range(f - ISOLATION_SPAN, f + ISOLATION_SPAN + 1)
            if g != f
            and g in by_frame
            and shot_of[g] == shot_of[f]
            and by_frame[g].get("reference") == ref
        ]
        if len(near) < MIN_NEIGHBOURS:
            continue
        n_ok = sum(_left_ok(g) for g in near)
        n_weak = sum(
            g["status"] == Status.FLAGGED
            and g.get("reason", "").startswith(WEAK_GEOMETRY)
            and not _left_ok(g)
            for g in near
        )
        if n_ok <= ISOLATED_MAX_OK and n_weak >= len(near) - ISOLATED_MAX_OK - 2:
            found.append((r, n_weak, len(near)))
    for r, n_weak, n in found:
        r["status"] = Status.FLAGGED
        r["reason"] = (
            f"{WEAK_GEOMETRY}: {ISOLATED} ({n_weak} of its {n} nearest frames of its "
            f"reference flagged for weak geometry)"
        )
    return [r["frame"] for r, _, _ in found]


def _left_ok(r: dict) -> bool:
    """Left ok by the pass: ok, static or the reference, or flagged by this rule (so that
    applying it again, as a resumed run does, flags no more)."""
    if r["status"] in (Status.OK, Status.STATIC, Status.REFERENCE):
        return True
    return r["status"] == Status.FLAGGED and ISOLATED in r.get("reason", "")

"""Per-shot bookkeeping of a propagation run's records: the shots between its cuts, the
frames registered to a reference outside their shot, and one shared camera centre per shot
(docs/propagation.md)."""

from __future__ import annotations

import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from geometry.camera import Camera


def _shots(records: dict, n: int) -> list[tuple[int, int]]:
    cuts = [i for i in range(1, n) if records.get(i, {}).get("cut")]
    bounds = [0] + cuts + [n]
    return list(zip(bounds[:-1], bounds[1:]))


def _misassigned(records: dict, shots, refs) -> list[tuple[int, int, list]]:
    """Blocks (lo, hi, in-shot references) of frames whose record used a reference outside
    their shot, or found none, while their shot has one of its own."""
    out = []
    for s0, s1 in shots:
        in_shot = [r for r in refs if s0 <= r.frame < s1]
        if not in_shot:  # its frames were registered to any reference, and verified
            continue
        bad = [
            i
            for i in range(s0, s1)
            if records.get(i, {}).get("status") != Status.REFERENCE
            and (
                (
                    records.get(i, {}).get("reference") is not None
                    and not s0 <= records[i]["reference"] < s1
                )
                or records.get(i, {}).get("reason", "").startswith("no reference")
            )
        ]
        if bad:
            out.append((bad[0], bad[-1] + 1, in_shot))
    return out


SHARED_TOL_PX = 0.5


def share_centre(records: list[dict], spec: CourtSpec, size, flag_rms_px: float) -> None:
    """One camera centre for a shot (the median of its frames' free solutions); each frame is
    refitted for rotation and focal length with it, and keeps its free pose where the shared
    centre fits more than SHARED_TOL_PX worse (the camera moved). In place."""
    from geometry.fixed_centre import solve_fixed_centre

    solved = [
        r for r in records if r["status"] in (Status.OK, Status.REFERENCE) and r.get("points")
    ]
    if len(solved) < 2:
        return
    cams = {r["frame"]: _camera(r) for r in solved}
    C = np.median([c.camera_centre_world for c in cams.values()], axis=0)
    for r in solved:
        names = list(r["points"])
        X = np.array([spec.keypoints[n] for n in names])
        uv = np.array([r["points"][n] for n in names])
        try:
            cam, rms = solve_fixed_centre(X, uv, size, C, cams[r["frame"]])
        except ValueError:
            r["centre"] = "free"
            continue
        if rms <= (r["rms_px"] or 0.0) + SHARED_TOL_PX and rms <= flag_rms_px:
            r.update(
                {
                    "K": cam.K.tolist(),
                    "R": cam.R.tolist(),
                    "t": cam.t.tolist(),
                    "dist": cam.dist.tolist(),
                    "rms_px": round(rms, 4),
                    "centre": "shared",
                }
            )
        else:
            r["centre"] = "free"
    by_frame = {r["frame"]: r for r in records}
    for r in records:  # static frames show their reference's final camera
        ref = by_frame.get(r.get("reference"))
        if r["status"] == Status.STATIC and ref is not None and "K" in ref:
            r.update({k: ref[k] for k in ("K", "R", "t", "dist") if k in ref})


def _camera(r: dict) -> Camera:
    return Camera.from_dict(r, f"frame {r.get('frame')} camera")

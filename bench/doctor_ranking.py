"""Which click moved? Rankings of the clicks-only doctor on real frames (issue 10 section 3).

    python bench/doctor_ranking.py FOLDER

FOLDER: the real-frames layout (/work/devset). The same 12 px trials as bench/real_frames.py
(every click moved in turn, 2 random directions, seed 0; trials whose moved click leaves
the image are not counted), clicks only. Per frame: how often the moved click is

- ``doctor``: the doctor's first suspect (leave-one-out z above SUSPECT_Z, one at a time);
- ``loo-argmax``: the click with the largest leave-one-out z, whatever its size (ranking
  without the threshold);
- ``drop-one``: the click whose removal leaves the smallest pinhole cost on the others
  (robust re-solving: drop each click, test the others);

and, of the doctor's misses, how many moved the click with the least leverage (hat-matrix
diagonal of the clean fit).
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court  # noqa: E402
from geometry.calibration import solve_camera  # noqa: E402
from geometry.errors import GeometryError  # noqa: E402


def drop_one_best(X, uv, size, names) -> int:
    """Index of the click whose removal leaves the smallest pinhole cost on the others."""
    costs = []
    for j in range(len(names)):
        keep = np.arange(len(names)) != j
        try:
            fj = solve_camera(
                X[keep],
                uv[keep],
                size,
                model="simple",
                names=[names[k] for k in np.flatnonzero(keep)],
            )
            costs.append(float(np.sum(fj.residuals_uv**2)))
        except GeometryError:
            costs.append(np.inf)
    return int(np.argmin(costs))


def frame_trials(spec, size, clicks, rng) -> dict | None:
    names = list(clicks)
    X = np.array([spec.keypoints[n] for n in names])
    try:
        cal0 = calibrate_court(spec, size, clicks, diagnose=False)
    except GeometryError:
        return None
    J = cal0.fit.jacobian
    H = J @ np.linalg.pinv(J.T @ J) @ J.T
    lev = np.array([H[2 * i, 2 * i] + H[2 * i + 1, 2 * i + 1] for i in range(len(names))]) / 2
    least = int(np.argmin(lev))
    fr = dict(n=len(names), loo=0, drop=0, doc=0, t=0, least_lev_miss=0, miss=0)
    for i, name in enumerate(names):
        for _ in range(2):
            a = rng.uniform(0, 2 * np.pi)
            uv = np.array(list(clicks.values()), float)
            uv[i] += 12 * np.array([np.cos(a), np.sin(a)])
            try:
                cal = calibrate_court(spec, size, dict(zip(names, map(tuple, uv))))
            except GeometryError:
                continue
            fr["t"] += 1
            hit = cal.suspects[:1] == [name]
            fr["doc"] += hit
            fr["miss"] += not hit
            fr["least_lev_miss"] += (not hit) and i == least
            fr["loo"] += int(np.nanargmax(cal.loo.z)) == i
            fr["drop"] += drop_one_best(X, uv, size, names) == i
    return fr


def main() -> int:
    folder = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    rows = []
    for f in sorted((folder / "annotations").glob("*.json")):
        doc = json.loads(f.read_text())
        clicks = {k: tuple(v) for k, v in doc["points"].items()}
        fr = frame_trials(load_spec(doc["sport"]), tuple(doc["image_size"]), clicks, rng)
        if fr is None:
            continue
        print(
            f"{f.stem:32s} n={fr['n']:2d} doctor {fr['doc']:2d}/{fr['t']:2d}  loo-argmax "
            f"{fr['loo']:2d}  drop-one {fr['drop']:2d}  misses {fr['miss']:2d}, of which the "
            f"least-leverage click {fr['least_lev_miss']}",
            flush=True,
        )
        rows.append(fr)
    for label, sel in (
        ("all", rows),
        ("< 10 clicks", [r for r in rows if r["n"] < 10]),
        (">= 10 clicks", [r for r in rows if r["n"] >= 10]),
    ):
        t = max(1, sum(r["t"] for r in sel))
        print(
            f"{label}: {t} trials; moved click first: doctor "
            f"{100 * sum(r['doc'] for r in sel) / t:.0f} %, loo-argmax "
            f"{100 * sum(r['loo'] for r in sel) / t:.0f} %, drop-one "
            f"{100 * sum(r['drop'] for r in sel) / t:.0f} %; doctor misses "
            f"{sum(r['miss'] for r in sel)}, of which the least-leverage click "
            f"{sum(r['least_lev_miss'] for r in sel)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

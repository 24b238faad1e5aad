"""The doctor's false alarms when real clicks are sloppier, with and without the frame.

    python bench/doctor_jitter.py FOLDER [--sigma 2.0] [--replicates 5] [--seed 0]

FOLDER: the real-frames layout (/work/devset). Every click of each frame is jittered by
N(0, sigma^2) px per axis (an annotator clicking by eye, 2-4 px, instead of reading the line
centres); a replicate is clean when the doctor names no suspect. Both doctors see the same
jittered clicks: clicks only, and with the frame (the painted-line check,
courtstudio.pipeline.click_paint). Replicates the solver refuses (a click jittered out of the
image) are not counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court  # noqa: E402
from geometry.errors import GeometryError  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--sigma", type=float, default=2.0, help="jitter, px per axis (1-sigma)")
    ap.add_argument("--replicates", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    rng = np.random.default_rng(args.seed)
    n = clean_blind = clean_frame = 0
    for f in sorted((folder / "annotations").glob("*.json")):
        doc = json.loads(f.read_text())
        spec, size = load_spec(doc["sport"]), tuple(doc["image_size"])
        frame = next(iter(sorted((folder / "frames").glob(f.stem + ".*"))), None)
        img = cv2.imread(str(frame)) if frame is not None else None
        if img is None:
            continue
        flagged_blind = flagged_frame = 0
        for _ in range(args.replicates):
            pts = {
                k: tuple(np.asarray(v, float) + rng.normal(0, args.sigma, 2))
                for k, v in doc["points"].items()
            }
            try:
                blind = calibrate_court(spec, size, pts).suspects
                seen = calibrate_court(spec, size, pts, image=img).suspects
            except GeometryError:
                continue
            n += 1
            clean_blind += not blind
            clean_frame += not seen
            flagged_blind += bool(blind)
            flagged_frame += bool(seen)
        print(
            f"{f.stem:32s} replicates with a suspect: clicks only {flagged_blind}/"
            f"{args.replicates}, with the frame {flagged_frame}/{args.replicates}",
            flush=True,
        )
    n = max(n, 1)
    print(
        f"jitter {args.sigma:g} px, {n} replicates: no suspect in {100 * clean_blind / n:.0f} % "
        f"(clicks only), {100 * clean_frame / n:.0f} % (with the frame)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed of calibration and ball lifting on one core (issue 2, section 8).

Median and 90th-percentile wall time per call over fixed-seed synthetic tennis and badminton
cameras with 1 px click noise. Threads are pinned to one (OpenCV, BLAS) before numpy loads.

Run: ``python bench/speed.py [--repeats 500]``.
"""

from __future__ import annotations

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from court_specs.model import PAPER_SIX  # noqa: E402
from courtstudio.pipeline.ball import lift_ball_with_uncertainty  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court  # noqa: E402
from courtstudio.synth.synthetic import sample_ball, sample_broadcast_camera  # noqa: E402
from geometry.calibration import solve_camera  # noqa: E402
from geometry.rays import lift_ball  # noqa: E402

SIZE = (1920, 1080)


def timed(fn, cases):
    ts = []
    for c in cases:
        t0 = time.perf_counter()
        fn(*c)
        ts.append(time.perf_counter() - t0)
    ts = np.array(ts) * 1e3
    return float(np.median(ts)), float(np.percentile(ts, 90))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=500)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    print("| operation | sport | median ms | p90 ms | per second (median) |")
    print("|---|---|---|---|---|")
    for si, sport in enumerate(("tennis", "badminton")):
        spec = load_spec(sport)
        rng = np.random.default_rng(si)
        cams = [sample_broadcast_camera(spec, SIZE, rng) for _ in range(args.repeats)]
        X = np.array([spec.keypoints[n] for n in PAPER_SIX])
        solve_cases, court_cases, lift_cases, unc_cases = [], [], [], []
        for cam in cams:
            uv = cam.project(X) + rng.normal(0, 1, (6, 2))
            solve_cases.append((X, uv, SIZE))
            court_cases.append((spec, SIZE, dict(zip(PAPER_SIX, uv))))
            B = sample_ball(spec, rng)
            G = B.copy()
            G[2] = 0
            ub, ug = cam.project(np.array([B, G]))
            lift_cases.append((cam, ub, ug))
        fits = [calibrate_court(*c, diagnose=False) for c in court_cases[:50]]
        for fit, (_, ub, ug) in zip(fits, lift_cases[:50]):
            unc_cases.append((fit.camera, ub, ug, "court", 0.0, 1.0, fit.param_covariance))
        rows = [
            ("calibrate: solve_camera (6 points)", timed(solve_camera, solve_cases)),
            ("calibrate + doctor (LOO, relabelling)", timed(calibrate_court, court_cases[:100])),
            ("lift ball", timed(lift_ball, lift_cases)),
            ("lift ball + 1-sigma propagation", timed(lift_ball_with_uncertainty, unc_cases)),
        ]
        for name, (med, p90) in rows:
            print(f"| {name} | {sport} | {med:.3f} | {p90:.3f} | {1000 / med:,.0f} |")


if __name__ == "__main__":
    main()

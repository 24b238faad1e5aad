"""Dataset build on Ray: speed-up from 1 to 2 workers, and the cost of a rerun with nothing
changed (issue 13). Synthetic pan/tilt/zoom clips, fixed seeds.

    python bench/dataset_build.py [--clips 4] [--frames 80] [--size 960 540] [--stages ...]

Prints one table: wall time with 1 and 2 Ray workers (a fresh output folder each, cluster
start-up included and also shown apart), the speed-up, and the rerun time as a fraction of
the first run. Goal: speed-up >= 1.6x on a 2-core machine; rerun < 5 % of the first run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtstudio.cli import main as cli  # noqa: E402
from courtstudio.dataset.build import build_dataset  # noqa: E402
from courtstudio.dataset.executors import RayExecutor  # noqa: E402
from courtstudio.dataset.manifest import load_manifest  # noqa: E402

SPORTS = ("tennis", "badminton", "pickleball", "tennis", "badminton", "pickleball")
SEEDS = (3, 6, 5, 11, 5, 7)


def make_clips(folder: Path, n: int, frames: int, size) -> Path:
    clips = []
    for i in range(n):
        sport, seed = SPORTS[i % len(SPORTS)], SEEDS[i % len(SEEDS)] + 100 * (i // 6)
        video, ref = folder / f"clip{i}.avi", folder / f"clip{i}_ref.json"
        assert (
            cli(
                [
                    "synth-clip",
                    "--sport",
                    sport,
                    "--frames",
                    str(frames),
                    "--size",
                    str(size[0]),
                    str(size[1]),
                    "--seed",
                    str(seed),
                    "-o",
                    str(video),
                    "--points",
                    str(ref),
                ]
            )
            == 0
        )
        clips.append(
            {
                "id": f"clip{i}",
                "sport": sport,
                "video": video.name,
                "match": f"match{i % 3}",
                "references": [{"frame": 0, "points": ref.name}],
            }
        )
    path = folder / "manifest.json"
    path.write_text(json.dumps({"clips": clips, "qa": {"seed": 0, "export_every": 10}}))
    return path


def timed_build(manifest, out: Path, workers: int, stages) -> tuple[float, float, dict]:
    """(wall seconds including cluster start, cluster start seconds, report)."""
    t0 = time.perf_counter()
    boot: list[float] = []

    def start():
        t = time.perf_counter()
        ex = RayExecutor(None, workers)
        boot.append(time.perf_counter() - t)
        return ex

    rep = build_dataset(manifest, out, start, stages, progress=False)
    wall = time.perf_counter() - t0
    if rep.failures:
        raise SystemExit(f"build failed: {rep.failures}")
    return wall, (boot[0] if boot else 0.0), rep.per_stage()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=4)
    ap.add_argument("--frames", type=int, default=80)
    ap.add_argument("--size", nargs=2, type=int, default=[960, 540])
    ap.add_argument(
        "--stages", nargs="+", default=["prepare", "propagate", "export", "qa", "merge"]
    )
    args = ap.parse_args()
    stages = tuple(args.stages)
    tmp = Path(tempfile.mkdtemp(prefix="bench_dataset_"))
    try:
        manifest = load_manifest(make_clips(tmp, args.clips, args.frames, args.size))
        w1, b1, _ = timed_build(manifest, tmp / "out1", 1, stages)
        w2, b2, per_stage = timed_build(manifest, tmp / "out2", 2, stages)
        t0 = time.perf_counter()
        rerun = build_dataset(
            manifest, tmp / "out2", lambda: RayExecutor(None, 2), stages, progress=False
        )
        r = time.perf_counter() - t0
        cached = sum(row["cached"] for row in rerun.per_stage().values())
        print(
            f"{args.clips} clips x {args.frames} frames at {args.size[0]}x{args.size[1]}, "
            f"stages {' '.join(stages)}, {os.cpu_count()} cores"
        )
        print(f"{'':<28}{'1 worker':>10}{'2 workers':>11}")
        print(f"{'wall time (s)':<28}{w1:>10.1f}{w2:>11.1f}")
        print(f"{'  of which cluster start':<28}{b1:>10.1f}{b2:>11.1f}")
        print(
            f"speed-up 1 -> 2 workers: {w1 / w2:.2f}x (without cluster start "
            f"{(w1 - b1) / (w2 - b2):.2f}x; goal 1.6x)"
        )
        print(
            f"rerun with nothing changed: {r:.2f} s = {100 * r / w2:.1f} % of the first run "
            f"({cached} tasks reused; goal < 5 %)"
        )
        print(
            "per stage (2 workers, task seconds summed): "
            + ", ".join(f"{k} {v['seconds']:.1f}" for k, v in per_stage.items())
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

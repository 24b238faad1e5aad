"""Propagation's fixed and per-frame costs apart from the threads (issue 11 section 5): steadier
than the wall time of bench/propagation.py speed on a shared machine.

- ``startup``: `courtstudio batch-propagate` (a subprocess, as in the speed bench) on the first
  10 frames of the speed bench's 720p clip, ``--runs`` times: median process CPU and wall. The
  bytecode cache is compiled first (as in the speed bench).
- ``alone``: the same clip's first 150 frames decoded first, then the scan thread's steps
  (reduction, cut test, graphics detector) and the main thread's work (Tracker.process and
  the record) each run alone in this thread, timed with the thread clock, best of ``--runs``.

Run: ``python bench/propagation_costs.py startup|alone [--runs N]``; to compare two trees, run
it in each, alternately (BENCHMARKS.md "Propagation speed, fourth pass").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.propagation import SPEC, clicks  # noqa: E402
from courtstudio.synth.synthetic_clip import Hazards, iter_clip, write_clip  # noqa: E402


def _clip(folder: Path, n: int) -> tuple[Path, dict]:
    """The speed bench's 720p clip (graphics, seed 5) cut to n frames, and frame 0's clicks."""
    video = folder / "clip.avi"
    cams, _ = write_clip(
        video, iter_clip(SPEC, 300, (1280, 720), seed=5, hazards=Hazards(graphics=True))
    )
    if n < 300:
        import cv2

        cap, short = cv2.VideoCapture(str(video)), folder / "short.avi"
        out = cv2.VideoWriter(str(short), cv2.VideoWriter_fourcc(*"MJPG"), 25, (1280, 720))
        for _ in range(n):
            out.write(cap.read()[1])
        out.release()
        cap.release()
        video = short
    return video, {k: [float(c) for c in v] for k, v in clicks(cams[0]).items()}


def startup(runs: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q"]
        + [str(ROOT / pkg) for pkg in ("courtstudio", "geometry", "court_specs", "safe_io")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with tempfile.TemporaryDirectory() as d:
        video, points = _clip(Path(d), 10)
        ref = Path(d) / "ref.json"
        ref.write_text(json.dumps({"image_size": [1280, 720], "points": points}))
        walls, cpus = [], []
        for k in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "courtstudio", "batch-propagate", str(video)]
                + ["--sport", "tennis", "--reference", f"0:{ref}"]
                + ["--out", str(Path(d) / f"out{k}"), "--quiet"],
                check=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.DEVNULL,
            )
            walls.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    print(
        f"batch-propagate, 10 frames of 1280x720, {runs} runs: CPU median "
        f"{statistics.median(cpus):.3f} s (min {min(cpus):.3f}), wall median "
        f"{statistics.median(walls):.3f} s (min {min(walls):.3f}); load "
        f"{os.getloadavg()[0]:.1f}"
    )


_DECODE_LOOP = """
import sys, cv2
cv2.setNumThreads(1)
while True:
    cap = cv2.VideoCapture(sys.argv[1])
    while cap.read()[0]:
        pass
"""


def alone(runs: int, n: int = 150, beside_decoder: bool = False) -> None:
    import cv2
    import numpy as np

    from courtstudio.pipeline.propagate import Options, Reference, _references
    from courtstudio.pipeline.propagate_frame import Tracker
    from courtstudio.pipeline.propagation_scan import FrameScan

    folder = tempfile.TemporaryDirectory()
    video, points = _clip(Path(folder.name), n)
    cap = cv2.VideoCapture(str(video))
    images = [cap.read()[1] for _ in range(n)]
    cap.release()

    class Frames:
        count, size = n, (1280, 720)

        def image(self, i):
            return images[i]

    refs = [Reference(0, {k: tuple(v) for k, v in points.items()})]
    cv2.setNumThreads(1)  # as during a pass
    best_scan = best_main = best_beside = float("inf")

    def main_work(scanned) -> float:
        states = _references(Frames(), SPEC, refs, None)
        tracker = Tracker(SPEC, Frames.size, states, Options())
        st = states[0]
        st.last_H, st.last_frame = np.eye(3), 0
        t = time.thread_time()
        for sc in scanned[1:]:
            tracker.graphics = sc.graphics
            tracker.process(sc.index, sc.image, sc.mask, st, sc.prepared).to_json()
        return time.thread_time() - t

    with folder:
        for _ in range(runs):
            t = time.thread_time()
            scanned = list(FrameScan(Frames(), 0, n, True, threaded=False))
            best_scan = min(best_scan, time.thread_time() - t)
            best_main = min(best_main, main_work(scanned))
            if beside_decoder:
                loop = subprocess.Popen([sys.executable, "-c", _DECODE_LOOP, str(video)])
                try:
                    time.sleep(0.3)  # decoding
                    best_beside = min(best_beside, main_work(scanned))
                finally:
                    loop.kill()
                    loop.wait()
    beside = (
        f", beside a decoding process {1e3 * best_beside / (n - 1):.2f}" if beside_decoder else ""
    )
    print(
        f"1280x720, {n} frames, best of {runs}: scan steps {1e3 * best_scan / n:.2f} ms a "
        f"frame, main-thread work {1e3 * best_main / (n - 1):.2f} ms a frame{beside}; load "
        f"{os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("part", choices=["startup", "alone"])
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--beside-decoder", action="store_true", help="alone: also beside a decoder")
    args = ap.parse_args()
    if args.part == "startup":
        startup(args.runs or 8)
    else:
        alone(args.runs or 3, beside_decoder=args.beside_decoder)

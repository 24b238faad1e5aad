"""`batch-propagate` on a clip as long as users bring (issue 11 §4, §5): an hour of 720p video.

    PYTHONPATH=$PWD python bench/propagation_long.py [--frames 108000] [--size 1280 720]
        [--kill-at 0.5] [--keep DIR]

The clip: the speed bench's seeded synthetic broadcast (tennis, pan, tilt and zoom, moving
players, screen-fixed graphics; courtstudio.synth.synthetic_clip, seed 5) over PERIOD frames,
played forward, backward, forward ... (no cut: the camera turns back at each end) to
``--frames`` frames at 30 fps, written as MJPG (the PERIOD source frames are held in memory
while writing: 1.6 GB at 720p; the propagation reads the file). One reference: frame 0, its
keypoints the true projections.

The run is the CLI as a user runs it, in a fresh process, one worker. With ``--kill-at F`` it
is killed (SIGKILL) once cameras.jsonl holds F of the frames and then started again on the same
output folder, as a user resumes. Measured: OpenCV's plain decode of the file; the wall time of
both runs against it (the §5 ratio); per tenth of the clip the frames a second and the process's
resident memory (VmRSS, sampled every SAMPLE_S; flat = nothing grows with the clip); the peak;
the resumed run's time to its first new record; and at the end the records: one per frame, no
frame twice (a line cut by the kill is the only line allowed to be invalid), statuses, and the
keypoint error against the truth (the paper's six points, px: median, p99, max over frames
with a camera). Exit code 1 when a record check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from machine import environment_line, pace_line  # noqa: E402
from propagation import SPEC, P, _decode_seconds, clicks  # noqa: E402

from courtstudio.pipeline.propagation_records import read_done  # noqa: E402
from courtstudio.pipeline.propagation_status import WITH_CAMERA  # noqa: E402
from courtstudio.synth.synthetic_clip import Hazards, iter_clip  # noqa: E402
from geometry.camera import Camera  # noqa: E402

PERIOD = 600  # source frames; the clip plays them forward and back
FPS = 30.0
SAMPLE_S = 0.5


def source_index(k: int, period: int = PERIOD) -> int:
    """The source frame shown at clip frame k: 0, 1, ..., p-1, p-2, ..., 1, 0, 1, ..."""
    j = k % (2 * period - 2)
    return j if j < period else 2 * period - 2 - j


def write_long_clip(path: Path, n: int, size) -> list[Camera]:
    """Write the n-frame clip; returns the PERIOD source frames' true cameras."""
    frames, cams = [], []
    for img, cam, _ in iter_clip(SPEC, PERIOD, size, seed=5, hazards=Hazards(graphics=True)):
        frames.append(img)
        cams.append(cam)
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, tuple(size))
    if not wr.isOpened():
        raise SystemExit(f"{path}: cannot write MJPG here")
    for k in range(n):
        wr.write(frames[source_index(k)])
    wr.release()
    return cams


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


class LineCounter:
    """Lines of a growing file, counted in the bytes added since the last call (reading the
    whole file every sample would take the measured run's CPU: 135 MB by the end)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.lines, self.inode = path, 0, 0, None

    def __call__(self) -> int:
        try:
            with open(self.path, "rb") as fh:
                inode = os.fstat(fh.fileno()).st_ino
                if inode != self.inode:  # a new file (the run's final rewrite): count afresh
                    self.offset, self.lines, self.inode = 0, 0, inode
                fh.seek(self.offset)
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    self.lines += chunk.count(b"\n")
                    self.offset += len(chunk)
        except OSError:
            pass
        return self.lines


def run_cli(argv: list[str], jsonl: Path, kill_at_lines: int | None) -> dict:
    """Run `courtstudio ARGV` sampling its memory and progress; SIGKILL it once jsonl holds
    kill_at_lines lines (None: let it finish). Returns wall s, samples [(s, lines, MB)],
    killed, first_new_s (time to the first line added to jsonl)."""
    count = LineCounter(jsonl)
    start_lines = count()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "courtstudio", *argv],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
    )
    samples, killed, first_new = [], False, None
    while proc.poll() is None:
        time.sleep(SAMPLE_S)
        n = count()
        rss = _rss_mb(proc.pid)
        t = time.perf_counter() - t0
        if rss is not None:
            samples.append((t, n, rss))
        if first_new is None and n > start_lines:
            first_new = t
        if kill_at_lines is not None and n >= kill_at_lines:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            killed = True
            break
    wall = time.perf_counter() - t0
    if not killed and proc.returncode != 0:
        raise SystemExit(f"batch-propagate exited {proc.returncode}")
    return {"wall": wall, "samples": samples, "killed": killed, "first_new_s": first_new}


def check_records(jsonl: Path, n: int, cams: list[Camera]) -> tuple[list[str], dict]:
    """(problems, figures) of the final cameras.jsonl."""
    problems: list[str] = []
    bad: list = []
    done = read_done(jsonl, bad)
    frames = []
    for line in jsonl.read_text().splitlines():
        try:
            frames.append(json.loads(line)["frame"])
        except (ValueError, KeyError, TypeError):
            pass
    if len(bad) > 1:
        problems.append(f"{len(bad)} invalid lines (only a line cut by the kill may be): {bad[:3]}")
    if len(frames) != len(set(frames)):
        problems.append(f"{len(frames) - len(set(frames))} frames written twice")
    if set(done) != set(range(n)):
        problems.append(f"{n - len(set(done) & set(range(n)))} frames without a record")
    err = []
    statuses: dict[str, int] = {}
    for i, rec in done.items():
        statuses[rec["status"]] = statuses.get(rec["status"], 0) + 1
        if rec["status"] in WITH_CAMERA:
            est = Camera.from_dict(rec, f"frame {i}")
            truth = cams[source_index(i)]
            err.append(float(np.median(np.linalg.norm(est.project(P) - truth.project(P), axis=1))))
    e = np.array(err) if err else np.array([np.nan])
    return problems, {
        "statuses": statuses,
        "median_px": float(np.median(e)),
        "p99_px": float(np.percentile(e, 99)),
        "max_px": float(np.max(e)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=108_000, help="clip length (an hour at 30 fps)")
    ap.add_argument("--size", type=int, nargs=2, default=(1280, 720))
    ap.add_argument("--kill-at", type=float, default=0.5, help="0: no kill and resume")
    ap.add_argument("--keep", type=Path, default=None, help="work here and keep it")
    args = ap.parse_args(argv)
    n, size = args.frames, tuple(args.size)
    print(environment_line())
    print(pace_line())
    with tempfile.TemporaryDirectory() as tmp:
        d = args.keep or Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        video, out, ref = d / "long.avi", d / "out", d / "ref.json"
        t = time.perf_counter()
        cams = write_long_clip(video, n, size)
        gb, dt = video.stat().st_size / 1e9, time.perf_counter() - t
        print(f"wrote {n} frames ({gb:.1f} GB) in {dt:.0f} s")
        ref.write_text(
            json.dumps(
                {
                    "image_size": list(size),
                    "points": {k: [float(c) for c in v] for k, v in clicks(cams[0]).items()},
                }
            )
        )
        dec, dec_cpu = _decode_seconds(video)
        cli = ["batch-propagate", str(video), "--sport", "tennis", "--reference", f"0:{ref}"]
        cli += ["--out", str(out), "--quiet"]
        jsonl = out / "cameras.jsonl"
        kill = int(args.kill_at * n) if 0 < args.kill_at < 1 else None
        runs = [run_cli(cli, jsonl, kill)]
        if runs[0]["killed"]:
            runs.append(run_cli(cli, jsonl, None))
        problems, fig = check_records(jsonl, n, cams)
    wall = sum(r["wall"] for r in runs)
    print(
        f"\n{size[0]}x{size[1]}, {n} frames ({n / FPS / 60:.0f} min at {FPS:.0f} fps): decode "
        f"{dec:.1f} s ({dec_cpu:.1f} CPU s); batch-propagate {wall:.1f} s in {len(runs)} run(s) "
        f"= **{wall / dec:.2f}x** the decode"
    )
    for k, r in enumerate(runs):
        s = r["samples"]
        peak = max((m for _, _, m in s), default=float("nan"))
        first = r["first_new_s"] or float("nan")
        print(
            f"\nrun {k + 1}: {r['wall']:.1f} s, {'killed' if r['killed'] else 'finished'}, "
            f"first new record after {first:.1f} s, peak RSS {peak:.0f} MB"
        )
        print("| share of the run | records | frames/s since the last row | RSS MB |")
        print("|---|---|---|---|")
        last_t, last_n = 0.0, s[0][1] if s else 0
        for q in range(1, 11):
            if not s:
                break
            t_q, n_q, m_q = s[min(len(s) - 1, int(q * len(s) / 10) - 1)]
            rate = (n_q - last_n) / max(t_q - last_t, 1e-9)
            print(f"| {q * 10} % | {n_q} | {rate:.0f} | {m_q:.0f} |")
            last_t, last_n = t_q, n_q
    print(
        f"\nrecords: {fig['statuses']}; keypoint error (six points, median per frame) median "
        f"{fig['median_px']:.2f} px, p99 {fig['p99_px']:.2f}, max {fig['max_px']:.2f}"
    )
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

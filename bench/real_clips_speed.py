"""`batch-propagate` speed on the real moving-camera clips (issue 11 §5 on real footage).

    PYTHONPATH=$PWD python bench/real_clips_speed.py /work/devset_clips [--clip ID ...]
        [--manifest bench/devset_clips/manifest.json] [--annotations ...]

The synthetic clip of `bench/propagation.py speed` shows the pass's own cost; a real broadcast
adds what the synthetic clip lacks (players and graphics that lower the line support, so most
frames are refined on their painted lines; frames that fail registration and are retried).
Per clip: the CLI on the video, one worker, from the reference real_clips.py uses (the
manifest's reference_frames, else the first annotated frame with 5 or more clicks), in a
fresh process as a user runs it; against OpenCV's plain decode of the same file measured
just before. Prints a Markdown table: wall and CPU seconds, the wall ratio (the target:
at most 2x), CPU ms a frame, the flagged frames (each flagged frame was retried) and the
share of the machine's CPU time the hypervisor took during the decode and the run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from machine import environment_line, pace_line  # noqa: E402
from propagation import _decode_seconds, cpu_ticks, stolen_percent, timed_cli  # noqa: E402
from real_clips import MIN_REFERENCE_POINTS, load_annotations  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="folder with the clip videos")
    ap.add_argument("--annotations", type=Path, default=ROOT / "bench/devset_clips/annotations")
    ap.add_argument("--manifest", type=Path, default=ROOT / "bench/devset_clips/manifest.json")
    ap.add_argument("--clip", action="append", default=[], help="only these clip ids")
    args = ap.parse_args(argv)
    clips = json.loads(args.manifest.read_text())["clips"]
    print(
        f"load average at start: {', '.join(f'{v:.1f}' for v in os.getloadavg())} "
        f"on {os.cpu_count()} CPUs\n{environment_line()}\n{pace_line()}\n"
    )
    print(
        "| clip | size | frames | reference | decode s | batch-propagate s | wall ratio "
        "(target <= 2x) | CPU s | CPU ms a frame | flagged | load | CPU stolen (decode / run) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for entry in clips:
        if args.clip and entry["id"] not in args.clip:
            continue
        video = args.folder / entry["file"]
        ann_dir = args.annotations / entry["id"]
        if not video.exists() or not ann_dir.is_dir():
            continue
        ann = load_annotations(ann_dir)
        refs = entry.get("reference_frames") or [
            min(f for f in ann if len(ann[f]) >= MIN_REFERENCE_POINTS)
        ]
        ref = int(refs[0])
        with tempfile.TemporaryDirectory() as d:
            t0 = cpu_ticks()
            dec, _ = _decode_seconds(video)
            t1 = cpu_ticks()
            wall, cpu, _ = timed_cli(
                [
                    "batch-propagate",
                    str(video),
                    "--sport",
                    entry["sport"],
                    "--reference",
                    f"{ref}:{ann_dir / f'{ref}.json'}",
                    "--out",
                    str(Path(d) / "o"),
                    "--quiet",
                ]
            )
            t2 = cpu_ticks()
            records = [
                json.loads(x) for x in (Path(d) / "o" / "cameras.jsonl").read_text().splitlines()
            ]
        n = len(records)
        flagged = sum(r["status"] == "flagged" for r in records)
        w, h = entry["image_size"]
        print(
            f"| {entry['id']} | {w}x{h} | {n} | {ref} | {dec:.2f} | {wall:.1f} | "
            f"{wall / dec:.1f}x | {cpu:.1f} | {1e3 * cpu / n:.0f} | {flagged} | "
            f"{os.getloadavg()[0]:.1f} | {stolen_percent(t0, t1)} / {stolen_percent(t1, t2)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

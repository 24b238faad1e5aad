"""Unflagged frames off the other references' consensus, on kept real-clip runs (issue 11 §6).

Usage: ``python bench/real_clips_consensus.py RUNS [--clip ID ...] [--json F]``, RUNS a
folder an earlier ``bench/real_clips.py --out RUNS --each-reference`` run kept
(RUNS/<clip>/ref<N>/cameras.jsonl). No propagation is run.

Hand clicks check a few frames; the target ("no unflagged frame above the off distance") is
about every frame. A clip propagated from each of several references gives every frame
several independent cameras. For each run and each frame it left ok (or static), the other
runs' cameras of that frame (ok, static or the reference itself) are the judges: when there
are at least MIN_JUDGES of them and all of them agree (every court keypoint in the image
within AGREE_PX of their median, both scaled by the picture height / 1080), the frame is
scored against that median at its worst keypoint in the image; beyond the off distance (10
px at 1080p) it is an unflagged frame off the consensus. Frames without such a consensus
(fewer judges, or one of them off) are not scored, only counted. A consensus can be wrong
where the references share an error, and a frame whose judges disagree is left out, so this
bounds the misses from below; a frame it scores off is worth a look (the table names the
first few).

A candidate flag is scored beside it: a frame whose camera is farther than the off distance
(at a court-plane keypoint in the image) from the previous frame's, carried to it by the two
frames' homographies (one shot, one reference: the image motion is known to a pixel, so a
jump means one of the two cameras is off): the frames it would flag among those left ok,
and how many of them are off the consensus.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from real_clips import OFF_PX_1080, kept_runs_clips  # noqa: E402

from court_specs import load_spec  # noqa: E402
from geometry.camera import Camera  # noqa: E402

MIN_JUDGES = 2
AGREE_PX_1080 = 4.5  # the judges' spread allowed at 1080p
SHOWN = 6  # off frames named per run


def _keypoints_px(record: dict, X: np.ndarray) -> np.ndarray | None:
    """(K, 2) px of the spec's keypoints under a record's camera, None without a usable one."""
    if "K" not in record or record.get("status") not in ("ok", "static", "reference"):
        return None
    return Camera.from_dict(record, f"frame {record.get('frame')} camera").project(X)


def _jump_px(prev: dict, rec: dict, X: np.ndarray, size) -> float:
    """The largest distance (px) at the plane keypoints X (N, 3) in rec's image between rec's
    camera and prev's carried by H_rec H_prev^-1; 0 when it cannot be measured."""
    if prev.get("reference") != rec.get("reference") or "K" not in prev:
        return 0.0
    if "H_from_reference" not in prev or "H_from_reference" not in rec:
        return 0.0
    H = np.array(rec["H_from_reference"]) @ np.linalg.inv(np.array(prev["H_from_reference"]))
    a = Camera.from_dict(prev, "previous camera").project(X)
    b = Camera.from_dict(rec, "camera").project(X)
    w, h = size
    seen = np.isfinite(a).all(1) & np.isfinite(b).all(1)
    seen &= (b[:, 0] >= 0) & (b[:, 0] <= w - 1) & (b[:, 1] >= 0) & (b[:, 1] <= h - 1)
    if not seen.any():
        return 0.0
    carried = cv2.perspectiveTransform(a[seen][None].astype(np.float64), H)[0]
    return float(np.max(np.linalg.norm(carried - b[seen], axis=1)))


def clip_rows(clip_dir: Path, entry: dict) -> list[dict]:
    """One row per run of a clip: frames left ok, scored, off (with the worst few)."""
    spec = load_spec(entry["sport"])
    X = np.array(list(spec.keypoints.values()), float)
    X_plane = np.array([v for v in spec.keypoints.values() if abs(v[2] - spec.plane_z()) < 1e-9])
    w, h = entry["image_size"]
    scale = entry.get("picture_box", [0, 0, w, h])[3] / 1080.0
    off_px, agree_px = OFF_PX_1080 * scale, AGREE_PX_1080 * scale
    runs = {}
    for d in sorted(clip_dir.glob("ref*")):
        path = d / "cameras.jsonl"
        if path.is_file():
            runs[d.name] = {r["frame"]: r for r in map(json.loads, path.read_text().splitlines())}
    cache: dict = {}

    def px(run: str, frame: int):
        if (run, frame) not in cache:
            rec = runs[run].get(frame)
            cache[run, frame] = None if rec is None else _keypoints_px(rec, X)
        return cache[run, frame]

    rows = []
    for name, records in runs.items():
        left_ok = scored = 0
        off: list[tuple[int, float]] = []
        for frame, rec in sorted(records.items()):
            if rec["status"] not in ("ok", "static"):
                continue
            left_ok += 1
            uv = px(name, frame)
            judges = [j for j in (px(o, frame) for o in runs if o != name) if j is not None]
            if uv is None or len(judges) < MIN_JUDGES:
                continue
            J = np.stack(judges)
            med = np.median(J, axis=0)
            seen = np.isfinite(uv).all(1) & np.isfinite(med).all(1)
            seen &= (uv[:, 0] >= 0) & (uv[:, 0] <= w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= h - 1)
            if not seen.any() or not np.isfinite(J[:, seen]).all():
                continue
            if np.max(np.linalg.norm(J[:, seen] - med[seen], axis=2)) > agree_px:
                continue
            scored += 1
            err = float(np.max(np.linalg.norm(uv[seen] - med[seen], axis=1)))
            if err > off_px:
                off.append((frame, err))
        off_frames = {f for f, _ in off}
        jumps = [
            f
            for f, rec in records.items()
            if rec["status"] in ("ok", "static")
            and f - 1 in records
            and "K" in rec
            and _jump_px(records[f - 1], rec, X_plane, (w, h)) > off_px
        ]
        rows.append(
            {
                "clip": entry["id"],
                "run": name,
                "left_ok": left_ok,
                "scored": scored,
                "off": len(off),
                "off_px": off_px,
                "worst": sorted(off, key=lambda t: -t[1])[:SHOWN],
                "jumps": len(jumps),
                "jumps_off": len(off_frames.intersection(jumps)),
            }
        )
    return rows


def main(argv=None) -> int:
    args, clips = kept_runs_clips(__doc__.split("\n\n")[0], argv)
    print(
        "| clip | run | frames left ok | with a consensus | off the consensus (> off px) "
        "| worst (frame: px) | a jump flag would flag (of them off) |"
    )
    print("|---|---|---|---|---|---|---|")
    everything = []
    for entry in clips:
        rows = clip_rows(args.runs / entry["id"], entry)
        everything += rows
        for r in rows:
            worst = ", ".join(f"{f}: {e:.0f}" for f, e in r["worst"])
            print(
                f"| {r['clip']} | {r['run']} | {r['left_ok']} | {r['scored']} | "
                f"{r['off']} (> {r['off_px']:.1f}) | {worst} | {r['jumps']} ({r['jumps_off']}) |"
            )
    scored = sum(r["scored"] for r in everything)
    off = sum(r["off"] for r in everything)
    jumps = sum(r["jumps"] for r in everything)
    jumps_off = sum(r["jumps_off"] for r in everything)
    print(
        f"| all | {len(everything)} runs | {sum(r['left_ok'] for r in everything)} | {scored} "
        f"| {off} | | {jumps} ({jumps_off}) |"
    )
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Are two real-clip runs the same? Every record of every kept run, every field.

    PYTHONPATH=$PWD python bench/real_clips_compare.py RUNS_A RUNS_B [--clip ID ...]
        [--cameras [--manifest bench/devset_clips/manifest.json]]

RUNS_A and RUNS_B are ``bench/real_clips.py --out`` folders (``<clip>/ref<N>/cameras.jsonl``).
A speed change that should not change results is checked by running the bench before and after
it and comparing here: per run, the frames each side holds and, frame by frame, the records
(parsed JSON, compared exactly: floats bit for bit). Prints one line per run that differs (its
first differing frame and fields) and a total; exit code 0 when every run is identical and both
sides hold the same runs (at least one), 1 otherwise.

``--cameras``, for a change that rounds otherwise (a compiled loop) and so cannot keep the
bytes: the verdicts must be the same, the cameras close. Frame by frame, each record's status
and reason are compared exactly, and where both records have a camera, how far the court's
keypoints that either camera puts inside the picture moved between them (px; the clip's sport
from the manifest). Prints the verdict changes, the movement's median, p99 and maximum with
the counts above 0.01, 0.1 and 1 px, and the records that moved more than 1 px; exit code 0
when no status or reason changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import json  # noqa: E402

import numpy as np  # noqa: E402

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.propagation_records import read_done  # noqa: E402
from geometry.camera import Camera  # noqa: E402


def runs_of(base: Path, clips: list[str]) -> dict[str, Path]:
    """``{"<clip>/ref<N>": cameras.jsonl}`` under a bench --out folder."""
    out = {}
    for f in sorted(base.glob("*/ref*/cameras.jsonl")):
        clip = f.parent.parent.name
        if not clips or clip in clips:
            out[f"{clip}/{f.parent.name}"] = f
    return out


def differing_fields(a: dict, b: dict) -> list[str]:
    """Top-level keys whose values differ (exactly) between two records."""
    return sorted(k for k in set(a) | set(b) if a.get(k, KeyError) != b.get(k, KeyError))


def compare_run(fa: Path, fb: Path) -> tuple[int, str | None]:
    """(records compared, None when identical, else a one-line description of the first
    difference)."""
    ra, rb = read_done(fa), read_done(fb)
    if set(ra) != set(rb):
        only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
        why = f"frames differ: {len(only_a)} only in A {only_a[:5]}, "
        return len(ra), why + f"{len(only_b)} only in B {only_b[:5]}"
    for i in sorted(ra):
        if ra[i] != rb[i]:
            n_diff = sum(ra[j] != rb[j] for j in ra)
            why = f"{n_diff} records differ, first frame {i}: {differing_fields(ra[i], rb[i])}"
            return len(ra), why
    return len(ra), None


def record_camera(record: dict) -> Camera | None:
    """The camera of a record (None when it has none)."""
    return Camera.from_dict(record, f"frame {record['frame']}") if "K" in record else None


def keypoint_shift_px(ca: Camera, cb: Camera, points_world: np.ndarray) -> float | None:
    """The largest distance px between the two cameras' projections of the points (N, 3) m
    that either puts inside its picture; None when neither shows any."""
    ua, ub = ca.project(points_world), cb.project(points_world)
    w, h = ca.image_size

    def inside(uv):
        with np.errstate(invalid="ignore"):
            return (uv[:, 0] >= 0) & (uv[:, 0] <= w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= h - 1)

    both = np.isfinite(ua).all(axis=1) & np.isfinite(ub).all(axis=1)
    keep = both & (inside(ua) | inside(ub))
    if not keep.any():
        return None
    return float(np.max(np.linalg.norm(ua[keep] - ub[keep], axis=1)))


def compare_cameras(fa: Path, fb: Path, points_world: np.ndarray):
    """(verdict changes [(frame, (status, reason) A, (status, reason) B)], shifts [(frame,
    px)]) of two runs' common frames (keypoint_shift_px where both have a camera)."""
    ra, rb = read_done(fa), read_done(fb)
    changes, shifts = [], []
    for i in sorted(set(ra) & set(rb)):
        va = (ra[i].get("status"), ra[i].get("reason"))
        vb = (rb[i].get("status"), rb[i].get("reason"))
        if va != vb:
            changes.append((i, va, vb))
        ca, cb = record_camera(ra[i]), record_camera(rb[i])
        if ca is not None and cb is not None:
            d = keypoint_shift_px(ca, cb, points_world)
            if d is not None:
                shifts.append((i, d))
    return changes, shifts


def cameras_report(a: dict, b: dict, manifest: Path) -> int:
    """--cameras over the common runs of a and b ({"<clip>/ref<N>": path}); the exit code."""
    sport = {e["id"]: e["sport"] for e in json.loads(manifest.read_text())["clips"]}
    all_shifts, n_changes = [], 0
    for key in sorted(set(a) & set(b)):
        spec = load_spec(sport[key.split("/")[0]])
        X = np.array(list(spec.keypoints.values()), float)
        changes, shifts = compare_cameras(a[key], b[key], X)
        n_changes += len(changes)
        for i, va, vb in changes:
            print(f"{key} frame {i}: {va[0]} ({va[1]}) -> {vb[0]} ({vb[1]})")
        for i, d in shifts:
            if d > 1.0:
                print(f"{key} frame {i}: keypoints moved {d:.2f} px")
        all_shifts += [d for _, d in shifts]
    if all_shifts:
        d = np.array(all_shifts)
        print(
            f"keypoints in the picture moved: median {np.median(d):.2g} px, p99 "
            f"{np.percentile(d, 99):.2g}, max {d.max():.3g}; above 0.01 / 0.1 / 1 px: "
            f"{(d > 0.01).sum()} / {(d > 0.1).sum()} / {(d > 1).sum()} of {len(d)} records"
        )
    print(f"{n_changes} status or reason changes")
    return 0 if n_changes == 0 else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs_a", type=Path)
    ap.add_argument("runs_b", type=Path)
    ap.add_argument("--clip", action="append", default=[])
    ap.add_argument("--cameras", action="store_true", help="verdicts exact, cameras within px")
    ap.add_argument("--manifest", type=Path, default=ROOT / "bench/devset_clips/manifest.json")
    args = ap.parse_args(argv)
    a, b = runs_of(args.runs_a, args.clip), runs_of(args.runs_b, args.clip)
    if args.cameras:
        if not set(a) & set(b):
            print("no run to compare (wrong folders or --clip?)")
            return 1
        for key in sorted(set(a) ^ set(b)):
            print(f"{key}: only in one of the two")
        return cameras_report(a, b, args.manifest) or int(set(a) != set(b))
    ok = True
    for key in sorted(set(a) - set(b)):
        print(f"{key}: only in {args.runs_a}")
        ok = False
    for key in sorted(set(b) - set(a)):
        print(f"{key}: only in {args.runs_b}")
        ok = False
    n_records = n_same = 0
    common = sorted(set(a) & set(b))
    for key in common:
        n, diff = compare_run(a[key], b[key])
        n_records += n
        if diff is None:
            n_same += 1
        else:
            ok = False
            print(f"{key}: {diff}")
    if not common:
        print("no run to compare (wrong folders or --clip?)")
        return 1
    print(f"{n_same} of {len(common)} runs identical ({n_records} records in A's common runs)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

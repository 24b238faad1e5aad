"""Propagation on real moving-camera clips (issue 11): hand-clicked keypoints on held-out frames.

    PYTHONPATH=$PWD python bench/real_clips.py /work/devset_clips \
        [--annotations bench/devset_clips/annotations] [--manifest bench/devset_clips/manifest.json]
        [--clip ID ...] [--each-reference | --reference N ...] [--out DIR] [--json results.json]

FOLDER holds the clip videos (tools/devset_clips_extract.py rebuilds them from the mirrors).
Per clip, the reference is the manifest's ``reference_frames`` or else the FIRST annotated frame
with at least 5 clicks
(bench/devset_clips/annotations/<clip>/<frame>.json, hand clicks in the `calibrate --points`
format); every other annotated frame is held out. The clip is propagated by
courtstudio.pipeline.propagate.propagate, the function `courtstudio batch-propagate VIDEO`
calls, with the CLI's defaults (flag threshold 3 px, graphics detection on, one worker). On
each held-out frame every hand-clicked keypoint is projected with the frame's propagated
camera (its lens included) and compared with the click.

Thresholds scale with the image height (h / 1080): the median target 2 px, and a frame is
"off" when its worst keypoint is more than 10 px from the click. Flag precision = flagged
held-out frames that are off / flagged held-out frames; "unflagged off" counts held-out frames
that are off but not flagged (the target: none). Prints a Markdown table (and, with --json,
writes every held-out frame's errors).

Flag checks (bench/devset_clips/flag_checks/<clip>/<frame>.json, the same format): frames
clicked by hand only to measure the flags, chosen from a run's statuses (frames the
propagation flagged, and frames it left ok at the hard moments). They are never references and
never enter the tables above; each run scores them too, and a third table gives per run the
checked frames flagged and how many of them are off (flag precision = off / flagged; a flagged
frame without a camera counts as off, and the precision among flagged frames that have a camera
is given too) and the checked frames left ok that are off. ``--rescore DIR`` scores the
cameras.jsonl files a previous ``--out DIR`` run kept (DIR/<clip>/ref<N>/) against the current
clicks, without propagating again (the propagation never reads held-out clicks).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machine import environment_line  # noqa: E402

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.propagate import Reference, VideoFrames, VideoSource, propagate  # noqa: E402
from courtstudio.pipeline.propagation_records import read_done  # noqa: E402
from geometry.camera import Camera  # noqa: E402
from geometry.errors import CalibrationError  # noqa: E402

MEDIAN_TARGET_PX_1080 = 2.0
OFF_PX_1080 = 10.0
FLAG_PX = 3.0  # the CLI's --flag-px default
MIN_REFERENCE_POINTS = 5  # an annotated frame with fewer clicks is only ever held out


def kept_runs_clips(description: str, argv=None) -> tuple[argparse.Namespace, list[dict]]:
    """The command line of the scripts that read a kept ``--out DIR`` run (flag_evidence.py,
    weak_geometry.py): RUNS, --clip (repeatable), --manifest, --json; returns the parsed
    arguments and the manifest's clips that RUNS holds (only the --clip ones, if given)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("runs", type=Path)
    ap.add_argument("--clip", action="append", default=[])
    ap.add_argument("--manifest", type=Path, default=ROOT / "bench/devset_clips/manifest.json")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    clips = [
        e
        for e in json.loads(args.manifest.read_text())["clips"]
        if (not args.clip or e["id"] in args.clip) and (args.runs / e["id"]).is_dir()
    ]
    return args, clips


def load_annotations(folder: Path) -> dict[int, dict]:
    """{frame: {keypoint: (u, v)}} of one clip's annotation folder (<frame>.json)."""
    out = {}
    for f in sorted(folder.glob("*.json")):
        d = json.loads(f.read_text())
        out[int(f.stem)] = {k: tuple(map(float, v)) for k, v in d["points"].items()}
    return out


def frame_errors(record: dict, clicks: dict, spec) -> np.ndarray | None:
    """Distances (N,) px between the clicks and the keypoints projected with the record's
    camera (None: the record has no camera)."""
    if "K" not in record:
        return None
    cam = Camera.from_dict(record, f"frame {record.get('frame')}")
    names = list(clicks)
    uv = cam.project(np.array([spec.keypoints[n] for n in names], float))
    err = np.linalg.norm(uv - np.array([clicks[n] for n in names]), axis=1)
    return np.where(np.isfinite(err), err, np.inf)


def line_refiner(image, camera, spec):
    """Per-frame painted-line refinement (courtstudio.pipeline.line_refinement), lens kept."""
    from courtstudio.pipeline.line_refinement import refine_on_lines

    return refine_on_lines(camera, spec, image, model="keep")[0]


def score_frames(frames: dict, by_frame: dict, spec, off_px: float, skip=()) -> list[dict]:
    """Per annotated frame (not in skip): status, errors of its clicks under the record's camera,
    off (worst keypoint > off_px, or no camera) and flagged."""
    out = []
    for f in sorted(frames):
        if f in skip:
            continue
        rec = by_frame.get(f, {"status": "missing"})
        err = frame_errors(rec, frames[f], spec)
        h = {
            "frame": f,
            "status": rec["status"],
            "reason": rec.get("reason", ""),
            "n_points": len(frames[f]),
            "errors_px": None if err is None else [round(float(e), 3) for e in err],
            "median_px": None if err is None else float(np.median(err)),
            "max_px": None if err is None else float(np.max(err)),
        }
        h["off"] = h["max_px"] is None or h["max_px"] > off_px
        h["flagged"] = h["status"] in ("flagged", "missing")
        out.append(h)
    return out


def summarize(entry: dict, records: list, ann: dict, ref_frames, checks: dict) -> dict:
    """The result of one run (its cameras.jsonl records) against the clicks."""
    spec = load_spec(entry["sport"])
    by_frame = {r["frame"]: r for r in records}
    # pixel thresholds scale with the broadcast picture's height (picture_box [x, y, w, h]
    # when the picture sits inside a larger frame, e.g. a portrait re-post with black bars)
    scale = entry.get("picture_box", [0, 0, *entry["image_size"]])[3] / 1080.0
    off_px = OFF_PX_1080 * scale
    held = score_frames(ann, by_frame, spec, off_px, skip=ref_frames)
    all_err = np.concatenate(
        [h["errors_px"] for h in held if h["errors_px"] is not None] or [np.zeros(0)]
    )
    flagged = [h for h in held if h["flagged"]]
    return {
        "id": entry["id"],
        "sport": entry["sport"],
        "size": entry["image_size"],
        "frames": len(records),
        "references": ref_frames,
        "held_out": held,
        "median_px": float(np.median(all_err)) if len(all_err) else None,
        "max_px": float(np.max(all_err)) if len(all_err) else None,
        "median_target_px": MEDIAN_TARGET_PX_1080 * scale,
        "off_px": off_px,
        "flagged_held": len(flagged),
        "flag_precision": (sum(h["off"] for h in flagged) / len(flagged)) if flagged else None,
        "unflagged_off": sum(h["off"] and not h["flagged"] for h in held),
        "flagged_clip": sum(r["status"] == "flagged" for r in records),
        "flag_checks": score_frames(checks, by_frame, spec, off_px, skip=ref_frames),
    }


def run_clip(
    entry: dict,
    video: Path,
    ann: dict,
    out_dir: Path,
    ref_frames=None,
    refine_lines: bool = False,
    checks: dict | None = None,
) -> dict:
    spec = load_spec(entry["sport"])
    ref_frames = (
        ref_frames
        or entry.get("reference_frames")
        or [min(f for f in ann if len(ann[f]) >= MIN_REFERENCE_POINTS)]
    )
    refs = [Reference(f, ann[f]) for f in ref_frames]
    frames = VideoFrames(video)
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    records = propagate(
        frames,
        spec,
        refs,
        out_dir,
        flag_rms_px=FLAG_PX,
        frames_source=VideoSource(str(video)),
        line_refiner=line_refiner if refine_lines else None,
    )
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    r = summarize(entry, records, ann, ref_frames, checks or {})
    r.update(
        wall_s=wall,
        cpu_s=cpu,
        graphics_boxes=propagate.last_extras.get("graphics_boxes", []),
    )
    return r


def rescore(base: Path, entry: dict, ann: dict, checks: dict) -> list[dict]:
    """Score the runs kept under base/<clip>/ref<N>/cameras.jsonl (no propagation)."""
    out = []
    runs = sorted(
        (base / entry["id"]).glob("ref*/cameras.jsonl"), key=lambda p: int(p.parent.name[3:])
    )
    for f in runs:
        records = [r for _, r in sorted(read_done(f).items())]  # valid records, one a frame
        refs = [int(f.parent.name[3:])]
        r = summarize(entry, records, ann, refs, checks)
        r.update(wall_s=None, cpu_s=None, graphics_boxes=[])
        out.append(r)
    return out


def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"


def table(results: list[dict]) -> str:
    rows = [
        "| clip | sport | size | frames | ref | held-out frames (status) | median px "
        "(target) | max px | flagged held-out | flag precision | unflagged > off px | "
        "flagged in clip | fps |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        held = ", ".join(
            f"{h['frame']} ({h['status']}, {fmt(h['max_px'], 1)})" for h in r["held_out"]
        )
        rows.append(
            f"| {r['id']} | {r['sport']} | {r['size'][0]}x{r['size'][1]} | {r['frames']} | "
            f"{','.join(map(str, r['references']))} | {held} | {fmt(r['median_px'])} "
            f"({fmt(r['median_target_px'], 2)}) | {fmt(r['max_px'], 1)} | {r['flagged_held']} | "
            f"{fmt(r['flag_precision'])} | {r['unflagged_off']} (> {fmt(r['off_px'], 1)}) | "
            f"{r['flagged_clip']} | "
            f"{'-' if not r.get('wall_s') else format(r['frames'] / r['wall_s'], '.1f')} |"
        )
    return "\n".join(rows)


def pooled_table(results: list[dict]) -> str:
    """One row per clip over all its runs (every reference choice): held-out frames pooled."""
    rows = [
        "| clip | runs (references) | held-out frames | keypoints | median px (target) | "
        "p90 px | max px | flagged held-out | flag precision | unflagged > off px |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cid in dict.fromkeys(r["id"] for r in results):
        rs = [r for r in results if r["id"] == cid]
        held = [h for r in rs for h in r["held_out"]]
        err = np.concatenate(
            [h["errors_px"] for h in held if h["errors_px"] is not None] or [np.zeros(0)]
        )
        flagged = [h for h in held if h["flagged"]]
        prec = sum(h["off"] for h in flagged) / len(flagged) if flagged else None
        refs = ",".join(str(r["references"][0]) for r in rs)
        rows.append(
            f"| {cid} | {len(rs)} ({refs}) | {len(held)} | {len(err)} | "
            f"{fmt(float(np.median(err)) if len(err) else None)} "
            f"({fmt(rs[0]['median_target_px'])}) | "
            f"{fmt(float(np.percentile(err, 90)) if len(err) else None)} | "
            f"{fmt(float(np.max(err)) if len(err) else None, 1)} | {len(flagged)} | "
            f"{fmt(prec)} | {sum(h['off'] and not h['flagged'] for h in held)} "
            f"(> {fmt(rs[0]['off_px'], 1)}) |"
        )
    return "\n".join(rows)


def flag_table(results: list[dict]) -> str:
    """Flag checks per run and pooled per clip: checked frames flagged / off among them, and
    checked frames left ok / off among them (frames clicked only for this, never references)."""
    rows = [
        "| clip | ref | checked frames (status, worst keypoint px) | flagged (no camera) | "
        "flagged and off | flag precision | precision, frames with a camera | left ok | "
        "ok but off (> off px) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def row(cid, ref, checks, off_px, frames_col):
        flagged = [h for h in checks if h["flagged"]]
        ok = [h for h in checks if not h["flagged"]]
        n_off = sum(h["off"] for h in flagged)  # a flagged frame without a camera counts as off
        with_cam = [h for h in flagged if h["max_px"] is not None]
        prec = n_off / len(flagged) if flagged else None
        prec_cam = sum(h["off"] for h in with_cam) / len(with_cam) if with_cam else None
        return (
            f"| {cid} | {ref} | {frames_col} | {len(flagged)} ({len(flagged) - len(with_cam)}) | "
            f"{n_off} | {fmt(prec)} | {fmt(prec_cam)} | "
            f"{len(ok)} | {sum(h['off'] for h in ok)} (> {fmt(off_px, 1)}) |"
        )

    for cid in dict.fromkeys(r["id"] for r in results):
        rs = [r for r in results if r["id"] == cid and r.get("flag_checks")]
        for r in rs:
            col = ", ".join(
                f"{h['frame']} ({h['status']}, {fmt(h['max_px'], 1)})" for h in r["flag_checks"]
            )
            rows.append(
                row(cid, ",".join(map(str, r["references"])), r["flag_checks"], r["off_px"], col)
            )
        if len(rs) > 1:
            pooled = [h for r in rs for h in r["flag_checks"]]
            rows.append(row(cid, "all", pooled, rs[0]["off_px"], f"{len(pooled)} frame-runs"))
    clips = {r["id"] for r in results if r.get("flag_checks")}
    if len(clips) > 1:  # every clip's checks pooled (each judged at its own off distance)
        pooled = [h for r in results for h in r.get("flag_checks") or []]
        rows.append(
            row("all clips", "all", pooled, float("nan"), f"{len(pooled)} frame-runs")
            .replace("(> nan)", "(> each clip's)")
        )  # fmt: skip
    return "\n".join(rows) if len(rows) > 2 else ""


def tables(results: list[dict]) -> str:
    ft = flag_table(results)
    return table(results) + "\n\n" + pooled_table(results) + ("\n\n" + ft if ft else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="folder with the clip videos")
    ap.add_argument("--annotations", type=Path, default=ROOT / "bench/devset_clips/annotations")
    ap.add_argument("--manifest", type=Path, default=ROOT / "bench/devset_clips/manifest.json")
    ap.add_argument(
        "--flag-checks",
        type=Path,
        default=ROOT / "bench/devset_clips/flag_checks",
        help="frames clicked only to measure the flags (scored in every run, never references)",
    )
    ap.add_argument(
        "--rescore",
        type=Path,
        default=None,
        help="score the cameras.jsonl kept by an earlier --out DIR run (no propagation)",
    )
    ap.add_argument("--clip", action="append", default=[], help="only these clip ids")
    ap.add_argument("--out", type=Path, default=None, help="keep the propagation outputs here")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--refine-lines",
        action="store_true",
        help="refine every frame's camera on its painted lines (the line_refiner "
        "hook with courtstudio.pipeline.line_refinement.refine_on_lines)",
    )
    ap.add_argument(
        "--each-reference",
        action="store_true",
        help="one run per annotated frame as the only reference (the others held "
        "out): frames before the reference are propagated backwards too",
    )
    ap.add_argument(
        "--reference",
        type=int,
        action="append",
        default=[],
        help="one run per given annotated frame as the only reference (like --each-reference, "
        "restricted to these frames; clips without the frame are skipped)",
    )
    ap.add_argument(
        "--from-json",
        type=Path,
        default=None,
        help="print the tables of a saved --json run (no propagation)",
    )
    args = ap.parse_args(argv)
    if args.from_json:
        results = json.loads(args.from_json.read_text())
        print(tables(results))
        return 0
    clips = json.loads(args.manifest.read_text())["clips"]
    results, refused = [], []
    with tempfile.TemporaryDirectory() as tmp:
        base = args.out or Path(tmp)
        for entry in clips:
            if args.clip and entry["id"] not in args.clip:
                continue
            ann = load_annotations(args.annotations / entry["id"])
            checks = load_annotations(args.flag_checks / entry["id"])
            if args.rescore:
                results.extend(rescore(args.rescore, entry, ann, checks))
                continue
            if len(ann) < 2:
                print(f"{entry['id']}: fewer than 2 annotated frames, skipped", file=sys.stderr)
                continue
            usable = [f for f in sorted(ann) if len(ann[f]) >= MIN_REFERENCE_POINTS]
            if args.reference:
                usable = [f for f in usable if f in args.reference]
            for refs in [[f] for f in usable] if args.each_reference or args.reference else [None]:
                out = base / entry["id"] / ("default" if refs is None else f"ref{refs[0]}")
                if (out / "cameras.jsonl").exists():
                    (out / "cameras.jsonl").unlink()  # a fresh run every time
                try:
                    r = run_clip(
                        entry,
                        args.folder / entry["file"],
                        ann,
                        out,
                        refs,
                        args.refine_lines,
                        checks,
                    )
                except CalibrationError as exc:  # this reference only; the others still run
                    refused.append(f"{entry['id']} reference {refs}: {exc}")
                    print(f"{refused[-1]} (refused, skipped)", file=sys.stderr, flush=True)
                    continue
                results.append(r)
                print(
                    f"{r['id']} (reference {r['references']}): median "
                    f"{fmt(r['median_px'])} px, max {fmt(r['max_px'], 1)} px, {r['frames']} "
                    f"frames in {r['wall_s']:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    print(tables(results))
    if refused:
        print("\nReferences the calibration refused (not run):")
        print("\n".join(f"- {line}" for line in refused))
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print(environment_line())
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

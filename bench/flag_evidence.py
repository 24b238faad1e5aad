"""Per-frame flag evidence of kept real-clip runs against the hand clicks (issue 11 §2).

Usage: ``python bench/flag_evidence.py RUNS [--clip ID ...]``, where RUNS is a folder an
earlier ``bench/real_clips.py --out RUNS`` run kept (RUNS/<clip>/ref<N>/cameras.jsonl). For
every annotated held-out frame and every flag-check frame (bench/devset_clips/flag_checks) it
prints the frame's status and reason, its worst keypoint error against the clicks (px; "off"
above 10 px at 1080p, scaled by the picture height), and the evidence a flag rule can use:
the recorded RMS (of the refined camera when the frame was refined on its lines), the point
fit's RMS (the transferred keypoints refitted, as the propagation does before refining), the
reference's RMS, whether the rule before propagation_flags.py (the final camera's keypoint RMS
more than FLAG_PX above the reference's) would flag it, line support (frame, reference), line
residual, keypoints in view, inliers,
and the extrapolation gain: the largest predicted 1-sigma error (px per px of keypoint noise)
of the point-fit camera at the court keypoints in the picture (its covariance from the
transferred keypoints alone; large when they nearly lie on one line). No propagation is run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from real_clips import (  # noqa: E402
    FLAG_PX,
    OFF_PX_1080,
    frame_errors,
    kept_runs_clips,
    load_annotations,
)

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court  # noqa: E402
from courtstudio.pipeline.propagation_flags import plane_keypoints  # noqa: E402
from courtstudio.pipeline.propagation_records import read_done  # noqa: E402
from courtstudio.pipeline.propagation_solve import recalibrate  # noqa: E402
from geometry.camera import Camera  # noqa: E402
from geometry.camera_params import ParamModel  # noqa: E402
from geometry.fit_extrapolation import extrapolation_gain  # noqa: E402


def _camera(r: dict) -> Camera:
    return Camera.from_dict(r, f"frame {r.get('frame')} camera")


def point_fit(spec, r: dict) -> tuple[float, float]:
    """(point-fit RMS px, extrapolation gain px/px) of a record with a camera and points."""
    size = tuple(r["image_size"])
    fit = recalibrate(
        spec, size, r["points"], ParamModel("simple").from_camera(_camera(r)), "simple"
    )
    return float(fit.rms_px), extrapolation_gain(fit, plane_keypoints(spec))


def reference_gain(spec, size, clicks: dict) -> float:
    """The reference's own extrapolation gain (its clicks' calibration, as propagation makes it)."""
    fit = calibrate_court(spec, size, clicks, diagnose=False).fit
    return extrapolation_gain(fit, plane_keypoints(spec))


def rows(runs: Path, entry: dict, ann: dict, checks: dict):
    spec = load_spec(entry["sport"])
    # as real_clips.summarize: picture_box is [x, y, w, h]
    height = entry.get("picture_box", [0, 0, *entry["image_size"]])[3]
    off_px = OFF_PX_1080 * height / 1080
    for f in sorted(
        (runs / entry["id"]).glob("ref*/cameras.jsonl"), key=lambda p: int(p.parent.name[3:])
    ):
        ref = int(f.parent.name[3:])
        recs = read_done(f)
        if ref not in recs:  # a run still under way
            continue
        rr = recs[ref]
        ref_gain = reference_gain(spec, tuple(entry["image_size"]), ann[ref])
        for kind, frames in (("held-out", ann), ("check", checks)):
            for fr, clicks in sorted(frames.items()):
                if fr == ref or fr not in recs:
                    continue
                r = recs[fr]
                err = frame_errors(r, clicks, spec)
                worst = None if err is None else float(err.max())
                fit_rms, gain = (None, None)
                if "K" in r and r.get("points"):
                    try:
                        fit_rms, gain = point_fit(spec, r)
                    except ValueError:
                        pass
                reg = r.get("registration") or {}
                yield {
                    "clip": entry["id"], "ref": ref, "frame": fr, "kind": kind,
                    "status": r["status"], "reason": r.get("reason") or "",
                    "worst_px": worst, "off_px": off_px,
                    "off": worst is None or worst > off_px,
                    "rms_px": r.get("rms_px"), "fit_rms_px": fit_rms,
                    "ref_rms_px": rr.get("rms_px"),
                    "support": r.get("line_support"), "ref_support": rr.get("line_support"),
                    "line_residual_px": r.get("line_residual_px"),
                    "points": len(r.get("points") or {}), "inliers": reg.get("inliers"),
                    "gain": gain, "ref_gain": ref_gain,
                    "from_ref": abs(fr - ref),
                    # the rule before propagation_flags: the final camera's keypoint RMS
                    "old_residual_flag": r.get("rms_px") is not None
                    and r["rms_px"] - rr["rms_px"] > FLAG_PX,
                }  # fmt: skip


def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}" if isinstance(x, float) else str(x)


def main(argv=None) -> int:
    args, clips = kept_runs_clips(__doc__.splitlines()[0], argv)
    out = []
    for entry in clips:
        ann = load_annotations(ROOT / "bench/devset_clips/annotations" / entry["id"])
        checks = load_annotations(ROOT / "bench/devset_clips/flag_checks" / entry["id"])
        out += list(rows(args.runs, entry, ann, checks))
    cols = ["clip", "ref", "frame", "kind", "status", "reason", "worst_px", "off", "rms_px",
            "fit_rms_px", "ref_rms_px", "support", "ref_support", "line_residual_px", "points",
            "inliers", "gain", "ref_gain", "from_ref", "old_residual_flag"]  # fmt: skip
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in out:
        r2 = dict(r, reason=r["reason"][:40], off="OFF" if r["off"] else "")
        print(
            "| "
            + " | ".join(fmt(r2[c], 1 if c in ("gain", "ref_gain") else 2) for c in cols)
            + " |"
        )
    for entry in json.loads(args.manifest.read_text())["clips"]:
        for f in sorted((args.runs / entry["id"]).glob("ref*/cameras.jsonl")):
            recs = read_done(f)
            if int(f.parent.name[3:]) not in recs:
                continue
            rr = recs[int(f.parent.name[3:])]
            flagged = sum(r["status"] == "flagged" for r in recs.values())
            residual = sum("residual" in (r.get("reason") or "") for r in recs.values())
            old = sum(
                r["status"] == "ok"
                and r.get("rms_px") is not None
                and r["rms_px"] - rr["rms_px"] > FLAG_PX
                for r in recs.values()
            )
            print(
                f"{entry['id']} {f.parent.name}: {len(recs)} frames, {flagged} flagged "
                f"({residual} for their residual); "
                f"left ok but flagged by the old residual rule: {old}"
            )
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The weak-geometry flag (issue 11 §2) on kept real-clip runs, against clicks and other runs.

Usage: ``python bench/weak_geometry.py RUNS [--clip ID ...] [--json F]``, RUNS a folder an
earlier ``bench/real_clips.py --out RUNS`` run kept (RUNS/<clip>/ref<N>/cameras.jsonl). No
propagation is run. For every run the clicks-only weak-geometry rule (``clicks_only_rule``:
courtstudio/pipeline/propagation_flags.py's until the full covariance replaced it; that one,
which needs the frames' images, is scored by bench/full_covariance.py) is applied to each
frame with a camera and transferred keypoints, as the propagation applied it (the frame's
point fit refitted from its recorded keypoints with the reference's lens model; the
reference's own calibration from its clicks; one noise, geometry.fit_extrapolation.
fit_noise_px of the reference's calibration): on runs made before the rule this says what it
would flag; on runs made with it, the recorded statuses say what it did. Three measures:

1. Per run: frames left ok by the other rules, and how many of them the rule flags.
2. Clicked frames (held-out annotated frames and flag checks of bench/devset_clips): worst
   clicked keypoint (px), off (worst > 10 px at 1080p, scaled by the picture height), the
   frame's and the reference's predicted 1-sigma px, and whether the rule flags it.
3. Pseudo ground truth (clips with two or more runs): at each court keypoint in a frame-run's
   picture, the other run whose point fit predicts that keypoint best judges it, when its
   predicted 1-sigma there is at most a third of the off distance; the frame-run is off when
   some judged keypoint is farther than the off distance from the judge's projection (frame-runs
   with at least 3 judged keypoints). The keypoint a frame is weakest at is rarely judged (no
   run determines it well), so these labels undercount what the rule predicts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from flag_evidence import _camera  # noqa: E402
from real_clips import (  # noqa: E402
    FLAG_PX,
    OFF_PX_1080,
    frame_errors,
    kept_runs_clips,
    load_annotations,
)

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court  # noqa: E402
from courtstudio.pipeline.propagate_frame import weak_px  # noqa: E402
from courtstudio.pipeline.propagation_flags import plane_keypoints  # noqa: E402
from courtstudio.pipeline.propagation_records import read_done  # noqa: E402
from courtstudio.pipeline.propagation_solve import frame_model, recalibrate  # noqa: E402
from geometry.camera_params import ParamModel  # noqa: E402
from geometry.fit_extrapolation import (  # noqa: E402
    extrapolation_gain,
    fit_noise_px,
    predicted_sd_per_px,
)
from geometry.pixel_lens import PixelLens  # noqa: E402


def clicks_only_rule(
    gain: float, ref_gain: float, noise_px: float, *, flag_px: float, weak_px: float
) -> bool:
    """The weak-geometry rule of 2026-12-01 before the full covariance (propagation_flags
    then): the point fit's prediction gain * noise_px (px) above weak_px and above the
    reference's own (ref_gain * noise_px) by more than flag_px and by more than that
    prediction itself. Kept here so this bench still scores what it scored; the propagation
    now judges each frame on its own prediction from keypoints, lines and lens prior
    (bench/full_covariance.py scores that)."""
    if not (np.isfinite(gain) and np.isfinite(ref_gain)):
        return False
    predicted, ref_predicted = gain * noise_px, ref_gain * noise_px
    return bool(predicted > weak_px and predicted - ref_predicted > max(flag_px, ref_predicted))


def run_frames(spec, entry: dict, clicks: dict, recs: dict, ref: int) -> tuple[dict, dict]:
    """({frame: uv, sd px, gain, status, weak}, reference summary) of one kept run."""
    size = tuple(entry["image_size"])
    P = plane_keypoints(spec)
    cal = calibrate_court(spec, size, clicks, diagnose=False)
    model, noise = frame_model(cal.fit), fit_noise_px(cal.fit)
    ref_gain = extrapolation_gain(cal.fit, P)
    limit = weak_px(size[1])
    lens = PixelLens.of_camera(cal.camera) if model != "simple" else None  # as propagation
    out = {}
    for i, r in recs.items():
        if "K" not in r:
            continue
        if r["status"] == "reference":
            fit = cal.fit
        elif r.get("points") and len(r["points"]) >= 4:
            theta0 = ParamModel(model).from_camera(_camera(r))
            try:
                fit = recalibrate(spec, size, r["points"], theta0, model, lens)
            except (ValueError, np.linalg.LinAlgError):
                continue
        else:
            continue
        _, sd = predicted_sd_per_px(fit, P)
        gain = extrapolation_gain(fit, P)
        recorded = (r.get("reason") or "").startswith("weak geometry")
        rule = r["status"] != "reference" and bool(
            clicks_only_rule(gain, ref_gain, noise, flag_px=FLAG_PX, weak_px=limit)
        )
        out[i] = {
            "uv": _camera(r).project(P),
            "sd_px": sd * noise,
            "gain": gain,
            "status": r["status"],
            "weak": rule or recorded,
            # left ok by every other rule (a run made with the flag: flagged for it alone)
            "ok_otherwise": r["status"] == "ok" or recorded,
        }
    ref_info = {"gain": ref_gain, "noise_px": noise, "predicted_px": ref_gain * noise}
    return out, ref_info


def pseudo_truth(data: dict, size, off_px: float) -> list[dict]:
    """Per frame-run left ok otherwise: worst judged keypoint distance and the flag."""
    rows = []
    w, h = size
    for ra, frames in data.items():
        for i, a in frames.items():
            if not a["ok_otherwise"]:
                continue
            uv = a["uv"]
            inside = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
            worst, judged = 0.0, 0
            for k in np.flatnonzero(inside):
                judges = [
                    (B[i]["sd_px"][k], B[i]["uv"][k])
                    for rb, B in data.items()
                    if rb != ra and i in B and B[i]["status"] in ("ok", "reference")
                ]
                judges = [j for j in judges if j[0] <= off_px / 3]
                if not judges:
                    continue
                judged += 1
                best = min(judges, key=lambda j: j[0])
                worst = max(worst, float(np.linalg.norm(uv[k] - best[1])))
            if judged >= 3:
                rows.append(
                    {"ref": ra, "frame": i, "worst_px": worst, "off": worst > off_px,
                     "weak": a["weak"]}
                )  # fmt: skip
    return rows


def clip_report(runs: Path, entry: dict) -> dict:
    spec = load_spec(entry["sport"])
    size = tuple(entry["image_size"])
    off_px = OFF_PX_1080 * entry.get("picture_box", [0, 0, *size])[3] / 1080
    ann = load_annotations(ROOT / "bench/devset_clips/annotations" / entry["id"])
    checks = load_annotations(ROOT / "bench/devset_clips/flag_checks" / entry["id"])
    data, per_run, clicked = {}, [], []
    files = sorted(
        (runs / entry["id"]).glob("ref*/cameras.jsonl"), key=lambda p: int(p.parent.name[3:])
    )
    for f in files:
        ref, recs = int(f.parent.name[3:]), read_done(f)
        if ref not in recs:
            continue
        frames, ref_info = run_frames(spec, entry, ann[ref], recs, ref)
        data[ref] = frames
        ok = [a for a in frames.values() if a["ok_otherwise"]]
        per_run.append(
            {"ref": ref, **ref_info, "frames": len(recs), "ok_otherwise": len(ok),
             "weak": sum(a["weak"] for a in ok)}
        )  # fmt: skip
        for kind, src in (("held-out", ann), ("check", checks)):
            for i in sorted(src):
                if i == ref or i not in recs:
                    continue
                err = frame_errors(recs[i], src[i], spec)
                a = frames.get(i)
                clicked.append(
                    {"ref": ref, "frame": i, "kind": kind, "status": recs[i]["status"],
                     "reason": recs[i].get("reason", ""),
                     "worst_px": None if err is None else float(err.max()),
                     "off": err is None or float(err.max()) > off_px,
                     "predicted_px": None if a is None else float(a["gain"] * ref_info["noise_px"]),
                     "ref_predicted_px": ref_info["predicted_px"],
                     "weak": bool(a and a["weak"]),
                     "ok_otherwise": bool(a and a["ok_otherwise"])}
                )  # fmt: skip
    rows = pseudo_truth(data, size, off_px) if len(data) >= 2 else []
    return {"id": entry["id"], "off_px": off_px, "runs": per_run, "clicked": clicked,
            "pseudo": rows}  # fmt: skip


def _prf(rows: list[dict]) -> str:
    flagged = [r for r in rows if r["weak"]]
    off = [r for r in rows if r["off"]]
    tp = sum(r["off"] for r in flagged)
    prec = f"{tp / len(flagged):.2f}" if flagged else "-"
    rec = f"{tp / len(off):.2f}" if off else "-"
    return f"{len(rows)} | {len(off)} | {len(flagged)} | {tp} | {prec} | {rec}"


def main(argv=None) -> int:
    args, clips = kept_runs_clips(__doc__.splitlines()[0], argv)
    reports = [clip_report(args.runs, e) for e in clips]
    print("| clip | ref | noise px | reference predicted px | frames | ok (left ok otherwise; "
          "static frames not counted) | weak-flagged |\n|---|---|---|---|---|---|---|")  # fmt: skip
    for rep in reports:
        for r in rep["runs"]:
            print(
                f"| {rep['id']} | {r['ref']} | {r['noise_px']:.2f} | {r['predicted_px']:.1f} | "
                f"{r['frames']} | {r['ok_otherwise']} | {r['weak']} |"
            )
    print(
        "\nClicked frames left ok by the other rules (worst clicked keypoint px; predicted "
        "1-sigma px, frame / reference):\n\n| clip | ref | frame | kind | worst px | off | "
        "predicted px | reference px | weak-flagged |\n" + "|---" * 9 + "|"
    )
    for rep in reports:
        for c in rep["clicked"]:
            if not c["ok_otherwise"]:
                continue
            print(
                f"| {rep['id']} | {c['ref']} | {c['frame']} | {c['kind']} | "
                f"{c['worst_px']:.1f} | {'OFF' if c['off'] else ''} | "
                f"{c['predicted_px']:.1f} | {c['ref_predicted_px']:.1f} | "
                f"{'yes' if c['weak'] else ''} |"
            )
    print("\n| clip | set | frame-runs | off | weak-flagged | flagged and off | precision | "
          "recall |\n|---|---|---|---|---|---|---|---|")  # fmt: skip
    for rep in reports:
        clicked = [c for c in rep["clicked"] if c["ok_otherwise"]]
        if clicked:
            print(f"| {rep['id']} | clicked frames left ok otherwise | {_prf(clicked)} |")
        if rep["pseudo"]:
            print(f"| {rep['id']} | pseudo ground truth (other runs) | {_prf(rep['pseudo'])} |")
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

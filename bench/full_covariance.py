"""The line-inclusive, lens-holding prediction (issue 11 §2) on kept real-clip runs' clicked frames.

Usage: ``python bench/full_covariance.py RUNS [--clip ID ...] [--json F]``, RUNS a folder an
earlier ``bench/real_clips.py --out RUNS`` kept. No propagation is run. For every held-out
annotated frame and flag check with a camera and transferred keypoints, as
courtstudio/pipeline/propagate_frame.py judges a frame (courtstudio/pipeline/
propagation_uncertainty.py):

- ``clicks``: the predicted 1-sigma (px) at the worst court keypoint in the picture of the
  recorded camera from its transferred keypoints (the reference clicks' noise) and the
  reference's lens prior;
- when that is above the off distance: the camera refined on the frame's painted lines with the
  keypoints and the lens prior (``refined``: accepted or not, its worst clicked keypoint px)
  and its prediction from keypoints, lines and prior (``lines``);
- the weak-geometry verdict without the reference exemption: the final prediction > off.
Frames are decoded from the clip's video (the folder of bench/devset_clips/manifest.json).
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
from real_clips import OFF_PX_1080, frame_errors, kept_runs_clips, load_annotations  # noqa: E402

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.propagate import VideoFrames  # noqa: E402
from courtstudio.pipeline.propagation_records import read_done  # noqa: E402
from courtstudio.pipeline.propagation_solve import (  # noqa: E402
    frame_model,
    reference_calibration,
    reference_prediction,
)
from courtstudio.pipeline.propagation_uncertainty import (  # noqa: E402
    keypoint_sd_px,
    keypoints_to_click,
    predicted_error,
    reference_lens_prior,
    refine_weak_frame,
)


def rows(runs: Path, entry: dict, ann: dict, checks: dict, videos: Path):
    spec = load_spec(entry["sport"])
    height = entry.get("picture_box", [0, 0, *entry["image_size"]])[3]
    off_px = OFF_PX_1080 * height / 1080
    frames = VideoFrames(videos / entry["file"], ahead=0)
    for f in sorted(
        (runs / entry["id"]).glob("ref*/cameras.jsonl"), key=lambda p: int(p.parent.name[3:])
    ):
        ref = int(f.parent.name[3:])
        recs = read_done(f)
        if ref not in recs:
            continue
        img = frames.image(ref)
        cal = reference_calibration(spec, ann[ref], img)
        model = frame_model(cal.fit)
        noise = reference_prediction(spec, ann[ref], cal.fit, model, img.shape[0])["sigma_px"]
        prior = reference_lens_prior(spec, cal.camera, ann[ref], noise)
        ref_pred, ref_kp = predicted_error(cal.camera, spec, ann[ref], noise, prior)
        to_click = keypoints_to_click(cal.camera, spec, ann[ref], noise, prior, off_px)
        yield {
            "clip": entry["id"], "ref": ref, "frame": ref, "kind": "reference",
            "predicted_px": ref_pred, "at": ref_kp, "k1": prior.mean, "k1_sigma": prior.sigma,
            "to_click": to_click, "off_px": off_px,
        }  # fmt: skip
        for kind, items in (("held-out", ann), ("check", checks)):
            for fr, clicks in sorted(items.items()):
                r = recs.get(fr)
                if fr == ref or r is None or "K" not in r or not r.get("points"):
                    continue
                cam = _camera(r)
                err = frame_errors(r, clicks, spec)
                p0, kp0 = predicted_error(cam, spec, r["points"], noise, prior)
                row = {
                    "clip": entry["id"], "ref": ref, "frame": fr, "kind": kind,
                    "status": r["status"], "reason": r.get("reason") or "",
                    "worst_px": float(err.max()), "off_px": off_px,
                    "clicks_px": p0, "at": kp0, "refined": None, "refined_worst_px": None,
                    "lines_px": None,
                }  # fmt: skip
                final, worst = p0, row["worst_px"]
                if p0 > off_px:
                    image = frames.image(fr)
                    wr = refine_weak_frame(
                        cam, spec, image, r["points"], noise, prior, cal.fit.rms_px
                    )
                    row["refined"] = wr.report.accepted
                    rp = wr.report
                    row["refinement"] = {
                        "reason": rp.reason, "model": rp.model,
                        "support": [rp.support_before, rp.support_after],
                        "keypoint_rms_px": [rp.click_rms_before_px, rp.click_rms_after_px],
                        "line_rms_px": [rp.line_rms_before_px, rp.line_rms_after_px],
                        "lines": rp.lines_used, "samples": rp.samples,
                        "k1": float(wr.camera.dist[0]),
                    }  # fmt: skip
                    if wr.report.accepted:
                        new = wr.camera
                        rec2 = dict(r, K=new.K.tolist(), R=new.R.tolist(), t=new.t.tolist())
                        rec2["dist"] = new.dist.tolist()
                        err = frame_errors(rec2, clicks, spec)
                        worst = float(err.max())
                        row["refined_worst_px"], row["lines_px"] = worst, wr.predicted_px
                        final = wr.predicted_px
                    cam = wr.camera
                    # the errors at the clicked keypoints in sigma units of the final prediction
                    Xc = np.array([spec.keypoints[n] for n in clicks], float)
                    _, sd = keypoint_sd_px(
                        cam, spec, r["points"], wr.click_sigma_px, prior, wr.ridges, Xc
                    )
                    row["z"] = [round(float(e / s), 2) for e, s in zip(err, sd)]
                row["final_worst_px"] = worst
                row["off"] = worst > off_px
                row["weak"] = bool(final > off_px)
                yield row


def main(argv=None) -> int:
    args, clips = kept_runs_clips(__doc__.splitlines()[0], argv)
    videos = Path("/work/devset_clips")
    out = []
    for entry in clips:
        ann = load_annotations(ROOT / "bench/devset_clips/annotations" / entry["id"])
        cdir = ROOT / "bench/devset_clips/flag_checks" / entry["id"]
        checks = load_annotations(cdir) if cdir.is_dir() else {}
        for row in rows(args.runs, entry, ann, checks, videos):
            out.append(row)
            short = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in row.items()}
            print(json.dumps(short), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())

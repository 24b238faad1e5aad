"""Write synthetic frames in the real-frames layout, shot through a lens, for bench/real_frames.py.

    python bench/synthetic_lens_frames.py OUT [--k1 -0.2] [--count 8] [--sigma 2.0] [--seed 0]
        [--clicks N]
    python bench/real_frames.py OUT

Wide broadcast cameras (the court fills about 60 % of the frame, courtstudio.synth.synthetic with
``k1``), rendered images in ``OUT/frames``, and every visible keypoint clicked with Gaussian noise
of ``--sigma`` px in ``OUT/annotations`` (the points-file layout of /work/devset, plus
``truth_points``: the exact projections, which the bench then measures errors against), so the
synthetic world sees the failure real lenses cause and the same bench measures it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from courtstudio.synth.synthetic import (
    render_frame,
    sample_broadcast_camera,
    visible_keypoints,  # noqa: E402
)
from geometry.distortion import monotonic_over_image  # noqa: E402

SPORTS = ("tennis", "pickleball", "badminton")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--k1", type=float, default=-0.2)
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--sigma", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", nargs=2, type=int, default=[1280, 720])
    ap.add_argument(
        "--clicks",
        type=int,
        default=None,
        help="keep only this many of the visible ground keypoints, chosen at random (a "
        "few-click set, as side-on frames and webcams give; default: all visible ones)",
    )
    args = ap.parse_args(argv)
    out = Path(args.out)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    (out / "annotations").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    size = tuple(args.size)
    written = 0
    while written < args.count:
        spec = load_spec(SPORTS[written % len(SPORTS)])
        cam = sample_broadcast_camera(spec, size, rng, zoom=(0.6, 0.7), k1=args.k1)
        if not monotonic_over_image(cam.K, cam.dist, size):
            continue  # k1 alone would fold back inside the frame: not a real lens
        img = render_frame(spec, cam, rng=rng)
        kp = visible_keypoints(spec, cam, margin_px=4.0)
        fid = f"{spec.id}_k1_{written:02d}"
        pts = {
            n: [round(float(c), 2) for c in uv + rng.normal(0, args.sigma, 2)]
            for n, uv in kp.items()
        }
        if args.clicks is not None:
            ground = [n for n in pts if spec.keypoints[n][2] == spec.plane_z()]
            if len(ground) < args.clicks:
                continue
            pts = {n: pts[n] for n in rng.choice(ground, args.clicks, replace=False)}
        cv2.imwrite(str(out / "frames" / f"{fid}.png"), img)
        doc = {
            "image_size": list(size),
            "sport": spec.id,
            "points": pts,
            "view": "end",
            "truth_points": {n: [round(float(c), 4) for c in uv] for n, uv in kp.items()},
            "distorted": args.k1 != 0,
            "source": {
                "file": f"{fid}.png",
                "synthetic": {"k1": args.k1, "sigma_px": args.sigma, "seed": args.seed},
            },
        }
        (out / "annotations" / f"{fid}.json").write_text(json.dumps(doc, indent=1))
        written += 1
    print(f"wrote {written} frames to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""QA generation: throughput (QA per second), answer distributions per category, and how many
candidates each filter removed.

Scenes: the bundled sample project (4 sports, calibrations with covariances, player meshes),
exported once, then K copies of each frame with the players moved to random places on their
half and the ball thrown to a random point (their joints, meshes, boxes and ball clicks moved
consistently through the frame's camera; the pixels are not redrawn). Each copy is its own
match; every other copy has its calibration covariance and click sigma made ``--worse`` times
larger (as a frame with few, far keypoints would have), so the uncertainty filters have work.
Fixed seed.

    PYTHONPATH=. python bench/qa_generate.py --copies 25 --seed 0 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from court_specs import load_spec  # noqa: E402
from courtstudio.export.reconstruct import reconstruct_project  # noqa: E402
from courtstudio.io.project import load_project  # noqa: E402
from geometry.camera import Camera  # noqa: E402
from qa.generate import GenerateOptions, generate  # noqa: E402


def _moved_copy(scene_json: Path, dest: Path, match: str, rng, worse: float = 1.0) -> None:
    d = json.loads(scene_json.read_text())
    cov = d["camera"].get("covariance")
    if worse != 1.0 and cov:  # a poorer calibration: sigma x worse, clicks too
        cov["matrix"] = (np.array(cov["matrix"]) * worse**2).tolist()
        d["camera"]["sigma_px_used"] = float(d["camera"].get("sigma_px_used", 1.0)) * worse
    spec = load_spec(d["court"]["spec_id"])
    cam = Camera.from_dict(d["camera"])
    L, W = spec.length_m, spec.width_m
    d["frame"]["image"] = str((scene_json.parent / d["frame"]["image"]).resolve())
    d["frame"]["match_id"] = match
    dest.mkdir(parents=True, exist_ok=True)
    h5_src = scene_json.with_suffix(".h5")
    if h5_src.exists():
        shutil.copy(h5_src, dest / "scene.h5")
    for p in d["players"]:
        g = np.array(
            p.get("ground_world", p.get("joints_world", {}).get("pelvis", [L / 2, W / 2, 0]))
        )
        near = g[0] > L / 2
        x = rng.uniform(L / 2 + 0.5, L + 2) if near else rng.uniform(-2, L / 2 - 0.5)
        target = np.array([x, rng.uniform(-1, W + 1), 0.0])
        shift = np.array([target[0] - g[0], target[1] - g[1], 0.0])
        pts = []
        for k, v in p.get("joints_world", {}).items():
            p["joints_world"][k] = (np.array(v) + shift).tolist()
            pts.append(p["joints_world"][k])
        if "ground_world" in p:
            p["ground_world"] = (np.array(p["ground_world"]) + shift).tolist()
        if p.get("mesh"):
            with h5py.File(dest / "scene.h5", "r+") as f:
                ds = f[p["mesh"]["vertices_world"]]
                ds[...] = ds[...] + shift.astype(np.float32)
        if pts:
            uv = cam.project(np.array(pts))
            h = uv[:, 1].max() - uv[:, 1].min()
            p["box_xyxy"] = [
                float(uv[:, 0].min() - 0.1 * h),
                float(uv[:, 1].min() - 0.1 * h),
                float(uv[:, 0].max() + 0.1 * h),
                float(uv[:, 1].max() + 0.03 * h),
            ]
    b = d["ball"]
    if b.get("visible"):
        plane_z = spec.plane_z(b.get("plane"))
        w = np.array([rng.uniform(0, L), rng.uniform(0, W), plane_z + rng.uniform(0.1, 3.0)])
        b["world"] = w.tolist()
        b["height_m"] = float(w[2] - plane_z)
        b["uv"] = cam.project(w[None])[0].tolist()
        b["ground_uv"] = cam.project(np.array([[w[0], w[1], plane_z]]))[0].tolist()
    (dest / "scene.json").write_text(json.dumps(d))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--per-image", type=int, default=30)
    ap.add_argument(
        "--worse",
        type=float,
        default=5.0,
        help="every other copy gets a calibration this many times less certain "
        "(covariance and click sigma), so that the uncertainty filters work",
    )
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        reconstruct_project(
            load_project(ROOT / "samples" / "sample_project"), tmp / "export", log=lambda s: None
        )
        t_export = time.perf_counter() - t0
        scenes = sorted((tmp / "export").rglob("scene.json"))
        for k in range(args.copies):
            for s in scenes:
                _moved_copy(
                    s,
                    tmp / "src" / f"copy{k:03d}" / s.parent.name,
                    f"copy{k:03d}",
                    rng,
                    args.worse if k % 2 else 1.0,
                )
        t0 = time.perf_counter()
        summary = generate(
            [tmp / "src"],
            tmp / "out",
            GenerateOptions(seed=args.seed, samples=args.samples, per_image=args.per_image),
        )
        secs = time.perf_counter() - t0
    f = summary["filters"]
    out = {
        "scenes": len(scenes) * args.copies,
        "samples": args.samples,
        "per_image": args.per_image,
        "export_seconds_4_frames": round(t_export, 2),
        "generate_seconds": round(secs, 2),
        "qa_items": summary["n_items"],
        "qa_per_second": round(summary["n_items"] / secs, 1),
        "candidates_per_second": round(f["candidates"] / secs, 1),
        "filters": f,
        "per_split": summary["per_split"],
        "answer_distribution": summary["answer_distribution"],
    }
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The projects bench/gui_latency.py times the GUI on: a 1920x1080 synthetic MJPG video, a
many-frame copy of the sample project (each annotated frame its own jittered clicks), and a
project of the dev set's real frames. Every builder writes into the folder it is given (a
temporary one). Fixed seeds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from court_specs import load_spec
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.synth.synthetic import make_synthetic_frame


def make_video(path: Path, frames: int = 120):
    spec = load_spec("tennis")
    fr = make_synthetic_frame(spec, np.random.default_rng(0))
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (1920, 1080))
    rng = np.random.default_rng(1)
    for i in range(frames):
        shift = np.roll(fr.image, i % 7, axis=1)
        wr.write(np.clip(shift.astype(int) + rng.integers(-3, 4), 0, 255).astype(np.uint8))
    wr.release()


def many_frame_project(root: Path, n: int, annotated_every: int = 10, image=None) -> Path:
    """A project of ``n`` frames showing the sample's tennis frame (or ``image``, a BGR
    array), every ``annotated_every``-th (0 for none) with the sample's tennis annotation."""
    shutil.copytree(SAMPLE_PROJECT, root)
    shutil.rmtree(root / "annotations")
    (root / "annotations").mkdir()
    rel = "frames/tennis_0001.jpg"
    if image is not None:
        rel = "frames/tiny.png"
        cv2.imwrite(str(root / rel), image)
    data = json.loads((root / "courtstudio_project.json").read_text())
    data["frames"] = [{"id": f"f{i:05d}", "image": rel} for i in range(n)]
    (root / "courtstudio_project.json").write_text(json.dumps(data))
    ann = json.loads((SAMPLE_PROJECT / "annotations" / "tennis_0001.json").read_text())
    rng = np.random.default_rng(7)
    for i in range(0, n, annotated_every) if annotated_every else ():
        ann["frame_id"] = f"f{i:05d}"
        # every frame its own clicks (0.5 px jitter): no frame reuses another's calibration,
        # doctor, ball lift or silhouettes from a cache
        a = json.loads(json.dumps(ann))
        a["points"] = {
            k: [float(u + rng.normal(0, 0.5)), float(v + rng.normal(0, 0.5))]
            for k, (u, v) in ann["points"].items()
        }
        if a.get("ball") and a["ball"].get("uv"):
            a["ball"]["uv"] = [float(c + rng.normal(0, 0.5)) for c in a["ball"]["uv"]]
        (root / "annotations" / f"f{i:05d}.json").write_text(json.dumps(a))
    return root


def real_project(root: Path, folder: Path, min_clicks: int = 13) -> Path:
    """A project of the dev set's frames with at least ``min_clicks`` clicks (each frame its
    sport), the clicks as annotations. The frames are copied into ``root`` (a temporary
    folder): footage stays out of git."""
    (root / "frames").mkdir(parents=True)
    (root / "annotations").mkdir()
    frames = []
    for path in sorted((folder / "annotations").glob("*.json")):
        d = json.loads(path.read_text())
        fid = path.stem
        images = [p for p in (folder / "frames").glob(f"{fid}.*")]
        if len(d.get("points", {})) < min_clicks or not images:
            continue
        shutil.copy(images[0], root / "frames" / images[0].name)
        frames.append({"id": fid, "image": f"frames/{images[0].name}", "sport": d["sport"]})
        ann = {
            "format": "courtstudio.annotation",
            "format_version": 1,
            "frame_id": fid,
            "image_size": d["image_size"],
            "points": d["points"],
            "players": [],
            "flags": [],
        }
        (root / "annotations" / f"{fid}.json").write_text(json.dumps(ann))
    if not frames:
        raise SystemExit(f"{folder}: no annotated frame with {min_clicks} or more clicks")
    (root / "courtstudio_project.json").write_text(
        json.dumps(
            {
                "format": "courtstudio.project",
                "format_version": 1,
                "name": "real frames",
                "sport": frames[0]["sport"],
                "frames": frames,
            }
        )
    )
    return root

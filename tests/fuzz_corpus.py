"""The fuzz corpus: one small valid file of each type CourtStudio reads (tests/fuzz_cases.py).

Built from the bundled sample's tennis frame at a quarter size: a two-frame project (one
annotated frame with two player meshes and ground truth, propagation results), the points and
camera files, the court spec, a reconstructed scene JSON + HDF5, a PromptHMR output.pt in the
real layout and a four-frame synthetic clip.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "sample_project"
SCALE = 0.25  # the corpus project's frame is the sample's tennis frame at a quarter size


def _scale_annotation(ann: dict) -> dict:
    ann = json.loads(json.dumps(ann))
    ann["image_size"] = [round(v * SCALE) for v in ann["image_size"]]
    ann["points"] = {k: [round(c * SCALE, 2) for c in v] for k, v in ann["points"].items()}
    for p in ann.get("players", []):
        p["box_xyxy"] = [round(c * SCALE, 2) for c in p["box_xyxy"]]
    b = ann.get("ball")
    if b:
        for k in ("uv", "ground_uv"):
            if k in b:
                b[k] = [round(c * SCALE, 2) for c in b[k]]
    return ann


def build_corpus(base: Path) -> dict[str, Path]:
    """Write one valid file of each type under ``base``; return {kind: path}."""
    from courtstudio.cli import main

    base = Path(base)
    base.mkdir(parents=True, exist_ok=True)
    proj = base / "project"
    for sub in ("frames", "annotations", "truth", "meshes/f1", "propagation"):
        (proj / sub).mkdir(parents=True, exist_ok=True)
    img = cv2.imread(str(SAMPLE / "frames" / "tennis_0001.jpg"))
    small = cv2.resize(img, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(proj / "frames" / "f1.png"), small)
    cv2.imwrite(str(proj / "frames" / "f2.png"), small)
    ann = _scale_annotation(json.loads((SAMPLE / "annotations" / "tennis_0001.json").read_text()))
    ann["frame_id"] = "f1"
    meshes = sorted((SAMPLE / "meshes" / "tennis_0001").glob("*.npz"))
    for p, m in zip(ann["players"], meshes):
        shutil.copy(m, proj / "meshes" / "f1" / m.name)
        p["mesh"] = f"meshes/f1/{m.name}"
    (proj / "annotations" / "f1.json").write_text(json.dumps(ann, indent=1))
    truth = json.loads((SAMPLE / "truth" / "tennis_0001.json").read_text())
    (proj / "truth" / "f1.json").write_text(json.dumps(truth, indent=1))
    (proj / "courtstudio_project.json").write_text(
        json.dumps(
            {
                "format": "courtstudio.project",
                "format_version": 1,
                "name": "fuzz",
                "sport": "tennis",
                "frames": [
                    {"id": "f1", "image": "frames/f1.png"},
                    {"id": "f2", "image": "frames/f2.png"},
                ],
                "camera_ranges": [],
                "ball_flights": [],
                "fps": 25.0,
            },
            indent=1,
        )
    )
    points = base / "points.json"
    points.write_text(json.dumps({"image_size": ann["image_size"], "points": ann["points"]}))
    out = base / "_seed_out"
    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet, contextlib.redirect_stderr(io.StringIO()):
        assert (
            main(
                [
                    "calibrate",
                    "--sport",
                    "tennis",
                    "--points",
                    str(points),
                    "-o",
                    str(base / "camera.json"),
                ]
            )
            == 0
        )
        assert (
            main(
                [
                    "batch-propagate",
                    str(proj),
                    "--sport",
                    "tennis",
                    "--out",
                    str(out / "p"),
                    "--quiet",
                ]
            )
            == 0
        )
        assert main(["reconstruct", str(proj), "-o", str(out / "r")]) == 0
        assert (
            main(
                [
                    "synth-clip",
                    "--sport",
                    "tennis",
                    "--frames",
                    "4",
                    "--size",
                    "160",
                    "96",
                    "-o",
                    str(base / "clip.avi"),
                    "--points",
                    str(base / "clip_ref.json"),
                ]
            )
            == 0
        )
    shutil.copy(out / "r" / "f1" / "scene.json", base / "scene.json")
    shutil.copy(out / "r" / "f1" / "scene.h5", base / "scene.h5")
    shutil.copy(ROOT / "court_specs" / "tennis.json", base / "spec.json")
    _write_output_pt(base / "output.pt", base / "camera.json", proj / "meshes" / "f1")
    shutil.rmtree(out)
    return {
        "points": points,
        "camera": base / "camera.json",
        "spec": base / "spec.json",
        "scene": base / "scene.json",
        "scene_h5": base / "scene.h5",
        "project_file": proj / "courtstudio_project.json",
        "annotation": proj / "annotations" / "f1.json",
        "truth": proj / "truth" / "f1.json",
        "cameras_jsonl": proj / "propagation" / "cameras.jsonl",
        "mesh_npz": sorted((proj / "meshes" / "f1").glob("*.npz"))[0],
        "image": proj / "frames" / "f1.png",
        "pt": base / "output.pt",
        "video": base / "clip.avi",
        "clip_points": base / "clip_ref.json",
    }


def _write_output_pt(path: Path, camera_json: Path, mesh_dir: Path) -> None:
    """A two-person PromptHMR image-demo output.pt in the real layout (cam_int (2, 3, 3))."""
    import torch

    from hmr.person_mesh import PersonMesh
    from hmr.prompthmr import named_to_body25, padding

    cam = json.loads(camera_json.read_text())
    people = [PersonMesh.load_npz(p) for p in sorted(mesh_dir.glob("*.npz"))]
    s, off = padding(cam["image_size"])
    Kp = np.array(cam["K"], float)
    Kp[:2] *= s
    Kp[:2, 2] += off
    B = len(people)
    torch.save(
        {
            "pose": torch.zeros(B, 132),
            "betas": torch.zeros(B, 10),
            "transl": torch.zeros(B, 3),
            "rotmat": torch.eye(3).repeat(B, 22, 1, 1),
            "vertices": torch.tensor(
                np.stack([p.vertices_cam for p in people])[:, :500], dtype=torch.float32
            ),
            "body_joints": torch.tensor(
                np.stack([named_to_body25(p.joints_cam) for p in people]), dtype=torch.float32
            ),
            "cam_int": torch.tensor(Kp, dtype=torch.float32)[None].expand(B, 3, 3),
        },
        path,
    )

"""Write a project of synthetic frames: rendered images, noisy annotator clicks, ground truth.

Builds the bundled sample project (``samples/sample_project``) and test fixtures. The clicks
are the true projections plus Gaussian noise of ``click_sigma_px``, as an annotator's would be.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from court_specs import load_spec
from courtstudio.editing.document import store_person_mesh
from courtstudio.io.project import (
    FORMAT_VERSION,
    PROJECT_FORMAT,
    BallAnnotation,
    FrameAnnotation,
    FrameRef,
    PlayerAnnotation,
    Project,
)
from courtstudio.synth.synthetic import make_synthetic_frame
from hmr.person_mesh import PersonMesh
from safe_io.atomic import atomic_path, write_json_atomic

HMR_DEPTH_SIGMA = 0.15  # log-scale of the simulated HMR depth error
HEIGHT_SIGMA_M = 0.02  # the annotator's error on the lowest vertex's height


def write_synthetic_project(
    root,
    sports,
    per_sport: int = 1,
    seed: int = 0,
    click_sigma_px: float = 1.0,
    all_points: bool = False,
    image_size=(1920, 1080),
    name: str = "synthetic",
    players: int = 0,
    k1: float = 0.0,
) -> Project:
    """Create (or overwrite) a project folder. Clicks: the paper's six keypoints (corners and
    net-post tops; corners and rings without a net), or every visible keypoint. With
    ``players``, Anny players are rendered into each frame and annotated as an annotator with
    PromptHMR would: a box, a mesh whose depth is off by exp(N(0, 0.15)) (a scale about the
    camera centre, as HMR depth errors are), and the lowest vertex's height with 2 cm error.
    k1: radial lens distortion of every frame's camera (0 = pinhole)."""
    root = Path(root)
    rng = np.random.default_rng(seed)
    frames = []
    project = Project(
        root=root,
        name=name,
        sport=sports[0],
        frames=frames,
        raw={"format": PROJECT_FORMAT, "format_version": FORMAT_VERSION},
    )
    for sport in sports:
        spec = load_spec(sport)
        for k in range(per_sport):
            fr = make_synthetic_frame(spec, rng, image_size, players=players, k1=k1)
            fid = f"{sport}_{k + 1:04d}"
            image_rel = f"frames/{fid}.jpg"
            with atomic_path(root / image_rel) as tmp:
                cv2.imwrite(str(tmp), fr.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            wanted = (
                list(fr.keypoints_uv)
                if all_points
                else [n for n in spec.minimal_keypoints if n in fr.keypoints_uv]
            )
            points = {
                n: tuple(
                    np.round(fr.keypoints_uv[n] + rng.normal(0, click_sigma_px, 2), 2).tolist()
                )
                for n in wanted
            }
            truth = fr.truth_json(spec)
            ball_uv = np.array(truth["ball"]["uv"]) + rng.normal(0, click_sigma_px, 2)
            ground_uv = np.array(truth["ball"]["ground_uv"]) + rng.normal(0, click_sigma_px, 2)
            ann = FrameAnnotation(
                fid,
                image_size,
                points,
                BallAnnotation(
                    True,
                    tuple(np.round(ball_uv, 2).tolist()),
                    tuple(np.round(ground_uv, 2).tolist()),
                    spec.default_plane,
                ),
                [_annotate_player(project, fid, fr.camera, p, rng) for p in fr.players],
            )
            frames.append(FrameRef(fid, image_rel, sport))
            project.save_annotation(ann)
            write_json_atomic(project.truth_path(fid), truth)
    project.save()
    return project


def _annotate_player(project: Project, frame_id: str, camera, p, rng) -> PlayerAnnotation:
    k = float(np.exp(rng.normal(0, HMR_DEPTH_SIGMA)))
    mesh = PersonMesh(
        k * camera.world_to_cam(p.vertices_world),
        p.faces,
        {n: k * camera.world_to_cam(v[None])[0] for n, v in p.joints_world.items()},
        source=f"synthetic: Anny {p.pose}, depth x{k:.3f}",
    )
    rel = store_person_mesh(project, frame_id, p.id, mesh)
    h = round(p.lowest_vertex_height_m + float(rng.normal(0, HEIGHT_SIGMA_M)), 3)
    return PlayerAnnotation(p.id, tuple(round(c, 1) for c in p.box_xyxy), h, rel)

"""Headless reconstruction of a project: calibrate every annotated frame, lift the ball, write
scene files, GLB, camera files, overlays and a summary (compared with ground truth if present).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from court_specs import load_spec
from courtstudio.ball import lift_ball_with_uncertainty
from courtstudio.calibration import calibrate_court
from courtstudio.project import Project
from exporters.atomic import write_json_atomic
from exporters.coco import write_coco_court_keypoints
from exporters.glb import write_glb
from exporters.opencv_yaml import write_opencv_yaml
from exporters.overlay import draw_ball, draw_clicks, draw_court, read_image, write_image
from exporters.scene import BallRecord, Scene, save_scene
from geometry.rays import ground_projection_polyline

SAMPLE_PROJECT = Path(__file__).resolve().parents[1] / "samples" / "sample_project"


@dataclass
class FrameSummary:
    frame_id: str
    sport: str
    status: str
    message: str = ""
    focal_px: float | None = None
    rms_px: float | None = None
    ball_world: list | None = None
    ball_sigma_cm: list | None = None
    focal_error_pct: float | None = None
    ball_error_cm: list | None = None


def reconstruct_frame(project: Project, frame, out_dir: Path, click_sigma_px: float = 1.0
                      ) -> FrameSummary:
    spec = load_spec(frame.sport)
    ann = project.load_annotation(frame.id)
    if ann is None or not ann.points:
        return FrameSummary(frame.id, frame.sport, "skipped", "no court points annotated")
    cal = calibrate_court(spec, ann.image_size, ann.points, click_sigma_px=click_sigma_px)
    fdir = out_dir / frame.id
    write_json_atomic(fdir / "camera.json", cal.to_json())
    write_opencv_yaml(cal.camera, fdir / "camera.yaml")
    ball_rec = BallRecord(visible=False)
    ball = None
    if ann.ball is not None and ann.ball.visible and ann.ball.ground_uv is not None:
        plane = ann.ball.plane or spec.default_plane
        ball = lift_ball_with_uncertainty(cal.camera, ann.ball.uv, ann.ball.ground_uv, plane,
                                          spec.plane_z(plane), click_sigma_px,
                                          cal.param_covariance)
        ball_rec = BallRecord(visible=True, uv=np.array(ann.ball.uv),
                              ground_uv=ball.uv_ground_snapped, world=ball.world,
                              height_m=ball.height_m, sigma_world_m=ball.sigma_world_m,
                              plane=plane)
    image_rel = os.path.relpath(project.image_path(frame).resolve(), fdir.resolve())
    scene = Scene(frame_id=frame.id, image=image_rel,
                  image_size=ann.image_size, spec_id=spec.id, camera=cal.camera,
                  camera_info=cal.to_json(), ball=ball_rec, frame_phrase=spec.frame_phrase,
                  provenance={"project": project.name, "annotation": str(
                      project.annotation_path(frame.id).resolve())})
    save_scene(scene, fdir / "scene.json")
    write_glb(scene, spec, fdir / "scene.glb")
    image = read_image(project.image_path(frame))
    draw_court(image, cal.camera, spec)
    draw_clicks(image, cal.camera, spec, ann.points, cal.suspects)
    if ball is not None:
        line = ground_projection_polyline(cal.camera, ann.ball.uv, ball.plane_z)
        draw_ball(image, line, ann.ball.uv, ball.uv_ground_snapped)
    write_image(fdir / "overlay.png", image)
    s = FrameSummary(frame.id, spec.id, "ok", "; ".join(cal.warnings),
                     focal_px=float(cal.camera.K[0, 0]), rms_px=cal.fit.rms_px,
                     ball_world=None if ball is None else [float(v) for v in ball.world],
                     ball_sigma_cm=None if ball is None else
                     [float(v) * 100 for v in ball.sigma_world_m])
    truth_path = project.truth_path(frame.id)
    if truth_path.exists():
        truth = json.loads(truth_path.read_text())
        f_true = truth["camera"]["K"][0][0]
        s.focal_error_pct = 100 * (s.focal_px - f_true) / f_true
        if ball is not None:
            s.ball_error_cm = [float(v) * 100 for v in ball.world - np.array(
                truth["ball"]["world"])]
    return s


def reconstruct_project(project: Project, out_dir, click_sigma_px: float = 1.0,
                        log=print) -> list[FrameSummary]:
    """Reconstruct every frame; a frame that fails is reported and the others go on."""
    out_dir = Path(out_dir)
    summaries = []
    for frame in project.frames:
        try:
            s = reconstruct_frame(project, frame, out_dir, click_sigma_px)
        except ValueError as exc:
            s = FrameSummary(frame.id, frame.sport, "error", str(exc))
        summaries.append(s)
        log(_line(s))
    export_project_coco(project, out_dir)
    write_json_atomic(out_dir / "summary.json", {"project": project.name,
                                                 "frames": [vars(s) for s in summaries]})
    return summaries


def export_project_coco(project: Project, out_dir: Path) -> list[Path]:
    """COCO keypoints of the clicked court points, one file per sport in the project."""
    by_sport: dict[str, list] = {}
    for frame in project.frames:
        ann = project.load_annotation(frame.id)
        if ann is not None:
            by_sport.setdefault(frame.sport, []).append(
                {"id": frame.id, "file_name": frame.image, "image_size": ann.image_size,
                 "points": ann.points})
    return [write_coco_court_keypoints(out_dir / f"court_keypoints_{sport}.coco.json", sport,
                                       load_spec(sport).keypoint_names, frames)
            for sport, frames in by_sport.items()]


def _line(s: FrameSummary) -> str:
    if s.status != "ok":
        return f"{s.frame_id:<22} {s.sport:<14} {s.status}: {s.message}"
    out = f"{s.frame_id:<22} {s.sport:<14} f={s.focal_px:7.1f}px rms={s.rms_px:5.2f}px"
    if s.focal_error_pct is not None:
        out += f" (f error {s.focal_error_pct:+.2f}%)"
    if s.ball_world is not None:
        out += " ball=({:.2f}, {:.2f}, {:.2f}) m".format(*s.ball_world)
        if s.ball_error_cm is not None:
            out += " (error {:+.1f}, {:+.1f}, {:+.1f} cm)".format(*s.ball_error_cm)
    return out

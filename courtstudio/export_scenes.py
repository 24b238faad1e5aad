"""Exporting a frame's reconstruction: camera files, scene (JSON + HDF5), GLB, overlay.

Shared by ``courtstudio reconstruct`` / ``export --format scenes`` and the app's File > Export,
so a frame exports identically from either. Works from an AnnotationDocument, so unsaved edits,
static-camera ranges and video frames are all handled in one place.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from court_specs import load_spec
from courtstudio.document import AnnotationDocument
from courtstudio.live_calibration import box_ground_point, lift_frame_ball
from courtstudio.players import world_player
from courtstudio.project import FrameRef
from exporters.atomic import write_json_atomic
from exporters.coco import write_coco_court_keypoints
from exporters.glb import write_glb
from exporters.mesh_render import RenderMesh, render_meshes
from exporters.opencv_yaml import write_opencv_yaml
from exporters.overlay import draw_ball, draw_clicks, draw_court, write_image
from exporters.scene import BallRecord, PlayerRecord, Scene, save_scene
from geometry.rays import ground_projection_polyline
from qa.entities import facing_from_joints


@dataclass
class FrameSummary:
    frame_id: str
    sport: str
    status: str  # ok | skipped | error
    message: str = ""
    focal_px: float | None = None
    rms_px: float | None = None
    ball_world: list | None = None
    ball_sigma_cm: list | None = None
    focal_error_pct: float | None = None
    ball_error_cm: list | None = None
    player_pelvis_error_cm: dict | None = None  # {player id: cm} where truth is known


def export_frame(doc: AnnotationDocument, frame: FrameRef, out_dir, overlay: bool = True,
                 glb: bool = True) -> FrameSummary:
    """Write ``out_dir/<frame id>/``: camera.json, camera.yaml, scene.json (+.h5), scene.glb,
    overlay.png. A frame without a camera is skipped (with the reason)."""
    spec = doc.spec(frame)
    ann = doc.annotation(frame.id)
    state = doc.camera_state(frame.id, diagnose=True)
    camera = state.camera
    if camera is None:
        return FrameSummary(frame.id, spec.id, "skipped", state.message or "no camera")
    cal = state.calibration  # None for a camera carried here by propagation
    fdir = Path(out_dir) / frame.id
    if cal is not None:
        cam_doc = cal.to_json()
        rms, notes = cal.fit.rms_px, "; ".join(cal.warnings)
    else:
        rec = doc.propagation()[doc.project.index_of(frame.id)]
        cam_doc = {**camera.to_dict(), "sport": spec.id, "rms_px": rec["rms_px"],
                   "propagation": {k: rec[k] for k in ("status", "reference", "centre",
                                                       "reason") if k in rec}}
        rms, notes = rec["rms_px"], state.message
    if state.inherited:
        cam_doc["static_camera_of"] = state.source_frame_id
    write_json_atomic(fdir / "camera.json", cam_doc)
    write_opencv_yaml(camera, fdir / "camera.yaml")
    ball, _ = lift_frame_ball(state, spec, ann)
    ball_rec = BallRecord(visible=False)
    if ball is None and (ann.ball is None or ann.ball.visible):
        index = doc.project.index_of(frame.id)
        flight, _ = doc.ball_flight_at(index)
        if flight is not None and flight.ok:  # between the annotated frames of a flight
            w = flight.position([index / doc.project.fps])[0]
            ball_rec = BallRecord(visible=True, uv=camera.project(w[None])[0], world=w,
                                  height_m=float(w[2] - spec.plane_z()),
                                  plane=spec.default_plane, method="flight_fit")
    if ball is not None:
        ball_rec = BallRecord(visible=True, uv=np.array(ann.ball.uv),
                              ground_uv=ball.uv_ground_snapped, world=ball.world,
                              height_m=ball.height_m, sigma_world_m=ball.sigma_world_m,
                              plane=ball.plane)
    ball_rec.status = _ball_status(ann, ball_rec)
    players = [_player_record(doc, camera, spec, p) for p in ann.players]
    if frame.image is not None:
        image_ref = os.path.relpath(doc.project.image_path(frame).resolve(), fdir.resolve())
    else:
        image_ref = os.path.relpath(doc.project.video_path(frame).resolve(), fdir.resolve()) \
            + f"#frame={frame.index}"
    scene = Scene(frame_id=frame.id, image=image_ref, image_size=ann.image_size,
                  spec_id=spec.id, camera=camera, camera_info=cam_doc, ball=ball_rec,
                  players=players, frame_index=frame.index, frame_phrase=spec.frame_phrase,
                  provenance={"project": doc.project.name}, match_id=doc.project.name,
                  clip_id=Path(frame.video).stem if frame.video else None,
                  spec_version=spec.raw.get("version", spec.raw.get("format_version")),
                  time_s=doc.project.index_of(frame.id) / doc.project.fps)
    save_scene(scene, fdir / "scene.json")
    if glb:
        write_glb(scene, spec, fdir / "scene.glb")
    if overlay:
        image = doc.frames.image(frame).copy()
        meshes = [RenderMesh(r.vertices_world, r.faces, (0.35, 0.7, 1.0)) for r in players
                  if r.vertices_world is not None and len(r.faces)]
        if meshes:  # the corrected player meshes, seen through
            image = render_meshes(image, camera, meshes, alpha=0.55)
        draw_court(image, camera, spec)
        if ann.points:
            draw_clicks(image, camera, spec, ann.points, cal.suspects if cal else ())
        if ball is not None:
            line = ground_projection_polyline(camera, ann.ball.uv, ball.plane_z)
            draw_ball(image, line, ann.ball.uv, ball.uv_ground_snapped)
        write_image(fdir / "overlay.png", image)
    s = FrameSummary(frame.id, spec.id, "ok", notes, focal_px=float(camera.K[0, 0]),
                     rms_px=rms,
                     ball_world=None if ball is None else [float(v) for v in ball.world],
                     ball_sigma_cm=None if ball is None else
                     [float(v) * 100 for v in ball.sigma_world_m])
    truth_path = doc.project.truth_path(frame.id)
    if truth_path.exists():
        truth = json.loads(truth_path.read_text())
        f_true = truth["camera"]["K"][0][0]
        s.focal_error_pct = 100 * (s.focal_px - f_true) / f_true
        if ball is not None:
            s.ball_error_cm = [float(v) * 100 for v in ball.world - np.array(
                truth["ball"]["world"])]
        true_players = {tp["id"]: tp for tp in truth.get("players", [])}
        errs = {p.id: 100 * float(np.linalg.norm(p.joints_world["pelvis"] - np.array(
            true_players[p.id]["joints_world"]["pelvis"])))
            for p in players if p.id in true_players and "pelvis" in p.joints_world}
        s.player_pelvis_error_cm = errs or None
    return s


def _ball_status(ann, rec: BallRecord) -> str:
    """not_annotated | not_visible | image_only (clicked, no 3D) | 3d (scene.json ball.status)."""
    if rec.visible:
        return "3d"
    if ann.ball is None:
        return "not_annotated"
    return "image_only" if ann.ball.visible and ann.ball.uv is not None else "not_visible"


def _player_record(doc: AnnotationDocument, camera, spec, p) -> PlayerRecord:
    """A player for the scene file: its box's foot point on the plane players stand on, and
    with a mesh the rescaled mesh, joints, scale and lowest-vertex height."""
    plane_z = spec.player_plane_z()
    rec = PlayerRecord(id=p.id, box_xyxy=np.array(p.box_xyxy),
                       ground_world=box_ground_point(camera, p.box_xyxy, plane_z),
                       source="box", role=getattr(p, "role", None) or "athlete")
    if p.mesh is None:
        return rec
    mesh = doc.player_mesh(p.mesh)
    w = world_player(camera, mesh, p.lowest_vertex_height_m, plane_z)
    rec.vertices_world, rec.faces, rec.scale = w.vertices_world, mesh.faces, w.scale
    rec.joints_world = w.joints_world if mesh.has_body_joints else {}
    facing = facing_from_joints({k: np.asarray(v)[None] for k, v in w.joints_world.items()})
    rec.facing_world = None if facing is None else facing[0]
    rec.lowest_vertex_height_m = float(w.lowest_vertex_world[2] - plane_z)
    rec.source = mesh.source
    return rec


def export_frames(doc: AnnotationDocument, frames: list[FrameRef], out_dir,
                  progress: Callable[[int, int, FrameSummary], bool] | None = None
                  ) -> list[FrameSummary]:
    """Export frames; ``progress(done, total, summary)`` returning False cancels. A frame
    that fails is reported and the others go on. Writes summary.json and COCO keypoints."""
    out_dir = Path(out_dir)
    out = []
    for i, frame in enumerate(frames):
        try:
            s = export_frame(doc, frame, out_dir)
        except ValueError as exc:
            s = FrameSummary(frame.id, frame.sport, "error", " ".join(str(exc).split()))
        out.append(s)
        if progress is not None and progress(i + 1, len(frames), s) is False:
            break
    export_coco(doc, frames, out_dir)
    write_json_atomic(out_dir / "summary.json", {"project": doc.project.name,
                                                 "frames": [vars(s) for s in out]})
    return out


def export_coco(doc: AnnotationDocument, frames: list[FrameRef], out_dir) -> list[Path]:
    """COCO keypoints of the clicked court points, one file per sport."""
    by_sport: dict[str, list] = {}
    for frame in frames:
        if not doc.has_annotation_file(frame.id):
            continue
        ann = doc.annotation(frame.id)
        if ann.points:
            by_sport.setdefault(frame.sport, []).append(
                {"id": frame.id, "file_name": frame.image or f"{frame.video}#{frame.index}",
                 "image_size": ann.image_size, "points": ann.points})
    return [write_coco_court_keypoints(Path(out_dir) / f"court_keypoints_{sport}.coco.json",
                                       sport, load_spec(sport).keypoint_names, items)
            for sport, items in by_sport.items()]

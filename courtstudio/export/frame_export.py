"""One frame's export: its camera files, scene (JSON + HDF5), GLB and overlay, and its status.

Assembles the frame's scene (camera, ball, players in the court world frame, metres) from an
AnnotationDocument and writes the outputs into one folder. The export folder around it (manifest,
per-frame swap-in, COCO keypoints, summary) is courtstudio/export/export_scenes.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import numpy as np

from courtstudio.editing.document import AnnotationDocument
from courtstudio.io.project import FrameRef
from courtstudio.pipeline.live_calibration import box_ground_point, lift_frame_ball
from courtstudio.pipeline.players import world_player
from exporters.mesh_render import RenderMesh, render_meshes
from exporters.opencv_yaml import write_opencv_yaml
from exporters.overlay import draw_ball, draw_clicks, draw_court, write_image
from exporters.scene import BallRecord, BallStatus, PlayerRecord, Scene, save_scene
from geometry.body_facing import facing_from_joints
from geometry.doctor import FitQuality
from geometry.labelling import WorldConvention
from geometry.rays import ground_projection_polyline
from safe_io.atomic import write_json_atomic
from safe_io.validation import read_json_file


class ExportStatus(StrEnum):
    """A frame's export status (the export manifest's ``frames.<id>.status``)."""

    OK = "ok"
    POOR = "poor"  # exported; residuals beyond what the click noise explains
    SKIPPED = "skipped"  # no camera: nothing written
    ERROR = "error"  # the frame failed: nothing of it kept


KEPT = frozenset({ExportStatus.OK, ExportStatus.POOR})  # statuses whose outputs are kept


@dataclass
class FrameSummary:
    frame_id: str
    sport: str
    status: ExportStatus
    message: str = ""
    focal_px: float | None = None
    rms_px: float | None = None
    ball_world: list | None = None
    ball_sigma_cm: list | None = None
    focal_error_pct: float | None = None
    ball_error_cm: list | None = None
    player_pelvis_error_cm: dict | None = None  # {player id: cm} where truth is known
    removed: list = field(default_factory=list)  # stale files of a previous export removed


OVERLAY_FORMATS = ("png", "jpg")
# what export_frame writes into a frame's folder (overlay.<png|jpg>)
OUTPUT_NAMES = frozenset(
    {
        "camera.json",
        "camera.yaml",
        "scene.json",
        "scene.h5",
        "scene.glb",
        "overlay.png",
        "overlay.jpg",
    }
)


def export_frame(
    doc: AnnotationDocument,
    frame: FrameRef,
    out_dir,
    overlay: bool = True,
    glb: bool = True,
    into=None,
    overlay_format: str = "png",
) -> FrameSummary:
    """Write ``out_dir/<frame id>/`` (or the folder ``into``, to be moved there):
    camera.json, camera.yaml, scene.json (+.h5), scene.glb, overlay.png (or .jpg). A frame
    without a camera is skipped (with the reason)."""
    if overlay_format not in OVERLAY_FORMATS:
        raise ValueError(
            f"overlay format {overlay_format!r}: expected one of {', '.join(OVERLAY_FORMATS)}"
        )
    spec = doc.spec(frame)
    ann = doc.annotation(frame.id)
    state = doc.camera_state(frame.id, diagnose=True)
    camera = state.camera
    if camera is None:
        return FrameSummary(frame.id, spec.id, ExportStatus.SKIPPED, state.message or "no camera")
    cal = state.calibration  # None for a camera carried here by propagation
    final_dir = Path(out_dir) / frame.id  # paths in the scene are relative to it
    fdir = Path(into) if into is not None else final_dir
    if cal is not None:
        cam_doc = cal.to_json()
        rms, notes = cal.fit.rms_px, "; ".join(cal.warnings)
    else:
        rec = doc.propagation()[doc.project.index_of(frame.id)]
        cam_doc = {
            **camera.to_dict(),
            "sport": spec.id,
            "rms_px": rec["rms_px"],
            "propagation": {
                k: rec[k] for k in ("status", "reference", "centre", "reason") if k in rec
            },
        }
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
            ball_rec = BallRecord(
                visible=True,
                uv=camera.project(w[None])[0],
                world=w,
                height_m=float(w[2] - spec.plane_z()),
                plane=spec.default_plane,
                method="flight_fit",
            )
    if ball is not None:
        ball_rec = BallRecord(
            visible=True,
            uv=np.array(ann.ball.uv),
            ground_uv=ball.uv_ground_snapped,
            world=ball.world,
            height_m=ball.height_m,
            sigma_world_m=ball.sigma_world_m,
            plane=ball.plane,
        )
    ball_rec.status = _ball_status(ann, ball_rec)
    players = [_player_record(doc, camera, spec, p) for p in ann.players]
    if frame.image is not None:
        image_ref = os.path.relpath(doc.project.image_path(frame).resolve(), final_dir.resolve())
    else:
        image_ref = (
            os.path.relpath(doc.project.video_path(frame).resolve(), final_dir.resolve())
            + f"#frame={frame.index}"
        )
    convention = (
        cal.world_convention
        if cal is not None
        else WorldConvention(spec.broadcast_view, spec.length_m, spec.width_m).name_for(
            camera.camera_centre_world
        )
    )
    scene = Scene(
        frame_id=frame.id,
        image=image_ref,
        image_size=ann.image_size,
        spec_id=spec.id,
        camera=camera,
        camera_info=cam_doc,
        ball=ball_rec,
        players=players,
        frame_index=frame.index,
        frame_phrase=spec.frame_phrase_for(convention),
        world_convention=convention,
        provenance={"project": doc.project.name},
        match_id=doc.project.raw.get("match_id") or doc.project.name,
        clip_id=doc.project.raw.get("clip_id") or (Path(frame.video).stem if frame.video else None),
        spec_version=spec.raw.get("version", spec.raw.get("format_version")),
        time_s=doc.project.index_of(frame.id) / doc.project.fps,
    )
    save_scene(scene, fdir / "scene.json")
    if glb:
        from exporters.glb import write_glb  # trimesh: 1.2 s to import, only when exporting

        write_glb(scene, spec, fdir / "scene.glb")
    if overlay:
        image = doc.frames.image(frame).copy()
        meshes = [
            RenderMesh(r.vertices_world, r.faces, (0.35, 0.7, 1.0))
            for r in players
            if r.vertices_world is not None and len(r.faces)
        ]
        if meshes:  # the corrected player meshes, seen through
            image = render_meshes(image, camera, meshes, alpha=0.55)
        draw_court(image, camera, spec)
        if ann.points:
            draw_clicks(image, camera, spec, ann.points, cal.suspects if cal else ())
        if ball is not None:
            line = ground_projection_polyline(camera, ann.ball.uv, ball.plane_z)
            draw_ball(image, line, ann.ball.uv, ball.uv_ground_snapped)
        write_image(fdir / f"overlay.{overlay_format}", image)
    poor = cal is not None and cal.quality == FitQuality.POOR
    status = ExportStatus.POOR if poor else ExportStatus.OK
    s = FrameSummary(
        frame.id,
        spec.id,
        status,
        notes,
        focal_px=float(camera.K[0, 0]),
        rms_px=rms,
        ball_world=None if ball is None else [float(v) for v in ball.world],
        ball_sigma_cm=None if ball is None else [float(v) * 100 for v in ball.sigma_world_m],
    )
    truth_path = doc.project.truth_path(frame.id)
    if truth_path.exists():
        try:  # optional ground truth: a malformed file is noted, the frame still exports
            truth = read_json_file(truth_path, ValueError, "truth file")
            f_true = truth["camera"]["K"][0][0]
            s.focal_error_pct = 100 * (s.focal_px - f_true) / f_true
            if ball is not None:
                s.ball_error_cm = [
                    float(v) * 100
                    for v in ball.world - np.array(truth["ball"]["world"], float).reshape(3)
                ]
            true_players = {tp["id"]: tp for tp in truth.get("players", [])}
            errs = {
                p.id: 100
                * float(
                    np.linalg.norm(
                        p.joints_world["pelvis"]
                        - np.array(true_players[p.id]["joints_world"]["pelvis"], float).reshape(3)
                    )
                )
                for p in players
                if p.id in true_players and "pelvis" in p.joints_world
            }
            s.player_pelvis_error_cm = errs or None
        except (
            ValueError,
            KeyError,
            TypeError,
            IndexError,
            ZeroDivisionError,
            AttributeError,
        ) as exc:
            s.focal_error_pct = s.ball_error_cm = s.player_pelvis_error_cm = None
            why = exc if isinstance(exc, ValueError) else f"malformed ({type(exc).__name__})"
            s.message = "; ".join(m for m in (s.message, f"truth file ignored: {why}") if m)
    return s


def _ball_status(ann, rec: BallRecord) -> BallStatus:
    """The scene file's ball.status (IMAGE_ONLY: clicked, no 3D)."""
    if rec.visible:
        return BallStatus.IN_3D
    if ann.ball is None:
        return BallStatus.NOT_ANNOTATED
    return (
        BallStatus.IMAGE_ONLY
        if ann.ball.visible and ann.ball.uv is not None
        else BallStatus.NOT_VISIBLE
    )


def _player_record(doc: AnnotationDocument, camera, spec, p) -> PlayerRecord:
    """A player for the scene file: its box's foot point on the plane players stand on, and
    with a mesh the rescaled mesh, joints, scale and lowest-vertex height."""
    plane_z = spec.player_plane_z()
    rec = PlayerRecord(
        id=p.id,
        box_xyxy=np.array(p.box_xyxy),
        ground_world=box_ground_point(camera, p.box_xyxy, plane_z),
        source="box",
        role=getattr(p, "role", None) or "athlete",
    )
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

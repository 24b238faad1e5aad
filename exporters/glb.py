"""A frame's 3D scene as binary glTF (GLB), viewable in any glTF viewer.

Court surface, painted lines (thin ribbons), net, ball, player meshes and the camera as a
small frustum. glTF is y-up: every node carries the rotation (x, y, z)_world -> (x, z, -y), so
the court lies flat in viewers while coordinates stay metres of the world frame.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import trimesh
from trimesh.visual.material import PBRMaterial

from exporters.scene import Scene
from geometry.ribbons import ribbon_quads
from safe_io.atomic import write_bytes_atomic

Z_UP_TO_Y_UP = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1.0]])
LINE_WIDTH_M = 0.05
LIFT_M = 0.003  # lines float this far above the surface so viewers do not z-fight


def _material(rgba, blend=False):
    return PBRMaterial(
        baseColorFactor=[float(c) for c in rgba],
        metallicFactor=0.0,
        roughnessFactor=0.9,
        alphaMode="BLEND" if blend else "OPAQUE",
        doubleSided=True,
    )


def _with_material(mesh: trimesh.Trimesh, rgba, blend=False) -> trimesh.Trimesh:
    mesh.visual = trimesh.visual.TextureVisuals(material=_material(rgba, blend))
    return mesh


def _quad(p0, p1, p2, p3) -> trimesh.Trimesh:
    return trimesh.Trimesh(
        vertices=np.array([p0, p1, p2, p3], float), faces=[[0, 1, 2], [0, 2, 3]], process=False
    )


def _ribbons(polylines, lift_m, width) -> trimesh.Trimesh | None:
    quads = [_quad(*(q + [0.0, 0.0, lift_m])) for pl in polylines for q in ribbon_quads(pl, width)]
    return trimesh.util.concatenate(quads) if quads else None


def court_meshes(spec) -> dict[str, trimesh.Trimesh]:
    """Named meshes of the court: surface, lines, net (if any), rings (basketball)."""
    L, W = spec.length_m, spec.width_m
    m = max(2.0, 0.15 * L)
    out = {
        "surface": _with_material(
            _quad([-m, -m, 0], [L + m, -m, 0], [L + m, W + m, 0], [-m, W + m, 0]),
            [0.18, 0.42, 0.30, 1],
        )
    }
    lines = _ribbons(spec.lines.values(), LIFT_M, LINE_WIDTH_M)
    if lines is not None:
        out["lines"] = _with_material(lines, [0.95, 0.95, 0.95, 1])
    if spec.net is not None:
        left = np.asarray(spec.net["post_left_top"], float)
        right = np.asarray(spec.net["post_right_top"], float)
        hc = float(spec.net["height_at_centre_m"])
        mid = (left + right) / 2
        mid[2] = hc
        net = trimesh.util.concatenate(
            [
                _quad([left[0], left[1], 0], [mid[0], mid[1], 0], mid, left),
                _quad([mid[0], mid[1], 0], [right[0], right[1], 0], right, mid),
            ]
        )
        out["net"] = _with_material(net, [0.1, 0.1, 0.1, 0.45], blend=True)
        posts = []
        for p in (left, right):
            c = trimesh.creation.cylinder(radius=0.04, height=p[2])
            c.apply_translation([p[0], p[1], p[2] / 2])
            posts.append(c)
        out["net_posts"] = _with_material(trimesh.util.concatenate(posts), [0.3, 0.3, 0.3, 1])
    rings = [v for k, v in spec.keypoints.items() if k.endswith("ring_centre")]
    if rings:
        tori = []
        for r in rings:
            t = trimesh.creation.annulus(r_min=0.215, r_max=0.235, height=0.02)
            t.apply_translation(r)
            tori.append(t)
        out["rings"] = _with_material(trimesh.util.concatenate(tori), [0.9, 0.4, 0.1, 1])
    return out


def camera_frustum(camera, depth_m: float = 1.5) -> trimesh.Trimesh:
    """An open pyramid from the camera centre to the image corners at depth_m (world frame)."""
    w, h = camera.image_size
    # the image corners' true rays (undistorted: a wide-angle lens sees more than K says)
    corners_px = camera.undistort_uv(
        np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    )
    corners = np.column_stack([corners_px, np.ones(4)]) @ np.linalg.inv(camera.K).T * depth_m
    pts = camera.cam_to_world(np.vstack([[0, 0, 0], corners]))
    faces = [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1]]
    return trimesh.Trimesh(vertices=pts, faces=faces, process=False)


def scene_to_glb_bytes(scene: Scene, spec) -> bytes:
    """Binary glTF of the scene (court, net, ball, players, camera)."""
    ts = trimesh.Scene()
    for name, mesh in court_meshes(spec).items():
        ts.add_geometry(mesh, node_name=name, geom_name=name, transform=Z_UP_TO_Y_UP)
    if scene.ball.visible and scene.ball.world is not None:
        ball = trimesh.creation.icosphere(subdivisions=2, radius=max(spec.ball_radius_m, 0.03))
        ball.apply_translation(scene.ball.world)
        ts.add_geometry(
            _with_material(ball, [0.85, 0.95, 0.2, 1]),
            node_name="ball",
            geom_name="ball",
            transform=Z_UP_TO_Y_UP,
        )
    for p in scene.players:
        if p.vertices_world is None:
            continue
        mesh = trimesh.Trimesh(vertices=p.vertices_world, faces=p.faces, process=False)
        name = f"player_{p.id}"
        ts.add_geometry(
            _with_material(mesh, [0.8, 0.55, 0.45, 1]),
            node_name=name,
            geom_name=name,
            transform=Z_UP_TO_Y_UP,
        )
    ts.add_geometry(
        _with_material(camera_frustum(scene.camera), [0.2, 0.5, 1.0, 0.6], True),
        node_name="camera",
        geom_name="camera",
        transform=Z_UP_TO_Y_UP,
    )
    for name, geom in ts.geometry.items():
        if not np.isfinite(np.asarray(geom.vertices, float)).all():
            raise ValueError(f"GLB export: {name} has non-finite coordinates")
    data = ts.export(file_type="glb")
    check_glb_json(data)
    return data


def check_glb_json(data: bytes) -> dict:
    """The JSON chunk of a GLB, parsed strictly (NaN/Infinity refused): a GLB CourtStudio
    writes is always valid glTF JSON. Raises ValueError otherwise."""
    if len(data) < 20 or data[:4] != b"glTF":
        raise ValueError("GLB export: not a binary glTF")
    length, ctype = struct.unpack_from("<I4s", data, 12)
    if ctype != b"JSON" or 20 + length > len(data):
        raise ValueError("GLB export: the first chunk is not JSON")

    def refuse(text):
        raise ValueError(f"GLB export: the glTF JSON holds {text}")

    return json.loads(data[20 : 20 + length].decode("utf-8"), parse_constant=refuse)


def write_glb(scene: Scene, spec, path) -> Path:
    write_bytes_atomic(path, scene_to_glb_bytes(scene, spec))
    return Path(path)

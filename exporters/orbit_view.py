"""A CPU-rendered orbit view of a reconstructed frame: court, net, ball, players, camera.

Drawn with the same projection code as the overlays (no OpenGL needed), so the app's 3D view
works on any machine and in offscreen tests. Players with a mesh are drawn as shaded
triangles (painter's order); players known only by their box appear as a marker at their
foot point: we never invent a body.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from exporters.overlay import NET_BGR, draw_polyline_world
from exporters.zbuffer import fill_nearest
from geometry.camera import Camera, rotation_look_at
from geometry.projection import project_polygon

BACKGROUND_BGR = (48, 40, 36)
SURFACE_BGR = (90, 120, 70)
COURT_BGR = (130, 95, 60)
LINE_BGR = (235, 235, 235)
BALL_BGR = (40, 230, 240)
PLAYER_BGR = (120, 160, 230)
CAMERA_BGR = (255, 170, 60)


@dataclass
class OrbitPlayer:
    id: int
    ground_world: np.ndarray | None  # (3,)
    vertices_world: np.ndarray | None = None  # (V, 3)
    faces: np.ndarray | None = None  # (F, 3)


def orbit_camera(
    spec,
    azimuth_rad: float,
    elevation_rad: float,
    distance_m: float,
    size=(640, 400),
    fov_deg: float = 50.0,
) -> Camera:
    """A camera on a sphere around the court centre. azimuth 0 looks from the near side (+x),
    positive turns toward +y; elevation from the horizontal, clipped to (2, 89) degrees."""
    el = float(np.clip(elevation_rad, np.deg2rad(2), np.deg2rad(89)))
    target = np.array([spec.length_m / 2, spec.width_m / 2, 0.0])
    C = target + distance_m * np.array(
        [np.cos(el) * np.cos(azimuth_rad), np.cos(el) * np.sin(azimuth_rad), np.sin(el)]
    )
    R = rotation_look_at(C, target)
    w, h = size
    f = (w / 2) / np.tan(np.deg2rad(fov_deg) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
    return Camera(K=K, R=R, t=-R @ C, image_size=(w, h))


def _fill(img, uv, bgr):
    if len(uv) >= 3 and np.all(np.isfinite(uv)):
        cv2.fillPoly(
            img, [np.round(uv * 16).astype(np.int32).reshape(-1, 1, 2)], bgr, cv2.LINE_AA, 4
        )


def render_orbit_view(
    spec,
    view: Camera,
    frame_camera: Camera | None = None,
    ball_world=None,
    players: list[OrbitPlayer] = (),
) -> np.ndarray:
    """(h, w, 3) uint8 BGR image of the scene seen from ``view``."""
    w, h = view.image_size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = BACKGROUND_BGR
    L, W = spec.length_m, spec.width_m
    z0 = spec.plane_z()
    m = max(2.0, 0.15 * L)
    _fill(
        img,
        project_polygon(
            view, np.array([[-m, -m, z0], [L + m, -m, z0], [L + m, W + m, z0], [-m, W + m, z0]])
        ),
        SURFACE_BGR,
    )
    _fill(
        img,
        project_polygon(view, np.array([[0, 0, z0], [L, 0, z0], [L, W, z0], [0, W, z0]], float)),
        COURT_BGR,
    )
    for pl in spec.lines.values():
        draw_polyline_world(img, view, pl, LINE_BGR, 1)
    for pl in spec.net_box_world():
        draw_polyline_world(img, view, pl, NET_BGR, 2)
    if frame_camera is not None:
        _draw_frustum(img, view, frame_camera)
    _fill_players(img, view, players)  # one depth buffer: players hide one another
    for p in players:
        _draw_player_mark(img, view, p, z0)
    if ball_world is not None:
        b = np.asarray(ball_world, float)
        foot = b.copy()
        foot[2] = z0
        draw_polyline_world(img, view, np.array([foot, b]), BALL_BGR, 1)
        uv = view.project(b[None])[0]
        depth = view.world_to_cam(b[None])[0, 2]
        if np.all(np.isfinite(uv)) and depth > 0:
            r = max(3, int(view.K[0, 0] * max(spec.ball_radius_m, 0.03) / depth))
            cv2.circle(img, tuple(np.round(uv).astype(int)), r, BALL_BGR, -1, cv2.LINE_AA)
    return img


def _draw_frustum(img, view: Camera, cam: Camera, depth_m: float = 2.0):
    w, h = cam.image_size
    # the image corners' true rays (undistorted: a wide-angle lens sees more than K says)
    corners_px = cam.undistort_uv(
        np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    )
    corners = np.column_stack([corners_px, np.ones(4)]) @ np.linalg.inv(cam.K).T * depth_m
    P = cam.cam_to_world(corners)
    C = cam.camera_centre_world
    for p in P:
        draw_polyline_world(img, view, np.array([C, p]), CAMERA_BGR, 1)
    draw_polyline_world(img, view, np.vstack([P, P[:1]]), CAMERA_BGR, 1)


def _fill_players(img, view: Camera, players) -> None:
    """Every player mesh's triangles in front of ``view``, flat-shaded, drawn with one depth
    buffer (exporters.zbuffer)."""
    uvs, depths, faces, colours = [], [], [], []
    offset = 0
    for p in players:
        if p.vertices_world is None or p.faces is None or not len(p.faces):
            continue
        V = np.asarray(p.vertices_world, float)
        depth = view.world_to_cam(V)[:, 2]
        uv = view.project(V)
        F = np.asarray(p.faces)
        ok = np.all(depth[F] > 0.05, axis=1) & np.all(
            np.isfinite(uv[F]).reshape(len(F), -1), axis=1
        )
        F = F[ok]
        tri = V[F]
        normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        normals /= np.linalg.norm(normals, axis=1, keepdims=True) + 1e-12
        shade = 0.45 + 0.55 * np.abs(normals @ np.array([0.3, 0.2, 0.93]))
        uvs.append(uv)
        depths.append(depth)
        faces.append(F + offset)
        colours.append((shade[:, None] * np.array(PLAYER_BGR, float)).astype(np.uint8))
        offset += len(V)
    if faces:
        fill_nearest(
            img,
            np.concatenate(uvs),
            np.concatenate(depths),
            np.concatenate(faces),
            np.concatenate(colours),
        )


def _draw_player_mark(img, view: Camera, p: OrbitPlayer, z0: float) -> None:
    """The player's label at the mesh's top, or a ring at its ground point without a mesh."""
    if p.vertices_world is not None and p.faces is not None and len(p.faces):
        V = np.asarray(p.vertices_world, float)
        anchor = V[np.argmax(V[:, 2])]
    elif p.ground_world is not None:
        g = np.asarray(p.ground_world, float)
        ring = np.array(
            [
                [g[0] + 0.35 * np.cos(a), g[1] + 0.35 * np.sin(a), z0]
                for a in np.linspace(0, 2 * np.pi, 25)
            ]
        )
        draw_polyline_world(img, view, ring, PLAYER_BGR, 2)
        anchor = g
    else:
        return
    uv = view.project(np.asarray(anchor, float)[None])[0]
    if np.all(np.isfinite(uv)):
        cv2.putText(
            img,
            f"P{p.id}",
            tuple(np.round(uv + [6, -6]).astype(int)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            PLAYER_BGR,
            1,
            cv2.LINE_AA,
        )

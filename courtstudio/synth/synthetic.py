"""Synthetic broadcast frames with known cameras: the ground truth for tests and benchmarks.

Cameras sit elevated behind the near baseline (x > L), or for side-view sports
(``spec.broadcast_view == 'side'``) beyond the near sideline (y < 0) near the halfway line
(docs/frames.md), look at the middle of the court with a small roll, and zoom so the paper's six
keypoints (or, without a net, the corners and rings)
fill most of the frame, as broadcast framing does. Images show the surround, the court
surface, painted lines with their real widths, the net and the ball, drawn with sub-pixel
anti-aliasing from the spec, so a click on a rendered corner is a click on the true corner.

Everything per sport comes from the spec (docs/court_specs.md, "Drawing and synthesis"): the
camera and ball ranges and colours (``spec.synthesis``), the line widths, the net posts' radius,
and a raised playing surface (``spec.raised_surface``: a table, drawn with its edge, hiding
players, who stand on the floor behind its ends).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from court_specs import CourtSpec
from geometry.camera import Camera, rotation_look_at
from geometry.projection import project_polygon
from geometry.ribbons import ribbon_quads

FRAMING_MARGIN = 0.04
FAR_PLAYER_PROBE_M = (1.0, 1.8)  # pelvis and head heights above the floor kept in frame


def sample_broadcast_camera(
    spec: CourtSpec,
    image_size=(1920, 1080),
    rng=None,
    zoom=(0.80, 0.97),
    frame_players: bool = False,
    k1: float = 0.0,
) -> Camera:
    """A random broadcast camera for the spec (see module doc). rng: numpy Generator.
    frame_players: also keep the far player's pelvis and head in frame where the court alone
    would crop them (a raised surface: players stand behind the table). k1: OpenCV's first radial
    coefficient (normalised coordinates; wide-angle lenses -0.3..-0.05, 0 = pinhole), applied
    after framing (barrel distortion pulls the court inward, so it stays in frame)."""
    rng = rng or np.random.default_rng()
    pre = spec.synthesis
    L, W = spec.length_m, spec.width_m
    back, lateral, height = (
        rng.uniform(*pre.camera_distance_m),
        rng.uniform(-1, 1),
        rng.uniform(*pre.camera_height_m),
    )
    if spec.broadcast_view in ("side", "auto"):
        C = np.array([L / 2 + lateral * 0.15 * L, -back, height])
    else:
        C = np.array([L + back, W / 2 + lateral * pre.camera_lateral_m, height])
    target = np.array([L * rng.uniform(0.42, 0.58), W / 2 + rng.uniform(-0.05, 0.05) * W, 0.0])
    roll = np.deg2rad(np.clip(rng.normal(0.0, 1.0), -2.0, 2.0))
    R = rotation_look_at(C, target, roll)
    t = -R @ C
    w, h = image_size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    # a broadcast view keeps the paper's minimum annotation in frame
    P = np.array([spec.keypoints[n] for n in spec.minimal_keypoints])
    if frame_players and spec.raised_surface is not None:
        z_floor = spec.plane_z(spec.raised_surface.floor_plane)
        P = np.vstack([P, [[-1.0, W / 2, z_floor + h] for h in FAR_PLAYER_PROBE_M]])
    Xc = P @ R.T + t
    xn = np.abs(Xc[:, 0] / Xc[:, 2])
    yn = np.abs(Xc[:, 1] / Xc[:, 2])
    f_max = min(
        np.min((c[0] * (1 - FRAMING_MARGIN)) / np.maximum(xn, 1e-9)),
        np.min((c[1] * (1 - FRAMING_MARGIN)) / np.maximum(yn, 1e-9)),
    )
    f = f_max * rng.uniform(*zoom)
    K = np.array([[f, 0, c[0]], [0, f, c[1]], [0, 0, 1.0]])
    return Camera(K=K, R=R, t=t, image_size=image_size, dist=[float(k1), 0, 0, 0, 0])


def visible_keypoints(spec: CourtSpec, camera: Camera, margin_px: float = 2.0) -> dict:
    """{name: (2,) px} of the keypoints in front of the camera and inside the image."""
    names = list(spec.keypoints)
    uv = camera.project(np.array([spec.keypoints[n] for n in names]))
    ok = camera.in_image(uv, -margin_px) & np.all(np.isfinite(uv), axis=1)
    return {n: uv[i] for i, n in enumerate(names) if ok[i]}


def sample_ball(spec: CourtSpec, rng) -> np.ndarray:
    """(3,) a ball position over the court (world, metres)."""
    return np.array(
        [
            rng.uniform(0, spec.length_m),
            rng.uniform(0, spec.width_m),
            spec.plane_z() + rng.uniform(*spec.synthesis.ball_height_m),
        ]
    )


def _fill(img, uv, bgr, alpha=1.0):
    if len(uv) < 3 or not np.all(np.isfinite(uv)):
        return
    pts = np.round(uv * 16).astype(np.int32).reshape(-1, 1, 2)
    if alpha >= 1.0:
        cv2.fillPoly(img, [pts], bgr, cv2.LINE_AA, 4)
        return
    layer = img.copy()
    cv2.fillPoly(layer, [pts], bgr, cv2.LINE_AA, 4)
    cv2.addWeighted(layer, alpha, img, 1 - alpha, 0, dst=img)


def render_frame(spec: CourtSpec, camera: Camera, ball_world=None, rng=None) -> np.ndarray:
    """(h, w, 3) uint8 BGR image of the court seen by ``camera`` (see module doc)."""
    rng = rng or np.random.default_rng(0)
    w, h = camera.image_size
    img = np.empty((h, w, 3), np.uint8)
    colours = spec.synthesis.colours_bgr
    img[:] = colours["background"]
    L, W = spec.length_m, spec.width_m
    m = max(3.0, 0.2 * L)
    raised = spec.raised_surface
    if raised is not None:
        z_floor, d = spec.plane_z(raised.floor_plane), raised.thickness_m
        _fill(
            img,
            project_polygon(
                camera,
                np.array(
                    [
                        [-m, -m, z_floor],
                        [L + m, -m, z_floor],
                        [L + m, W + m, z_floor],
                        [-m, W + m, z_floor],
                    ]
                ),
            ),
            colours["surround"],
        )
        # the table's near and side faces (its top's thickness)
        for quad in (
            [[L, 0, 0], [L, W, 0], [L, W, -d], [L, 0, -d]],
            [[0, 0, 0], [L, 0, 0], [L, 0, -d], [0, 0, -d]],
            [[0, W, 0], [L, W, 0], [L, W, -d], [0, W, -d]],
        ):
            _fill(img, project_polygon(camera, np.array(quad, float)), colours["surface_edge"])
    else:
        surround = np.array([[-m, -m, 0], [L + m, -m, 0], [L + m, W + m, 0], [-m, W + m, 0]])
        _fill(img, project_polygon(camera, surround), colours["surround"])
    _fill(
        img,
        project_polygon(camera, np.array([[0, 0, 0], [L, 0, 0], [L, W, 0], [0, W, 0]], float)),
        colours["surface"],
    )
    for name, pl in spec.lines.items():
        if name == "net_line":
            continue
        for quad in ribbon_quads(pl, spec.line_width(name), extend_ends=True):
            _fill(img, project_polygon(camera, quad), colours["lines"])
    if spec.net is not None:
        left = np.asarray(spec.net["post_left_top"], float)
        right = np.asarray(spec.net["post_right_top"], float)
        z0 = spec.plane_z()
        mid = (left + right) / 2
        mid[2] = z0 + float(spec.net["height_at_centre_m"])
        for a, b in ((left, mid), (mid, right)):
            quad = np.array([[a[0], a[1], z0], [b[0], b[1], z0], b, a])
            _fill(img, project_polygon(camera, quad), (30, 30, 30), alpha=0.45)
            band_m = min(0.05, 0.2 * float(spec.net["height_at_centre_m"]))
            band = np.array([a, b, b - [0, 0, band_m], a - [0, 0, band_m]])
            _fill(img, project_polygon(camera, band), (245, 245, 245))
        for p in (left, right):
            post_r = spec.net_post_radius_m
            quad = np.array(
                [
                    [p[0], p[1] - post_r, z0],
                    [p[0], p[1] + post_r, z0],
                    [p[0], p[1] + post_r, p[2]],
                    [p[0], p[1] - post_r, p[2]],
                ]
            )
            _fill(img, project_polygon(camera, quad), (50, 50, 50))
    if ball_world is not None:
        _draw_ball(img, camera, np.asarray(ball_world, float), spec.ball_radius_m)
    noisy = rng.normal(0, 3.0, img.shape)
    noisy += img  # img + noise, in place
    np.clip(noisy, 0, 255, out=noisy)
    return noisy.astype(np.uint8)


def _draw_ball(img, camera: Camera, ball_world, radius_m):
    depth = camera.world_to_cam(ball_world[None])[0, 2]
    if depth <= 0:
        return
    uv = camera.project(ball_world[None])[0]
    r_px = max(1.5, camera.K[0, 0] * radius_m / depth)
    c = tuple(np.round(uv * 16).astype(int))
    cv2.circle(img, c, int(round(r_px * 16)), (40, 230, 230), -1, cv2.LINE_AA, 4)
    hl = tuple(np.round((uv - r_px * 0.3) * 16).astype(int))
    cv2.circle(img, hl, int(round(r_px * 0.4 * 16)), (180, 255, 255), -1, cv2.LINE_AA, 4)


def _occluders(spec: CourtSpec) -> list:
    """Scene geometry that can stand in front of a player: a raised surface's slab (a table's
    top)."""
    if spec.raised_surface is None:
        return []
    import trimesh

    from exporters.mesh_render import RenderMesh

    d = spec.raised_surface.thickness_m
    slab = trimesh.creation.box(extents=[spec.length_m, spec.width_m, d])
    slab.apply_translation([spec.length_m / 2, spec.width_m / 2, -d / 2])
    return [RenderMesh(np.asarray(slab.vertices), np.asarray(slab.faces))]


@dataclass(frozen=True)
class SyntheticPlayer:
    """A ground-truth player: world mesh (V, 3) + faces, our six joints, the pose name, the
    plane it stands on and the height of its lowest vertex above it, its image box (xyxy)."""

    id: int
    vertices_world: np.ndarray
    faces: np.ndarray
    joints_world: dict
    pose: str
    plane: str
    lowest_vertex_height_m: float
    box_xyxy: tuple

    def truth_json(self) -> dict:
        return {
            "id": self.id,
            "pose": self.pose,
            "plane": self.plane,
            "lowest_vertex_height_m": self.lowest_vertex_height_m,
            "box_xyxy": list(self.box_xyxy),
            "joints_world": {k: v.tolist() for k, v in self.joints_world.items()},
        }


@dataclass(frozen=True)
class SyntheticFrame:
    image: np.ndarray  # (h, w, 3) uint8 BGR
    camera: Camera
    ball_world: np.ndarray  # (3,)
    keypoints_uv: dict  # visible keypoints, true pixels
    players: tuple = ()

    def truth_json(self, spec: CourtSpec) -> dict:
        ground = self.ball_world.copy()
        ground[2] = spec.plane_z()
        return {
            "format": "courtstudio.truth",
            "format_version": 1,
            "sport": spec.id,
            "camera": self.camera.to_dict(),
            "ball": {
                "world": self.ball_world.tolist(),
                "uv": self.camera.project(self.ball_world[None])[0].tolist(),
                "ground_uv": self.camera.project(ground[None])[0].tolist(),
                "plane": spec.default_plane,
            },
            "keypoints_uv": {k: v.tolist() for k, v in self.keypoints_uv.items()},
            "players": [p.truth_json() for p in self.players],
        }


PLAYER_POSES = {"standing": 0.5, "lunge": 0.3, "jump": 0.2}
MIN_VISIBLE = 0.7


def sample_players(spec: CourtSpec, camera: Camera, rng, count: int) -> list[SyntheticPlayer]:
    """``count`` Anny players (random phenotype and pose) where players stand: on the court,
    or on the floor behind the ends of a raised surface (table tennis). At least MIN_VISIBLE of each
    body, and its pelvis, are inside the image (tight table-tennis framing cuts players off,
    as broadcasts do); boxes are clipped to the image."""
    from courtstudio.io.settings import Settings
    from courtstudio.pipeline.players import box_iou
    from hmr.anny_body import AnnyBody, place_on_court

    body = AnnyBody(Settings.load().anny_cache_dir)
    L, W = spec.length_m, spec.width_m
    players: list[SyntheticPlayer] = []
    tries = 0
    while len(players) < count and tries < 50 * count:
        tries += 1
        if spec.raised_surface is not None:
            plane = spec.raised_surface.floor_plane
            side = len(players) % 2
            x = -rng.uniform(0.4, 1.5) if side == 0 else L + rng.uniform(0.4, 1.5)
            xy = (x, rng.uniform(0.0, W))
            facing = 0.0 if side == 0 else np.pi
        else:
            plane = spec.default_plane
            far = len(players) % 2 == 0
            xy = (
                rng.uniform(-0.05, 0.45) * L if far else rng.uniform(0.55, 1.05) * L,
                rng.uniform(0.05, 0.95) * W,
            )
            facing = (0.0 if far else np.pi) + rng.uniform(-0.6, 0.6)
        pose = str(rng.choice(list(PLAYER_POSES), p=list(PLAYER_POSES.values())))
        lift = float(rng.uniform(0.15, 0.45)) if pose == "jump" else 0.0
        sample = body.sample(
            pose,
            {
                "gender": rng.uniform(0, 1),
                "height": rng.uniform(0.4, 1),
                "muscle": rng.uniform(0.3, 0.9),
                "weight": rng.uniform(0.3, 0.7),
            },
        )
        V, J = place_on_court(sample, xy, facing, lift, spec.plane_z(plane))
        uv = camera.project(V)
        inside = camera.in_image(uv, -4) & np.all(np.isfinite(uv), axis=1)
        pelvis_uv = camera.project(J["pelvis"][None])
        if inside.mean() < MIN_VISIBLE or not camera.in_image(pelvis_uv, -4)[0]:
            continue
        w, h = camera.image_size
        vis = uv[inside]
        box = (
            max(-0.5, float(vis[:, 0].min() - 2)),
            max(-0.5, float(vis[:, 1].min() - 2)),
            min(w - 0.5, float(vis[:, 0].max() + 2)),
            min(h - 0.5, float(vis[:, 1].max() + 2)),
        )
        if any(box_iou(box, p.box_xyxy) > 0.05 for p in players):
            continue
        players.append(
            SyntheticPlayer(len(players) + 1, V, sample.faces, J, pose, plane, lift, box)
        )
    return players


def make_synthetic_frame(
    spec: CourtSpec, rng, image_size=(1920, 1080), render=True, players: int = 0, k1: float = 0.0
) -> SyntheticFrame:
    """A broadcast frame; with ``players`` > 0, Anny players rendered into it (pyrender with
    EGL, or the CPU fallback; pinhole only: with k1 the players are not distorted). k1: the
    lens's radial distortion (sample_broadcast_camera)."""
    cam = sample_broadcast_camera(spec, image_size, rng, frame_players=players > 0, k1=k1)
    ball = sample_ball(spec, rng)
    people = sample_players(spec, cam, rng, players) if players else []
    if render:
        img = render_frame(spec, cam, None, rng)
        if people:
            from exporters.mesh_render import RenderMesh, render_meshes

            img = render_meshes(
                img,
                cam,
                [RenderMesh(p.vertices_world, p.faces) for p in people],
                occluders=_occluders(spec),
            )
        _draw_ball(img, cam, ball, spec.ball_radius_m)
    else:
        img = np.zeros((0, 0, 3), np.uint8)
    return SyntheticFrame(
        image=img,
        camera=cam,
        ball_world=ball,
        keypoints_uv=visible_keypoints(spec, cam),
        players=tuple(people),
    )

"""The 3D entities questions are about, nominal and Monte-Carlo sampled.

Every quantity has a leading sample axis: index 0 is the scene as saved (the answer), indices
1..S are draws of the calibration (the scene's ``camera.covariance``) and of the clicks (the
calibration's click sigma, px). Per draw the ball is re-lifted from its two clicks, box-only
players are re-projected from their box's bottom-centre, and mesh players are rescaled about the
drawn camera's centre so that their lowest vertex keeps its annotated height (the CourtSI
correction), their camera-frame shape fixed. A camera without a covariance (propagated, or from
another tool) is not drawn: only the clicks are.

All positions are metres, world frame of the court spec (docs/frames.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from exporters.scene import BallStatus
from geometry.body_facing import facing_from_joints  # noqa: F401 (re-exported)
from geometry.camera import Camera
from geometry.errors import GeometryError
from geometry.rays import intersect_rays_with_plane, lift_ball, pixel_rays_world
from geometry.uncertainty import ParamCovariance
from qa.scenes import QAScene

BODY_PARTS = ("pelvis", "head", "left_hand", "right_hand", "left_foot", "right_foot")
MAX_FAILED_DRAWS = 0.05  # more failed lifts than this: the entity is too uncertain to ask about


@dataclass
class PlayerEntity:
    """serial: the number on the image. parts: name -> (S+1, 3); always has 'ground' (the
    point on the plane players stand on); facing: (S+1, 3) unit horizontal vectors or None."""

    serial: int
    id: int
    parts: dict[str, np.ndarray]
    facing: np.ndarray | None = None

    @property
    def has_body(self) -> bool:
        return all(p in self.parts for p in BODY_PARTS)

    def position(self) -> np.ndarray:
        """(S+1, 3): pelvis where known, else the ground point."""
        return self.parts.get("pelvis", self.parts["ground"])


@dataclass
class Entities:
    """n: S+1 rows. camera_R (n, 3, 3), camera_t (n, 3), camera_centre (n, 3);
    ball: (n, 3) or None (NaN rows where a draw failed); players in serial order."""

    n: int
    camera_R: np.ndarray
    camera_t: np.ndarray
    camera_centre: np.ndarray
    ball: np.ndarray | None
    ball_status: str
    players: list[PlayerEntity] = field(default_factory=list)

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """(n, 3) world points -> (n, 3) in each draw's camera frame (x right, y down, z fwd)."""
        return np.einsum("nij,nj->ni", self.camera_R, points) + self.camera_t


def _draw_cameras(scene, n_draws: int, rng: np.random.Generator) -> list[Camera]:
    cov = scene.camera_info.get("covariance")
    if not n_draws:
        return []
    if not isinstance(cov, dict):
        return [scene.camera] * n_draws
    try:
        pc = ParamCovariance.from_dict(cov)
        w, V = np.linalg.eigh(0.5 * (pc.matrix + pc.matrix.T))
        L = V * np.sqrt(np.clip(w, 0, None))
        out = []
        for _ in range(n_draws):
            theta = pc.theta + L @ rng.standard_normal(len(pc.theta))
            out.append(pc.model.to_camera(theta, scene.camera.image_size))
        return out
    except (GeometryError, ValueError, KeyError, np.linalg.LinAlgError):
        return [scene.camera] * n_draws


def ball_status(qs: QAScene) -> BallStatus:
    """The scene's ball.status where saved, else from the ball record."""
    b = qs.scene.raw.get("ball", {})
    if b.get("status") in tuple(BallStatus):
        return BallStatus(b["status"])
    if not qs.scene.ball.visible:
        return BallStatus.NOT_VISIBLE
    return BallStatus.IN_3D if qs.scene.ball.world is not None else BallStatus.IMAGE_ONLY


def _mesh_player_draws(p, cam0: Camera, cams: list[Camera]) -> dict:
    """Joints of a mesh player under each drawn camera (rescaled about its centre so that the
    lowest vertex keeps its height)."""
    names = list(p.joints_world)
    J = np.array([p.joints_world[k] for k in names])
    anchor = (
        p.vertices_world[np.argmin(p.vertices_world[:, 2])]
        if p.vertices_world is not None and len(p.vertices_world)
        else J[np.argmin(J[:, 2])]
    )
    pts_cam = cam0.world_to_cam(np.vstack([J, anchor[None]]))
    rows = [np.vstack([J, anchor[None]])]
    for cam in cams:
        A = pts_cam @ cam.R  # rows: R^T x
        b = cam.R.T @ cam.t
        s = (anchor[2] + b[2]) / A[-1, 2] if abs(A[-1, 2]) > 1e-9 else 1.0
        rows.append(s * A - b)
    W = np.stack(rows)  # (S+1, J+1, 3)
    return {k: W[:, i] for i, k in enumerate(names)}


def _box_ground_draws(
    box, cams: list[Camera], cam0: Camera, plane_z: float, sigma_px: float, rng
) -> np.ndarray:
    uv = np.array([(box[0] + box[2]) / 2, box[3]], float)
    out = []
    for k, cam in enumerate([cam0] + cams):
        u = uv if k == 0 else uv + rng.normal(0, sigma_px, 2)
        try:
            C, d = pixel_rays_world(cam, u[None])
            out.append(intersect_rays_with_plane(C, d, plane_z)[0][0])
        except GeometryError:
            out.append(np.full(3, np.nan))
    return np.array(out)


def _fill_failed_draws(X: np.ndarray) -> np.ndarray | None:
    """Draws whose lift failed (NaN rows) replaced by the nominal row, when they are under
    MAX_FAILED_DRAWS of the draws; None (the entity is not asked about) otherwise."""
    bad = np.isnan(X).any(axis=1)
    if bad[0] or (len(X) > 1 and bad[1:].mean() > MAX_FAILED_DRAWS):
        return None
    X = X.copy()
    X[bad] = X[0]
    return X


def build_entities(qs: QAScene, n_draws: int, rng: np.random.Generator) -> Entities:
    """The entities of a scene with n_draws Monte-Carlo draws (0: nominal only)."""
    sc, spec = qs.scene, qs.spec
    cam0 = sc.camera
    cams = _draw_cameras(sc, n_draws, rng)
    all_cams = [cam0] + cams
    sigma = float(
        sc.camera_info.get("sigma_px_used") or sc.camera_info.get("click_sigma_px") or 1.0
    )
    R = np.stack([c.R for c in all_cams])
    t = np.stack([c.t for c in all_cams])
    C = np.stack([c.camera_centre_world for c in all_cams])
    status = ball_status(qs)
    ball = None
    b = sc.ball
    if status == BallStatus.IN_3D and b.world is not None:
        ball = np.repeat(np.asarray(b.world, float)[None], len(all_cams), axis=0)
        if b.uv is not None and b.ground_uv is not None and b.method == "ray_ground_projection":
            try:
                plane_z = spec.plane_z(b.plane)
            except KeyError:
                plane_z = spec.plane_z()
            for k, cam in enumerate(cams, start=1):
                try:
                    ball[k] = lift_ball(
                        cam,
                        b.uv + rng.normal(0, sigma, 2),
                        b.ground_uv + rng.normal(0, sigma, 2),
                        plane_z,
                    ).world
                except GeometryError:
                    ball[k] = np.nan
            ball = _fill_failed_draws(ball)
    plane_z = spec.player_plane_z()
    players = []
    for serial, p in enumerate(qs.athletes, start=1):
        parts = {}
        if p.joints_world and all(k in p.joints_world for k in BODY_PARTS):
            parts.update(_mesh_player_draws(p, cam0, cams))
            feet = (parts["left_foot"] + parts["right_foot"]) / 2
            parts["ground"] = feet * np.array([1, 1, 0]) + np.array([0, 0, plane_z])
        else:
            parts["ground"] = _fill_failed_draws(
                _box_ground_draws(p.box_xyxy, cams, cam0, plane_z, sigma, rng)
            )
            if parts["ground"] is None:
                continue
        raw = next((r for r in sc.raw.get("players", []) if r.get("id") == p.id), {})
        facing = facing_from_joints(parts) if "left_hand" in parts else None
        if facing is None and isinstance(raw.get("facing_world"), list):
            facing = np.repeat(np.asarray(raw["facing_world"], float)[None], len(all_cams), 0)
        players.append(PlayerEntity(serial=serial, id=p.id, parts=parts, facing=facing))
    return Entities(
        n=len(all_cams),
        camera_R=R,
        camera_t=t,
        camera_centre=C,
        ball=ball,
        ball_status=status,
        players=players,
    )

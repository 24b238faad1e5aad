"""A player's mesh in the world: camera frame -> world, then the lowest-vertex height
correction (CourtSI eq. 4) when the annotator has given the height."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry.camera import Camera
from geometry.rays import lift_ball
from geometry.rescale import rescale_to_lowest_vertex_height
from hmr.person_mesh import PersonMesh


@dataclass(frozen=True)
class WorldPlayer:
    """vertices_world (V, 3), joints_world {name: (3,)} metres; scale applied about the camera
    centre (1.0 until a height is given); lowest_vertex_world (3,); ground_xy (2,) where the
    player stands (pelvis, else the lowest vertex, dropped to the court)."""

    vertices_world: np.ndarray
    joints_world: dict
    scale: float
    lowest_vertex_world: np.ndarray
    lowest_vertex_index: int

    @property
    def ground_xy(self) -> np.ndarray:
        p = self.joints_world.get("pelvis", self.lowest_vertex_world)
        return np.asarray(p, float)[:2]


def world_player(
    camera: Camera, mesh: PersonMesh, lowest_vertex_height_m: float | None, plane_z: float = 0.0
) -> WorldPlayer:
    """The mesh in world coordinates, rescaled about the camera centre so its lowest vertex
    is at the given height above the plane (unscaled when the height is None)."""
    V = mesh.vertices_world(camera)
    names = list(mesh.joints_cam)
    J = (
        np.array([camera.cam_to_world(mesh.joints_cam[n][None])[0] for n in names])
        if names
        else np.zeros((0, 3))
    )
    if lowest_vertex_height_m is None:
        i = int(np.argmin(V[:, 2]))
        return WorldPlayer(V, dict(zip(names, J)), 1.0, V[i], i)
    res = rescale_to_lowest_vertex_height(
        V, J, camera.camera_centre_world, lowest_vertex_height_m, plane_z
    )
    return WorldPlayer(
        res.vertices_world,
        dict(zip(names, res.joints_world)),
        res.scale,
        res.lowest_vertex_world,
        res.lowest_vertex_index,
    )


def height_from_ground_click(
    camera: Camera, mesh: PersonMesh, uv_ground, plane_z: float = 0.0
) -> float:
    """The lowest vertex's height from a click on its ground point (the ball tool's geometry
    applied to the lowest vertex's pixel). Metres above the plane."""
    V = mesh.vertices_world(camera)
    low = V[int(np.argmin(V[:, 2]))]
    uv_low = camera.project(low[None])[0]
    return lift_ball(camera, uv_low, uv_ground, plane_z).height_m


MATCH_IOU = 0.3


def projected_box(camera: Camera, mesh: PersonMesh) -> tuple[float, float, float, float]:
    """xyxy pixels of a camera-frame mesh's image (intrinsics only), clipped to the image."""
    uv = camera.project(camera.cam_to_world(mesh.vertices_cam))
    uv = uv[np.all(np.isfinite(uv), axis=1)]
    if len(uv) == 0:
        raise ValueError("the mesh has no vertex in front of the camera")
    w, h = camera.image_size
    return (
        max(-0.5, float(uv[:, 0].min())),
        max(-0.5, float(uv[:, 1].min())),
        min(w - 0.5, float(uv[:, 0].max())),
        min(h - 0.5, float(uv[:, 1].max())),
    )


def box_iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match_people_to_players(
    camera: Camera, people: list[PersonMesh], boxes: dict
) -> list[tuple[int | None, int, tuple]]:
    """Assign each person of an HMR result to a player box by IoU (greedy, best first,
    IoU >= MATCH_IOU). Returns (player id or None for a new player, person index, the
    person's projected box)."""
    pboxes = [projected_box(camera, m) for m in people]
    pairs = sorted(
        ((box_iou(pb, b), i, pid) for i, pb in enumerate(pboxes) for pid, b in boxes.items()),
        reverse=True,
    )
    taken_p, taken_id, out = set(), set(), {}
    for iou, i, pid in pairs:
        if iou < MATCH_IOU or i in taken_p or pid in taken_id:
            continue
        out[i] = pid
        taken_p.add(i)
        taken_id.add(pid)
    return [(out.get(i), i, pboxes[i]) for i in range(len(people))]


def template_player(
    camera: Camera, foot_world, stature_m: float, pose: str = "standing", cache_dir=None
) -> PersonMesh:
    """An Anny body standing at foot_world (3,) on its plane, scaled to stature_m and facing
    the camera, as a camera-frame PersonMesh: a player with no HMR result yet. cache_dir:
    Anny's cache (Settings.anny_cache_dir)."""
    from hmr.anny_body import AnnyBody, place_on_court

    if not 1.0 <= stature_m <= 2.5:
        raise ValueError(f"stature {stature_m:g} m is not a player's height (1.0 to 2.5 m)")
    body = AnnyBody(cache_dir).sample(pose)
    foot = np.asarray(foot_world, float)
    to_cam = camera.camera_centre_world[:2] - foot[:2]
    V, J = place_on_court(body, foot[:2], float(np.arctan2(to_cam[1], to_cam[0])), 0.0, foot[2])
    s = stature_m / (V[:, 2].max() - V[:, 2].min())
    base = np.array([foot[0], foot[1], foot[2]])
    V = base + s * (V - base)
    J = {k: base + s * (v - base) for k, v in J.items()}
    return PersonMesh(
        camera.world_to_cam(V),
        body.faces,
        {k: camera.world_to_cam(v[None])[0] for k, v in J.items()},
        source=f"template: Anny {pose}, {stature_m:.2f} m",
    )

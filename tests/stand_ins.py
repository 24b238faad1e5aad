"""Small stand-ins that honour the real interfaces (no body model, no weights)."""

from __future__ import annotations

import numpy as np
import trimesh

from geometry.rescale import scale_about_centre
from hmr.person_mesh import PersonMesh


def stand_in_player(camera, foot_xy, stature_m=1.8, lift_m=0.0, depth_scale=1.0):
    """A capsule 'player' standing at foot_xy (lowest point lift_m above the court), with the
    six named joints, as an HMR method would return it in camera coordinates: optionally with
    its depth wrong by ``depth_scale`` (a scale about the camera centre, as HMR depth errors
    are). Returns (PersonMesh, true vertices_world (V, 3), true joints_world {name: (3,)})."""
    r = 0.22
    body = trimesh.creation.capsule(height=stature_m - 2 * r, radius=r, count=[12, 12])
    V = np.asarray(body.vertices) + [foot_xy[0], foot_xy[1], stature_m / 2 + lift_m]
    x, y = foot_xy
    joints = {
        "pelvis": [x, y, lift_m + 0.53 * stature_m],
        "head": [x, y, lift_m + 0.93 * stature_m],
        "left_hand": [x, y - 0.3, lift_m + 0.5 * stature_m],
        "right_hand": [x, y + 0.3, lift_m + 0.5 * stature_m],
        "left_foot": [x, y - 0.1, lift_m + 0.05],
        "right_foot": [x, y + 0.1, lift_m + 0.05],
    }
    joints = {k: np.array(v, float) for k, v in joints.items()}
    C = camera.camera_centre_world
    Vw = scale_about_centre(V, C, depth_scale)
    Jw = {k: scale_about_centre(v[None], C, depth_scale)[0] for k, v in joints.items()}
    mesh = PersonMesh(
        camera.world_to_cam(Vw),
        np.asarray(body.faces),
        {k: camera.world_to_cam(v[None])[0] for k, v in Jw.items()},
        source="stand-in capsule",
    )
    return mesh, V, joints

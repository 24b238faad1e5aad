"""Mesh rescale about the camera centre (CourtSI eq. 4).

HMR meshes have the right shape and image but unreliable depth. Scaling by s about the camera
centre C, X' = s X + (1 - s) C, keeps every vertex on its own viewing ray (the image does not
change) and moves the mesh in depth. The annotator gives the world height of the mesh's lowest
vertex; s follows in closed form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from geometry.arrays import as_array
from geometry.errors import GeometryError


@dataclass(frozen=True)
class Rescaled:
    """vertices_world (V, 3), joints_world (J, 3) metres; scale s; index of the lowest vertex."""

    vertices_world: np.ndarray
    joints_world: np.ndarray
    scale: float
    lowest_vertex_index: int

    @property
    def lowest_vertex_world(self) -> np.ndarray:
        lowest: np.ndarray = self.vertices_world[self.lowest_vertex_index]
        return lowest


def scale_about_centre(
    points_world: ArrayLike, camera_centre_world: ArrayLike, scale: float
) -> np.ndarray:
    """X' = s X + (1 - s) C for points_world (N, 3) metres; returns (N, 3)."""
    X = as_array("points_world", points_world, (None, 3))
    C = as_array("camera_centre_world", camera_centre_world, (3,))
    return scale * X + (1.0 - scale) * C


def rescale_to_lowest_vertex_height(
    vertices_world: ArrayLike,
    joints_world: ArrayLike,
    camera_centre_world: ArrayLike,
    lowest_vertex_height_m: float,
    plane_z: float = 0.0,
) -> Rescaled:
    """Scale a mesh about the camera centre so its lowest vertex sits at the given height.

    vertices_world: (V, 3), joints_world: (J, 3) metres, world frame (z up).
    lowest_vertex_height_m: annotated height of the lowest vertex above the plane z = plane_z
    (0 for a standing player, > 0 for a jump). Raises GeometryError when the lowest vertex is
    level with the camera centre (depth along z undetermined) or the scale would be <= 0
    (the target height is on the other side of the camera).
    """
    V = as_array("vertices_world", vertices_world, (None, 3))
    J = as_array("joints_world", joints_world, (None, 3))
    C = as_array("camera_centre_world", camera_centre_world, (3,))
    if len(V) == 0:
        raise GeometryError("vertices_world: the mesh has no vertices")
    i = int(np.argmin(V[:, 2]))
    dz = V[i, 2] - C[2]
    if abs(dz) < 1e-9:
        raise GeometryError(
            "the lowest vertex is level with the camera centre: its height does not fix the depth"
        )
    s = (plane_z + lowest_vertex_height_m - C[2]) / dz
    if not np.isfinite(s) or s <= 0:
        raise GeometryError(
            f"height {lowest_vertex_height_m:g} m would put the mesh behind the camera (scale <= 0)"
        )
    return Rescaled(
        vertices_world=s * V + (1 - s) * C,
        joints_world=s * J + (1 - s) * C,
        scale=float(s),
        lowest_vertex_index=i,
    )

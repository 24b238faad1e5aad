"""Generic mesh files (OBJ, PLY, GLB, ...) as PersonMesh, through trimesh.

A plain mesh has no named joints and no body-model parameters; its vertices must already be in
the frame's camera coordinates (metres, OpenCV axes), as HMR methods export them, or in world
coordinates (``frame="world"``, converted with the frame's camera).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import trimesh

from geometry.camera import Camera
from hmr.person_mesh import MeshError, PersonMesh
from safe_io.validation import read_file_bytes

SUFFIXES = (".obj", ".ply", ".glb", ".gltf", ".stl", ".off")
MAX_MESH_FILE_BYTES = 256 * 1024 * 1024


def load_mesh_file(path, frame: str = "camera", camera: Camera | None = None) -> PersonMesh:
    path = Path(path)
    if path.suffix.lower() == ".npz":
        return PersonMesh.load_npz(path)
    if path.suffix.lower() not in SUFFIXES:
        raise MeshError(f"{path}: unsupported mesh type; use .npz or one of {', '.join(SUFFIXES)}")
    data = read_file_bytes(path, MAX_MESH_FILE_BYTES, MeshError, "mesh file")
    try:  # .gltf may name buffer files beside it: trimesh opens it by path (checked above)
        loaded = (
            trimesh.load(path, force="mesh", process=False)
            if path.suffix.lower() == ".gltf"
            else trimesh.load(
                io.BytesIO(data), file_type=path.suffix.lower()[1:], force="mesh", process=False
            )
        )
    except Exception as exc:  # noqa: BLE001 - trimesh raises many types for bad files
        raise MeshError(f"{path}: cannot read mesh ({exc})") from None
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.vertices) == 0:
        raise MeshError(f"{path}: no triangle mesh in the file")
    V = np.asarray(loaded.vertices, np.float64)
    if not np.isfinite(V).all():
        raise MeshError(f"{path}: non-finite vertex coordinates")
    if frame == "world":
        if camera is None:
            raise MeshError("a world-frame mesh needs the frame's camera")
        V = camera.world_to_cam(V)
    elif frame != "camera":
        raise MeshError(f"frame: expected 'camera' or 'world', got {frame!r}")
    if np.any(V[:, 2] <= 0):
        raise MeshError(
            f"{path}: some vertices are behind the camera (z <= 0): not a mesh in "
            "this frame's camera coordinates"
        )
    return PersonMesh(V, np.asarray(loaded.faces), {}, source=f"file:{path.name}")

"""The neutral record of a player's mesh, produced by every importer and consumed by geometry,
the app and the exporters (issue 4).

vertices_cam: (V, 3) float64, metres, OpenCV camera frame (x right, y down, z forward) of the
frame's calibrated camera; faces: (F, 3) int; joints_cam: {name: (3,)} metres, camera frame
(pelvis, head, left_hand, right_hand, left_foot, right_foot when the source knows them; a plain
mesh file has none, and none are invented); source: where it came from; params: body-model
parameters when known (e.g. SMPL-X betas).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from geometry.camera import Camera
from hmr.safe_npz import read_npz
from safe_io.atomic import atomic_path

BODY_JOINTS = ("pelvis", "head", "left_hand", "right_hand", "left_foot", "right_foot")
NPZ_FORMAT = "courtstudio.person_mesh"
NPZ_VERSION = 1
MAX_ABS_CAM_M = 1e4  # vertices or joints further than this from the camera are refused


class MeshError(ValueError):
    """A mesh file or record is missing or malformed; the message names it."""


@dataclass
class PersonMesh:
    vertices_cam: np.ndarray
    faces: np.ndarray
    joints_cam: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = ""
    params: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self):
        V = np.asarray(self.vertices_cam, np.float64)
        F = np.asarray(self.faces)
        if V.ndim != 2 or V.shape[1] != 3 or len(V) == 0:
            raise MeshError(f"vertices_cam: expected (V, 3) with V > 0, got {V.shape}")
        if not np.all(np.isfinite(V)):
            raise MeshError("vertices_cam: non-finite values")
        if np.abs(V).max() > MAX_ABS_CAM_M:
            raise MeshError(f"vertices_cam: coordinates beyond {MAX_ABS_CAM_M:g} m")
        if F.ndim != 2 or F.shape[1] != 3 or (F.size and (F.min() < 0 or F.max() >= len(V))):
            raise MeshError(f"faces: expected (F, 3) indices into {len(V)} vertices")
        joints = {}
        for k, v in self.joints_cam.items():
            a = np.asarray(v, np.float64)
            if a.shape != (3,) or not np.all(np.isfinite(a)) or np.abs(a).max() > MAX_ABS_CAM_M:
                raise MeshError(
                    f"joints_cam.{k}: expected 3 finite numbers (at most {MAX_ABS_CAM_M:g} m)"
                )
            joints[k] = a
        self.vertices_cam, self.faces, self.joints_cam = V, F.astype(np.int64), joints

    @property
    def has_body_joints(self) -> bool:
        return all(k in self.joints_cam for k in BODY_JOINTS)

    def vertices_world(self, camera: Camera) -> np.ndarray:
        """(V, 3) metres, world frame."""
        return camera.cam_to_world(self.vertices_cam)

    def joints_world(self, camera: Camera) -> dict[str, np.ndarray]:
        return {k: camera.cam_to_world(v[None])[0] for k, v in self.joints_cam.items()}

    def save_npz(self, path) -> Path:
        """Atomic .npz: vertices_cam, faces, joint_names, joints_cam, source, params_*."""
        path = Path(path)
        names = list(self.joints_cam)
        with atomic_path(path, suffix=".npz") as tmp:
            with open(tmp, "wb") as fh:
                np.savez_compressed(
                    fh,
                    format=NPZ_FORMAT,
                    format_version=NPZ_VERSION,
                    vertices_cam=self.vertices_cam.astype(np.float32),
                    faces=self.faces.astype(np.int32),
                    joint_names=np.array(names, dtype=str),
                    joints_cam=np.array([self.joints_cam[n] for n in names], np.float64).reshape(
                        -1, 3
                    ),
                    source=self.source,
                    **{f"params_{k}": np.asarray(v) for k, v in self.params.items()},
                )
        return path

    @classmethod
    def load_npz(cls, path) -> "PersonMesh":
        """Read a file written by save_npz; raise MeshError naming the file and field (a
        truncated or corrupt archive, wrong shapes, non-finite numbers included)."""
        path = Path(path)
        z = read_npz(path, MeshError, "person mesh")
        where = f"{path}: field"
        try:
            if str(z.get("format", "")) != NPZ_FORMAT:
                raise MeshError(f"{path}: not a CourtStudio person mesh (format {NPZ_FORMAT!r})")
            for key in (
                "format_version",
                "vertices_cam",
                "faces",
                "joint_names",
                "joints_cam",
                "source",
            ):
                if key not in z:
                    raise MeshError(f"{where} {key}: missing")
            version = z["format_version"]
            if version.shape != () or not np.issubdtype(version.dtype, np.integer):
                raise MeshError(f"{where} format_version: expected an integer")
            if int(version) > NPZ_VERSION:
                raise MeshError(
                    f"{path}: format_version {int(version)} is newer than this CourtStudio reads"
                )
            names = [str(n) for n in np.atleast_1d(z["joint_names"])]
            J = np.asarray(z["joints_cam"], np.float64).reshape(-1, 3)
            if len(names) != len(J):
                raise MeshError(f"{where} joints_cam: {len(J)} joints for {len(names)} names")
            if not np.issubdtype(z["faces"].dtype, np.integer):
                raise MeshError(f"{where} faces: expected integers, got {z['faces'].dtype}")
            params = {k[7:]: z[k] for k in z if k.startswith("params_")}
            return cls(
                np.asarray(z["vertices_cam"], np.float64),
                z["faces"],
                dict(zip(names, J)),
                str(z["source"]),
                params,
            )
        except MeshError as exc:
            msg = str(exc)
            raise MeshError(msg if msg.startswith(str(path)) else f"{where} {msg}") from None
        except (TypeError, ValueError) as exc:
            raise MeshError(f"{path}: cannot read person mesh ({exc})") from None

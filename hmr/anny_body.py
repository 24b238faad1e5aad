"""Anny (PyPI ``anny``, Apache-2.0, mesh data in its wheel) as a body model that works out of
the box: template players when no HMR result exists, and synthetic ground truth.

Imported lazily (torch, warp). The first model build takes about 35 s and is cached under
``$ANNY_CACHE_DIR`` (default ``~/.courtstudio/anny_cache``); later builds take a fraction of a
second.

Anny's body frame: z up, root (pelvis) at the origin, +x the body's left, -y forward. Poses are
local bone rotations (verified by the foot and wrist positions they produce).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from hmr.person_mesh import MeshError

# (bone, axis, degrees) for the body's left side; the right side mirrors y and z rotations.
_POSES = {
    "standing": [("upperarm01", "z", -40.0)],
    "lunge": [
        ("upperleg01.L", "x", -65.0),
        ("lowerleg01.L", "x", 75.0),
        ("upperleg01.R", "x", 25.0),
        ("lowerleg01.R", "x", 35.0),
        ("upperarm01.R", "x", 70.0),
        ("upperarm01.L", "z", -20.0),
    ],
    "jump": [("upperleg01", "x", -35.0), ("lowerleg01", "x", 65.0), ("upperarm01", "z", 95.0)],
}
POSES = tuple(_POSES)
PHENOTYPES = ("gender", "age", "muscle", "weight", "height", "proportions")


def _rotation(axis: str, degrees: float):
    import torch

    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    R = {
        "x": [[1, 0, 0], [0, c, -s], [0, s, c]],
        "y": [[c, 0, s], [0, 1, 0], [-s, 0, c]],
        "z": [[c, -s, 0], [s, c, 0], [0, 0, 1]],
    }[axis]
    T = torch.eye(4, dtype=torch.float64)[None]
    T[0, :3, :3] = torch.tensor(R, dtype=torch.float64)
    return T


def _pose_dict(pose: str) -> dict:
    if pose not in _POSES:
        raise MeshError(f"unknown pose {pose!r}; poses: {', '.join(POSES)}")
    out = {}
    for bone, axis, deg in _POSES[pose]:
        sides = [bone] if bone.endswith((".L", ".R")) else [f"{bone}.L", f"{bone}.R"]
        for b in sides:
            mirrored = b.endswith(".R") and axis in ("y", "z") and not bone.endswith(".R")
            out[b] = _rotation(axis, -deg if mirrored else deg)
    return out


@dataclass(frozen=True)
class BodySample:
    """A posed body in Anny's body frame (metres): vertices (V, 3), faces (F, 3), and our six
    named joints {name: (3,)}."""

    vertices: np.ndarray
    faces: np.ndarray
    joints: dict


class AnnyBody:
    """The Anny model, built once per process."""

    _model = None

    def __init__(self, cache_dir=None):
        """cache_dir: Anny's cache folder when the model is first built (CourtStudio passes
        Settings.anny_cache_dir, courtstudio/io/settings.py); without it, $ANNY_CACHE_DIR or
        ~/.courtstudio/anny_cache as before (hmr imports nothing of courtstudio)."""
        if AnnyBody._model is None:
            os.environ.setdefault(
                "ANNY_CACHE_DIR",
                str(cache_dir)
                if cache_dir
                else os.path.join(
                    os.environ.get("COURTSTUDIO_HOME", os.path.expanduser("~/.courtstudio")),
                    "anny_cache",
                ),
            )
            try:
                import anny
            except ImportError:
                raise MeshError(
                    "the Anny body model is not installed (pip install anny; it "
                    "needs torch==2.13.0 installed first)"
                ) from None
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                AnnyBody._model = anny.create_fullbody_model(triangulate_faces=True)
        self.model = AnnyBody._model
        self.faces = np.asarray(self.model.get_triangular_faces(), np.int64)
        labels = list(self.model.bone_labels)
        self._bone = {
            b: labels.index(b) for b in ("root", "head", "wrist.L", "wrist.R", "foot.L", "foot.R")
        }

    def sample(self, pose: str = "standing", phenotype: dict | None = None) -> BodySample:
        """A posed body. phenotype: {gender, age, muscle, weight, height, proportions} in
        [0, 1] (Anny's defaults for the rest)."""
        import torch

        pheno = dict(phenotype or {})
        bad = [k for k in pheno if k not in PHENOTYPES]
        if bad:
            raise MeshError(f"unknown phenotype {bad[0]!r}; phenotypes: {', '.join(PHENOTYPES)}")
        with torch.no_grad():
            out = self.model(
                pose_parameters=_pose_dict(pose),
                phenotype_kwargs={
                    k: torch.tensor([float(v)], dtype=torch.float64) for k, v in pheno.items()
                }
                or None,
                return_bone_ends=True,
            )
        V = out["vertices"][0].double().numpy()
        heads = out["bone_heads"][0].double().numpy()
        tails = out["bone_tails"][0].double().numpy()

        def mid(b):
            i = self._bone[b]
            return (heads[i] + tails[i]) / 2

        joints = {
            "pelvis": heads[self._bone["root"]],
            "head": mid("head"),
            "left_hand": mid("wrist.L"),
            "right_hand": mid("wrist.R"),
            "left_foot": mid("foot.L"),
            "right_foot": mid("foot.R"),
        }
        return BodySample(V, self.faces, joints)


def place_on_court(
    body: BodySample, ground_xy, facing_rad: float, lift_m: float = 0.0, plane_z: float = 0.0
) -> tuple[np.ndarray, dict]:
    """World vertices (V, 3) and joints of a body standing with its pelvis over ground_xy,
    facing the world direction facing_rad (0 = +x, toward the camera), lowest vertex lift_m
    above the plane z = plane_z."""
    # body forward (-y) -> world (cos f, sin f); body left (+x) -> world (-sin f, cos f)
    c, s = math.cos(facing_rad), math.sin(facing_rad)
    R = np.array([[-s, -c, 0.0], [c, -s, 0.0], [0.0, 0.0, 1.0]])
    V = body.vertices @ R.T
    J = {k: R @ v for k, v in body.joints.items()}
    shift = np.array(
        [
            ground_xy[0] - J["pelvis"][0],
            ground_xy[1] - J["pelvis"][1],
            plane_z + lift_m - V[:, 2].min(),
        ]
    )
    return V + shift, {k: v + shift for k, v in J.items()}

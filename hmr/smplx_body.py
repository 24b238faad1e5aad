"""SMPL-X meshes rebuilt from parameters (PromptHMR's video pipeline stores only parameters).

Uses the ``smplx`` package (torch) and the user's licensed model file
``<model_dir>/smplx/SMPLX_NEUTRAL.npz`` (set COURTSTUDIO_SMPLX_DIR or the app's preference;
``.pkl`` model files need chumpy, which does not build here: use the ``.npz``). Imported lazily.

PromptHMR's video ``results.pkl`` (joblib): ``people[track_id]`` with ``frames`` (T,) and
``smplx_cam`` {``rotmat`` (T, 55, 3, 3), ``shape`` (T, 10), ``trans`` (T, 3), ...} in the camera
frame. A player keeps one body: the track's shape parameters are averaged over its frames, so
stature does not drift between frames.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import cv2
import numpy as np

from hmr.person_mesh import MeshError, PersonMesh
from safe_io.validation import check_regular_file


class PickleRiskWarning(UserWarning):
    """An explicitly trusted pickle is being loaded (it can run code)."""


# SMPL-X joint indices (formats.md)
PELVIS, LEFT_FOOT, RIGHT_FOOT, HEAD, LEFT_WRIST, RIGHT_WRIST = 0, 10, 11, 15, 20, 21
N_BODY_JOINTS = 22


def smplx_named_joints(joints: np.ndarray) -> dict[str, np.ndarray]:
    """Our six body parts from SMPL-X joints (J, 3), J >= 22: hands are the wrists."""
    J = np.asarray(joints, np.float64)
    return {
        "pelvis": J[PELVIS],
        "head": J[HEAD],
        "left_hand": J[LEFT_WRIST],
        "right_hand": J[RIGHT_WRIST],
        "left_foot": J[LEFT_FOOT],
        "right_foot": J[RIGHT_FOOT],
    }


class SmplxBody:
    """An SMPL-X layer for one model folder (neutral gender, 10 shape parameters)."""

    def __init__(self, model_dir):
        model_dir = Path(model_dir)
        npz = model_dir / "smplx" / "SMPLX_NEUTRAL.npz"
        if not npz.is_file():
            raise MeshError(
                f"no SMPL-X model at {npz} (the licensed SMPL-X download; set "
                "COURTSTUDIO_SMPLX_DIR or the app's preference to its folder)"
            )
        try:
            import smplx
            import torch
        except ImportError as exc:
            raise MeshError(
                f"rebuilding SMPL-X meshes needs torch and smplx ({exc}): pip "
                "install torch==2.13.0 smplx"
            ) from None
        self.torch = torch
        try:
            self.model = smplx.create(
                str(model_dir),
                model_type="smplx",
                gender="neutral",
                ext="npz",
                use_pca=False,
                num_betas=10,
                flat_hand_mean=True,
            )
        except Exception as exc:  # noqa: BLE001 - smplx raises many types for a bad file
            raise MeshError(f"{npz}: cannot load as an SMPL-X model ({exc})") from None
        self.faces = np.asarray(self.model.faces, np.int64)

    def mesh(
        self, rotmat: np.ndarray, betas: np.ndarray, transl: np.ndarray, source: str = "smplx"
    ) -> PersonMesh:
        """rotmat: (55, 3, 3) or (22, 3, 3) joint rotations (global orient first), betas (10,),
        transl (3,): a PersonMesh in the frame of the parameters (PromptHMR: camera)."""
        torch = self.torch
        R = np.asarray(rotmat, np.float64)
        if R.ndim != 3 or R.shape[1:] != (3, 3) or len(R) < N_BODY_JOINTS:
            raise MeshError(f"rotmat: expected (55, 3, 3) or (22, 3, 3), got {R.shape}")
        # smplx 0.1.28's SMPLX.forward takes axis-angle only (it flattens the pose to 55 x 3)
        full = np.tile(np.eye(3), (55, 1, 1))
        full[: min(len(R), 55)] = R[:55]
        aa = np.stack([cv2.Rodrigues(m)[0].ravel() for m in full]).astype(np.float32)

        def part(a, b):
            return torch.tensor(aa[a:b].reshape(1, -1))

        kwargs = dict(
            global_orient=part(0, 1),
            body_pose=part(1, 22),
            jaw_pose=part(22, 23),
            leye_pose=part(23, 24),
            reye_pose=part(24, 25),
            left_hand_pose=part(25, 40),
            right_hand_pose=part(40, 55),
            betas=torch.tensor(np.asarray(betas, np.float32)[None, :10]),
            transl=torch.tensor(np.asarray(transl, np.float32)[None]),
        )
        with torch.no_grad():
            out = self.model(**kwargs)
        V = out.vertices[0].double().numpy()
        J = out.joints[0].double().numpy()
        return PersonMesh(
            V,
            self.faces,
            smplx_named_joints(J),
            source=source,
            params={"betas": np.asarray(betas, np.float64)[:10]},
        )


PICKLE_RISK = (
    "PromptHMR video results are a joblib pickle, and opening a pickle runs any code it contains"
)


def load_video_results(
    path, model_dir, frame: int, trust_pickle: bool = False
) -> dict[int, PersonMesh]:
    """The people of PromptHMR video results at ``frame``: {track id: PersonMesh (camera
    frame)}, each built with its track's shape averaged over all its frames.

    joblib pickles run code when loaded, so the file is refused unless ``trust_pickle`` is
    True (the user's explicit word, e.g. ``--trust-pickle``, that they produced it); even
    then a warning naming the risk is issued. Raises MeshError naming the file and field."""
    path = Path(path)
    check_regular_file(path, MeshError, "PromptHMR video result")
    if not trust_pickle:
        raise MeshError(
            f"{path}: {PICKLE_RISK}; refused. Open it only if you produced it "
            "yourself, with the explicit trust flag (--trust-pickle)"
        )
    warnings.warn(
        f"{path}: {PICKLE_RISK}; loading it because it was explicitly trusted",
        PickleRiskWarning,
        stacklevel=2,
    )
    try:
        import joblib

        results = joblib.load(path)
    except ImportError:
        raise MeshError(
            "reading PromptHMR video results needs joblib (pip install joblib)"
        ) from None
    except Exception as exc:  # noqa: BLE001
        raise MeshError(f"{path}: cannot read PromptHMR video results ({exc})") from None
    people = results.get("people") if isinstance(results, dict) else None
    if not isinstance(people, dict):
        raise MeshError(f"{path}: expected a dict with 'people' {{track id: ...}}")
    body = SmplxBody(model_dir)
    out = {}
    for tid, track in people.items():
        where = f"{path}: field people[{tid}]"
        try:
            tid_int = int(tid)
            frames = np.asarray(track["frames"], np.int64).reshape(-1)
            cam = track["smplx_cam"]
            rot, shape, trans = (
                np.asarray(cam[k], np.float64) for k in ("rotmat", "shape", "trans")
            )
        except (KeyError, TypeError, IndexError) as exc:
            raise MeshError(f"{where}: missing {exc}") from None
        except (ValueError, OverflowError) as exc:
            raise MeshError(f"{where}: not numeric ({exc})") from None
        T = len(frames)
        if (
            rot.ndim != 4
            or rot.shape[0] != T
            or shape.ndim != 2
            or shape.shape[0] != T
            or trans.shape != (T, 3)
        ):
            raise MeshError(
                f"{where}.smplx_cam: expected rotmat (T, J, 3, 3), shape (T, 10), "
                f"trans (T, 3) for T = {T} frames"
            )
        if not all(np.isfinite(a).all() for a in (rot, shape, trans)):
            raise MeshError(f"{where}.smplx_cam: non-finite number")
        hit = np.flatnonzero(frames == frame)
        if hit.size == 0:
            continue
        i = int(hit[0])
        shared_betas = shape.mean(axis=0)
        out[tid_int] = body.mesh(
            rot[i], shared_betas, trans[i], source=f"prompthmr-video:{path.name}#track{tid}@{frame}"
        )
    return out

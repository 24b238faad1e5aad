"""PromptHMR results as PersonMesh (issue 4; formats.md).

The image demo saves, with ``torch.save``, a dict of CPU tensors for B people: ``vertices``
(B, 10475, 3) SMPL-X vertices, ``body_joints`` (B, 25, 3) OpenPose BODY_25, ``rotmat``
(B, 22, 3, 3), ``betas`` (B, 10), ``transl`` (B, 3), ``pose`` (B, 22, 6) and ``cam_int``
(1, 3, 3), all metric, in the OpenCV camera frame. ``cam_int`` is the intrinsics of the
*padded* 896 x 896 network input: PromptHMR scales the image by s = 896 / max(w, h) and pads it
centred, so K_pad[:2] = s K[:2] and the principal point moves by the padding offset; boxes
likewise. ``original_intrinsics`` and ``original_boxes`` undo that.

torch is imported only here, lazily; SMPL-X faces are read with numpy from the user's own
model file (``<model_dir>/smplx/SMPLX_NEUTRAL.npz`` or the file itself), never downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hmr.person_mesh import MeshError, PersonMesh

NET_INPUT_PX = 896
SMPLX_VERTICES = 10475
# OpenPose BODY_25 indices
NOSE, NECK, R_WRIST, L_WRIST, MID_HIP = 0, 1, 4, 7, 8
R_EAR, L_EAR = 17, 18
L_BIG_TOE, L_HEEL, R_BIG_TOE, R_HEEL = 19, 21, 22, 24


def body25_to_named(joints: np.ndarray) -> dict[str, np.ndarray]:
    """Our six body parts from (25, 3) BODY_25 joints: pelvis = MidHip (8); head = midpoint of
    the ears (17, 18); hands = wrists (7, 4); feet = midpoint of big toe and heel."""
    J = np.asarray(joints, np.float64)
    return {"pelvis": J[MID_HIP], "head": (J[R_EAR] + J[L_EAR]) / 2,
            "left_hand": J[L_WRIST], "right_hand": J[R_WRIST],
            "left_foot": (J[L_BIG_TOE] + J[L_HEEL]) / 2,
            "right_foot": (J[R_BIG_TOE] + J[R_HEEL]) / 2}


def named_to_body25(joints: dict) -> np.ndarray:
    """(25, 3) BODY_25 joints from our six named ones, the inverse of body25_to_named for
    the slots it reads (MidHip, ears, wrists, big toes, heels); other slots repeat the pelvis.
    For writing files in PromptHMR's format (stand-ins, the sample)."""
    J = np.tile(np.asarray(joints["pelvis"], np.float64), (25, 1))
    J[R_EAR] = J[L_EAR] = joints["head"]
    J[L_WRIST], J[R_WRIST] = joints["left_hand"], joints["right_hand"]
    J[L_BIG_TOE] = J[L_HEEL] = joints["left_foot"]
    J[R_BIG_TOE] = J[R_HEEL] = joints["right_foot"]
    return J


def padding(image_size: tuple[int, int], net_px: int = NET_INPUT_PX) -> tuple[float, np.ndarray]:
    """(scale, offset (2,)) of PromptHMR's resize-and-centre-pad to net_px x net_px."""
    size = np.array(image_size, np.float64)
    scale = net_px / size.max()
    return scale, (net_px - scale * size) / 2


def original_intrinsics(cam_int_padded, image_size, net_px: int = NET_INPUT_PX) -> np.ndarray:
    """(3, 3) K of the original image from PromptHMR's padded cam_int (3, 3) or (1, 3, 3)."""
    K = np.asarray(cam_int_padded, np.float64).reshape(3, 3).copy()
    scale, offset = padding(image_size, net_px)
    K[:2, 2] -= offset
    K[:2] /= scale
    K[2] = [0, 0, 1]
    return K


def original_boxes(boxes_padded, image_size, net_px: int = NET_INPUT_PX) -> np.ndarray:
    """(N, 4) xyxy boxes in original pixels from boxes in the padded network input."""
    B = np.asarray(boxes_padded, np.float64)[:, :4].copy()
    scale, offset = padding(image_size, net_px)
    B[:, :2] -= offset
    B[:, 2:4] -= offset
    return B / scale


def smplx_faces(model_path) -> np.ndarray:
    """(20908, 3) SMPL-X faces from the user's model: a folder holding smplx/SMPLX_NEUTRAL.npz
    (or SMPLX_NEUTRAL.npz) or the .npz itself."""
    p = Path(model_path)
    for cand in (p, p / "smplx" / "SMPLX_NEUTRAL.npz", p / "SMPLX_NEUTRAL.npz"):
        if cand.is_file():
            try:
                with np.load(cand, allow_pickle=False) as z:
                    return np.asarray(z["f"], np.int64)
            except (OSError, KeyError, ValueError) as exc:
                raise MeshError(f"{cand}: not an SMPL-X model file with faces 'f' ({exc})") \
                    from None
    raise MeshError(f"no SMPL-X model at {p}: expected smplx/SMPLX_NEUTRAL.npz (the licensed "
                    "SMPL-X download; set it in Preferences or COURTSTUDIO_SMPLX_DIR)")


@dataclass
class PromptHMRResult:
    people: list[PersonMesh]
    cam_int_padded: np.ndarray | None  # (3, 3)


def _torch_load(path: Path) -> dict:
    try:
        import torch
    except ImportError:
        raise MeshError(f"{path}: reading PromptHMR .pt files needs torch (pip install "
                        "torch==2.13.0)") from None
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many types for bad files
        raise MeshError(f"{path}: cannot read as a torch-saved PromptHMR output ({exc})") \
            from None
    if not isinstance(data, dict):
        raise MeshError(f"{path}: expected the image demo's dict of tensors")
    return {k: (v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v))
            for k, v in data.items()}


def load_image_output(path, smplx_model=None) -> PromptHMRResult:
    """PromptHMR image-demo output (``output.pt``, or an .npz with the same keys) as one
    PersonMesh per person. Vertices when stored (faces from ``smplx_model`` if given, else
    none); with only ``body_joints`` the 25 joints stand in for the vertices (the lowest
    point is then the lowest joint)."""
    path = Path(path)
    if not path.exists():
        raise MeshError(f"{path}: no such PromptHMR result")
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    else:
        data = _torch_load(path)
    return result_from_arrays(data, path.name, smplx_model, where=str(path))


def result_from_arrays(data: dict, source_name: str, smplx_model=None,
                       where: str = "PromptHMR output") -> PromptHMRResult:
    """PersonMesh per person from PromptHMR's output arrays (numpy), saved or fresh."""
    V = data.get("vertices")
    J = data.get("body_joints")
    if V is None and J is None:
        raise MeshError(f"{where}: neither 'vertices' nor 'body_joints' in the result (keys: "
                        f"{', '.join(sorted(data))})")
    if V is not None and (V.ndim != 3 or V.shape[2] != 3):
        raise MeshError(f"{where}: field vertices: expected (B, V, 3), got {V.shape}")
    if J is not None and (J.ndim != 3 or J.shape[1:] != (25, 3)):
        raise MeshError(f"{where}: field body_joints: expected (B, 25, 3), got {J.shape}")
    n = len(V) if V is not None else len(J)
    if V is not None and J is not None and len(J) != n:
        raise MeshError(f"{where}: {len(V)} people in vertices but {len(J)} in body_joints")
    faces = np.zeros((0, 3), np.int64)
    if smplx_model is not None and V is not None:
        faces = smplx_faces(smplx_model)
        if V.shape[1] != SMPLX_VERTICES:
            raise MeshError(f"{where}: {V.shape[1]} vertices per person, but SMPL-X faces "
                            f"index {SMPLX_VERTICES}")
    people = []
    for i in range(n):
        joints = body25_to_named(J[i]) if J is not None else {}
        verts = V[i] if V is not None else J[i]
        params = {k: np.asarray(data[k][i]) for k in ("betas", "rotmat", "transl", "pose")
                  if k in data and len(data[k]) == n}
        people.append(PersonMesh(verts, faces if V is not None else np.zeros((0, 3), int),
                                 joints, source=f"prompthmr:{source_name}#{i}"
                                 + ("" if V is not None else " (joints only)"), params=params))
    cam = data.get("cam_int")
    return PromptHMRResult(people, None if cam is None else np.asarray(cam).reshape(3, 3))

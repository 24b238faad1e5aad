"""PromptHMR results as PersonMesh (issue 4; formats.md).

The image demo saves, with ``torch.save``, a dict of CPU tensors for B people: ``vertices``
(B, 10475, 3) SMPL-X vertices, ``body_joints`` (B, 25, 3) OpenPose BODY_25, ``rotmat``
(B, 22, 3, 3), ``betas`` (B, 10), ``transl`` (B, 3), ``pose`` (B, 132) and ``cam_int``
(B, 3, 3) (one copy of the image's intrinsics per person: ``phmr.py`` saves
``cam_int.expand(num_people, 3, 3)``; older results and hand-made files hold (1, 3, 3) or
(3, 3)), all metric, in the OpenCV camera frame (float32, or float16 under autocast).
``cam_int`` is the intrinsics of the *padded* 896 x 896 network input: PromptHMR scales the
image by s = 896 / max(w, h) and pads it centred, so K_pad[:2] = s K[:2] and the principal
point moves by the padding offset; boxes likewise. ``original_intrinsics`` and
``original_boxes`` undo that.

torch is imported only here, lazily; SMPL-X faces are read with numpy from the user's own
model file (``<model_dir>/smplx/SMPLX_NEUTRAL.npz`` or the file itself), never downloaded.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hmr.person_mesh import MeshError, PersonMesh
from hmr.safe_npz import read_npz
from safe_io.validation import read_file_bytes

NET_INPUT_PX = 896
SMPLX_VERTICES = 10475
MAX_RESULT_BYTES = 512 * 1024 * 1024  # an output.pt / .npz larger than this is refused
MAX_PEOPLE = 1000
CAM_INT_RTOL = 1e-3  # the per-person copies of cam_int must agree this closely
MAX_ABS_CAM_M = 1e4  # vertices and joints further than this from the camera are refused
# OpenPose BODY_25 indices
NOSE, NECK, R_WRIST, L_WRIST, MID_HIP = 0, 1, 4, 7, 8
R_EAR, L_EAR = 17, 18
L_BIG_TOE, L_HEEL, R_BIG_TOE, R_HEEL = 19, 21, 22, 24


def body25_to_named(joints: np.ndarray) -> dict[str, np.ndarray]:
    """Our six body parts from (25, 3) BODY_25 joints: pelvis = MidHip (8); head = midpoint of
    the ears (17, 18); hands = wrists (7, 4); feet = midpoint of big toe and heel."""
    J = np.asarray(joints, np.float64)
    return {
        "pelvis": J[MID_HIP],
        "head": (J[R_EAR] + J[L_EAR]) / 2,
        "left_hand": J[L_WRIST],
        "right_hand": J[R_WRIST],
        "left_foot": (J[L_BIG_TOE] + J[L_HEEL]) / 2,
        "right_foot": (J[R_BIG_TOE] + J[R_HEEL]) / 2,
    }


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


def single_cam_int(cam_int, where: str = "cam_int") -> np.ndarray:
    """The one (3, 3) padded intrinsics matrix of a result's cam_int: (3, 3), (1, 3, 3) or
    (N, 3, 3) with N copies that agree within CAM_INT_RTOL (relative to the focal length).
    Raises MeshError naming ``where`` otherwise."""
    K = np.asarray(cam_int, np.float64)
    if K.shape == (3, 3):
        K = K[None]
    if K.ndim != 3 or K.shape[1:] != (3, 3) or len(K) == 0:
        raise MeshError(f"{where}: expected (3, 3), (1, 3, 3) or (N, 3, 3), got {tuple(K.shape)}")
    if not np.isfinite(K).all():
        raise MeshError(f"{where}: non-finite number")
    K0 = K[0]
    if not (0 < K0[0, 0] <= 1e6 and 0 < K0[1, 1] <= 1e6) or np.abs(K0).max() > 1e6:
        raise MeshError(f"{where}: focal lengths must be in (0, 1e6] px and entries at most 1e6")
    spread = np.abs(K - K0).max()
    if spread > CAM_INT_RTOL * K0[0, 0]:
        raise MeshError(
            f"{where}: the {len(K)} per-person intrinsics disagree (by up to "
            f"{spread:.3g} px): a result holds one image's camera"
        )
    return K0.copy()


def original_intrinsics(cam_int_padded, image_size, net_px: int = NET_INPUT_PX) -> np.ndarray:
    """(3, 3) K of the original image from PromptHMR's padded cam_int (3, 3), (1, 3, 3) or
    (N, 3, 3) (one copy per person, as the image demo saves it)."""
    K = single_cam_int(cam_int_padded)
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
            f = read_npz(cand, MeshError, "SMPL-X model file", keys=["f"]).get("f")
            if (
                f is None
                or f.ndim != 2
                or f.shape[1] != 3
                or not np.issubdtype(f.dtype, np.integer)
            ):
                raise MeshError(f"{cand}: not an SMPL-X model file with faces 'f' (F, 3)")
            return np.asarray(f, np.int64)
    raise MeshError(
        f"no SMPL-X model at {p}: expected smplx/SMPLX_NEUTRAL.npz (the licensed "
        "SMPL-X download; set it in Preferences or COURTSTUDIO_SMPLX_DIR)"
    )


@dataclass
class PromptHMRResult:
    people: list[PersonMesh]
    cam_int_padded: np.ndarray | None  # (3, 3)


def _numeric(value, where: str) -> np.ndarray:
    """A result's entry as a real numeric numpy array (tensors of any float dtype included)."""
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if getattr(value, "dtype", None) is not None and "bfloat16" in str(value.dtype):
            value = value.float()
        value = value.numpy()
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise MeshError(f"{where}: not a numeric array ({exc})") from None
    if a.dtype == bool or not (
        np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)
    ):
        raise MeshError(f"{where}: expected a numeric array, got {a.dtype}")
    return a


def _torch_load(path: Path) -> dict:
    try:
        import torch
    except ImportError:
        raise MeshError(
            f"{path}: reading PromptHMR .pt files needs torch (pip install torch==2.13.0)"
        ) from None
    try:  # weights_only: tensors and plain containers only, never arbitrary pickled objects
        data = torch.load(
            io.BytesIO(read_file_bytes(path, MAX_RESULT_BYTES, MeshError, "PromptHMR result")),
            map_location="cpu",
            weights_only=True,
        )
    except MeshError:
        raise
    except Exception as exc:  # noqa: BLE001 - torch raises many types for bad files
        raise MeshError(
            f"{path}: cannot read as a torch-saved PromptHMR output "
            f"({' '.join(str(exc).split())[:200]})"
        ) from None
    if not isinstance(data, dict):
        raise MeshError(f"{path}: expected the image demo's dict of tensors")
    return data


def load_image_output(path, smplx_model=None) -> PromptHMRResult:
    """PromptHMR image-demo output (``output.pt``, or an .npz with the same keys) as one
    PersonMesh per person. Vertices when stored (faces from ``smplx_model`` if given, else
    none); with only ``body_joints`` the 25 joints stand in for the vertices (the lowest
    point is then the lowest joint). Raises MeshError naming the file and field."""
    path = Path(path)
    if not path.exists():
        raise MeshError(f"{path}: no such PromptHMR result")
    if path.suffix == ".npz":
        data = read_npz(
            path,
            MeshError,
            "PromptHMR result",
            max_file_bytes=MAX_RESULT_BYTES,
            max_array_bytes=MAX_RESULT_BYTES,
        )
    else:
        data = _torch_load(path)
    return result_from_arrays(data, path.name, smplx_model, where=str(path))


def result_from_arrays(
    data: dict, source_name: str, smplx_model=None, where: str = "PromptHMR output"
) -> PromptHMRResult:
    """PersonMesh per person from PromptHMR's output arrays (numpy or tensors), saved or
    fresh. Unknown keys are ignored; the ones read are checked (shape, finite, magnitude)."""
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        raise MeshError(f"{where}: keys must be names, got {bad_keys[0]!r}")
    arrays = {
        k: _numeric(data[k], f"{where}: field {k}")
        for k in ("vertices", "body_joints", "cam_int", "betas", "rotmat", "transl", "pose")
        if data.get(k) is not None
    }
    V = arrays.get("vertices")
    J = arrays.get("body_joints")
    if V is None and J is None:
        raise MeshError(
            f"{where}: neither 'vertices' nor 'body_joints' in the result (keys: "
            f"{', '.join(sorted(map(str, data)))})"
        )
    if V is not None and (V.ndim != 3 or V.shape[2] != 3 or V.shape[1] == 0):
        raise MeshError(f"{where}: field vertices: expected (B, V, 3), got {V.shape}")
    if J is not None and (J.ndim != 3 or J.shape[1:] != (25, 3)):
        raise MeshError(f"{where}: field body_joints: expected (B, 25, 3), got {J.shape}")
    n = len(V) if V is not None else len(J)
    if V is not None and J is not None and len(J) != n:
        raise MeshError(f"{where}: {len(V)} people in vertices but {len(J)} in body_joints")
    if n > MAX_PEOPLE:
        raise MeshError(f"{where}: {n} people (at most {MAX_PEOPLE})")
    for key, a in (("vertices", V), ("body_joints", J)):
        if a is not None:
            a64 = a.astype(np.float64)
            if not np.isfinite(a64).all():
                raise MeshError(f"{where}: field {key}: non-finite number")
            if a64.size and np.abs(a64).max() > MAX_ABS_CAM_M:
                raise MeshError(f"{where}: field {key}: coordinates beyond {MAX_ABS_CAM_M:g} m")
    faces = np.zeros((0, 3), np.int64)
    if smplx_model is not None and V is not None:
        faces = smplx_faces(smplx_model)
        if V.shape[1] != SMPLX_VERTICES:
            raise MeshError(
                f"{where}: {V.shape[1]} vertices per person, but SMPL-X faces "
                f"index {SMPLX_VERTICES}"
            )
    params_all = {
        k: arrays[k]
        for k in ("betas", "rotmat", "transl", "pose")
        if k in arrays and arrays[k].ndim >= 1 and len(arrays[k]) == n
    }
    people = []
    for i in range(n):
        joints = body25_to_named(J[i]) if J is not None else {}
        verts = V[i] if V is not None else J[i]
        params = {k: np.asarray(a[i]) for k, a in params_all.items()}
        people.append(
            PersonMesh(
                verts,
                faces if V is not None else np.zeros((0, 3), int),
                joints,
                source=f"prompthmr:{source_name}#{i}" + ("" if V is not None else " (joints only)"),
                params=params,
            )
        )
    cam = arrays.get("cam_int")
    return PromptHMRResult(
        people, None if cam is None else single_cam_int(cam, f"{where}: field cam_int")
    )

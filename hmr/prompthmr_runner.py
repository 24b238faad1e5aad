"""Running PromptHMR on a frame, when it is installed (GPU), with *our* calibrated K.

PromptHMR is research code, not on PyPI, and GPU-only as written; its weights are licensed
downloads. The user points CourtStudio at their checkout (``COURTSTUDIO_PROMPTHMR_DIR``, the
folder holding ``prompt_hmr/`` and ``data/pretrain/phmr``). Without intrinsics PromptHMR
assumes focal = image diagonal; we always pass the calibrated K, so its meshes sit in the same
camera as the court.

The call sequence is the image demo's: ``prepare_batch([{image_cv, boxes, cam_int}],
img_size=896)`` then ``model(batch, use_mean_hands=True)[0]``; its output dict is read as
hmr.prompthmr reads the demo's saved ``output.pt``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from geometry.camera import Camera
from hmr.person_mesh import MeshError
from hmr.prompthmr import NET_INPUT_PX, PromptHMRResult, result_from_arrays


class PromptHMRRunner:
    def __init__(self, checkout_dir=None, device: str | None = None):
        root = Path(checkout_dir or os.environ.get("COURTSTUDIO_PROMPTHMR_DIR", ""))
        if not str(root) or not (root / "prompt_hmr").is_dir():
            raise MeshError(
                "PromptHMR is not installed: set COURTSTUDIO_PROMPTHMR_DIR to your "
                "PromptHMR checkout (the folder with prompt_hmr/ and data/pretrain)"
            )
        weights = root / "data" / "pretrain" / "phmr"
        if not weights.exists():
            raise MeshError(
                f"PromptHMR weights not found at {weights} (download them with "
                "PromptHMR's own scripts)"
            )
        try:
            import torch
        except ImportError:
            raise MeshError("PromptHMR needs torch") from None
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if self.device != "cuda":
            raise MeshError(
                "PromptHMR runs on a CUDA GPU only (as its authors wrote it); this "
                "machine has none. Run it elsewhere and import its output.pt"
            )
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        try:
            from prompt_hmr import load_model_from_folder
            from prompt_hmr.models.inference import prepare_batch
        except ImportError as exc:
            raise MeshError(f"cannot import PromptHMR from {root} ({exc})") from None
        self.torch = torch
        self.prepare_batch = prepare_batch
        self.model = load_model_from_folder(str(weights))

    def run(self, image_bgr: np.ndarray, boxes_xyxy, camera: Camera) -> PromptHMRResult:
        """People for the given boxes (N, 4) xyxy pixels, in the camera frame of ``camera``."""
        torch = self.torch
        boxes = np.asarray(boxes_xyxy, np.float32).reshape(-1, 4)
        if len(boxes) == 0:
            return PromptHMRResult([], None)
        h, w = image_bgr.shape[:2]
        if (w, h) != tuple(camera.image_size):
            raise MeshError(
                f"the frame is {w}x{h} but the camera is for "
                f"{camera.image_size[0]}x{camera.image_size[1]}"
            )
        inputs = [
            {
                "image_cv": np.ascontiguousarray(image_bgr[..., ::-1]),
                "boxes": torch.tensor(boxes),
                "text": None,
                "masks": None,
                "cam_int": torch.tensor(camera.K, dtype=torch.float32)[None],
            }
        ]
        with torch.no_grad(), torch.autocast(self.device):
            batch = self.prepare_batch(inputs, img_size=NET_INPUT_PX, interaction=False)
            output = self.model(batch, use_mean_hands=True)[0]
        keys = ("pose", "betas", "transl", "rotmat", "vertices", "body_joints", "cam_int")
        arrays = {k: output[k].detach().float().cpu().numpy() for k in keys if k in output}
        return result_from_arrays(arrays, "prompthmr:run")

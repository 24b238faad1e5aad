"""SAM3 as the player-box proposer (text prompt "player"): an optional extra behind a lazily
imported adapter. Nothing is downloaded: the user supplies the checkpoint file (set
``COURTSTUDIO_SAM3_CHECKPOINT`` or pass it), and the BPE vocabulary (missing from the sam3 0.1.4
wheel) is found in the ``open_clip_torch`` wheel or given explicitly.

CPU use: sam3 0.1.4 creates two caches with a literal ``device="cuda"`` while the model is
built (the position-encoding precompute and the decoder's coordinate cache); on a machine
without CUDA those literals are redirected to the CPU for the duration of the build only.
"""

from __future__ import annotations

import importlib.util
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BPE_NAME = "bpe_simple_vocab_16e6.txt.gz"


class ProposerError(ValueError):
    """The box proposer cannot run here; the message says what is missing."""


@dataclass(frozen=True)
class Proposal:
    box_xyxy: tuple[float, float, float, float]
    score: float


def find_bpe_vocab() -> Path | None:
    """The BPE vocabulary shipped in the open_clip_torch wheel, if installed."""
    spec = importlib.util.find_spec("open_clip")
    if spec is None or not spec.submodule_search_locations:
        return None
    p = Path(list(spec.submodule_search_locations)[0]) / BPE_NAME
    return p if p.exists() else None


@contextmanager
def _cuda_literals_on_cpu(torch):
    """Map device="cuda" to the CPU in sam3's build-time caches when there is no CUDA."""
    if torch.cuda.is_available():
        yield
        return
    from sam3.model import decoder

    real_zeros = torch.zeros
    real_coords = decoder.TransformerDecoder._get_coords

    def zeros(*args, **kwargs):
        if str(kwargs.get("device", "")).startswith("cuda"):
            kwargs["device"] = "cpu"
        return real_zeros(*args, **kwargs)

    def get_coords(H, W, device):
        return real_coords(H, W, "cpu" if str(device).startswith("cuda") else device)

    torch.zeros = zeros
    decoder.TransformerDecoder._get_coords = staticmethod(get_coords)
    try:
        yield
    finally:
        torch.zeros = real_zeros
        decoder.TransformerDecoder._get_coords = staticmethod(real_coords)


class Sam3BoxProposer:
    name = "SAM3"

    def __init__(
        self,
        checkpoint_path,
        bpe_path=None,
        device: str | None = None,
        confidence_threshold: float = 0.5,
        prompt: str = "player",
        resolution: int = 1008,
    ):
        ckpt = Path(checkpoint_path)
        if not ckpt.is_file():
            raise ProposerError(
                f"SAM3 checkpoint not found: {ckpt} (download it yourself "
                "and point COURTSTUDIO_SAM3_CHECKPOINT at the file)"
            )
        try:
            import torch
            from sam3.model.sam3_image_processor import Sam3Processor
            from sam3.model_builder import build_sam3_image_model
        except ImportError as exc:
            raise ProposerError(
                f"SAM3 is not installed ({exc}); it is an optional extra: "
                "pip install sam3 open_clip_torch psutil"
            ) from None
        if importlib.util.find_spec("psutil") is None:
            raise ProposerError("sam3 needs psutil (an undeclared dependency): pip install psutil")
        bpe = Path(bpe_path) if bpe_path else find_bpe_vocab()
        if bpe is None or not bpe.is_file():
            raise ProposerError(
                f"{BPE_NAME} not found: install open_clip_torch or pass its "
                "path (the sam3 0.1.4 wheel lacks it)"
            )
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.prompt = prompt
        with _cuda_literals_on_cpu(torch):
            model = build_sam3_image_model(
                bpe_path=str(bpe), device=self.device, checkpoint_path=str(ckpt), load_from_HF=False
            )
        self.processor = Sam3Processor(
            model,
            resolution=resolution,
            device=self.device,
            confidence_threshold=confidence_threshold,
        )

    def propose(self, image_bgr: np.ndarray) -> list[Proposal]:
        """Player boxes (xyxy pixels) with scores, best first."""
        from PIL import Image

        state = self.processor.set_image(
            Image.fromarray(np.ascontiguousarray(image_bgr[..., ::-1]))
        )
        state = self.processor.set_text_prompt(prompt=self.prompt, state=state)
        boxes = _numpy(state["boxes"]).reshape(-1, 4)
        scores = _numpy(state["scores"]).reshape(-1)
        order = np.argsort(-scores)
        return [Proposal(tuple(float(c) for c in boxes[i]), float(scores[i])) for i in order]


def _numpy(x) -> np.ndarray:
    return x.detach().float().cpu().numpy() if hasattr(x, "detach") else np.asarray(x, float)


def proposer_from_environment() -> Sam3BoxProposer | None:
    """The proposer configured by COURTSTUDIO_SAM3_CHECKPOINT (and optionally
    COURTSTUDIO_SAM3_BPE), or None when not configured. Raises ProposerError when configured
    but unusable, so the user learns why."""
    ckpt = os.environ.get("COURTSTUDIO_SAM3_CHECKPOINT")
    if not ckpt:
        return None
    return Sam3BoxProposer(ckpt, os.environ.get("COURTSTUDIO_SAM3_BPE"))


@dataclass(frozen=True)
class TrackedBox:
    """A tracked player box: the tracker's object id is stable across the clip."""

    frame_index: int
    track_id: int
    box_xyxy: tuple[float, float, float, float]
    score: float


class Sam3VideoTracker:
    """SAM3's video predictor: a text prompt on one frame, propagated through the clip with
    stable object ids. sam3 0.1.4's video predictor runs on CUDA only."""

    name = "SAM3 video"

    def __init__(self, checkpoint_path, bpe_path=None):
        ckpt = Path(checkpoint_path)
        if not ckpt.is_file():
            raise ProposerError(f"SAM3 checkpoint not found: {ckpt}")
        try:
            import torch
            from sam3.model_builder import build_sam3_video_predictor
        except ImportError as exc:
            raise ProposerError(
                f"SAM3 is not installed ({exc}); it is an optional extra: "
                "pip install sam3 open_clip_torch psutil"
            ) from None
        if not torch.cuda.is_available():
            raise ProposerError(
                "SAM3's video tracker runs on a CUDA GPU only; on this machine "
                "use the per-frame proposer and keep ids by hand"
            )
        bpe = Path(bpe_path) if bpe_path else find_bpe_vocab()
        if bpe is None or not bpe.is_file():
            raise ProposerError(f"{BPE_NAME} not found: install open_clip_torch or pass its path")
        self.predictor = build_sam3_video_predictor(checkpoint_path=str(ckpt), bpe_path=str(bpe))

    def track(
        self, video_path, video_size: tuple[int, int], prompt_frame: int = 0, prompt: str = "player"
    ) -> list[TrackedBox]:
        """Boxes (xyxy pixels) of every tracked player in every frame of the video (or JPEG
        folder), with the tracker's object ids."""
        w, h = video_size
        session = self.predictor.handle_request(
            {"type": "start_session", "resource_path": str(video_path)}
        )
        sid = session["session_id"]
        try:
            self.predictor.handle_request(
                {
                    "type": "add_prompt",
                    "session_id": sid,
                    "frame_index": int(prompt_frame),
                    "text": prompt,
                }
            )
            out = []
            for item in self.predictor.handle_stream_request(
                {"type": "propagate_in_video", "session_id": sid}
            ):
                o = item["outputs"]
                ids = _numpy(o["out_obj_ids"]).reshape(-1).astype(int)
                probs = _numpy(o["out_probs"]).reshape(-1)
                xywh = _numpy(o["out_boxes_xywh"]).reshape(-1, 4) * [w, h, w, h]
                for tid, p, (x, y, bw, bh) in zip(ids, probs, xywh):
                    out.append(
                        TrackedBox(
                            int(item["frame_index"]),
                            int(tid),
                            (float(x), float(y), float(x + bw), float(y + bh)),
                            float(p),
                        )
                    )
        finally:
            self.predictor.handle_request({"type": "close_session", "session_id": sid})
        return out

"""The SAM3 box proposer adapter, on a stand-in sam3 package with the real interface
(build_sam3_image_model, Sam3Processor.set_image / set_text_prompt, state boxes/scores), and
the CPU patches against torch."""

import sys
import types

import numpy as np
import pytest

from hmr import sam3_boxes
from hmr.sam3_boxes import ProposerError, Sam3BoxProposer, proposer_from_environment
from tests.lazy_torch import torch


@pytest.fixture
def fake_sam3(monkeypatch, tmp_path):
    calls = {}

    class TransformerDecoder:
        @staticmethod
        def _get_coords(H, W, device):
            return torch.zeros(H, device=device), torch.zeros(W, device=device)

    def build_sam3_image_model(
        bpe_path=None, device="cuda", checkpoint_path=None, load_from_HF=True, **kw
    ):
        calls["build"] = dict(
            bpe_path=bpe_path,
            device=device,
            checkpoint_path=checkpoint_path,
            load_from_HF=load_from_HF,
        )
        # what sam3 0.1.4 does at build time: caches created with a literal "cuda"
        calls["zeros"] = torch.zeros((1, 1, 4, 4), device="cuda").device.type
        calls["coords"] = TransformerDecoder._get_coords(3, 3, device="cuda")[0].device.type
        return "model"

    class Sam3Processor:
        def __init__(self, model, resolution=1008, device="cuda", confidence_threshold=0.5):
            calls["processor"] = dict(model=model, device=device)

        def set_image(self, image, state=None):
            calls["image_size"] = image.size
            return {"image": image}

        def set_text_prompt(self, prompt, state):
            calls["prompt"] = prompt
            state["boxes"] = torch.tensor([[10.0, 20, 50, 120], [300, 40, 360, 200]])
            state["scores"] = torch.tensor([0.6, 0.9])
            return state

    mods = {
        "sam3": types.ModuleType("sam3"),
        "sam3.model": types.ModuleType("sam3.model"),
        "sam3.model.decoder": types.ModuleType("sam3.model.decoder"),
        "sam3.model_builder": types.ModuleType("sam3.model_builder"),
        "sam3.model.sam3_image_processor": types.ModuleType("sam3.model.sam3_image_processor"),
    }
    mods["sam3.model.decoder"].TransformerDecoder = TransformerDecoder
    mods["sam3.model"].decoder = mods["sam3.model.decoder"]
    mods["sam3.model_builder"].build_sam3_image_model = build_sam3_image_model
    mods["sam3.model.sam3_image_processor"].Sam3Processor = Sam3Processor
    for k, v in mods.items():
        monkeypatch.setitem(sys.modules, k, v)
    if "psutil" not in sys.modules:
        monkeypatch.setitem(sys.modules, "psutil", types.ModuleType("psutil"))
    monkeypatch.setattr(
        sam3_boxes.importlib.util, "find_spec", lambda name: object() if name == "psutil" else None
    )
    ckpt = tmp_path / "sam3.pt"
    ckpt.write_bytes(b"weights")
    bpe = tmp_path / "bpe_simple_vocab_16e6.txt.gz"
    bpe.write_bytes(b"vocab")
    return calls, ckpt, bpe


@pytest.mark.skipif("torch.cuda.is_available()", reason="checks the CPU patches")
def test_adapter_builds_on_cpu_from_local_files(fake_sam3):
    calls, ckpt, bpe = fake_sam3
    p = Sam3BoxProposer(ckpt, bpe)
    assert calls["build"] == dict(
        bpe_path=str(bpe), device="cpu", checkpoint_path=str(ckpt), load_from_HF=False
    )
    assert calls["zeros"] == "cpu" and calls["coords"] == "cpu"  # patched during the build
    with pytest.raises((AssertionError, RuntimeError)):  # no CUDA build / no GPU
        torch.zeros(1, device="cuda")  # and restored afterwards
    out = p.propose(np.zeros((180, 320, 3), np.uint8))
    assert calls["prompt"] == "player" and calls["image_size"] == (320, 180)
    assert [round(q.score, 2) for q in out] == [0.9, 0.6]  # best first
    assert out[0].box_xyxy == (300.0, 40.0, 360.0, 200.0)


def test_missing_files_and_package_are_named(fake_sam3, tmp_path, monkeypatch):
    calls, ckpt, bpe = fake_sam3
    with pytest.raises(ProposerError, match="checkpoint not found"):
        Sam3BoxProposer(tmp_path / "nope.pt", bpe)
    with pytest.raises(ProposerError, match="bpe_simple_vocab_16e6.txt.gz not found"):
        Sam3BoxProposer(ckpt)  # open_clip is not installed here
    monkeypatch.setitem(sys.modules, "sam3.model_builder", None)
    with pytest.raises(ProposerError, match="SAM3 is not installed"):
        Sam3BoxProposer(ckpt, bpe)


def test_environment_configuration(fake_sam3, monkeypatch):
    calls, ckpt, bpe = fake_sam3
    monkeypatch.delenv("COURTSTUDIO_SAM3_CHECKPOINT", raising=False)
    assert proposer_from_environment() is None
    monkeypatch.setenv("COURTSTUDIO_SAM3_CHECKPOINT", str(ckpt))
    monkeypatch.setenv("COURTSTUDIO_SAM3_BPE", str(bpe))
    assert proposer_from_environment().name == "SAM3"


def test_video_tracker_protocol(fake_sam3, monkeypatch):
    calls, ckpt, bpe = fake_sam3
    requests = []

    class Predictor:
        def handle_request(self, r):
            requests.append(r["type"])
            return {"session_id": "s1"} if r["type"] == "start_session" else {}

        def handle_stream_request(self, r):
            assert r == {"type": "propagate_in_video", "session_id": "s1"}
            for f in range(2):
                yield {
                    "frame_index": f,
                    "outputs": {
                        "out_obj_ids": torch.tensor([3, 5]),
                        "out_probs": torch.tensor([0.9, 0.7]),
                        "out_boxes_xywh": torch.tensor(
                            [[0.1, 0.2, 0.05, 0.2], [0.5, 0.5, 0.1, 0.1]]
                        ),
                    },
                }

    sys.modules["sam3.model_builder"].build_sam3_video_predictor = (
        lambda checkpoint_path, bpe_path: (
            calls.setdefault("video", (checkpoint_path, bpe_path)) and Predictor()
        )
    )
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    from hmr.sam3_boxes import Sam3VideoTracker

    boxes = Sam3VideoTracker(ckpt, bpe).track("clip.mp4", (1920, 1080))
    assert requests == ["start_session", "add_prompt", "close_session"]
    assert calls["video"] == (str(ckpt), str(bpe))
    assert [(b.frame_index, b.track_id) for b in boxes] == [(0, 3), (0, 5), (1, 3), (1, 5)]
    assert np.allclose(boxes[0].box_xyxy, (192, 216, 288, 432))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ProposerError, match="CUDA GPU only"):
        Sam3VideoTracker(ckpt, bpe)

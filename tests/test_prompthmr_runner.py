"""Running PromptHMR from CourtStudio: a stand-in prompt_hmr package with the real call
sequence checks that our K is passed and the output is read; missing installs are named."""

import sys
import types

import numpy as np
import pytest

from hmr.person_mesh import MeshError
from hmr.prompthmr_runner import PromptHMRRunner
from tests.lazy_torch import torch


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    (tmp_path / "prompt_hmr").mkdir()
    (tmp_path / "data" / "pretrain" / "phmr").mkdir(parents=True)
    seen = {}

    def prepare_batch(inputs, img_size=896, interaction=None):
        seen["inputs"], seen["img_size"] = inputs, img_size
        return ["batch"]

    class Model:
        def __call__(self, batch, use_mean_hands=True):
            n = len(seen["inputs"][0]["boxes"])
            V = torch.ones(n, 30, 3) * torch.tensor([0.0, 0.0, 9.0])
            J = torch.ones(n, 25, 3) * torch.tensor([0.0, 0.0, 9.0])
            return [
                {
                    "vertices": V,
                    "body_joints": J,
                    "betas": torch.zeros(n, 10),
                    "cam_int": torch.eye(3)[None],
                }
            ]

    pkg = types.ModuleType("prompt_hmr")
    pkg.load_model_from_folder = lambda folder: seen.setdefault("folder", folder) and Model()
    inference = types.ModuleType("prompt_hmr.models.inference")
    inference.prepare_batch = prepare_batch
    for name, mod in {
        "prompt_hmr": pkg,
        "prompt_hmr.models": types.ModuleType("m"),
        "prompt_hmr.models.inference": inference,
    }.items():
        monkeypatch.setitem(sys.modules, name, mod)
    return tmp_path, seen


def test_runner_passes_our_intrinsics(checkout, tennis_camera, monkeypatch):
    root, seen = checkout
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.module(), "autocast", lambda device: torch.no_grad())
    runner = PromptHMRRunner(root)
    img = np.zeros((1080, 1920, 3), np.uint8)
    res = runner.run(img, [[10, 20, 110, 300], [500, 40, 560, 200]], tennis_camera)
    inp = seen["inputs"][0]
    assert np.allclose(inp["cam_int"][0].numpy(), tennis_camera.K)  # never PromptHMR's guess
    assert inp["boxes"].shape == (2, 4) and seen["img_size"] == 896
    assert inp["image_cv"].shape == (1080, 1920, 3)
    assert len(res.people) == 2 and res.people[0].has_body_joints
    with pytest.raises(MeshError, match="the frame is 960x540"):
        runner.run(np.zeros((540, 960, 3), np.uint8), [[1, 2, 30, 40]], tennis_camera)


def test_missing_installs_are_named(tmp_path, checkout, monkeypatch):
    root, _ = checkout
    monkeypatch.delenv("COURTSTUDIO_PROMPTHMR_DIR", raising=False)
    with pytest.raises(MeshError, match="PromptHMR is not installed"):
        PromptHMRRunner()
    with pytest.raises(MeshError, match="weights not found"):
        (tmp_path / "other" / "prompt_hmr").mkdir(parents=True)
        PromptHMRRunner(tmp_path / "other")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(MeshError, match="CUDA GPU only"):
        PromptHMRRunner(root)

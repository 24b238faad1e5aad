"""Shared fixtures: seeded synthetic broadcast cameras with known ground truth."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any Qt import
# Anny's first model build takes ~35 s; keep its cache beside the venv across test runs
os.environ.setdefault("ANNY_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".venv",
                                                     "anny_cache"))

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from court_specs import load_spec  # noqa: E402
from court_specs.model import PAPER_SIX  # noqa: E402
from courtstudio.synthetic import sample_broadcast_camera  # noqa: E402

IMAGE_SIZE = (1920, 1080)


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    """The app's settings and sample copy go to a per-test folder, never the real home."""
    monkeypatch.setenv("COURTSTUDIO_HOME", str(tmp_path / "courtstudio_home"))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def tennis():
    return load_spec("tennis")


def true_clicks(spec, camera, names=PAPER_SIX):
    """{name: (2,) px} exact projections of the named keypoints."""
    uv = camera.project(np.array([spec.keypoints[n] for n in names]))
    return dict(zip(names, uv))


@pytest.fixture
def tennis_camera(tennis):
    return sample_broadcast_camera(tennis, IMAGE_SIZE, np.random.default_rng(7))

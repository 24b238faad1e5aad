"""Shared fixtures: seeded synthetic broadcast cameras with known ground truth."""

from __future__ import annotations

import numpy as np
import pytest

from court_specs import load_spec
from court_specs.model import PAPER_SIX
from courtstudio.synthetic import sample_broadcast_camera

IMAGE_SIZE = (1920, 1080)


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

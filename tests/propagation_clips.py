"""Synthetic clips several propagation tests share."""

from __future__ import annotations

from court_specs import load_spec
from court_specs.model import PAPER_SIX
from courtstudio.pipeline.propagate import Reference
from courtstudio.synth.synthetic_clip import Hazards, make_clip
from tests.conftest import true_clicks


def reference_clicks(spec, camera, names=PAPER_SIX) -> dict:
    """{name: (u, v) px} as a Reference holds them: tests.conftest.true_clicks (a true
    camera's projections, without annotation noise) as tuples."""
    return {n: tuple(uv) for n, uv in true_clicks(spec, camera, names).items()}


def graphics_cut_clip():
    """(tennis spec, a 60-frame 640 x 360 clip with screen-fixed graphics and a 6-frame cut
    at frame 44, [Reference at frame 0 from its true camera's paper-six keypoints])."""
    spec = load_spec("tennis")
    c = make_clip(
        spec, 60, (640, 360), seed=8, cut_at=(44,), cut_length=6, hazards=Hazards(graphics=True)
    )
    return spec, c, [Reference(0, reference_clicks(spec, c.cameras[0]))]

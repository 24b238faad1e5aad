"""tests/synth_memo.py gives what the real generators give: the same images, byte for byte,
and the same random generator state after the call (so everything drawn later is the same)."""

from __future__ import annotations

import numpy as np

from court_specs import load_spec
from courtstudio.synth import synthetic, synthetic_clip
from courtstudio.synth.synthetic_clip import Hazards, make_clip
from tests.synth_memo import memoized


def _real(fn):
    return getattr(fn, "uncached", fn)


def test_the_suite_runs_with_the_memoized_generators():
    assert hasattr(synthetic_clip.ground_texture, "uncached")
    assert hasattr(synthetic.render_frame, "uncached")


def test_a_repeated_texture_is_the_real_one_and_leaves_the_same_generator_state():
    spec = load_spec("badminton")
    real = _real(synthetic_clip.ground_texture)
    memo = memoized(real)
    for surface, crowd in (("grass", False), ("grass", True)):
        rng_real = np.random.default_rng(4)
        want, want_A = real(spec, rng_real, surface=surface, crowd=crowd)
        after_real = rng_real.normal(size=5)
        for _ in range(2):  # the first call computes, the second one is the kept copy
            rng = np.random.default_rng(4)
            got, got_A = memo(spec, rng, surface=surface, crowd=crowd)
            assert np.array_equal(got, want) and np.array_equal(got_A, want_A)
            assert np.array_equal(rng.normal(size=5), after_real)
            got[:] = 0  # the caller owns its copy: the kept result is unchanged
    # a different generator state is a different texture
    other, _ = memo(spec, np.random.default_rng(5))
    assert not np.array_equal(other, want)


def test_clips_and_frames_equal_those_of_the_real_functions(monkeypatch):
    spec = load_spec("tennis")
    args = dict(n_frames=3, size=(320, 180), seed=3, hazards=Hazards(graphics=True))
    memo_clip = make_clip(spec, **args)
    memo_again = make_clip(spec, **args)
    monkeypatch.setattr(synthetic_clip, "ground_texture", _real(synthetic_clip.ground_texture))
    real_clip = make_clip(spec, **args)
    for a, b, c in zip(memo_clip.frames, memo_again.frames, real_clip.frames):
        assert np.array_equal(a, c) and np.array_equal(b, c)

    rng_cam = np.random.default_rng(1)
    cam = synthetic.sample_broadcast_camera(spec, (480, 270), rng_cam)
    real = _real(synthetic.render_frame)
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    want = real(spec, cam, None, rng_a)
    memo = memoized(real)
    memo(spec, cam, None, np.random.default_rng(9))
    got = memo(spec, cam, None, rng_b)
    assert np.array_equal(got, want)
    assert rng_a.integers(0, 2**32) == rng_b.integers(0, 2**32)

"""The synthetic data generators' two costly pure functions, computed once per test worker.

``courtstudio.synth.synthetic_clip.ground_texture`` (a court-sized textured ground, about 0.3 s)
and ``courtstudio.synth.synthetic.render_frame`` (a full-size synthetic frame, about 0.3 s) are
deterministic in their arguments, the random generator's state included. Many tests build the
same clip or project (the same sport and seed), so the suite computed the same images dozens of
times. Here each result is kept under a digest of its arguments (a ``numpy.random.Generator``
pickles with its state), and a repeated call returns a copy of the result and leaves the
generator in the state the real call left it in: the caller sees exactly what the real function
gives, byte for byte, including everything drawn from the generator afterwards.
tests/test_synth_memo.py checks that equality.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

MAX_ENTRIES = 8  # per function: a texture is ~8 MB, a 1080p frame ~6 MB


def _generators(args, kwargs) -> list[np.random.Generator]:
    return [a for a in (*args, *kwargs.values()) if isinstance(a, np.random.Generator)]


def memoized(fn: Callable) -> Callable:
    """fn with its results kept per digest of (args, kwargs), generator states included."""
    cache: OrderedDict[bytes, tuple] = OrderedDict()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            key = hashlib.sha256(pickle.dumps((args, sorted(kwargs.items())))).digest()
        except (pickle.PicklingError, TypeError, AttributeError):
            return fn(*args, **kwargs)
        gens = _generators(args, kwargs)
        hit = cache.get(key)
        if hit is None:
            result = fn(*args, **kwargs)
            hit = (result, [g.bit_generator.state for g in gens])
            cache[key] = hit
            if len(cache) > MAX_ENTRIES:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
            for g, state in zip(gens, hit[1]):
                g.bit_generator.state = state
        return copy.deepcopy(hit[0])

    wrapper.uncached = fn  # type: ignore[attr-defined]
    return wrapper


def install(monkeypatch_setattr: Callable[[object, str, object], None]) -> None:
    """Replace the generators' costly functions by memoized ones (setattr: a MonkeyPatch's)."""
    from courtstudio.synth import synthetic, synthetic_clip

    monkeypatch_setattr(synthetic_clip, "ground_texture", memoized(synthetic_clip.ground_texture))
    monkeypatch_setattr(synthetic, "render_frame", memoized(synthetic.render_frame))

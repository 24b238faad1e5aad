"""The compiled line-search loops (geometry/_ridge_kernels.pyx) against the whole-array NumPy
formulation they replaced: the same centres to the bit and the same NaNs, on profiles with the
hazards the rules exist for (rival ridges, shadow steps, wide bright blocks, bands running off
the profile, a line at the edge of a painted area), in both modes."""

from __future__ import annotations

import numpy as np
import pytest

from geometry._ridge_kernels import (
    profile_maps,
    ridge_centres,
    smooth_inliers_per_line,
)
from geometry.line_ridges import (
    AMBIGUOUS_RATIO,
    EDGE_LINE_RATIO,
    MIN_CONTRAST,
    PROFILE_STEP_PX,
    _ridge_centres,
)


def _numpy_ridge_centres(prof, offsets, width_px, search_px, strict=False):
    """The whole-array NumPy formulation the kernel replaced (line_ridges before 2026-12-02),
    kept here as its oracle."""
    step = PROFILE_STEP_PX
    S, n = prof.shape
    out = np.full(S, np.nan)
    a_all = np.round((0.5 * width_px + 1.5) / step).astype(int)
    cols = np.arange(n)
    for a in np.unique(a_all):
        rows = np.flatnonzero(a_all == a)
        if n <= 2 * a + 2:
            continue
        P = prof[rows]
        resp = P[:, a : n - a] - np.maximum(P[:, : n - 2 * a], P[:, 2 * a :])
        inner = np.abs(offsets[a : n - a]) <= search_px
        resp = np.where(inner[None], resp, -np.inf)
        k = np.argmax(resp, axis=1)
        r_ = np.arange(len(rows))
        best = resp[r_, k]
        ok = best > MIN_CONTRAST
        far = np.abs(np.arange(resp.shape[1])[None] - k[:, None]) > 2 * a
        rival = np.max(np.where(far, resp, -np.inf), axis=1)
        ok &= ~(rival > AMBIGUOUS_RATIO * best)
        if strict:
            above_dark = P[:, a : n - a] - np.minimum(P[:, : n - 2 * a], P[:, 2 * a :])
            ridge = far & (resp > MIN_CONTRAST)
            rival = np.max(np.where(ridge, above_dark, -np.inf), axis=1)
            ok &= ~(rival > AMBIGUOUS_RATIO * above_dark[r_, k])
        kp = k + a
        peak, side_l, side_r = P[r_, kp], P[r_, kp - a], P[r_, kp + a]
        half_l = half_r = 0.5 * (peak + 0.5 * (side_l + side_r))
        if strict:  # an edge line: each edge at half its own side's height
            edge = peak - np.maximum(side_l, side_r) < EDGE_LINE_RATIO * (
                peak - np.minimum(side_l, side_r)
            )
            half_l = np.where(edge, 0.5 * (peak + side_l), half_l)
            half_r = np.where(edge, 0.5 * (peak + side_r), half_r)
        # lo - 1: the last sample left of kp below half; hi + 1: the first right of it
        below = P < half_l[:, None]
        left_b = np.where(below & (cols[None] < kp[:, None]), cols[None], -1).max(axis=1)
        if strict:
            below = P < half_r[:, None]
        right_b = np.where(below & (cols[None] > kp[:, None]), cols[None], n).min(axis=1)
        ok &= (left_b >= 0) & (right_b <= n - 1)
        lo, hi = np.clip(left_b + 1, 1, n - 1), np.clip(right_b - 1, 0, n - 2)
        pl, pl1 = P[r_, lo - 1], P[r_, lo]
        ph, ph1 = P[r_, hi], P[r_, hi + 1]
        left = offsets[lo - 1] + step * (half_l - pl) / np.maximum(pl1 - pl, 1e-6)
        right = offsets[hi] + step * (ph - half_r) / np.maximum(ph - ph1, 1e-6)
        measured = right - left
        w = width_px[rows]
        ok &= (measured <= 2.5 * w + 2.0) & (measured >= 0.3 * w)
        out[rows[ok]] = 0.5 * (left + right)[ok]
    return out


def _profiles(rng, S, reach):
    """(S, O) float32 grey profiles at offsets -reach..reach (step 0.5) and each row's line
    width px: a band (sometimes none, sometimes two, a shadow step, a wide block, an edge
    between a dark and a bright area), blurred, noisy."""
    offsets = np.arange(-reach, reach + 1e-9, PROFILE_STEP_PX)
    x = offsets[None, :]
    width = rng.uniform(1.0, 9.0, S)
    centre = rng.uniform(-reach, reach, S)
    base = rng.uniform(40, 160, (S, 1))
    height = rng.uniform(0, 120, (S, 1))
    soft = rng.uniform(0.3, 1.5, (S, 1))

    def band(c, w):
        return 1.0 / (1.0 + np.exp(-(x - c[:, None] + 0.5 * w[:, None]) / soft)) - 1.0 / (
            1.0 + np.exp(-(x - c[:, None] - 0.5 * w[:, None]) / soft)
        )

    prof = base + height * band(centre, width)
    kind = rng.integers(0, 6, S)
    second = rng.uniform(-reach, reach, S)
    prof += (kind == 1)[:, None] * rng.uniform(0.5, 1.1, (S, 1)) * height * band(second, width)
    prof += (kind == 2)[:, None] * 60 * (x > second[:, None])  # a shadow edge
    prof += (kind == 3)[:, None] * 80 * band(second, 6 * width)  # a wide bright block
    prof += (kind == 4)[:, None] * rng.uniform(-90, 90, (S, 1)) * (x > centre[:, None])  # an edge
    prof = np.where((kind == 5)[:, None], base, prof)  # nothing
    prof += rng.normal(0, rng.uniform(0, 6), prof.shape)
    return np.clip(prof, 0, 255).astype(np.float32), offsets, width


@pytest.mark.parametrize("strict", [False, True])
def test_the_kernel_finds_the_numpy_centres_to_the_bit(strict):
    rng = np.random.default_rng(11 + strict)
    found = 0
    for _ in range(60):
        reach = float(rng.choice([8.0, 12.5, 19.0, 34.0]))
        prof, offsets, width = _profiles(rng, int(rng.integers(1, 400)), reach)
        search = float(rng.uniform(2.0, reach))
        want = _numpy_ridge_centres(prof, offsets, width, search, strict)
        got = _ridge_centres(prof, offsets, width, search, strict)
        assert got.dtype == np.float64 and got.shape == want.shape
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(got[np.isfinite(got)], want[np.isfinite(want)])
        found += int(np.isfinite(got).sum())
    assert found > 2000  # the profiles exercise the found path, not only the refusals


def test_the_kernel_refuses_what_it_cannot_read():
    prof = np.full((3, 9), 50.0, np.float32)
    prof[:, 4] = 200.0
    offsets = np.arange(9) * 0.5 - 2.0
    # a probe wider than the profile: no centre, not an error
    wide = _ridge_centres(prof, offsets, np.full(3, 40.0), 2.0)
    assert np.isnan(wide).all()
    assert _ridge_centres(np.zeros((0, 9), np.float32), offsets, np.zeros(0), 2.0).shape == (0,)
    with pytest.raises(ValueError, match="offsets"):
        ridge_centres(
            prof,
            offsets[:-1],
            np.ones(3, np.int64),
            np.ones(3),
            2.0,
            0.5,
            False,
            MIN_CONTRAST,
            AMBIGUOUS_RATIO,
            EDGE_LINE_RATIO,
        )


def test_smoothing_refuses_mismatched_lengths_and_keeps_nothing_of_nothing():
    assert smooth_inliers_per_line(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), 1.5).shape == (
        0,
    )
    with pytest.raises(ValueError, match="line, arc and off"):
        smooth_inliers_per_line(np.zeros(4, np.int64), np.zeros(4), np.zeros(3), 1.5)


def test_the_profile_maps_are_the_numpy_ones_to_the_bit():
    """cv2.remap's maps for the profiles across the lines: (uv + offsets * normals) in
    float64, rounded to float32, as the NumPy expression gives them (points far outside the
    image, unnormalised normals, no samples or no offsets included)."""
    rng = np.random.default_rng(5)
    for S, O in [(650, 65), (1, 1), (0, 7), (7, 0), (300, 33)]:
        uv = rng.uniform(-3000, 5000, (S, 2))
        normals = rng.normal(0, 2, (S, 2))
        offsets = np.arange(O) * 0.5 - O / 4
        mx, my = profile_maps(uv, normals, offsets)
        assert mx.dtype == my.dtype == np.float32 and mx.shape == my.shape == (S, O)
        assert np.array_equal(
            mx, (uv[:, :1] + offsets[None, :] * normals[:, :1]).astype(np.float32)
        )
        assert np.array_equal(
            my, (uv[:, 1:] + offsets[None, :] * normals[:, 1:]).astype(np.float32)
        )
    with pytest.raises(ValueError, match="uv and normals"):
        profile_maps(np.zeros((3, 2)), np.zeros((2, 2)), np.zeros(4))


def test_the_float32_profile_maps_are_the_numpy_ones_to_the_bit():
    """The line evidence's maps: the same expression on float32 arrays, each product and sum
    rounded to float32 as NumPy rounds them."""
    rng = np.random.default_rng(6)
    for S, O in [(900, 33), (1, 1), (0, 7), (7, 0), (120, 65)]:
        uv = rng.uniform(-3000, 5000, (S, 2)).astype(np.float32)
        normals = rng.normal(0, 2, (S, 2)).astype(np.float32)
        k = (np.arange(O) - O // 2).astype(np.float32) * np.float32(0.7)
        mx, my = profile_maps(uv, normals, k)
        assert mx.dtype == my.dtype == np.float32 and mx.shape == my.shape == (S, O)
        assert np.array_equal(mx, uv[:, :1] + k[None, :] * normals[:, :1])
        assert np.array_equal(my, uv[:, 1:] + k[None, :] * normals[:, 1:])
    with pytest.raises(ValueError, match="uv and normals"):
        profile_maps(np.zeros((3, 2), np.float32), np.zeros((3, 1), np.float32), k)

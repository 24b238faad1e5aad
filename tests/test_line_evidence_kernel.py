"""line_support.line_evidence's compiled pass (geometry/_ridge_kernels.pyx: in_view_normals,
ridge_evidence) against the whole-array NumPy formulation it replaced (line_support before
2026-12-03), kept here as its oracle: the same samples, normals and evidence to the bit on
court lines projected by cameras near and far, lines leaving the image, BGR and gray frames,
and runs of every length."""

from __future__ import annotations

import zlib

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.propagation_court import ground_lines
from courtstudio.synth.synthetic import sample_broadcast_camera
from geometry._ridge_kernels import in_view_normals, profile_maps, ridge_evidence
from geometry.arrays import median_axis0
from geometry.camera import Camera
from geometry.line_support import _GRAY_BGR, MIN_CONTRAST, line_evidence
from geometry.projection import densify_all, project_polylines, projected_runs


def _numpy_run_gradient(points, starts):
    """np.gradient(run, axis=0) of every run at once (the replaced _run_gradient)."""
    n = len(points)
    first = np.zeros(n, bool)
    first[0] = True
    first[list(starts)] = True
    last = np.roll(first, -1)
    last[-1] = True
    nxt = np.minimum(np.arange(n) + 1, n - 1)
    prv = np.maximum(np.arange(n) - 1, 0)
    d = 0.5 * (points[nxt] - points[prv])
    d[first] = points[nxt[first]] - points[first]
    d[last] = points[last] - points[prv[last]]
    return d


def _numpy_in_view(run, starts, reach, w, h):
    d = _numpy_run_gradient(run, starts)
    n = np.stack([-d[:, 1], d[:, 0]], axis=1)
    n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-9
    a, b = run + reach * n, run - reach * n
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    ok = (lo[:, 0] >= 0) & (hi[:, 0] <= w - 1) & (lo[:, 1] >= 0) & (hi[:, 1] <= h - 1)
    return run[ok].astype(np.float32), n[ok].astype(np.float32)


def _numpy_line_evidence(image, camera, dense, search_px=8.0, ridge_px=(2.0, 4.0, 8.0), tol_px=2.0):
    """line_evidence's NumPy formulation (integer ridge widths) before the compiled pass."""
    h, w = image.shape[:2]
    offs = np.arange(-int(search_px), int(search_px) + 1, dtype=np.float64)
    ds = np.asarray(ridge_px, float)
    reach = offs.max() + ds.max()
    run, starts = projected_runs(camera, *dense)
    empty = {"samples": 0, "found": 0, "support": float("nan"), "residual_px": float("nan")}
    if not len(run):
        return empty
    p, nn = _numpy_in_view(run, starts, reach, w, h)
    if not len(p):
        return empty
    K = len(offs)
    r = int(reach)
    k = np.arange(-r, r + 1, dtype=np.float32)
    vals = cv2.remap(image, *profile_maps(p, nn, k), cv2.INTER_LINEAR).astype(np.float32)
    w0, w1, w2 = _GRAY_BGR  # float32 products, summed in order (not a BLAS matmul)
    prof = vals if vals.ndim == 2 else (vals[..., 0] * w0 + vals[..., 1] * w1) + vals[..., 2] * w2
    c = r - int(search_px)
    centre = prof[:, c : c + K]
    resp = np.full(centre.shape, -np.inf, np.float32)
    for dd in ds:
        side = np.maximum(
            prof[:, c - int(dd) : c - int(dd) + K], prof[:, c + int(dd) : c + int(dd) + K]
        )
        np.maximum(resp, np.subtract(centre, side, out=side), out=resp)
    j = np.argmax(resp, axis=1)
    off, val = offs[j], np.take_along_axis(resp, j[:, None], 1)[:, 0]
    found = val > MIN_CONTRAST
    return {
        "samples": int(len(off)),
        "found": int(found.sum()),
        "support": float(np.mean(found & (np.abs(off) <= tol_px))),
        "residual_px": float(median_axis0(np.abs(off[found]))) if found.any() else float("nan"),
    }


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        (np.isnan(a[k]) and np.isnan(b[k]))
        if isinstance(a[k], float) and np.isnan(a[k])
        else a[k] == b[k]
        for k in a
    )


def _court_frame(camera: Camera, rng, lines) -> np.ndarray:
    """A BGR frame: a noisy, blurred surface with the court's lines painted white, 2-5 px
    wide."""
    w, h = camera.image_size
    img = cv2.GaussianBlur(rng.integers(40, 110, (h, w, 3)).astype(np.uint8), (5, 5), 0)
    for run in project_polylines(camera, *densify_all(lines, 0.25)):
        pts = np.round(run).astype(np.int32)
        cv2.polylines(img, [pts], False, (235, 235, 235), int(rng.integers(2, 6)), cv2.LINE_AA)
    return img


CASES = [  # (sport, image size, zoom range: above 1 the court's lines leave the image)
    ("tennis", (1280, 720), (0.8, 0.97)),
    ("tennis", (1920, 1080), (1.2, 2.5)),
    ("basketball_nba", (1280, 720), (0.8, 1.6)),
    ("pickleball", (640, 360), (0.9, 2.0)),
    ("volleyball", (1280, 720), (1.0, 3.0)),
]


@pytest.mark.parametrize("sport,size,zoom", CASES)
def test_line_evidence_is_the_numpy_formulation_to_the_bit(sport, size, zoom):
    spec = load_spec(sport)
    lines = ground_lines(spec)
    dense = densify_all(lines, 0.25)
    rng = np.random.default_rng(zlib.crc32(f"{sport} {size}".encode()))  # hash() is salted
    for _ in range(6):
        cam = sample_broadcast_camera(spec, size, rng, zoom=zoom)
        img = _court_frame(cam, rng, lines)
        # the camera itself, and cameras a few px off the painted lines (ridges found off
        # centre, some not at all)
        for shift in (0.0, 1.5, 4.0, 12.0):
            c = Camera(cam.K, cam.R, cam.t + rng.normal(0, shift * 0.01, 3), cam.image_size)
            for frame in (img, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)):
                got = line_evidence(frame, c, [], dense=dense)
                want = _numpy_line_evidence(frame, c, dense)
                assert _same(got, want), (got, want)
                assert got["samples"] > 0
                assert shift or got["found"] > 0.5 * got["samples"]


def test_in_view_normals_are_numpys_per_run():
    rng = np.random.default_rng(1)
    for _ in range(300):
        runs = [
            rng.random((int(rng.integers(2, 9)), 2)) * 100 for _ in range(int(rng.integers(1, 6)))
        ]
        run = np.concatenate(runs)
        starts = np.cumsum([len(r) for r in runs])[:-1].astype(np.int64)
        expect_d = np.concatenate([np.gradient(r, axis=0) for r in runs])
        assert np.allclose(_numpy_run_gradient(run, starts), expect_d)
        reach = float(rng.uniform(0, 40))
        w, h = float(rng.integers(60, 120)), float(rng.integers(60, 120))
        got = in_view_normals(run, starts, reach, w, h)
        want = _numpy_in_view(run, starts, reach, w, h)
        for g, e in zip(got, want):
            assert g.dtype == np.float32 and g.shape == e.shape
            assert np.array_equal(g, e)


def test_in_view_normals_edges():
    none = in_view_normals(np.zeros((0, 2)), np.zeros(0, np.int64), 5.0, 10.0, 10.0)
    assert [a.shape for a in none] == [(0, 2), (0, 2)]
    # a profile reaching exactly to the last pixel is inside; a NaN sample is not
    run = np.array([[5.0, 2.0], [5.0, 7.0], [np.nan, 8.0], [5.0, 9.0]])
    uv, nn = in_view_normals(run, np.array([2], np.int64), 4.0, 10.0, 10.0)
    assert np.array_equal(uv, np.array([[5.0, 2.0], [5.0, 7.0]], np.float32))
    assert np.allclose(nn, [[-1.0, 0.0], [-1.0, 0.0]])
    with pytest.raises(ValueError, match="run start"):
        in_view_normals(run, np.array([4], np.int64), 4.0, 10.0, 10.0)
    with pytest.raises(ValueError, match=r"\(N, 2\)"):
        in_view_normals(np.zeros((3, 3)), np.zeros(0, np.int64), 4.0, 10.0, 10.0)


def test_ridge_evidence_reads_ridges_and_refuses_bad_layouts():
    # three samples of 9 gray pixels: a ridge at offset 0, one at +2, a flat profile
    prof = np.array(
        [
            [50, 50, 50, 50, 90, 50, 50, 50, 50],
            [50, 50, 50, 50, 50, 50, 90, 50, 50],
            [50, 50, 50, 50, 50, 50, 50, 50, 50],
        ],
        np.uint8,
    )
    sides = np.array([1, 2], np.int64)
    found, support, residual = ridge_evidence(prof, 1, _GRAY_BGR, 2, 5, sides, 12.0, -2.0, 1.0)
    assert (found, support, residual) == (2, 1 / 3, 1.0)
    found, support, residual = ridge_evidence(prof, 1, _GRAY_BGR, 2, 5, sides, 12.0, -2.0, 2.0)
    assert (found, support) == (2, 2 / 3)
    bgr = np.repeat(prof[:, :, None], 3, axis=2).reshape(3, -1)
    assert ridge_evidence(bgr, 3, _GRAY_BGR, 2, 5, sides, 12.0, -2.0, 2.0)[:2] == (2, 2 / 3)
    assert ridge_evidence(prof[:0], 1, _GRAY_BGR, 2, 5, sides, 12.0, -2.0, 2.0)[0] == 0
    with pytest.raises(ValueError, match="side probe"):
        ridge_evidence(prof, 1, _GRAY_BGR, 1, 5, sides, 12.0, -2.0, 2.0)
    long = np.zeros((0, 300), np.uint8)  # a profile beyond the kernel's bound, even with no row
    with pytest.raises(ValueError, match="at most 256 px"):
        ridge_evidence(long, 1, _GRAY_BGR, 2, 5, sides, 12.0, -2.0, 2.0)
    with pytest.raises(ValueError, match="no ridge width"):
        ridge_evidence(prof, 1, _GRAY_BGR, 2, 5, sides[:0], 12.0, -2.0, 2.0)
    with pytest.raises(ValueError, match="channels"):
        ridge_evidence(prof, 2, _GRAY_BGR, 2, 5, sides, 12.0, -2.0, 2.0)


def test_the_non_integer_width_route_reads_what_the_integer_route_reads():
    """ridge widths that are not integers take line_evidence's per-offset NumPy route. Widths
    that round to integers in float32 (8 + 1e-9) read the very pixels of the integer route,
    so the two must agree to the bit, BGR (gray_levels against the kernel's tables) and gray;
    a real half-pixel width still finds the painted lines of the right camera, not of one 12
    px off."""
    spec = load_spec("tennis")
    lines = ground_lines(spec)
    dense = densify_all(lines, 0.25)
    rng = np.random.default_rng(zlib.crc32(b"non-integer widths"))
    for _ in range(8):
        cam = sample_broadcast_camera(spec, (1280, 720), rng, zoom=(0.8, 1.4))
        img = _court_frame(cam, rng, lines)
        for frame in (img, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)):
            for shift in (0.0, 1.5, 4.0, 12.0):  # cameras off the lines: borderline ridges
                c = Camera(cam.K, cam.R, cam.t + rng.normal(0, shift * 0.01, 3), cam.image_size)
                integer = line_evidence(frame, c, [], dense=dense, ridge_px=(2.0, 4.0, 8.0))
                nearly = line_evidence(frame, c, [], dense=dense, ridge_px=(2.0, 4.0, 8 + 1e-9))
                assert _same(integer, nearly), (shift, integer, nearly)
            half = line_evidence(frame, cam, [], dense=dense, ridge_px=(2.5, 4.5))
            off = Camera(cam.K, cam.R, cam.t + np.array([0.12, 0.0, 0.0]), cam.image_size)
            half_off = line_evidence(frame, off, [], dense=dense, ridge_px=(2.5, 4.5))
            assert half["samples"] > 0 and half["support"] > 0.8
            assert half_off["support"] < half["support"] - 0.3

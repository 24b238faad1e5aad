"""The synthetic clips' motion blur (courtstudio.synth.synthetic_clip._motion_blur): along the
frame-to-frame homography, centred on the frame's own camera, and the screen-fixed scoreboard
left sharp."""

from __future__ import annotations

import numpy as np
import pytest

from courtstudio.synth import synthetic_clip as sc
from geometry.camera import Camera

SIZE = (1280, 720)
F_PX = 1500.0


def _camera(yaw: float = 0.0, zoom: float = 1.0) -> Camera:
    """A pinhole camera at the origin looking along +z, panned by yaw (radians), zoomed."""
    K = np.array([[F_PX * zoom, 0, 639.5], [0, F_PX * zoom, 359.5], [0, 0, 1.0]])
    c, s = np.cos(yaw), np.sin(yaw)
    R = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return Camera(K=K, R=R, t=np.zeros(3), image_size=SIZE)


def _profile_moments(img: np.ndarray, row: int) -> tuple[float, float]:
    """(centroid, standard deviation) px of a row's brightness (one channel)."""
    p = img[row, :, 0].astype(np.float64)
    x = np.arange(p.size)
    m = np.sum(p * x) / np.sum(p)
    return float(m), float(np.sqrt(np.sum(p * (x - m) ** 2) / np.sum(p)))


def test_a_pan_smears_along_the_pan_centred_on_the_frames_camera():
    img = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    img[:, 640] = 255  # a thin vertical line at the image centre
    motion_px = 12.0  # the pan's image motion at the centre
    before, now = _camera(np.arctan(motion_px / F_PX)), _camera(0.0)
    out = sc._motion_blur(img, before, now)
    centre, spread = _profile_moments(out, 360)
    # the blur is centred on the frame's camera: the line stays where that camera sees it
    # (an exposure reaching back only would move it by half the motion, 6 px)
    assert centre == pytest.approx(640.0, abs=0.1)
    # a box of the motion's length: sd = L / sqrt(12), bilinear sampling adds a little
    assert spread == pytest.approx(motion_px / np.sqrt(12.0), rel=0.15)
    assert out.shape == img.shape and out.dtype == np.uint8


def test_a_zoom_leaves_the_principal_point_sharp_and_blurs_the_corners_radially():
    img = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    for u, v in [(640, 360), (1180, 660)]:  # a dot at the principal point, one near a corner
        img[v - 1 : v + 2, u - 1 : u + 2] = 255
    out = sc._motion_blur(img, _camera(zoom=1.0), _camera(zoom=1.02))
    centre = out[355:366, 635:646, 0].astype(float)
    assert centre.max() >= 200  # still sharp: a zoom does not move its principal point
    corner = out[630:691, 1130:1231, 0].astype(float)
    assert corner.max() < 120  # smeared over about 2 % of 790 px = 16 px
    vv, uu = np.nonzero(corner > 0)
    w = corner[vv, uu]
    cov = np.cov(np.vstack([uu, vv]), aweights=w)
    major = np.linalg.eigh(cov)[1][:, -1]  # the smear's direction
    radial = np.array([1180 - 639.5, 660 - 359.5])
    radial /= np.linalg.norm(radial)
    assert abs(float(major @ radial)) > 0.98


def test_a_motion_under_the_threshold_leaves_the_frame_as_it_is():
    img = np.random.default_rng(0).integers(0, 255, (SIZE[1], SIZE[0], 3), dtype=np.uint8)
    small = 0.5 * sc.MOTION_BLUR_MIN_PX / F_PX
    out = sc._motion_blur(img, _camera(small), _camera(0.0))
    assert out is img


def test_the_scoreboard_stays_sharp_in_a_motion_blurred_clip(tennis):
    kw = dict(n_frames=4, size=(640, 360), seed=3, zoom=0.6, pan_deg=30.0)
    sharp = [f for f, _, _ in sc.iter_clip(tennis, **kw)]
    blurred = [f for f, _, _ in sc.iter_clip(tennis, hazards=sc.Hazards(motion_blur=True), **kw)]
    assert np.array_equal(sharp[0], blurred[0])  # no motion before the first frame
    w, h = 640, 360
    box = (slice(20, 20 + h // 12 + 1), slice(20, 20 + w // 5 + 1))
    for a, b in zip(sharp[1:], blurred[1:]):
        assert np.array_equal(a[box], b[box])  # screen-fixed: drawn after the blur
        assert np.abs(a.astype(int) - b.astype(int)).mean() > 0.5  # the picture is blurred

"""geometry.pixel_lens: round trips against synthetic ground truth."""

import cv2
import numpy as np
import pytest

from geometry.camera import Camera
from geometry.pixel_lens import PixelLens

K = np.array([[1800.0, 0, 959.5], [0, 1800.0, 539.5], [0, 0, 1]])


@pytest.mark.parametrize("dist", [[0.2, 0, 0, 0, 0], [-0.15, 0.03, 0, 0, 0], [1.2, -0.5, 0, 0, 0]])
def test_distort_undistort_round_trip(dist):
    rng = np.random.default_rng(0)
    uv = rng.uniform([0, 0], [1919, 1079], (200, 2))
    lens = PixelLens(K, dist, (1920, 1080))
    ideal = lens.undistort(uv)
    assert np.max(np.abs(lens.distort(ideal) - uv)) < 1e-6
    assert np.max(np.abs(lens.undistort(lens.distort(ideal)) - ideal)) < 1e-6
    # the field is the camera's: projecting with the lens = distorting the pinhole projection
    cam = Camera(K, np.eye(3), np.array([0.0, 0, 10]), (1920, 1080), dist=np.array(dist))
    pin = Camera(K, np.eye(3), np.array([0.0, 0, 10]), (1920, 1080))
    X = np.c_[rng.uniform(-2, 2, (50, 2)), np.zeros(50)]
    assert np.allclose(lens.distort(pin.project(X)), cam.project(X), atol=1e-6)


def test_no_distortion_is_no_lens_and_empty_input():
    assert PixelLens.of_camera(Camera(K, np.eye(3), np.array([0.0, 0, 10]), (1920, 1080))) is None
    lens = PixelLens(K, [0.2], (1920, 1080))
    assert lens.undistort(np.zeros((0, 2))).shape == (0, 2)
    assert lens.distort(np.zeros((0, 2))).shape == (0, 2)


def test_straighten_a_reduced_image_makes_a_distorted_straight_line_straight():
    """A straight line in ideal pixels, drawn distorted at full size and reduced, is straight
    again (to a fraction of a reduced pixel) after straighten at the reduced scale."""
    lens = PixelLens(K, [0.25, 0, 0, 0, 0], (1920, 1080))
    full = np.zeros((1080, 1920), np.uint8)
    ideal = np.c_[np.linspace(80, 1840, 400), np.full(400, 120.0)]  # near the top edge
    bent = lens.distort(ideal)
    assert np.ptp(bent[:, 1]) > 20  # visibly bent
    cv2.polylines(full, [np.round(bent * 16).astype(np.int32)], False, 255, 3, cv2.LINE_AA, 4)
    s = 0.5
    small = cv2.resize(full, (960, 540), interpolation=cv2.INTER_AREA)
    straight = lens.straighten(small, s)
    rows = []
    for x in range(120, 840, 40):
        col = straight[:, x].astype(float)
        ys = np.arange(len(col))
        w = col * (np.abs(ys - 60) < 15)
        rows.append((w * ys).sum() / w.sum())
    rows = np.array(rows)
    assert np.ptp(rows) < 0.5, rows  # straight, at the ideal height (120 px * 0.5)
    assert abs(rows.mean() - (120 + 0.5) * s + 0.5) < 0.5


def test_a_straightened_mask_is_the_straightened_mask_and_kept_while_it_repeats():
    """straighten_mask: the nearest resampling with the border masked, read-only; an input
    equal to the last gives the last result back (the same object), another input a new one."""
    import cv2

    lens = PixelLens(
        np.array([[800.0, 0, 639.5], [0, 800, 359.5], [0, 0, 1]]),
        np.array([-0.25, 0.06, 0, 0, 0]),
        (1280, 720),
    )
    mask = np.full((360, 640), 255, np.uint8)
    mask[20:80, 30:200] = 0
    out = lens.straighten_mask(mask, 0.5)
    want = cv2.bitwise_and(lens.straighten(mask, 0.5, nearest=True), lens.valid((360, 640), 0.5))
    assert np.array_equal(out, want) and not out.flags.writeable
    assert lens.straighten_mask(mask.copy(), 0.5) is out
    other = mask.copy()
    other[300:, 500:] = 0
    out2 = lens.straighten_mask(other, 0.5)
    assert out2 is not out and not np.array_equal(out2, out)
    mask[:] = 0  # the caller's array changed in place: not the kept one
    assert not np.array_equal(lens.straighten_mask(mask, 0.5), out2)

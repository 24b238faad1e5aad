"""Registration's ORB fallback (geometry/orb_features.py): features kept with their Prepared
give the same registration as features computed afresh; motion beyond KLT's reach is
registered by matching (round trip against a known homography); degenerate frames fail
cleanly with a reason."""

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.synth.synthetic_clip import make_clip
from geometry.orb_features import Features, detect, match
from geometry.plane_motion import prepare, register_to_reference
from tests.homography_checks import homography_error_px

SIZE = (640, 360)


@pytest.fixture(scope="module")
def clip():
    return make_clip(load_spec("tennis"), 12, SIZE, seed=4, pan_deg=6.0)


def _rotate_zoom_pan(deg: float, zoom: float, pan_px: tuple, size=SIZE) -> np.ndarray:
    """(3, 3) full-resolution pixels -> pixels: rotation by deg and zoom about the image
    centre, then a pan of pan_px (dx, dy)."""
    w, h = size
    A = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), deg, zoom)
    H = np.vstack([A, [0.0, 0.0, 1.0]])
    H[:2, 2] += pan_px
    return H


def _moved(image, H, size=SIZE):
    """image warped by H and the mask (0 = ignore) of the pixels H leaves without content."""
    frame = cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR)
    valid = cv2.warpPerspective(np.full(image.shape[:2], 255, np.uint8), H, size, flags=0)
    return frame, cv2.erode(valid, np.ones((7, 7), np.uint8))


def _feature_sets(store) -> set:
    """The ids of the distinct feature sets a Prepared keeps."""
    return {id(v) for v in store.values() if isinstance(v, Features)} | {
        id(v[1]) for v in store.values() if isinstance(v, tuple)
    }


def test_kept_features_give_the_same_registration_as_features_computed_afresh(clip):
    ref_img, frame_img = clip.frames[0], clip.frames[11]
    mask = np.full(frame_img.shape[:2], 255, np.uint8)
    mask[:40] = 0  # a mask, so the features are kept per mask content
    a, b = prepare(ref_img, corners=True), prepare(frame_img)
    first = register_to_reference(a, b, np.eye(3), mask, mask, method="match")
    assert first.ok, first.reason
    assert a.features and b.features  # computed at the first match, kept with the images
    kept_a, kept_b = _feature_sets(a.features), _feature_sets(b.features)
    again = register_to_reference(a, b, np.eye(3), mask.copy(), mask.copy(), method="match")
    for store, kept in ((a.features, kept_a), (b.features, kept_b)):
        # an equal mask (another object) is the same mask: nothing recomputed
        assert _feature_sets(store) == kept
    fresh = register_to_reference(
        prepare(ref_img, corners=True), prepare(frame_img), np.eye(3), mask, mask, method="match"
    )
    np.testing.assert_array_equal(again.H, first.H)
    np.testing.assert_array_equal(fresh.H, first.H)
    assert (fresh.inliers, fresh.rms_px, fresh.method) == (first.inliers, first.rms_px, "match")


def test_features_are_kept_per_mask_and_respect_it(clip):
    p = prepare(clip.frames[0])
    left = np.zeros(p.gray.shape, np.uint8)
    left[:, : p.gray.shape[1] // 2] = 255
    everywhere, half = p.orb(None), p.orb(left)
    assert len(everywhere.uv) > 100 and len(half.uv) > 50
    assert np.all(half.uv[:, 0] < p.gray.shape[1] // 2 + 1)
    assert p.orb(left.copy()) is half and p.orb(None) is everywhere
    np.testing.assert_array_equal(half.descriptors, detect(p.gray, left, 1500).descriptors)


@pytest.mark.parametrize(
    "deg, zoom, pan",
    [
        (25.0, 1.0, (0.0, 0.0)),
        (0.0, 1.6, (0.0, 0.0)),
        (0.0, 1.0, (110.0, 40.0)),
        (12.0, 1.3, (60.0, -30.0)),
    ],
)
def test_motion_beyond_klt_is_registered_by_matching(clip, deg, zoom, pan):
    """Round trip: the reference moved by a known rotation / zoom / pan that tracking from
    the identity cannot follow is registered by matching, then tracked (within 0.25 px over the
    part of the reference the frame shows; 1.5 px when matching's result is kept)."""
    ref = clip.frames[0]
    H_true = _rotate_zoom_pan(deg, zoom, pan)
    frame, frame_mask = _moved(ref, H_true)
    a = prepare(ref, corners=True)
    tracked = register_to_reference(a, prepare(frame), np.eye(3), None, frame_mask, "track")
    # beyond KLT's reach
    assert not tracked.ok or homography_error_px(tracked.H, H_true, SIZE) > 5.0
    reg = register_to_reference(a, prepare(frame), np.eye(3), None, frame_mask)
    assert reg.ok, reg.reason
    assert reg.method in ("match", "match+track")
    # matched alone (its inliers outnumber the tracked corners): RANSAC's 2 px at half scale
    assert homography_error_px(reg.H, H_true, SIZE) < (0.25 if reg.method == "match+track" else 1.5)


def test_a_wrong_prediction_is_corrected_by_matching(clip):
    """Matching from a prediction 10 degrees, 15 % zoom and 50 px off: the reference's
    features are mapped by it (not warped), the fit composes with it."""
    ref = clip.frames[0]
    H_true = _rotate_zoom_pan(20.0, 1.4, (40.0, 20.0))
    H_pred = _rotate_zoom_pan(10.0, 1.2, (-10.0, 0.0))
    frame, frame_mask = _moved(ref, H_true)
    a = prepare(ref, corners=True)
    reg = register_to_reference(a, prepare(frame), H_pred, None, frame_mask, "match")
    assert reg.ok, reg.reason
    assert homography_error_px(reg.H, H_true, SIZE) < (0.25 if reg.method == "match+track" else 1.5)


def test_match_takes_only_the_part_the_prediction_says_both_images_share(clip):
    a, b = prepare(clip.frames[0]), prepare(clip.frames[0])
    w = a.gray.shape[1]
    Hs = np.array([[1.0, 0, w / 2], [0, 1, 0], [0, 0, 1]])  # the reference's right half off
    fa, fb = a.orb(None, 3000), b.orb(None)
    pairs = match(fa, fb, Hs, a.gray.shape, b.gray.shape, None)
    assert pairs is not None
    pa, pb = pairs
    assert np.all(pa[:, 0] <= w - 1) and np.all(pb[:, 0] >= w / 2 - 1)
    no_overlap = np.array([[1.0, 0, 2.0 * w], [0, 1, 0], [0, 0, 1]])
    assert match(fa, fb, no_overlap, a.gray.shape, b.gray.shape, None) is None


def _graphics_only(size=SIZE) -> np.ndarray:
    """A frame of screen graphics alone: a score bug and a ticker on flat black."""
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    cv2.rectangle(img, (20, 20), (260, 70), (40, 40, 160), -1)
    cv2.putText(img, "FED 6 4 3  NAD 4 6 2", (28, 55), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255,) * 3, 2)
    cv2.rectangle(img, (0, h - 40), (w, h), (200, 200, 200), -1)
    cv2.putText(img, "BREAKING 0123456789", (10, h - 12), cv2.FONT_HERSHEY_PLAIN, 1.6, (0,) * 3, 2)
    return img


def _few_dots(size=SIZE) -> np.ndarray:
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    for x, y in ((100, 100), (300, 200), (500, 120)):
        cv2.rectangle(img, (x, y), (x + 6, y + 6), (255, 255, 255), -1)
    return img


@pytest.mark.parametrize(
    "name, make, reasons",
    [
        ("black", lambda: np.zeros((SIZE[1], SIZE[0], 3), np.uint8), ("too few features",)),
        ("three dots", _few_dots, ("too few features",)),
        # chance matches on the graphics: refused for their count, or for the homography
        # they give (plane_motion.homography_problem)
        (
            "graphics only",
            _graphics_only,
            (
                "too few features",
                "no consistent motion",
                "inliers",
                "behind the camera",
                "folds or mirrors",
                "singular",
                "implausible zoom",
            ),
        ),
    ],
)
def test_degenerate_frames_fail_cleanly_with_a_reason(clip, name, make, reasons):
    a = prepare(clip.frames[0], corners=True)
    H_pred = np.eye(3)
    for method in ("match", "auto"):
        reg = register_to_reference(a, prepare(make()), H_pred, method=method)
        assert not reg.ok, name
        assert any(r in reg.reason for r in reasons), (name, method, reg.reason)
        np.testing.assert_array_equal(reg.H, H_pred)  # the prediction, never a bad fit


def test_features_come_strongest_first():
    """The reference's features in the shared part are matched strongest first (at most
    MAX_QUERIES of them), so they are kept in ORB's response order."""
    rng = np.random.default_rng(3)
    small = rng.integers(0, 256, (180, 320), np.uint8)
    noise = cv2.resize(small, (640, 360), interpolation=cv2.INTER_LINEAR)
    f = detect(noise, None, 1500)
    kp = cv2.ORB.create(1500, 1.2, 6, fastThreshold=10).detect(noise, None)
    assert len(f.uv) == len(kp) == 1500
    by_response = sorted(kp, key=lambda k: -k.response)
    np.testing.assert_allclose(f.uv[:50], [k.pt for k in by_response[:50]], atol=1e-3)

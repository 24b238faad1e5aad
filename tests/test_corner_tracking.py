"""Tracking with a TrackMemory (geometry.corner_tracking): corners a registration found far off
its fit are left out of the next ones, every corner comes back at a recheck or when the
registration without them keeps too few inliers, and the result stays as accurate."""

import cv2
import numpy as np
import pytest

from geometry.corner_tracking import RECHECK_EVERY, TrackMemory
from geometry.plane_motion import prepare, prepare_frame, register_to_reference, transfer_points
from tests.propagation_clips import reference_clicks
from tests.textures import corner_texture


def _corner_error(H_est, H_true, size) -> float:
    w, h = size
    c = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], float)
    return float(
        np.max(np.linalg.norm(transfer_points(H_est, c) - transfer_points(H_true, c), axis=1))
    )


def _pan(k: int, size):
    w, h = size
    return np.array([[1.0 + 0.002 * k, 0.0, 2.0 * k], [0.0, 1.0 + 0.002 * k, -k], [0, 0, 1.0]])


def _frame_with_moving_patch(ref_img, H, k, size):
    """ref_img seen through H, with a block of fresh texture (a 'player') pasted at a place
    that moves with k: its corners do not follow H."""
    w, h = size
    frame = cv2.warpPerspective(ref_img, H, (w, h), flags=cv2.INTER_CUBIC)
    patch = corner_texture((200, 200), seed=100 + k)
    x0, y0 = 300 + 15 * k, 200
    frame[y0 : y0 + 200, x0 : x0 + 200] = patch
    return frame


def test_memory_leaves_out_the_corners_far_off_and_keeps_the_accuracy():
    size = (1280, 720)
    ref_img = corner_texture(size, seed=1)
    a = prepare(ref_img, corners=True)
    memory = TrackMemory.of(a.corners)
    H_prev = np.eye(3)
    kept = []
    for k in range(1, 2 * RECHECK_EVERY + 1):
        H_true = _pan(k, size)
        frame = _frame_with_moving_patch(ref_img, H_true, k, size)
        b, _ = prepare_frame(frame)
        plain = register_to_reference(a, b, H_prev, method="track")
        reg = register_to_reference(a, b, H_prev, method="track", memory=memory)
        assert plain.ok and reg.ok
        assert _corner_error(reg.H, H_true, size) < 0.3
        assert _corner_error(plain.H, H_true, size) < 0.3
        kept.append(int(memory.bad.sum()))
        H_prev = reg.H
    # the pasted block's corners (far off the pan) are remembered and left out: fewer tracks
    assert max(kept) > 10
    assert memory.since_full <= RECHECK_EVERY


def test_memory_tracks_every_corner_again_when_too_few_inliers_remain():
    size = (1280, 720)
    ref_img = corner_texture(size, seed=2)
    a = prepare(ref_img, corners=True)
    memory = TrackMemory.of(a.corners)
    H_true = _pan(1, size)
    b, _ = prepare_frame(cv2.warpPerspective(ref_img, H_true, size, flags=cv2.INTER_CUBIC))
    reg = register_to_reference(a, b, np.eye(3), method="track", memory=memory)
    assert reg.ok and memory.since_full == 1 and memory.full_inliers == reg.inliers
    assert len(a.corners) > 1000 and reg.inliers > 200
    memory.bad[100:] = True  # all but 100 corners wrongly left out: too few inliers remain
    reg = register_to_reference(a, b, H_true, method="track", memory=memory)
    assert reg.ok and memory.since_full == 1  # tracked them all again: a full registration
    assert reg.inliers > 200 and not memory.bad[100:].all()
    assert _corner_error(reg.H, H_true, size) < 0.3


def test_a_pass_runs_without_opencvs_pool_and_gives_it_back(tmp_path):
    """propagate turns OpenCV's worker pool off for its pass (its own threads keep the cores
    busy) and restores the caller's setting, also when the pass raises."""
    from court_specs import load_spec
    from courtstudio.pipeline import propagate_frame
    from courtstudio.pipeline.propagate import Reference, propagate
    from courtstudio.synth.synthetic_clip import ClipFrames, make_clip

    spec = load_spec("tennis")
    clip = make_clip(spec, 6, (640, 360), seed=7)
    cam = clip.cameras[0]
    ref = Reference(0, reference_clicks(spec, cam))
    seen = []
    process = propagate_frame.Tracker.process

    def recording(self, *args, **kw):
        seen.append(cv2.getNumThreads())
        return process(self, *args, **kw)

    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(3)
        propagate_frame.Tracker.process = recording
        recs = propagate(ClipFrames(clip), spec, [ref], tmp_path / "a")
        assert len(recs) == 6 and seen and set(seen) == {1}
        assert cv2.getNumThreads() == 3

        def failing(self, *args, **kw):
            raise RuntimeError("boom")

        propagate_frame.Tracker.process = failing
        with pytest.raises(RuntimeError, match="boom"):
            propagate(ClipFrames(clip), spec, [ref], tmp_path / "b")
        assert cv2.getNumThreads() == 3
    finally:
        propagate_frame.Tracker.process = process
        cv2.setNumThreads(before)

"""The next frame's registration run ahead on a worker thread while the pass verifies this one
(courtstudio/pipeline/propagation_ahead.py): a run's records are those of a run that
registers every frame in line, the job is used for nearly every frame of a pan, and it is
dropped whenever the attempt it ran ahead for is not the one made."""

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline import propagate as propagate_mod
from courtstudio.pipeline import propagation_cpus as cpus_mod
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.pipeline.propagation_ahead import Inputs, RegisterAhead, Upcoming
from courtstudio.synth.synthetic_clip import ClipFrames, Hazards, make_clip
from geometry.corner_tracking import TrackMemory
from geometry.plane_motion import prepare, register_to_reference
from tests.textures import corner_texture

SPEC = load_spec("tennis")
SIZE = (1280, 720)


def _clicks(cam):
    return {k: tuple(cam.project(v[None])[0]) for k, v in SPEC.keypoints.items()}


def _runs(tmp_path, monkeypatch, clip, refs):
    """(records registered ahead, records registered in line, ahead results used)."""
    used = []
    real_result = RegisterAhead.result

    def counted(self, *args):
        reg = real_result(self, *args)
        used.append(reg is not None)
        return reg

    monkeypatch.setattr(RegisterAhead, "result", counted)
    refs = [Reference(r, _clicks(clip.cameras[r])) for r in refs]
    ahead = propagate(ClipFrames(clip), SPEC, refs, tmp_path / "ahead", register_ahead=True)
    n_used = len(used)
    in_line = propagate(ClipFrames(clip), SPEC, refs, tmp_path / "in_line", register_ahead=False)
    assert len(used) == n_used  # nothing ran ahead
    return ahead, in_line, used


@pytest.mark.parametrize(
    "hazards, cut_at, min_ok, min_used, min_dropped",
    [
        (Hazards(graphics=True), (30,), 45, 42, 0),
        (Hazards(lens_k1=-0.15), (), 55, 55, 0),
        (Hazards(lens_k1=-0.15, motion_blur=True), (), 10, 10, 4),
    ],
    ids=["graphics and a cut", "barrel lens", "barrel lens, motion blur"],
)
def test_registering_ahead_changes_no_record(
    tmp_path, monkeypatch, hazards, cut_at, min_ok, min_used, min_dropped
):
    """A pan with screen-fixed graphics (their mask appears mid-clip), a cut and two
    references; a barrel lens (frames straightened into its ideal pixels); the same lens
    with motion blur (most registrations fail, frames are retried against the reference and
    good frames, the jobs run ahead are dropped): every record equals the in-line run's, and
    the job run ahead was used wherever the frame before was kept."""
    clip = make_clip(
        SPEC, 60, SIZE, seed=4, cut_at=cut_at, cut_length=10, pan_deg=8.0, hazards=hazards
    )
    refs = [0, 59] if cut_at else [0]
    ahead, in_line, used = _runs(tmp_path, monkeypatch, clip, refs)
    assert ahead == in_line
    assert sum(r["status"] == "ok" for r in ahead) >= min_ok
    assert sum(used) >= min_used and len(used) - sum(used) >= min_dropped


def _tracked_pair():
    """A reference (prepared with corners) and a frame moved 3 px from it."""
    ref = corner_texture((640, 360), seed=3)
    frame = cv2.warpAffine(ref, np.float32([[1, 0, 3], [0, 1, 2]]), (640, 360))
    return prepare(ref, corners=True), prepare(frame)


def _inputs(src, frame, memory, H_pred=None):
    H_pred = np.eye(3) if H_pred is None else H_pred
    up = Upcoming(5, None, frame, None, "state")
    return Inputs(up, None, None, (frame, None, None), src, None, H_pred, memory)


def test_the_job_is_used_only_for_the_attempt_it_ran_ahead_for():
    src, frame = _tracked_pair()
    want = register_to_reference(src, frame, np.eye(3), memory=TrackMemory.of(src.corners))
    assert want.ok

    ahead = RegisterAhead()
    try:
        memory = TrackMemory.of(src.corners)
        inputs = _inputs(src, frame, memory)
        ahead.start(inputs)
        assert ahead.inputs_for(5, "state", frame, None, None) is inputs
        reg = ahead.result(inputs, src, np.eye(3), memory)
        assert reg is not None and np.array_equal(reg.H, want.H) and reg.inliers == want.inliers
        assert memory.since_full == 1 and memory.full_inliers == want.inliers  # learnt

        # another frame, state or graphics than the job's: dropped
        ahead.start(_inputs(src, frame, TrackMemory.of(src.corners)))
        assert ahead.inputs_for(6, "state", frame, None, None) is None
        assert ahead.inputs_for(5, "state", frame, None, None) is None  # gone
        ahead.start(inputs := _inputs(src, frame, TrackMemory.of(src.corners)))
        assert ahead.inputs_for(5, "other state", frame, None, None) is None

        # the prediction changed (the frame it ran from was not kept with it)
        memory = TrackMemory.of(src.corners)
        ahead.start(inputs := _inputs(src, frame, memory))
        H = np.eye(3)
        H[0, 2] = 0.5
        assert ahead.result(inputs, src, H, memory) is None
        assert memory.same_state(TrackMemory.of(src.corners))  # nothing learnt

        # another registration changed the memory in between (a retried frame)
        memory = TrackMemory.of(src.corners)
        ahead.start(inputs := _inputs(src, frame, memory))
        memory.update(np.array([0, 1]), np.array([False, True]), True, 50)
        assert ahead.result(inputs, src, np.eye(3), memory) is None
        assert memory.full_inliers == 50 and memory.bad[0] and not memory.bad[1]

        # another reference image (its finer copy) or memory
        memory = TrackMemory.of(src.corners)
        ahead.start(inputs := _inputs(src, frame, memory))
        assert ahead.result(inputs, prepare(src.gray, corners=True), np.eye(3), memory) is None
        ahead.start(inputs := _inputs(src, frame, memory))
        assert ahead.result(inputs, src, np.eye(3), TrackMemory.of(src.corners)) is None
    finally:
        ahead.close()


def test_a_job_whose_tracking_fails_leaves_the_attempt_to_be_made_in_line():
    """Tracking a frame that shows none of the reference fails; ahead, registration does not
    turn to matching (its caches are the images'), so the attempt is made in line."""
    src, _ = _tracked_pair()
    other = prepare(corner_texture((640, 360), seed=9))
    memory = TrackMemory.of(src.corners)
    ahead = RegisterAhead()
    try:
        ahead.start(inputs := _inputs(src, other, memory))
        assert ahead.result(inputs, src, np.eye(3), memory) is None
        assert memory.same_state(TrackMemory.of(src.corners))
    finally:
        ahead.close()
    alone = register_to_reference(src, other, np.eye(3), track_only=True)
    assert not alone.ok and alone.method == "track"


def test_a_memory_copy_learns_apart_and_is_taken_back():
    m = TrackMemory.of(np.zeros((6, 2)))
    c = m.copy()
    c.update(np.array([1, 2, 3]), np.array([True, False, True]), True, 80)
    assert not m.same_state(c) and not m.bad.any() and m.since_full != c.since_full
    m.take(c)
    assert m.same_state(c) and m.bad[2] and m.full_inliers == 80
    c.update(np.array([4]), np.array([False]), False, 70)
    assert not m.bad[4]  # the copy's array is its own


def test_a_pass_registers_ahead_by_default_only_with_a_core_per_thread(monkeypatch):
    """Four CPUs a pass (decoding, the scan, the pass, registration ahead); on 2 CPUs the
    threads would take turns on the same cores."""
    for cpus, workers, want in [(2, 1, False), (4, 1, True), (8, 2, True), (8, 3, False)]:
        monkeypatch.setattr(cpus_mod.os, "sched_getaffinity", lambda _, n=cpus: set(range(n)))
        assert propagate_mod.register_ahead_by_default(workers) is want
        # where the pass's threads take turns on the cores, FFmpeg decodes on one thread
        assert cpus_mod.decoder_threads(workers) == (None if want else 1)

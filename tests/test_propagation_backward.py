"""Frames that failed before a sound one are retried backwards from it
(courtstudio.pipeline.propagation_backward): the real NBA pan from its reference at frame 300
left its first 53 frames "registration failed", registered straight to a reference 6 degrees
away, while a prediction from the frame after each would have held."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest

import courtstudio.pipeline.propagation_backward as pb
from court_specs import load_spec
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip
from geometry.camera import Camera

SPEC = load_spec("tennis")
REF_AT = 20


@pytest.fixture(scope="module")
def clip():
    """40 frames of a pan with a zoom to 2.2x; the reference mid-clip, where frames 0-19,
    registered in decode order, start far from its view."""
    return make_clip(SPEC, 40, (1280, 720), seed=1, zoom=1.2)


def _run(clip, path, backward: bool, monkeypatch) -> dict:
    with monkeypatch.context() as m:
        if not backward:
            m.setattr(pb.BackwardRetry, "retry", lambda self, *a, **k: iter(()))
        cam = clip.cameras[REF_AT]
        uv = {k: cam.project(v[None])[0] for k, v in SPEC.keypoints.items() if abs(v[2]) < 1e-9}
        ref = {k: tuple(v) for k, v in uv.items() if 2 <= v[0] < 1278 and 2 <= v[1] < 718}
        records = propagate(
            ClipFrames(clip), SPEC, [Reference(REF_AT, ref)], path, shared_centre=False
        )
    return {r["frame"]: r for r in records}


def _worst_px(r: dict, truth: Camera) -> float:
    X = np.array([v for v in SPEC.keypoints.values() if abs(v[2]) < 1e-9])
    est = Camera.from_dict(r, f"frame {r['frame']}")
    uv = truth.project(X)
    seen = truth.in_image(uv)
    return float(np.max(np.linalg.norm(est.project(X[seen]) - uv[seen], axis=1)))


def test_frames_that_failed_before_a_sound_one_are_retried_backwards(clip, tmp_path, monkeypatch):
    without = _run(clip, tmp_path / "a", False, monkeypatch)
    with_ = _run(clip, tmp_path / "b", True, monkeypatch)
    recovered = [
        f for f in range(REF_AT) if without[f]["status"] == "flagged" and with_[f]["status"] == "ok"
    ]
    assert len(recovered) >= 3, recovered
    for f in recovered:
        assert without[f]["reason"].startswith(pb.RETRIED)
        attempt = with_[f]["registration"]["attempt"]  # predicted by its successor, or
        assert attempt == "predicted" or int(attempt.split()[-1]) > f  # through a later frame
        assert _worst_px(with_[f], clip.cameras[f]) < 3.0
    # the retries leave the forward pass as it was: every frame it left ok is the same
    for f, r in without.items():
        if r["status"] in ("ok", "static", "reference"):
            assert with_[f]["status"] == r["status"]
            for k in ("K", "R", "t", "dist", "H_from_reference", "registration"):
                assert with_[f].get(k) == r.get(k), (f, k)


class _Image:
    def __init__(self, nbytes: int):
        self.nbytes = nbytes


class _State:  # a reference state: the chain sets its prediction
    last_H = last_frame = None


ST, OTHER = _State(), _State()


def _held(frame: int, state=ST, nbytes: int = 100) -> pb.Held:
    return pb.Held(frame, _Image(nbytes), None, state, None, False)


def test_the_kept_frames_are_bounded_and_only_a_run_just_before_is_retried():
    kept = pb.BackwardRetry(max_bytes=350)
    for f in range(10):
        kept.hold(_held(f))
    assert len(kept) == 3  # the oldest go first
    kept.hold(_held(4))  # a jump back (a new pass): nothing kept is just before it
    assert len(kept) == 1

    class Tracker:
        def __init__(self):
            self.processed = []

        @contextmanager
        def backward_retry(self, st, frame, p, H):
            try:
                yield
            finally:
                self.restored = True  # the forward state put back

        def process(self, i, image, mask, st, p, backward=False):
            assert backward
            self.processed.append(i)
            from courtstudio.pipeline.propagation_result import FrameCamera
            from courtstudio.pipeline.propagation_status import PropagationStatus as Status

            if i == 6:  # still refused: the chain stops here
                return FrameCamera(i, Status.FLAGGED, reason="registration failed (9 inliers)")
            return FrameCamera(i, Status.OK, H=np.eye(3))

    kept = pb.BackwardRetry()
    for f in (2, 3, 5, 6, 7, 8):
        kept.hold(_held(f))
    kept.hold(_held(9, state=OTHER))  # another reference's: not this chain's
    t = Tracker()
    assert list(kept.retry(t, 10, ST, np.eye(3))) == []  # 9 is not this reference's
    assert t.processed == [] and len(kept) == 0
    for f in (2, 3, 5, 6, 7, 8):
        kept.hold(_held(f))
    t = Tracker()
    out = list(kept.retry(t, 9, ST, np.eye(3)))
    assert [r.frame for r, _ in out] == [8, 7]
    assert t.processed == [8, 7, 6] and t.restored and len(kept) == 0


def test_a_frame_the_graphics_retry_passed_keeps_its_record_unless_the_retry_passes_too():
    from courtstudio.pipeline.propagation_flags import WEAK_GEOMETRY
    from courtstudio.pipeline.propagation_result import FrameCamera
    from courtstudio.pipeline.propagation_status import PropagationStatus as Status

    class Tracker:
        processed: list = []

        @contextmanager
        def backward_retry(self, st, frame, p, H):
            yield

        def process(self, i, image, mask, st, p, backward=False):
            self.processed.append(i)
            if i == 7:  # sound, but flagged: it predicts frame 6 all the same
                return FrameCamera(i, Status.FLAGGED, reason=f"{WEAK_GEOMETRY}: x", H=np.eye(3))
            return FrameCamera(i, Status.OK, H=np.eye(3))

    kept = pb.BackwardRetry()
    for f in (5, 6, 7, 8):
        kept.hold(_held(f))
    kept.recovered(7)  # the graphics retry passed it meanwhile
    kept.recovered(8)
    t = Tracker()
    out = [r.frame for r, _ in kept.retry(t, 9, ST, np.eye(3))]
    assert t.processed == [8, 7, 6, 5]
    assert out == [8, 6, 5]  # 8 passes again; 7's weaker record would replace a sound one


def test_a_shot_without_a_reference_is_tried_less_often_once_its_frames_keep_failing(
    tmp_path, monkeypatch
):
    """Every frame of a shot no reference is in used to try every reference, by feature
    matching (on the real badminton clip's 90-frame end card, 2 of its 17.5 CPU s; an
    hour-long broadcast of replays and close-ups would spend most of its time so). After 6
    failures in a row its frames are tried 1, 2, 4, then every 8 frames (the refinements'
    backoff); a cut starts afresh, so the main camera coming back after a replay is tried at
    once."""
    import courtstudio.pipeline.propagate as pp
    import courtstudio.pipeline.propagate_frame as pf
    from courtstudio.pipeline.propagation_result import FrameCamera
    from courtstudio.pipeline.propagation_status import PropagationStatus as Status

    clip = make_clip(SPEC, 40, (960, 540), seed=3, cut_at=(5,), cut_length=30)
    tried = []
    process = pf.Tracker.process

    def failing(self, i, image, *a, **k):  # the insert from another camera never registers
        tried.append(i)
        if 5 <= i < 35:
            return FrameCamera(i, Status.FLAGGED, reason="registration failed (no motion)")
        return process(self, i, image, *a, **k)

    monkeypatch.setattr(pf.Tracker, "process", failing)
    cam = clip.cameras[0]
    uv = {k: cam.project(v[None])[0] for k, v in SPEC.keypoints.items() if abs(v[2]) < 1e-9}
    ref = {k: tuple(v) for k, v in uv.items() if 2 <= v[0] < 958 and 2 <= v[1] < 538}
    recs = {r["frame"]: r for r in propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path)}
    insert = [i for i in tried if 5 <= i < 35]
    # 6 failures (5-10), then skips of 1, 2, 4, 8, 8: tried at 12, 15, 20, 29
    assert insert == [5, 6, 7, 8, 9, 10, 12, 15, 20, 29]
    skipped = sorted(set(range(5, 35)) - set(insert))
    assert all(recs[i]["reason"] == pp.NOT_TRIED for i in skipped)
    assert all(recs[i]["status"] == "flagged" for i in range(5, 35))
    assert 35 in tried and all(recs[i]["status"] in ("ok", "static") for i in range(35, 40))

"""A resumed run starts its scan from the state saved before the kill
(courtstudio/pipeline/propagation_checkpoint.py) instead of decoding every frame already done,
and makes the same records as one that reads them all again; a saved state that is not this
clip's, or not a state at all, is not used and says why."""

import json

import numpy as np
import pytest

from courtstudio.pipeline import propagate as propagate_mod
from courtstudio.pipeline import propagation_checkpoint, propagation_scan
from courtstudio.pipeline.propagate import Reference, VideoFrames, propagate
from courtstudio.pipeline.propagation_checkpoint import (
    STATE_NAME,
    StateError,
    load_scan_state,
    save_scan_state,
)
from courtstudio.synth.synthetic_clip import ClipFrames, write_video
from tests.propagation_clips import graphics_cut_clip, reference_clicks

EVERY = 20


class Killed(Exception):
    pass


@pytest.fixture(scope="module")
def clip():
    return graphics_cut_clip()


def _killed_run(frames, spec, refs, out, at=24):
    def progress(done, total):
        if done >= at:
            raise Killed()

    with pytest.raises(Killed):
        propagate(frames, spec, refs, out, progress=progress, keep_records=False)


def _run(frames, spec, refs, out):
    propagate(frames, spec, refs, out, keep_records=False)
    return (out / "cameras.jsonl").read_text(), dict(propagate_mod.propagate.last_extras)


def _resumed_without_state(frames, spec, refs, killed: bytes, out):
    """cameras.jsonl of the killed file resumed with no saved state (every frame read)."""
    out.mkdir()
    (out / "cameras.jsonl").write_bytes(killed)
    return _run(frames, spec, refs, out)[0]


@pytest.mark.parametrize("source", ["clip", "video"])
def test_a_resumed_run_starts_from_the_saved_state_and_makes_the_same_records(
    clip, tmp_path, monkeypatch, source
):
    spec, c, refs = clip
    monkeypatch.setattr(propagation_checkpoint, "CHECKPOINT_EVERY", EVERY)
    if source == "video":
        write_video(tmp_path / "clip.avi", c.frames)

        def frames():
            return VideoFrames(tmp_path / "clip.avi")
    else:

        def frames():
            return ClipFrames(c)

    a, b = tmp_path / "a", tmp_path / "b"
    _killed_run(frames(), spec, refs, a)
    assert (a / STATE_NAME).exists()
    state = load_scan_state(a / STATE_NAME, 60, True)
    assert state.frame == EVERY and state.detector is not None and state.detector["pairs"] > 0
    # the same killed file resumed without the state: every done frame read again
    b.mkdir()
    (b / "cameras.jsonl").write_bytes((a / "cameras.jsonl").read_bytes())
    reads = []
    real = propagation_scan._read
    monkeypatch.setattr(propagation_scan, "_read", lambda f, i: reads.append(i) or real(f, i))
    with_state, extras = _run(frames(), spec, refs, a)
    first_read = reads[0]
    reads.clear()
    without, extras_b = _run(frames(), spec, refs, b)
    assert with_state == without  # the same records, byte for byte
    assert first_read == EVERY - 1 and reads[0] == 0
    assert extras["scan_state"] == {"resumed_at": EVERY} and "scan_state" not in extras_b
    assert extras["graphics_boxes"] == extras_b["graphics_boxes"] != []
    assert not (a / STATE_NAME).exists()  # a finished run leaves no state
    assert [json.loads(x)["frame"] for x in with_state.splitlines()] == list(range(60))


def test_a_state_that_does_not_fit_the_video_is_not_used(clip, tmp_path, monkeypatch):
    spec, c, refs = clip
    monkeypatch.setattr(propagation_checkpoint, "CHECKPOINT_EVERY", EVERY)
    out = tmp_path / "a"
    _killed_run(ClipFrames(c), spec, refs, out)
    killed = (out / "cameras.jsonl").read_bytes()
    expected = _resumed_without_state(ClipFrames(c), spec, refs, killed, tmp_path / "b")
    state = load_scan_state(out / STATE_NAME, 60, True)
    state.prev_gray = state.prev_gray.copy()
    state.prev_gray[0, 0] ^= 1  # saved after another frame
    save_scan_state(out / STATE_NAME, state)
    got, extras = _run(ClipFrames(c), spec, refs, out)
    assert "is not the frame it was saved after" in extras["scan_state"]["state_unused"]
    assert got == expected
    for junk, why in ((b"PK\x03\x04 not a zip", "not a scan state"), (b"", "not a scan state")):
        (out / "cameras.jsonl").write_bytes(killed)
        (out / STATE_NAME).write_bytes(junk)
        got, extras = _run(ClipFrames(c), spec, refs, out)
        assert why in extras["scan_state"]["state_unused"] and got == expected


def test_a_saved_state_is_checked_as_untrusted_input(clip, tmp_path, monkeypatch):
    spec, c, refs = clip
    monkeypatch.setattr(propagation_checkpoint, "CHECKPOINT_EVERY", EVERY)
    out = tmp_path / "a"
    _killed_run(ClipFrames(c), spec, refs, out)
    path = out / STATE_NAME
    good = dict(np.load(path, allow_pickle=False))
    with pytest.raises(StateError, match="clip of 60 frames, this one has 61"):
        load_scan_state(path, 61, True)
    with pytest.raises(StateError, match="other graphics detection"):
        load_scan_state(path, 60, False)
    bad_cases = {
        "frame": (np.array(60), "'frame' is missing or not an integer in 1..59"),
        "votes": (np.full_like(good["votes"], np.nan), "not counts of its pairs"),
        "history": (good["history"][:, :-1], "'history' is missing or not uint8"),
        "frame_scale": (np.array(0.0), "'frame_scale'"),
        "prev_gray": (good["prev_gray"].astype(np.float64), "'prev_gray'"),
    }
    for key, (value, message) in bad_cases.items():
        with open(path, "wb") as fh:
            np.savez(fh, **(good | {key: value}))
        with pytest.raises(StateError, match=message):
            load_scan_state(path, 60, True)
    obj = tmp_path / "pickled.npz"
    with open(obj, "wb") as fh:
        np.savez(fh, **(good | {"history": np.array([{"x": 1}], dtype=object)}))
    with pytest.raises(StateError, match="not a scan state"):
        load_scan_state(obj, 60, True)
    (tmp_path / "dir.npz").mkdir()
    with pytest.raises(StateError, match="is a folder"):
        load_scan_state(tmp_path / "dir.npz", 60, True)


def test_a_state_saved_past_the_first_frame_without_a_record_waits(clip, tmp_path, monkeypatch):
    """A kill can leave a state saved a few frames ahead of the records (the scan runs ahead
    of the pass): it is not used."""
    spec, c, refs = clip
    monkeypatch.setattr(propagation_checkpoint, "CHECKPOINT_EVERY", EVERY)
    out = tmp_path / "a"
    _killed_run(ClipFrames(c), spec, refs, out)
    lines = (out / "cameras.jsonl").read_text().splitlines()
    killed = ("\n".join(lines[:6]) + "\n").encode()
    (out / "cameras.jsonl").write_bytes(killed)
    got, extras = _run(ClipFrames(c), spec, refs, out)
    assert extras["scan_state"]["state_unused"] == (
        f"saved before frame {EVERY}, but frame 6 has no record"
    )
    assert got == _resumed_without_state(ClipFrames(c), spec, refs, killed, tmp_path / "b")


def test_a_worker_starts_its_range_from_the_state_saved_for_it(clip, tmp_path, monkeypatch):
    """With --workers 2 each range's scan saves and resumes its own state; here the first
    range (frames 0-29) starts from the state a single pass saved before frame 20, the
    second reads its frames: the same records as a resume without the state."""
    from courtstudio.pipeline.propagate import VideoSource

    spec, c, _ = clip
    monkeypatch.setattr(propagation_checkpoint, "CHECKPOINT_EVERY", EVERY)
    video = tmp_path / "clip.avi"
    write_video(video, c.frames)
    refs = [Reference(f, reference_clicks(spec, c.cameras[f])) for f in (0, 59)]
    a = tmp_path / "a"
    _killed_run(VideoFrames(video), spec, refs, a)
    killed = (a / "cameras.jsonl").read_bytes()

    def resume(out):
        propagate(
            VideoFrames(video),
            spec,
            refs,
            out,
            workers=2,
            frames_source=VideoSource(str(video)),
            keep_records=False,
        )
        return (out / "cameras.jsonl").read_text(), dict(propagate_mod.propagate.last_extras)

    got, extras = resume(a)
    b = tmp_path / "b"
    b.mkdir()
    (b / "cameras.jsonl").write_bytes(killed)
    expected, extras_b = resume(b)
    assert got == expected
    assert extras["scan_state"] == {"frames 0-29": {"resumed_at": EVERY}}
    assert "scan_state" not in extras_b
    assert not list(a.glob("scan_state*"))


def test_a_detector_rebuilt_from_its_state_goes_on_as_the_original(clip):
    """geometry.screen_fixed: ScreenFixedDetector.from_state(d.state()) votes and masks as d
    from then on (its cached mask and dirty flag included: mask() recomputes only every 5th
    pair), and holds copies, not the original's arrays."""
    import cv2

    from geometry.screen_fixed import ScreenFixedDetector

    _, c, _ = clip
    grays = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in c.frames[:40]]
    d = ScreenFixedDetector(grays[0].shape)
    for a, b in zip(grays[:14], grays[8:22]):
        d.update(a, b)
        d.mask()
    e = ScreenFixedDetector.from_state(d.state())
    assert e.votes is not d.votes and d.pairs >= 5
    for a, b in zip(grays[14:30], grays[22:38]):
        d.update(a, b)
        e.update(a, b)
        md, me = d.mask(), e.mask()
        assert (md is None and me is None) or np.array_equal(md, me)
    assert np.array_equal(d.votes, e.votes) and d.pairs == e.pairs and d.mask() is not None

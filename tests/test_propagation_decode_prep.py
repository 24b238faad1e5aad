"""A video's frames are reduced and cut-tested on its decode thread while the pass has others
to work on (VideoFrames.set_preparer, propagation_scan.FramePrep), and the rest of the scan
runs in the pass's own thread: the records are the same as a pass whose scan runs on a
thread of its own, the hand-over is per image and once, and a preparer that fails costs the
pass nothing but the work (docs/propagation.md "Speed")."""

import threading
import time

import cv2
import numpy as np
import pytest

from courtstudio.io.frames import VideoReader
from courtstudio.pipeline import propagation_scan
from courtstudio.pipeline.propagate import VideoFrames, propagate
from courtstudio.synth.synthetic_clip import write_video
from tests.propagation_clips import graphics_cut_clip


def _numbered_video(path, n=40, size=(320, 240)):
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, size)
    for i in range(n):
        wr.write(np.full((size[1], size[0], 3), 5 * i, np.uint8))
    wr.release()
    return path


def _read_slowly(vf, n):
    """Each frame's image and what the preparer made of it, read by a caller that works a
    while on each frame (so the decode thread keeps ahead)."""
    out = []
    for i in range(n):
        img = vf.image(i)
        time.sleep(0.01)
        out.append((img, vf.prepared(i, img)))
        assert vf.prepared(i, img) is None  # handed over once
    return out


def test_the_decode_thread_prepares_the_frames_the_caller_has_not_reached(tmp_path):
    path = _numbered_video(tmp_path / "n.avi")
    truth = [VideoReader(path).read(i) for i in range(40)]
    vf = VideoFrames(path, ahead=3)
    threads = []

    def fn(index, image):
        threads.append(threading.current_thread().name)
        return ("made", index, int(image[0, 0, 0]))

    vf.set_preparer(fn)
    got = _read_slowly(vf, 40)
    vf.close()
    made = {i: r for i, (_, r) in enumerate(got) if r is not None}
    # frame 0 is read by the caller, frame 1 handed over at once (the caller waits for it)
    assert len(made) >= 30
    for i, r in made.items():
        assert r == ("made", i, int(truth[i][0, 0, 0]))
    assert set(threads) == {"decode-ahead"}
    for i, (img, _) in enumerate(got):
        assert np.array_equal(img, truth[i])


def test_a_result_is_handed_over_only_with_its_own_image(tmp_path):
    path = _numbered_video(tmp_path / "n.avi", n=12)
    vf = VideoFrames(path, ahead=3)
    vf.set_preparer(lambda index, image: index)
    vf.image(0)
    time.sleep(0.2)  # frames 1-3 decoded and waiting
    img = vf.image(2 - 1)
    img2 = vf.image(2)
    assert vf.prepared(2, img2.copy()) is None  # the same pixels, not the same image
    assert vf.prepared(2, img2) is None  # asked once already
    assert vf.prepared(1, img2) is None  # another frame's image
    vf.set_preparer(None)
    assert vf.prepared(1, img) is None  # dropped with the preparer
    vf.close()


def test_a_failing_preparer_leaves_the_frames_to_the_caller(tmp_path):
    path = _numbered_video(tmp_path / "n.avi", n=20)
    truth = [VideoReader(path).read(i) for i in range(20)]
    vf = VideoFrames(path, ahead=3)

    def fn(index, image):
        raise cv2.error("refused")

    vf.set_preparer(fn)
    got = _read_slowly(vf, 20)
    vf.close()
    assert all(r is None for _, r in got)
    assert all(np.array_equal(img, truth[i]) for i, (img, _) in enumerate(got))


class _PlainFrames:
    """The same video as a source that cannot prepare: the pass scans on its own thread."""

    def __init__(self, path):
        self._vf = VideoFrames(path)
        self.count, self.size = self._vf.count, self._vf.size

    def image(self, index):
        return self._vf.image(index)


@pytest.fixture(scope="module")
def graphics_clip(tmp_path_factory):
    spec, c, refs = graphics_cut_clip()
    path = tmp_path_factory.mktemp("clip") / "clip.avi"
    write_video(path, c.frames)
    return spec, refs, path


def test_a_pass_makes_the_same_records_whoever_prepares_its_frames(
    graphics_clip, tmp_path, monkeypatch
):
    spec, refs, path = graphics_clip
    where = []
    make = propagation_scan.frame_prep

    def counted(image, line_gray, previous=None, texture=False):
        where.append((threading.current_thread().name, previous is not None, texture))
        return make(image, line_gray, previous, texture)

    monkeypatch.setattr(propagation_scan, "frame_prep", counted)
    propagate(_PlainFrames(path), spec, refs, tmp_path / "thread", keep_records=False)
    assert {w for w, _, _ in where} == {"propagation-scan"}
    where.clear()
    propagate(VideoFrames(path, ahead=0), spec, refs, tmp_path / "serial", keep_records=False)
    assert {w for w, _, _ in where} == {"propagation-scan"}  # no decoder thread: a scan one
    assert not any(t for _, _, t in where)  # the detector makes its textures itself
    where.clear()
    vf = VideoFrames(path)
    propagate(vf, spec, refs, tmp_path / "ahead", keep_records=False)
    vf.close()
    on_decoder = [(cut, t) for w, cut, t in where if w == "decode-ahead"]
    assert len(on_decoder) >= 30, where  # the pass is slower than the decoder here
    assert sum(cut for cut, _ in on_decoder) >= 20  # with the cut test against the one before
    assert sum(t for _, t in on_decoder) >= 10  # and the textures the detector will read
    a = (tmp_path / "thread" / "cameras.jsonl").read_text()
    b = (tmp_path / "ahead" / "cameras.jsonl").read_text()
    assert a == b and len(a.splitlines()) == 60
    assert (tmp_path / "serial" / "cameras.jsonl").read_text() == a

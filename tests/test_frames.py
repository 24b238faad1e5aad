"""VideoReader seeks frame-accurately: it verifies the position after a seek and reads
sequentially when the container's seek lands elsewhere or fails (courtstudio/io/frames.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from courtstudio.io.frames import VideoReader
from courtstudio.synth.synthetic_clip import write_video

N_FRAMES = 30


def _brightness(frame: np.ndarray) -> int:
    """The clip's frame i is filled with 8 i (MJPEG keeps it within 2 levels)."""
    return round(float(frame.mean()) / 8)


@pytest.fixture
def clip(tmp_path):
    path = tmp_path / "clip.avi"
    write_video(path, [np.full((72, 128, 3), 8 * i, np.uint8) for i in range(N_FRAMES)])
    return path


class _SeekOffByOne:
    """A capture whose seek lands one frame early and says so (as some containers' indices do)."""

    def __init__(self, cap):
        self.cap = cap

    def set(self, prop, value):
        return self.cap.set(prop, max(value - 1, 0))

    def __getattr__(self, name):
        return getattr(self.cap, name)


class _SeekRefused:
    """A capture whose seek fails outright."""

    def __init__(self, cap):
        self.cap = cap

    def set(self, prop, value):
        return False

    def __getattr__(self, name):
        return getattr(self.cap, name)


def test_random_access_reads_the_requested_frames(clip):
    r = VideoReader(clip)
    for i in (17, 3, 4, 29, 0, 1):
        assert _brightness(r.read(i)) == i
    r.close()


@pytest.mark.parametrize("wrapper", [_SeekOffByOne, _SeekRefused])
def test_a_seek_that_misses_falls_back_to_reading_on(clip, wrapper):
    r = VideoReader(clip)
    r._cap = wrapper(r._cap)
    for i in (17, 3, 4, 29):
        assert _brightness(r.read(i)) == i
    r.close()


def test_a_truncated_video_is_an_error_not_a_wrong_frame(clip, monkeypatch):
    from courtstudio.io.project import ProjectError

    r = VideoReader(clip)
    r._cap = _SeekRefused(r._cap)
    real_capture = cv2.VideoCapture

    class _Short:  # a reopened capture that ends after 5 frames
        def __init__(self, *args):  # (path[, api, params]), as cv2's
            self.cap, self.n = real_capture(*args), 0

        def grab(self):
            self.n += 1
            return self.n <= 5 and self.cap.grab()

        def __getattr__(self, name):
            return getattr(self.cap, name)

    monkeypatch.setattr(cv2, "VideoCapture", _Short)
    with pytest.raises(ProjectError, match="cannot decode frame 5"):
        r.read(20)


def test_frames_past_a_stream_shorter_than_its_header_fail_at_once(clip, tmp_path, monkeypatch):
    """A container promising more frames than its stream holds (a real NBA clip: 329 in the
    header, 309 decodable): the first read past the end finds it, and every later one fails
    without decoding the video from its start again (once per missing frame: 9 s of a 1 s
    pass); frames before the end still read, in any order."""
    from courtstudio.io.project import ProjectError

    short = tmp_path / "short.avi"
    data = clip.read_bytes()
    short.write_bytes(data[: len(data) // 2])  # the AVI header still says N_FRAMES
    r = VideoReader(short)
    assert r.frame_count == N_FRAMES
    decodes_from_start = []
    read_up_to = r._read_up_to
    monkeypatch.setattr(r, "_read_up_to", lambda i: decodes_from_start.append(i) or read_up_to(i))
    good = []
    for i in range(N_FRAMES):  # in order, as a propagation pass reads
        try:
            good.append(_brightness(r.read(i)))
        except ProjectError as exc:
            assert f"frame {i}" in str(exc)
    assert 0 < len(good) < N_FRAMES and good == list(range(len(good)))
    assert len(decodes_from_start) <= 1
    for i in (N_FRAMES - 1, len(good) + 2, len(good)):
        with pytest.raises(ProjectError, match=f"it ends at frame {len(good) - 1}"):
            r.read(i)
    assert len(decodes_from_start) <= 1
    for i in (len(good) - 1, 2, 3):
        assert _brightness(r.read(i)) == i
    r.close()

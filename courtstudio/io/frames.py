"""Frame sources: image files and videos, decoded with OpenCV behind a small LRU cache.

Video seeking is frame-accurate: a request for the next frame reads on; any other request
seeks with CAP_PROP_POS_FRAMES and verifies the position OpenCV reports after the seek. When the
seek fails or lands elsewhere (containers without a usable index), the video is reopened and
read sequentially up to the frame.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from courtstudio.io.project_format import ProjectError
from safe_io.images import max_pixels, open_video, probe_video, read_image

if TYPE_CHECKING:  # a video's reader needs no project (8-9 ms of imports a batch-propagate run)
    from courtstudio.io.project import FrameRef, Project

CACHE_FRAMES = 16


class VideoReader:
    """Random access to one video's frames (BGR uint8 arrays)."""

    def __init__(self, path, decoder_threads: int | None = None):
        """Probes the container (size, frame count) before decoding anything; raises
        ProjectError for a file that is not a regular file, not a video, or whose frames are
        over the pixel limit (safe_io.images). decoder_threads: FFmpeg's (None: its own
        choice, a thread per CPU; a propagation pass that decodes on a thread of its own
        asks for one: courtstudio.pipeline.propagation_cpus)."""
        self.path = Path(path)
        self.decoder_threads = decoder_threads
        self._cap, (self.frame_count, self.fps, self.size) = probe_video(
            self.path, ProjectError, decoder_threads
        )
        self._next = 0
        # the first frame a read in decoding order failed on (from frame 0, or on from a
        # seek): a container's frame count can promise more than its stream holds. Past it,
        # once the container's seek has proved unsure, reads fail at once
        self._end: int | None = None
        self._seek_failed = False  # a seek landed elsewhere: this container's seek is unsure

    def read(self, index: int) -> np.ndarray:
        """Frame ``index`` (h, w, 3) BGR uint8; ProjectError when it cannot be decoded. Past
        the end of the decodable stream (a header promising 329 frames of a stream of 309)
        each read fails at once, rather than decoding the video from its start again (one
        full decode per missing frame)."""
        if not 0 <= index < self.frame_count:
            raise ProjectError(f"{self.path}: frame {index} is outside 0..{self.frame_count - 1}")
        sequential = index == self._next
        beyond = self._end is not None and index >= self._end
        if not sequential and (beyond and self._seek_failed or not self._seek(index)):
            if beyond:
                last = "no frame decodes" if self._end == 0 else f"it ends at frame {self._end - 1}"
                raise ProjectError(
                    f"{self.path}: cannot decode frame {index} (the stream: {last}; the "
                    f"container says {self.frame_count} frames)"
                )
            self._read_up_to(index)
            sequential = True
        try:
            ok, frame = self._cap.read()
        except cv2.error:
            ok, frame = False, None
        if not ok or frame is None or frame.shape[0] * frame.shape[1] > max_pixels():
            if sequential and (not ok or frame is None):
                self._stream_ends(index)
            self._next = -1  # the decoder's position is unknown: the next read seeks
            raise ProjectError(f"{self.path}: cannot decode frame {index}")
        self._next = index + 1
        return frame

    def _stream_ends(self, index: int) -> None:
        """Decoding in order failed at frame ``index``: the stream ends before it."""
        self._end = index if self._end is None else min(self._end, index)

    def _seek(self, index: int) -> bool:
        """Seek by frame number; True only when OpenCV then reports exactly that position."""
        try:
            ok = self._cap.set(cv2.CAP_PROP_POS_FRAMES, index)
            ok = bool(ok) and round(self._cap.get(cv2.CAP_PROP_POS_FRAMES)) == index
        except cv2.error:
            ok = False
        self._seek_failed |= not ok
        return ok

    def _read_up_to(self, index: int) -> None:
        """Reopen the video and decode frames 0..index-1, so the next read is frame ``index``
        (slow, but right where the container's seek is not)."""
        self._cap.release()
        self._cap = open_video(self.path, self.decoder_threads)
        for i in range(index):
            try:
                ok = self._cap.grab()
            except cv2.error:
                ok = False
            if not ok:
                self._stream_ends(i)
                self._next = -1
                raise ProjectError(f"{self.path}: cannot decode frame {i} (reading up to {index})")

    def close(self) -> None:
        self._cap.release()


class FrameStore:
    """Images of a project's frames by index, with an LRU cache of decoded frames."""

    def __init__(self, project: Project, cache_frames: int = CACHE_FRAMES):
        self.project = project
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._videos: dict[Path, VideoReader] = {}
        self.cache_frames = cache_frames

    def image(self, frame: FrameRef) -> np.ndarray:
        """(h, w, 3) uint8 BGR."""
        hit = self._cache.get(frame.id)
        if hit is not None:
            self._cache.move_to_end(frame.id)
            return hit
        if frame.video is not None:
            path = self.project.video_path(frame)
            reader = self._videos.get(path)
            if reader is None:
                reader = self._videos[path] = VideoReader(path)
            img = reader.read(frame.index)
        else:
            path = self.project.image_path(frame)
            img = read_image(path, ProjectError, f"image of frame {frame.id!r}")
        self._cache[frame.id] = img
        while len(self._cache) > self.cache_frames:
            self._cache.popitem(last=False)
        return img

    def image_size(self, frame: FrameRef) -> tuple[int, int]:
        h, w = self.image(frame).shape[:2]
        return w, h

    def close(self) -> None:
        for r in self._videos.values():
            r.close()
        self._videos.clear()
        self._cache.clear()

"""Frames for propagation: a video file, a project (annotated players masked), picklable
openers for worker processes, and the project's registration masks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class VideoSource:
    """A picklable way to open a video's frames in another process (one of workers passes:
    the decoder's threads follow, propagation_cpus.decoder_threads)."""

    path: str
    workers: int = 1

    def __call__(self) -> "VideoFrames":
        return VideoFrames(self.path, workers=self.workers)


class VideoFrames:
    """Frames of a video file, decoded in order with a small cache (propagation reads each
    frame a few times, mostly in sequence). While frames are read in order, a background
    thread decodes the next ones (at most ``ahead`` frames held), so decoding overlaps the
    caller's work; a read out of order stops it and seeks. workers: the passes running at
    once on this machine (one per process), which set FFmpeg's decoder threads
    (propagation_cpus.decoder_threads: one where the passes' own threads fill the CPUs).

    set_preparer(fn): the decode thread also applies fn(index, image) to the frames it
    decodes while the caller has others waiting (so it never delays a frame the caller
    waits for), and prepared(index, image) hands fn's result over with its frame: the pixel
    work a pass makes of each frame (propagation_scan.FrameScan.prepare_ahead) done on the
    decoder's core whenever decoding keeps ahead, and by the caller otherwise
    (docs/propagation.md "Speed")."""

    def __init__(self, path, cache: int = 4, ahead: int = 4, workers: int = 1):
        from courtstudio.io.frames import VideoReader
        from courtstudio.pipeline.propagation_cpus import decoder_threads

        self.reader = VideoReader(path, decoder_threads(workers))
        self.count = self.reader.frame_count
        self.size = self.reader.size
        self._cache: dict[int, np.ndarray] = {}
        self._order: list[int] = []
        self.cache = cache
        self.ahead = ahead
        self._thread = None  # the decode-ahead thread, its queue, stop event, next frame
        self._queue = self._stop = None
        self._next = 0
        self._atexit = False
        self._preparer: Callable[[int, np.ndarray], object] | None = None
        self._prepared: dict[int, tuple[np.ndarray, object]] = {}  # index: (image, result)

    @property
    def decodes_ahead(self) -> bool:
        """Whether frames read in order are decoded ahead on a thread of their own (and so
        prepared there too, with a preparer set)."""
        return self.ahead > 0

    def set_preparer(self, fn: Callable[[int, np.ndarray], object] | None) -> None:
        """fn(index, image) -> result, applied on the decode thread ahead of the caller, in
        the frames' order (None: no more). Whoever runs it, the result must be the same: the
        caller makes its own of the frames fn was not given."""
        self._preparer = fn
        self._prepared.clear()

    def prepared(self, index: int, image: np.ndarray):
        """The preparer's result for frame index, when the decode thread made it of this very
        image (a frame read again after a seek is not assumed to be the same pixels); else
        None. Each result is handed over once."""
        hit = self._prepared.pop(index, None)
        return hit[1] if hit is not None and hit[0] is image else None

    def image(self, index: int) -> np.ndarray:
        hit = self._cache.get(index)
        if hit is not None:
            return hit
        if self._thread is not None and index == self._next:
            img = self._take()
        else:
            self._halt()
            img = self.reader.read(index)
            if self.ahead > 0 and index + 1 < self.count:
                self._start(index + 1)
        self._cache[index] = img
        self._order.append(index)
        if len(self._order) > self.cache:
            self._cache.pop(self._order.pop(0), None)
        return img

    def _take(self) -> np.ndarray:
        kind, value, result = self._queue.get()
        index = self._next
        self._next += 1
        if kind == "error" or self._next >= self.count:
            self._halt()
        if kind == "error":
            raise value
        if result is not None:
            self._prepared[index] = (value, result)
            while len(self._prepared) > self.cache:  # results nobody asked for
                self._prepared.pop(next(iter(self._prepared)))
        return value

    def _start(self, first: int) -> None:
        import queue
        import threading

        q, stop = queue.Queue(maxsize=self.ahead), threading.Event()

        def run():  # cv2 releases the GIL while it decodes
            for i in range(first, self.count):
                try:
                    img = self.reader.read(i)
                except Exception as exc:  # handed to the reader of frame i
                    item = ("error", exc, None)
                else:
                    fn = self._preparer  # only while the caller has a frame to work on
                    ready = fn is not None and q.qsize() > 0
                    item = ("frame", img, _prepare(fn, i, img) if ready else None)
                while not stop.is_set():
                    try:
                        q.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set() or item[0] == "error":
                    return

        self._queue, self._stop, self._next = q, stop, first
        self._thread = threading.Thread(target=run, name="decode-ahead", daemon=True)
        self._thread.start()
        if not self._atexit:  # a decoder killed mid-frame at exit aborts the process
            import atexit
            import weakref

            ref = weakref.ref(self)
            atexit.register(lambda: ref() is not None and ref()._halt())
            self._atexit = True

    def _halt(self) -> None:
        """Stop the decode-ahead thread (the reader is then free for a seek)."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = self._queue = self._stop = None

    def close(self) -> None:
        self._halt()
        self.reader.close()


def _prepare(fn: Callable[[int, np.ndarray], object], index: int, img) -> object:
    """fn(index, img), or None for an image the pass will not use (propagation_frames
    usable_image) or one fn refuses: the caller then prepares it itself, and meets the same
    error where it handles it."""
    import cv2

    from courtstudio.pipeline.propagation_frames import usable_image

    if not usable_image(img):
        return None
    try:
        return fn(index, img)
    except (ValueError, cv2.error):
        return None


class ProjectFrames:
    """A project's frames (images or video) as propagation input; annotated player boxes are
    masked so players do not drive the camera motion."""

    BOX_PAD = 0.1

    def __init__(self, project, store=None, annotation_of=None):
        from courtstudio.io.frames import FrameStore

        self.project = project
        self.store = store or FrameStore(project)
        self.count = len(project.frames)
        self.size = self.store.image_size(project.frames[0]) if project.frames else (0, 0)
        self.annotation_of = annotation_of or project.load_annotation

    def image(self, index: int) -> np.ndarray:
        return self.store.image(self.project.frames[index])

    def mask(self, index: int):
        ann = self.annotation_of(self.project.frames[index].id)
        if ann is None or not ann.players:
            return None
        w, h = self.size
        m = np.full((h, w), 255, np.uint8)
        for p in ann.players:
            x0, y0, x1, y1 = p.box_xyxy
            px, py = self.BOX_PAD * (x1 - x0), self.BOX_PAD * (y1 - y0)
            m[max(0, int(y0 - py)) : int(y1 + py) + 1, max(0, int(x0 - px)) : int(x1 + px) + 1] = 0
        return m


def project_masks(project, image_size=None) -> list[list[float]]:
    """The project's registration masks: PROJECT/propagation/masks.json,
    {"masks": [[x0, y0, x1, y1], ...]} in full-resolution pixels (untrusted: checked by
    courtstudio.io.masks_file, also inside image_size (w, h) when given; ProjectError, a
    ValueError, names the file and field)."""
    from courtstudio.io.masks_file import masks_path, read_masks_file

    return read_masks_file(masks_path(project.root), image_size)[0]


def save_project_masks(project, masks, image_size=None) -> None:
    """Store registration masks with the project (atomic; courtstudio.io.masks_file)."""
    from courtstudio.io.masks_file import masks_path, read_masks_file, write_masks_file

    path = masks_path(project.root)
    try:
        keep = read_masks_file(path)[1]
    except ValueError:
        keep = {}
    write_masks_file(path, masks, image_size, keep)


@dataclass(frozen=True)
class ProjectSource:
    """A picklable way to open a project's frames in another process."""

    root: str

    def __call__(self) -> "ProjectFrames":
        from courtstudio.io.project import load_project

        return ProjectFrames(load_project(Path(self.root)))

"""Frames for propagation: a video file, a project (annotated players masked), picklable
openers for worker processes, and the project's registration masks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class VideoSource:
    """A picklable way to open a video's frames in another process."""

    path: str

    def __call__(self) -> "VideoFrames":
        return VideoFrames(self.path)


class VideoFrames:
    """Frames of a video file, decoded in order with a small cache (propagation reads each
    frame a few times, mostly in sequence)."""

    def __init__(self, path, cache: int = 4):
        from courtstudio.io.frames import VideoReader
        self.reader = VideoReader(path)
        self.count = self.reader.frame_count
        self.size = self.reader.size
        self._cache: dict[int, np.ndarray] = {}
        self._order: list[int] = []
        self.cache = cache

    def image(self, index: int) -> np.ndarray:
        hit = self._cache.get(index)
        if hit is not None:
            return hit
        img = self.reader.read(index)
        self._cache[index] = img
        self._order.append(index)
        if len(self._order) > self.cache:
            self._cache.pop(self._order.pop(0), None)
        return img


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
            m[max(0, int(y0 - py)):int(y1 + py) + 1, max(0, int(x0 - px)):int(x1 + px) + 1] = 0
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

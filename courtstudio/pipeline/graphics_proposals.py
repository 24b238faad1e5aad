"""Proposed registration masks: the screen-fixed graphics detector (geometry/screen_fixed.py,
the one propagation runs) over a project's frames, for the app's Masks > Detect graphics.

The detector needs camera motion: a pair of frames counts when most of the textured image
changed, and graphics are the textured pixels that did not. Frames are read in project order
(at most ``max_frames``, evenly spread) and compared ``lag`` frames apart, GRAPHICS_LAG apart
in video frames as propagation does (fewer project frames apart when the project samples the
video sparsely). Qt-free; the caller shows progress and may cancel through ``progress``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from courtstudio.pipeline.propagation_scan import GRAPHICS_LAG
from geometry.mask_rectangles import box_rectangles
from geometry.plane_motion import prepare
from geometry.screen_fixed import MIN_FRAMES, ScreenFixedDetector

MAX_FRAMES = 400


@dataclass
class GraphicsProposal:
    """boxes: [x0, y0, x1, y1] full-resolution pixels; frames_read and moving_pairs (the
    frame pairs in which the camera moved) say how much evidence there was; message: one
    line for the annotator."""

    boxes: list = field(default_factory=list)
    frames_read: int = 0
    moving_pairs: int = 0
    message: str = ""


def graphics_boxes_px(detector: ScreenFixedDetector, scale: float, size) -> list:
    """The detector's mask as boxes [x0, y0, x1, y1] in full-resolution pixels (scale:
    reduced / full; size (w, h)), by geometry/mask_rectangles.box_rectangles: a score bug
    touching a ticker gives two boxes, not one box over both and the court beside them."""
    mask = detector.mask()
    if mask is None:
        return []
    w, h = size
    out = []
    for x0, y0, x1, y1 in box_rectangles(mask == 0):
        b = [
            max(0.0, x0 / scale),
            max(0.0, y0 / scale),
            min(float(w), x1 / scale),
            min(float(h), y1 / scale),
        ]
        if b[2] > b[0] and b[3] > b[1]:
            out.append([round(c, 1) for c in b])
    return out


def _frame_step(frames) -> int:
    """Video frames between consecutive project frames (1 for images or unknown)."""
    project = getattr(frames, "project", None)
    if project is None or len(project.frames) < 2:
        return 1
    a, b = project.frames[0], project.frames[1]
    if a.video is not None and a.video == b.video and b.index > a.index:
        return b.index - a.index
    return 1


def detect_graphics(
    frames, progress: Callable[[int, int], None] | None = None, max_frames: int = MAX_FRAMES
) -> GraphicsProposal:
    """Screen-fixed graphics over ``frames`` (count, size (w, h), image(i) -> (h, w, 3)
    uint8 BGR; e.g. propagate_sources.ProjectFrames). Frames of another size than the first
    and frames that cannot be read are skipped. progress(done, total) may raise to cancel."""
    n = int(frames.count)
    stride = max(1, -(-n // max_frames))  # ceil: at most max_frames frames read
    indices = list(range(0, n, stride))
    lag = max(1, round(GRAPHICS_LAG / (_frame_step(frames) * stride)))
    need = MIN_FRAMES + lag
    if len(indices) < need:
        return GraphicsProposal(
            message=(
                f"too few frames: the graphics detector compares frames {lag} apart and needs at "
                f"least {MIN_FRAMES} pairs in which the camera moves ({need} frames); this project "
                f"has {n}. Draw the rectangles by hand"
            )
        )
    detector, scale, shape = None, 1.0, None
    history: deque = deque(maxlen=lag + 1)
    read = 0
    for k, i in enumerate(indices):
        if progress is not None:
            progress(k, len(indices))
        try:
            img = frames.image(i)
        except (OSError, ValueError):
            continue
        if img is None or (shape is not None and img.shape[:2] != shape):
            continue
        shape = img.shape[:2]
        p = prepare(img)
        read += 1
        if detector is None:
            detector, scale = ScreenFixedDetector(p.gray.shape[:2]), p.scale
        history.append(p.gray)
        if len(history) == history.maxlen:
            detector.update(history[0], p.gray)
    if progress is not None:
        progress(len(indices), len(indices))
    if detector is None:
        return GraphicsProposal(message="no frame could be read")
    boxes = graphics_boxes_px(detector, scale, frames.size)
    if detector.pairs < MIN_FRAMES:
        msg = (
            f"the camera moved in {detector.pairs} of the compared frame pairs; the "
            f"detector needs {MIN_FRAMES} (graphics are told from the court only while the "
            "camera pans, tilts or zooms). Draw the rectangles by hand"
        )
    elif not boxes:
        msg = f"no screen-fixed graphics found in {read} frames ({detector.pairs} moving pairs)"
    else:
        msg = (
            f"{len(boxes)} screen-fixed graphic(s) found in {read} frames "
            f"({detector.pairs} moving pairs)"
        )
    return GraphicsProposal(boxes, read, detector.pairs, msg)

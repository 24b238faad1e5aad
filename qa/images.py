"""The frames of QA items: read (image file or a video frame), marked with numbered player boxes.

Each athlete gets a thin box in its own colour and its serial number (1..N, left to right)
above the box's top-left corner in the same colour, as the CourtSI images have.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from exporters.overlay import read_image, write_image

# BGR, distinct on grass, clay, hard courts and wooden floors
BOX_COLOURS_BGR = (
    (0, 0, 255),
    (255, 128, 0),
    (0, 200, 255),
    (255, 0, 255),
    (0, 255, 0),
    (255, 255, 0),
    (128, 0, 255),
    (0, 128, 255),
    (255, 255, 255),
    (80, 80, 80),
)


class FrameReadError(ValueError):
    """A scene's image or video frame cannot be read."""


def read_scene_frame(scene_path: Path, image_ref: str) -> np.ndarray:
    """The frame a scene refers to: a path relative to the scene file, or ``video#frame=N``.
    Returns (H, W, 3) uint8 BGR."""
    ref, _, frag = image_ref.partition("#frame=")
    path = (Path(scene_path).parent / ref).resolve()
    if not frag:
        try:
            return read_image(path)
        except (OSError, ValueError) as exc:
            raise FrameReadError(f"{scene_path}: cannot read its image {path} ({exc})") from None
    if not frag.isdigit():
        raise FrameReadError(f"{scene_path}: bad frame number {frag!r} in {image_ref!r}")
    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise FrameReadError(f"{scene_path}: cannot open video {path}")
        cap.set(cv2.CAP_PROP_POS_FRAMES, int(frag))
        ok, img = cap.read()
    finally:
        cap.release()
    if not ok:
        raise FrameReadError(f"{scene_path}: cannot read frame {frag} of {path}")
    return img


@lru_cache(maxsize=256)
def _text_size(label: str, scale: float, thickness: int):
    return cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)


def draw_numbered_boxes(image: np.ndarray, boxes_xyxy: np.ndarray, numbers=None) -> np.ndarray:
    """Draw boxes (N, 4) xyxy px with their numbers (default 1..N) above their top-left
    corners, in place; a number's colour is fixed by the number."""
    h, w = image.shape[:2]
    thick = max(1, round(h / 720))
    scale = max(0.5, h / 1080 * 0.9)
    boxes = np.asarray(boxes_xyxy, float).reshape(-1, 4)
    numbers = list(range(1, len(boxes) + 1)) if numbers is None else list(numbers)
    for (x0, y0, x1, y1), number in zip(boxes, numbers):
        bgr = BOX_COLOURS_BGR[(number - 1) % len(BOX_COLOURS_BGR)]
        p0 = (int(round(x0)), int(round(y0)))
        cv2.rectangle(image, p0, (int(round(x1)), int(round(y1))), bgr, thick, cv2.LINE_8)
        label = str(number)
        (tw, th), _ = _text_size(label, scale, thick + 1)
        ty = p0[1] - 4 if p0[1] - 4 - th >= 0 else p0[1] + th + 4
        tx = min(max(p0[0], 0), max(w - tw, 0))
        cv2.putText(
            image, label, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, scale, bgr, thick + 1, cv2.LINE_AA
        )
    return image


def thumbnail(image: np.ndarray, size=(32, 18)) -> np.ndarray:
    """(18, 32) float32 grey thumbnail for near-duplicate detection."""
    g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.resize(g, size, interpolation=cv2.INTER_AREA).astype(np.float32)


def write_marked(path: Path, image: np.ndarray, boxes_xyxy: np.ndarray, numbers=None) -> Path:
    return write_image(path, draw_numbered_boxes(image.copy(), boxes_xyxy, numbers))

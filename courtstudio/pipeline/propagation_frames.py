"""The frame source a propagation run reads (the Frames protocol) and the two guarded reads
it makes of one: a frame's image (None when undecodable) and its optional mask."""

from __future__ import annotations

from typing import Protocol

import cv2
import numpy as np


class Frames(Protocol):
    """count, size (w, h), image(i); optionally mask(i): uint8 (h, w), 0 where features must
    not be used (players), or None."""

    count: int
    size: tuple[int, int]

    def image(self, index: int) -> np.ndarray: ...


def frame_mask(frames, index: int):
    fn = getattr(frames, "mask", None)
    return fn(index) if fn is not None else None


def usable_image(img) -> bool:
    """Whether a source's image is one a pass works on: a non-empty (h, w) or (h, w, c)
    array (anything else counts as an undecodable frame)."""
    return isinstance(img, np.ndarray) and img.ndim in (2, 3) and bool(img.size)


def _read(frames, i: int):
    """Frame i, or None when it cannot be decoded (flagged, never fatal)."""
    try:
        img = frames.image(i)
    except (OSError, ValueError, cv2.error):
        return None
    return img if usable_image(img) else None

"""Screen-fixed graphics (channel logos, score bugs, clocks, tickers) found from motion.

While the camera pans, tilts or zooms, everything filmed moves by the global homography;
broadcast graphics stay where they are on the screen. A textured pixel whose brightness is
explained by zero motion (|I_t - I_{t-1}| small) is screen-fixed. Without a motion model: a
frame pair counts when most textured pixels changed (the camera moved), and then every
textured pixel that did not change votes. Pixels that vote in most such pairs are graphics;
their connected regions, as boxes grown by a margin, are masked out of registration. Works on
reduced gray frames (plane_motion.prepare).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MIN_MOVING_FRACTION = 0.5  # of textured grid cells that changed, for a pair to count
MAX_BOX_FRACTION = 0.3  # a larger region is not a graphic
STILL_DIFF = 6.0  # gray levels
MIN_GRADIENT = 20.0
VOTE_FRACTION = 0.8
MIN_FRAMES = 4  # moving frame pairs before a mask is produced
MIN_AREA_FRACTION = 0.0005  # smaller regions are noise
GROW = 0.01  # margin around a region, fraction of the image width


CELLS = 6  # the grid _camera_moved tests, cells a side


def _per_cell(a: np.ndarray, cells: int = CELLS) -> np.ndarray:
    """(cells, cells) int sums of the (h, w) bool a over the grid cells, from its integral
    image."""
    h, w = a.shape
    rows = np.arange(cells + 1) * h // cells
    cols = np.arange(cells + 1) * w // cells
    s = cv2.integral(a.view(np.uint8))[np.ix_(rows, cols)]
    return s[1:, 1:] - s[:-1, 1:] - s[1:, :-1] + s[:-1, :-1]


@dataclass(frozen=True)
class Texture:
    """What the detector reads of one reduced frame alone, made once (frame_texture):
    blurred (h', w') uint8, its 3x3 Gaussian blur; textured (h', w') bool, the pixels whose
    gradient passes MIN_GRADIENT; per_cell (CELLS, CELLS) int, their count per grid cell."""

    blurred: np.ndarray
    textured: np.ndarray
    per_cell: np.ndarray


def frame_texture(gray: np.ndarray) -> Texture:
    """Texture of a reduced gray frame (h', w') uint8: the same whoever makes it, and
    whenever (a source's decode thread makes it ahead of the pass)."""
    # integer arithmetic throughout (the blurred frames are uint8, their 3x3 Sobel fits
    # int16): the same decisions as float32, at a fraction of the memory traffic
    b = cv2.GaussianBlur(gray, (3, 3), 0)
    gx, gy = cv2.spatialGradient(b, ksize=3)  # the two 3x3 Sobels in one pass
    tex = np.abs(gx) + np.abs(gy) > int(MIN_GRADIENT * 4)  # at most 2040: int16 holds it
    return Texture(b, tex, _per_cell(tex))


def _camera_moved(
    tex: np.ndarray, still: np.ndarray, cells: int = CELLS, nt: np.ndarray | None = None
) -> bool:
    """True when, in at least MIN_MOVING_FRACTION of the grid cells with texture, most
    textured pixels changed. tex, still: (h, w) bool; nt: _per_cell(tex) when known."""
    nt = _per_cell(tex, cells) if nt is None else nt
    changed = _per_cell(tex & ~still, cells)
    textured = nt >= 20
    moving = (changed > 0.5 * nt) & textured
    return bool(textured.any()) and int(moving.sum()) >= MIN_MOVING_FRACTION * int(textured.sum())


class ScreenFixedDetector:
    """Accumulates votes over consecutive reduced frames; mask() is uint8 (h', w'), 0 over
    screen-fixed graphics, 255 elsewhere (None before MIN_FRAMES moving pairs or with no
    graphics found)."""

    def __init__(self, shape_hw):
        self.votes = np.zeros(shape_hw, np.float32)
        self.textured = np.zeros(shape_hw, np.float32)
        self.pairs = 0
        self._mask = None
        self._dirty = False

    def state(self) -> dict:
        """What the detector has accumulated: {"votes", "textured": (h', w') float32,
        "pairs": int, "mask": its mask as it stands, (h', w') uint8 or None, "dirty": bool}
        (the arrays are the detector's own: copy them to keep them)."""
        return {
            "votes": self.votes,
            "textured": self.textured,
            "pairs": self.pairs,
            "mask": self._mask,
            "dirty": self._dirty,
        }

    @classmethod
    def from_state(cls, state: dict) -> ScreenFixedDetector:
        """A detector that goes on as the one whose state() this is (arrays copied)."""
        d = cls(state["votes"].shape)
        d.votes, d.textured = state["votes"].copy(), state["textured"].copy()
        d.pairs, d._dirty = int(state["pairs"]), bool(state["dirty"])
        d._mask = None if state["mask"] is None else state["mask"].copy()
        return d

    def update(
        self,
        prev_gray: np.ndarray,
        cur_gray: np.ndarray,
        prev: Texture | None = None,
        cur: Texture | None = None,
    ) -> None:
        """prev_gray, cur_gray: (h', w') uint8 reduced frames of one shot, a few frames apart. The
        pair counts when the textured pixels changed in most textured parts of the image (the
        camera moved, not only the players); then every textured pixel that did not change
        votes. prev, cur: the frames' frame_texture when made already (None: made here)."""
        if prev_gray.shape != cur_gray.shape:
            return
        a = prev.blurred if prev is not None else cv2.GaussianBlur(prev_gray, (3, 3), 0)
        cur = cur if cur is not None else frame_texture(cur_gray)
        b, tex = cur.blurred, cur.textured
        if np.count_nonzero(tex) < 50:
            return
        still = cv2.absdiff(a, b) < STILL_DIFF
        if not _camera_moved(tex, still, nt=cur.per_cell):
            return
        cv2.accumulate((tex & still).view(np.uint8), self.votes)
        cv2.accumulate(tex.view(np.uint8), self.textured)
        self.pairs += 1
        self._dirty = True

    def mask(self):
        if self.pairs < MIN_FRAMES:
            return None
        if not self._dirty or (self._mask is not None and self.pairs % 5):
            return self._mask
        self._dirty = False
        frac = self.votes / np.maximum(self.textured, 1.0)
        voted = ((frac > VOTE_FRACTION) & (self.textured >= MIN_FRAMES)).astype(np.uint8)
        h, w = voted.shape
        closed = cv2.morphologyEx(voted, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(closed)
        m = np.full((h, w), 255, np.uint8)
        g = int(round(GROW * w)) + 1
        found = False
        for x, y, bw, bh, area in stats[1:n]:
            if area < MIN_AREA_FRACTION * w * h or bw * bh > MAX_BOX_FRACTION * w * h:
                continue
            m[max(0, y - g) : y + bh + g, max(0, x - g) : x + bw + g] = 0
            found = True
        self._mask = m if found else None
        return self._mask

    def boxes_px(self, scale: float) -> list[list[int]]:
        """The masked regions as [x0, y0, x1, y1] boxes in full-resolution pixels
        (scale: reduced / full)."""
        m = self.mask()
        if m is None:
            return []
        n, _, stats, _ = cv2.connectedComponentsWithStats((m == 0).astype(np.uint8))
        return [
            [int(x / scale), int(y / scale), int((x + bw) / scale), int((y + bh) / scale)]
            for x, y, bw, bh, _ in stats[1:n]
        ]

"""Screen-fixed graphics (channel logos, score bugs, clocks, tickers) found from motion.

While the camera pans, tilts or zooms, everything filmed moves by the global homography;
broadcast graphics stay where they are on the screen. A textured pixel whose brightness is
explained by zero motion (|I_t - I_{t-1}| small) but not by the global motion (|I_t - the
previous frame warped by the motion| large) votes "screen-fixed". Pixels that vote in most
frames with clear motion are graphics; their connected regions, as boxes grown by a margin,
are masked out of registration. Works on reduced gray frames (plane_motion.prepare).
"""

from __future__ import annotations

import cv2
import numpy as np

MIN_MOTION_PX = 1.5  # global motion (reduced px) for a frame pair to count
STILL_DIFF = 6.0  # gray levels
MOVED_DIFF = 14.0
MIN_GRADIENT = 20.0
VOTE_FRACTION = 0.6
MIN_FRAMES = 4  # moving frame pairs before a mask is produced
MIN_AREA_FRACTION = 0.0005  # smaller regions are noise
GROW = 0.01  # margin around a region, fraction of the image width


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

    def update(self, prev_gray: np.ndarray, cur_gray: np.ndarray, H_prev_to_cur) -> None:
        """prev_gray, cur_gray: (h', w') uint8 consecutive reduced frames; H_prev_to_cur
        (3, 3): the camera's image motion between them in reduced pixels."""
        h, w = cur_gray.shape
        if prev_gray.shape != cur_gray.shape or H_prev_to_cur is None:
            return
        c = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
        moved = cv2.perspectiveTransform(c, np.asarray(H_prev_to_cur, float)).reshape(-1, 2)
        if np.max(np.linalg.norm(moved - c.reshape(-1, 2), axis=1)) < MIN_MOTION_PX:
            return
        a = cv2.GaussianBlur(prev_gray, (3, 3), 0).astype(np.float32)
        b = cv2.GaussianBlur(cur_gray, (3, 3), 0).astype(np.float32)
        comp = cv2.warpPerspective(a, np.asarray(H_prev_to_cur, float), (w, h),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        gx = cv2.Sobel(b, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(b, cv2.CV_32F, 0, 1, ksize=3)
        tex = (np.abs(gx) + np.abs(gy)) > MIN_GRADIENT * 4
        still = np.abs(b - a) < STILL_DIFF
        move = np.abs(b - comp) > MOVED_DIFF
        self.votes += (tex & still & move)
        self.textured += tex
        self.pairs += 1
        self._dirty = True

    def mask(self):
        if self.pairs < MIN_FRAMES:
            return None
        if not self._dirty:
            return self._mask
        self._dirty = False
        frac = self.votes / np.maximum(self.textured, 1.0)
        hot = ((frac > VOTE_FRACTION) & (self.textured >= MIN_FRAMES)).astype(np.uint8)
        h, w = hot.shape
        hot = cv2.morphologyEx(hot, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(hot)
        m = np.full((h, w), 255, np.uint8)
        g = int(round(GROW * w)) + 1
        found = False
        for x, y, bw, bh, area in stats[1:n]:
            if area < MIN_AREA_FRACTION * w * h:
                continue
            m[max(0, y - g):y + bh + g, max(0, x - g):x + bw + g] = 0
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
        return [[int(x / scale), int(y / scale), int((x + bw) / scale), int((y + bh) / scale)]
                for x, y, bw, bh, _ in stats[1:n]]

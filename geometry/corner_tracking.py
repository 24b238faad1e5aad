"""KLT tracking of a reference's corners into a frame (plane_motion's "track" method), and the
memory of which corners recent frames rejected.

A broadcast court has corners that never track: points on painted lines slide along the line
(the aperture problem), points on players move with them. On a synthetic 720p clip 40 % of
the tracked corners were such RANSAC outliers in every frame, and each cost its KLT
iterations (up to the limit: they do not converge) and RANSAC samples. A TrackMemory lets
the registrations of one run skip the corners the previous ones found far off their fit; every
RECHECK_EVERY-th registration tracks them all again, so a corner that a player left is back
within that many frames. Each frame is still registered on its own tracks and checked as
before; only the candidates it starts from are chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

MAX_TRACKED = 300  # corners tracked per registration
KLT_WIN = 11  # KLT window, reduced px (the prediction leaves a small residual motion)
KLT_LEVELS = 2  # KLT pyramid levels above the base
RECHECK_EVERY = 8  # a memory's registrations between two that track every usable corner
KEEP_INLIERS = 0.75  # ... and sooner when one without the left-out corners keeps fewer inliers


@dataclass
class TrackMemory:
    """The corners of one reference (Prepared.corners, N of them) that the last registrations
    rejected: bad (N,) bool; since_full: registrations since the last one that tracked every
    usable corner (it reset bad)."""

    bad: np.ndarray
    since_full: int = RECHECK_EVERY
    full_inliers: int = 0  # the inliers of the last registration that tracked them all
    usable: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # usable_corners' last

    @classmethod
    def of(cls, corners: np.ndarray) -> TrackMemory:
        return cls(np.zeros(len(corners), bool))

    def copy(self) -> TrackMemory:
        """An independent copy (a registration run ahead on another thread learns into it)."""
        return TrackMemory(self.bad.copy(), self.since_full, self.full_inliers, self.usable)

    def same_state(self, other: TrackMemory) -> bool:
        """Whether other would choose the same corners as this one (usable_corners' cache
        aside, which only saves work)."""
        return (
            self.since_full == other.since_full
            and self.full_inliers == other.full_inliers
            and np.array_equal(self.bad, other.bad)
        )

    def take(self, other: TrackMemory) -> None:
        """Become other (a copy of this one that learnt from a registration run ahead)."""
        self.bad[:] = other.bad
        self.since_full, self.full_inliers, self.usable = (
            other.since_full,
            other.full_inliers,
            other.usable,
        )

    def skip(self) -> np.ndarray | None:
        """(N,) bool of corners to leave out of the next registration, or None (track all:
        a recheck is due)."""
        return None if self.since_full >= RECHECK_EVERY else self.bad

    def enough(self, inliers: int) -> bool:
        """Whether a registration without the left-out corners kept enough inliers to stand
        (KEEP_INLIERS of the last full one's); if not, every corner is tracked again."""
        return inliers >= KEEP_INLIERS * self.full_inliers

    def update(self, tracked: np.ndarray, fair: np.ndarray, full: bool, inliers: int) -> None:
        """Record a successful registration: tracked (M,) int corner indices, fair (M,) bool:
        the track lay near the fit (plane_motion.GROSS_RESIDUAL; a corner just outside the
        RANSAC threshold, as at the edge of a straightened lens, stays in); full: every
        usable corner was tracked (the memory starts again from it); inliers: its count."""
        if full:
            self.bad[:] = False
            self.since_full = 0
            self.full_inliers = inliers
        self.bad[tracked[~fair]] = True
        self.since_full += 1


def usable_corners(
    corners: np.ndarray, mask: np.ndarray | None, memory: TrackMemory | None = None
) -> np.ndarray | None:
    """(N,) bool: corners (N, 2) (reduced px) at least 2 px inside the 255 region of mask
    (uint8, same reduced size; None: every corner). With a memory, its last answer is reused
    for the same corners and mask objects (a propagation run passes the same, unchanged mask
    while the graphics mask stays the same)."""
    if mask is None:
        return None
    last = memory.usable if memory is not None else None
    if last is not None and last[0] is corners and last[1] is mask:
        return last[2]
    eroded = cv2.erode(mask, np.ones((5, 5), np.uint8))
    h, w = eroded.shape[:2]
    c = np.round(corners).astype(int)
    c[:, 0] = np.clip(c[:, 0], 0, w - 1)
    c[:, 1] = np.clip(c[:, 1], 0, h - 1)
    out = np.asarray(eroded[c[:, 1], c[:, 0]] > 0)
    if memory is not None:
        memory.usable = (corners, mask, out)
    return out


def track(
    warped: np.ndarray,
    b: np.ndarray,
    corners: np.ndarray,
    keep_ref: np.ndarray | None,
    valid_b: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Corners (N, 2) of the warped reference (already mapped into b's pixels) tracked into b
    (KLT): (pa, pb, index) with pa, pb (M, 2) float32 and index (M,) the tracked corners'
    indices in corners, or None (fewer than 8). keep_ref: (N,) bool, the corners usable on
    the reference side (None: all); valid_b: b's uint8 mask (0 = ignore) or None."""
    h, w = warped.shape[:2]
    c = np.round(corners).astype(int)
    keep = (c[:, 0] >= 0) & (c[:, 0] < w) & (c[:, 1] >= 0) & (c[:, 1] < h)
    if keep_ref is not None:
        keep &= keep_ref
    idx = np.flatnonzero(keep)
    if valid_b is not None and len(idx):
        idx = idx[valid_b[c[idx, 1], c[idx, 0]] > 0]
    if len(idx) > MAX_TRACKED:  # evenly thinned (the corners are spread already)
        idx = idx[np.linspace(0, len(idx) - 1, MAX_TRACKED).astype(int)]
    if len(idx) < 8:
        return None
    p0 = corners[idx].reshape(-1, 1, 2).astype(np.float32)
    none: Any = None  # OpenCV's stubs do not say nextPts may be None (it is then made)
    p1, st, _ = cv2.calcOpticalFlowPyrLK(
        warped,
        b,
        p0,
        none,
        winSize=(KLT_WIN, KLT_WIN),
        maxLevel=KLT_LEVELS,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 0.01),
    )
    if p1 is None:
        return None
    ok = st.ravel() == 1
    return p0.reshape(-1, 2)[ok], p1.reshape(-1, 2)[ok], idx[ok]

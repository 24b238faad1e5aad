"""Rectangles that tile the masked pixels of a mask, for proposing editable boxes.

A registration mask made of grown boxes (geometry/screen_fixed.py) is a union of
axis-aligned rectangles. Where two of them touch (a score bug just above a ticker) their
connected region is an L or a T, and its bounding box would also cover court that is not
masked. ``tile_rectangles`` returns the union as rectangles instead: each row's masked runs,
a run continuing the identical run of the row above extending that rectangle, any other run
starting a new one. The rectangles tile the masked pixels exactly (no overlap, nothing
missed); a union of rectangles that only touch is returned as those rectangles, one that
overlaps sideways is cut into a few bands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """[(x0, x1)] of the True runs of a 1-D bool row, exclusive ends."""
    d = np.diff(np.concatenate(([0], row.view(np.int8), [0])))
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return list(zip(starts.tolist(), ends.tolist()))


def tile_rectangles(masked: np.ndarray) -> list[tuple[int, int, int, int]]:
    """masked: (h, w) bool, True where masked. Returns [(x0, y0, x1, y1)] in pixel-index
    units with exclusive ends (columns x0..x1-1, rows y0..y1-1), in the order they start
    (row-major). Every pixel of a rectangle is masked and every masked pixel lies in exactly
    one rectangle. An empty mask gives [].

    >>> m = np.zeros((4, 6), bool); m[0:2, 1:3] = True; m[2:4, 0:6] = True
    >>> tile_rectangles(m)
    [(1, 0, 3, 2), (0, 2, 6, 4)]
    """
    masked = np.ascontiguousarray(masked, dtype=bool)
    if masked.ndim != 2:
        raise ValueError(f"masked: expected (h, w) bool, got shape {masked.shape}")
    done: list[tuple[int, int, int, int]] = []
    open_: dict[tuple[int, int], int] = {}  # run (x0, x1) -> the row its rectangle started
    for y in range(masked.shape[0]):
        runs = set(_runs(masked[y]))
        for run in [r for r in open_ if r not in runs]:
            done.append((run[0], open_.pop(run), run[1], y))
        for run in runs:
            open_.setdefault(run, y)
    done += [(x0, y0, x1, masked.shape[0]) for (x0, x1), y0 in open_.items()]
    return sorted(done, key=lambda r: (r[1], r[0]))


def box_rectangles(masked: np.ndarray, min_fill: float = 0.7) -> list[tuple[int, int, int, int]]:
    """Editable boxes for a mask: each connected masked region as its bounding box when the
    region fills at least ``min_fill`` of it (a ticker whose plain right end did not vote),
    else as its tiles (tile_rectangles: a score bug touching a ticker stays two boxes and
    the court beside them stays out). Same units and order as tile_rectangles."""
    masked = np.ascontiguousarray(masked, dtype=bool)
    if masked.ndim != 2:
        raise ValueError(f"masked: expected (h, w) bool, got shape {masked.shape}")
    n, labels, stats, _ = cv2.connectedComponentsWithStats(masked.astype(np.uint8), connectivity=4)
    out = []
    for k in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        if area >= min_fill * bw * bh:
            out.append((x, y, x + bw, y + bh))
            continue
        for x0, y0, x1, y1 in tile_rectangles(labels[y : y + bh, x : x + bw] == k):
            out.append((x0 + x, y0 + y, x1 + x, y1 + y))
    return sorted(out, key=lambda r: (r[1], r[0]))


def boxes_mask(boxes: Iterable[Sequence[float]], image_size: tuple[int, int]) -> np.ndarray | None:
    """A uint8 (h, w) mask of an image of image_size (w, h): 0 inside the boxes [x0, y0, x1,
    y1] (pixels; each edge truncated to a whole pixel, the parts outside the image dropped),
    255 elsewhere; None when there is no box. The form user masks take for registration and
    for the painted-line search (geometry.line_ridges.find_ridges)."""
    boxes = list(boxes)
    if not boxes:
        return None
    w, h = (int(v) for v in image_size)
    m = np.full((h, w), 255, np.uint8)
    for x0, y0, x1, y1 in boxes:
        m[max(0, int(y0)) : max(0, int(y1)), max(0, int(x0)) : max(0, int(x1))] = 0
    return m

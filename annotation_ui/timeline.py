"""The timeline: one column per frame showing what is annotated (court, ball, players), flagged
frames, static-camera ranges and the current frame. Click or drag to go to a frame.

Cost does not grow with the project: the statuses are kept as one boolean array per key, a
change repaints only its frame's columns, and a repaint reads only the frames under the
pixels it paints (one pixel column aggregates its frames with a vectorised any), drawing runs
of set columns as single rectangles.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

BANDS = (
    ("court", QColor(250, 210, 60)),
    ("ball", QColor(240, 80, 240)),
    ("players", QColor(80, 200, 255)),
)
KEYS = ("court", "ball", "players", "static", "flagged")
STATIC_COLOR, FLAG_COLOR = QColor(60, 120, 255), QColor(255, 40, 40)
BACKGROUND = QColor(35, 35, 38)


class _Statuses:
    """Read-only per-frame view of the arrays: ``statuses[i]["court"]``."""

    def __init__(self, bits: dict[str, np.ndarray]):
        self._bits = bits

    def __len__(self) -> int:
        return len(self._bits["court"])

    def __getitem__(self, i: int) -> dict:
        return {k: bool(self._bits[k][i]) for k in KEYS}

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class Timeline(QWidget):
    frame_requested = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._bits = {k: np.zeros(0, bool) for k in KEYS}
        self.current = 0
        self.setMinimumHeight(46)
        self.setToolTip(
            "Rows: court, ball, players. Red: flagged for review. Blue bar: static camera range."
        )

    @property
    def statuses(self) -> _Statuses:
        return _Statuses(self._bits)

    @property
    def frame_count(self) -> int:
        return len(self._bits["court"])

    def next_set(self, key: str, start: int, step: int) -> int | None:
        """The nearest frame after ``start`` (step 1) or before it (step -1) whose ``key``
        status is set; None when there is none that way."""
        bits = self._bits[key]
        if step > 0:
            hits = np.flatnonzero(bits[start + 1 :])
            return int(start + 1 + hits[0]) if len(hits) else None
        hits = np.flatnonzero(bits[: max(0, start)])
        return int(hits[-1]) if len(hits) else None

    def set_statuses(self, statuses: list[dict], current: int):
        n = len(statuses)
        self._bits = {k: np.fromiter((bool(st.get(k)) for st in statuses), bool, n) for k in KEYS}
        self.current = current
        self.update()

    def set_status(self, index: int, status: dict):
        if not 0 <= index < self.frame_count:
            return
        changed = False
        for k in KEYS:
            v = bool(status.get(k))
            if self._bits[k][index] != v:
                self._bits[k][index] = v
                changed = True
        if changed:
            self.update(self._frame_rect(index))

    def set_current(self, index: int):
        if index != self.current:
            old, self.current = self.current, index
            self.update(self._frame_rect(old))
            self.update(self._frame_rect(index))

    def _cell(self) -> float:
        return self.width() / max(1, self.frame_count)

    def _frame_rect(self, index: int) -> QRect:
        """The pixels frame ``index`` paints (its column and the current-frame box)."""
        cw = self._cell()
        x0 = math.floor(index * cw) - 2
        x1 = math.ceil(index * cw + max(cw, 2.0)) + 2
        return QRect(x0, 0, x1 - x0, self.height())

    def paintEvent(self, event):
        qp = QPainter(self)
        area = event.rect()
        qp.fillRect(area, BACKGROUND)
        n = self.frame_count
        if n == 0:
            qp.end()
            return
        cw = self._cell()
        h = self.height()
        band_h = (h - 12) / len(BANDS)
        rows = [(key, color, 2 + b * band_h, band_h - 1) for b, (key, color) in enumerate(BANDS)]
        rows += [("static", STATIC_COLOR, h - 9, 4), ("flagged", FLAG_COLOR, h - 4, 4)]
        px0, px1 = max(0, area.left()), min(self.width(), area.right() + 1)
        if cw >= 1.0:  # whole frames under the area: one rectangle per run of set frames
            f0 = max(0, int(px0 / cw) - 1)
            f1 = min(n, int(math.ceil(px1 / cw)) + 1)
            for key, color, y, hh in rows:
                gap = 0.5 if key in ("court", "ball", "players") else 0.0
                for s, e in _runs(self._bits[key][f0:f1]):
                    if gap and cw >= 3:  # wide columns: keep the gap between frames
                        for f in range(f0 + s, f0 + e):
                            qp.fillRect(QRectF(f * cw, y, cw - gap, hh), color)
                    else:
                        qp.fillRect(QRectF((f0 + s) * cw, y, (e - s) * cw, hh), color)
        else:  # several frames per pixel column: a column is set if any of its frames is
            cols = np.arange(px0, px1)
            starts = np.floor(cols * (n / self.width())).astype(np.int64)
            end = min(n, int(math.floor(px1 * (n / self.width()))) + 1)
            for key, color, y, hh in rows:
                seg = self._bits[key][starts[0] : end]
                if not seg.any():
                    continue
                col_any = np.maximum.reduceat(seg, starts - starts[0])
                for s, e in _runs(col_any):
                    qp.fillRect(QRectF(float(px0 + s), y, float(e - s), hh), color)
        qp.setPen(QPen(QColor(255, 255, 255), 2))
        qp.setBrush(Qt.BrushStyle.NoBrush)
        qp.drawRect(QRectF(self.current * cw, 1, max(cw, 2.0), h - 2))
        qp.end()

    def _go(self, x: float):
        if self.frame_count:
            self.frame_requested.emit(int(min(self.frame_count - 1, max(0, x // self._cell()))))

    def mousePressEvent(self, event):
        self._go(event.position().x())

    def mouseMoveEvent(self, event):
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._go(event.position().x())


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of True in a 1-D boolean array."""
    if not flags.any():
        return []
    d = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    return list(zip(np.flatnonzero(d == 1).tolist(), np.flatnonzero(d == -1).tolist()))

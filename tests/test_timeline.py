"""The timeline paints what changed, reading only the frames under the pixels it paints."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor

from annotation_ui.timeline import BANDS, Timeline

N = 10_000


class CountingStatus(dict):
    reads = 0

    def get(self, *a):
        CountingStatus.reads += 1
        return super().get(*a)

    def __getitem__(self, k):
        CountingStatus.reads += 1
        return super().__getitem__(k)


@pytest.fixture
def timeline(qtbot):
    tl = Timeline()
    qtbot.addWidget(tl)
    tl.resize(1000, 60)
    statuses = [
        CountingStatus(
            court=i % 3 == 0,
            ball=i == 5000,
            players=False,
            static=2000 <= i < 3000,
            flagged=i == 9999,
        )
        for i in range(N)
    ]
    tl.set_statuses(statuses, 0)
    return tl


def _rgb(img, x, y):
    c = QColor(img.pixel(x, y))
    return c.red(), c.green(), c.blue()


def test_a_repaint_does_not_read_every_frame_status(timeline):
    CountingStatus.reads = 0
    img = timeline.grab().toImage()
    assert CountingStatus.reads == 0
    band_h = (60 - 12) / len(BANDS)
    court_y, ball_y = int(2 + band_h / 2), int(2 + band_h * 1.5)
    yellow = BANDS[0][1].getRgb()[:3]
    magenta = BANDS[1][1].getRgb()[:3]
    assert _rgb(img, 300, court_y) == yellow  # every pixel column holds a court frame
    assert _rgb(img, 500, ball_y) == magenta  # the one ball frame, 5000 of 10,000
    assert _rgb(img, 400, ball_y) == (35, 35, 38)
    assert _rgb(img, 250, 60 - 7) == (60, 120, 255)  # static range 2000..2999
    assert _rgb(img, 350, 60 - 7) == (35, 35, 38)
    assert _rgb(img, 999, 60 - 2) == (255, 40, 40)  # flagged last frame


def test_a_status_change_repaints_only_its_column(timeline, monkeypatch):
    asked = []
    monkeypatch.setattr(timeline, "update", lambda *a: asked.append(a))
    timeline.set_status(7000, {"court": True, "ball": True})
    assert len(asked) == 1 and isinstance(asked[0][0], QRect)
    assert asked[0][0].width() <= 8 and asked[0][0].contains(700, 10)
    asked.clear()
    timeline.set_status(7000, {"court": True, "ball": True})  # no change: no repaint
    assert asked == []
    timeline.set_current(100)
    assert len(asked) == 2 and all(a[0].width() <= 8 for a in asked)
    assert timeline.statuses[7000]["ball"] and not timeline.statuses[7001]["ball"]


def test_few_frames_draw_one_cell_per_frame(qtbot):
    tl = Timeline()
    qtbot.addWidget(tl)
    tl.resize(400, 60)
    tl.set_statuses([{"court": i == 2} for i in range(4)], 0)
    img = tl.grab().toImage()
    assert _rgb(img, 250, 8) == BANDS[0][1].getRgb()[:3]
    assert _rgb(img, 150, 8) == (35, 35, 38)

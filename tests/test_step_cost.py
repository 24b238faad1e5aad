"""Stepping to an annotated frame refreshes once, and the ball's 1-sigma is not recomputed when
nothing it depends on changed (issue 8 §8)."""

from __future__ import annotations

import shutil

import courtstudio.pipeline.ball as ball_mod
import courtstudio.pipeline.live_calibration as live_calibration
from annotation_ui.main_window import MainWindow
from courtstudio.export.reconstruct import SAMPLE_PROJECT


def test_step_refreshes_once_and_caches_the_ball_sigma(qtbot, monkeypatch, tmp_path):
    import courtstudio.pipeline.live_calibration as live

    monkeypatch.setattr(live, "_BALL_CACHE", {})  # not filled by an earlier test's export
    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p")  # edited below: never the source tree
    refreshes = []
    real_refresh = MainWindow.refresh
    monkeypatch.setattr(
        MainWindow,
        "refresh",
        lambda self, *a, **k: refreshes.append(1) or real_refresh(self, *a, **k),
    )
    monkeypatch.setattr(live_calibration, "_BALL_CACHE", {})  # not what other tests left
    covariances = []
    real_cov = ball_mod.lifted_ball_covariance
    monkeypatch.setattr(
        ball_mod,
        "lifted_ball_covariance",
        lambda *a, **k: covariances.append(1) or real_cov(*a, **k),
    )
    # the lifted-ball cache is process-wide: another test in this worker may have filled it
    monkeypatch.setattr(live_calibration, "_BALL_CACHE", {})
    win = MainWindow()
    qtbot.addWidget(win)
    win.ask = lambda *a: "Discard"
    win.open_project(tmp_path / "p", recover=False)
    qtbot.waitUntil(lambda: not win._diagnosis_pending)
    refreshes.clear()
    covariances.clear()
    win.step(1)  # to an annotated frame with a ball: drawn once, without the doctor ...
    assert len(refreshes) == 1 and covariances == []
    # ... which runs, with the 1-sigma, once the frame has been shown
    qtbot.waitUntil(lambda: not win._diagnosis_pending)
    assert len(refreshes) == 2
    assert len(covariances) == 1 and win.ball_panel is not None
    win.step(-1)
    qtbot.waitUntil(lambda: not win._diagnosis_pending)
    covariances.clear()
    win.step(1)  # back again: the cached 1-sigma
    qtbot.waitUntil(lambda: not win._diagnosis_pending)
    assert covariances == []
    # an edit that moves the ball computes it again
    fid = win.doc.current_frame.id
    u, v = win.doc.annotation(fid).ball.uv
    win.doc.set_ball_ground(fid, (u, v + 20))
    assert len(covariances) == 1

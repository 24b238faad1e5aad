"""The annotator's rough edges (issue 10 section 6), offscreen: wheel zoom at the cursor,
decluttered labels, a clickable court diagram, a laptop layout, the new-project dialog, and
the labelme/CVAT habits (view adjustments, go to frame, copy the previous frame's keypoints,
hide overlays, occluded/estimated keypoints). The real-X-server wheel test is in
tests/test_gui_xvfb.py."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from annotation_ui.coords import scene_to_uv, uv_to_scene
from annotation_ui.main_window import MainWindow
from courtstudio.reconstruct import SAMPLE_PROJECT

IGNORE = shutil.ignore_patterns(".courtstudio")


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    win.ask = lambda title, text, buttons: "Discard"
    qtbot.addWidget(win)
    win.resize(1400, 860)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def sample_root(tmp_path):
    return Path(shutil.copytree(SAMPLE_PROJECT, tmp_path / "sample_project", ignore=IGNORE))


def wheel(view, pos: QPoint, notches: int = 1):
    """One wheel event per notch at viewport position pos (what a mouse wheel sends)."""
    for _ in range(abs(notches)):
        ev = QWheelEvent(QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)), QPoint(0, 0),
                         QPoint(0, 120 if notches > 0 else -120), Qt.MouseButton.NoButton,
                         Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(view.viewport(), ev)


def uv_under(view, pos: QPoint):
    return np.array(scene_to_uv(view.mapToScene(pos)))


@pytest.mark.parametrize("where", [(0.3, 0.35), (0.75, 0.7), (0.02, 0.97)])
def test_wheel_zoom_keeps_the_pixel_under_the_cursor(window, sample_root, where):
    window.open_project(sample_root, recover=False)
    view = window.view
    vp = view.viewport()
    pos = QPoint(int(where[0] * vp.width()), int(where[1] * vp.height()))
    before = uv_under(view, pos)
    fit_scale = view.transform().m11()
    wheel(view, pos, 6)
    assert view.transform().m11() == pytest.approx(fit_scale * 1.25 ** 6)
    after = uv_under(view, pos)
    # one screen pixel is under 1/3 image pixel at this zoom: the same image pixel stays
    assert np.all(np.abs(after - before) < 1.0), (before, after)
    wheel(view, pos, -4)
    assert np.all(np.abs(uv_under(view, pos) - before) < 1.0)


def test_a_drag_flushes_the_journal_once_when_it_ends(sample_root, monkeypatch):
    """A mouse move of a drag costs no fdatasync (issue 10: drag latency); the release
    flushes the journal, which then holds the drag's last position."""
    import courtstudio.autosave as autosave_mod
    from courtstudio.autosave import Autosave, pending_recovery
    from courtstudio.document import AnnotationDocument
    from courtstudio.project import load_project
    syncs = []
    real = autosave_mod._datasync
    monkeypatch.setattr(autosave_mod, "_datasync", lambda fd: (syncs.append(fd), real(fd)))
    project = load_project(sample_root)
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    fid = project.frames[0].id
    n0 = len(syncs)
    for i in range(30):
        doc.set_keypoint(fid, "far_left_corner", (500.0 + i, 300.0), drag=True)
    assert len(syncs) - n0 == 1  # the drag's first move (a new undo step) is flushed
    doc.end_drag()
    assert len(syncs) - n0 == 2
    rec = pending_recovery(load_project(sample_root))
    assert rec["annotations"][fid]["points"]["far_left_corner"] == [529.0, 300.0]
    doc.set_keypoint(fid, "far_left_corner", (10.0, 20.0))  # an ordinary edit: flushed
    assert len(syncs) - n0 == 3
    auto.close()

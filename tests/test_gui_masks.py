"""The Masks tool in the app, offscreen (pytest-qt; issue 11 §1): real mouse drags draw, move
and resize registration masks in image pixels at any zoom, undo/redo, Save writes the
masks.json that `batch-propagate PROJECT` uses, a second window refuses edits, a bad
masks.json is reported (file and field) without a crash, Detect graphics proposes the
synthetic clip's graphics."""

import json

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from annotation_ui.coords import uv_to_scene
from courtstudio.cli import main
from courtstudio.editing.autosave import autosave_path
from courtstudio.io.masks_file import masks_path
from courtstudio.io.project import load_project
from courtstudio.pipeline.propagate import project_masks
from courtstudio.synth.synthetic_clip import graphics_boxes
from tests.conftest import open_main_window
from tests.test_gui import drag, view_point
from tests.test_masks import _covered, video_project, write

TOL_PX = 1.0  # image pixels; the view is zoomed in 2x or more in these tests


@pytest.fixture
def vproj(tmp_path):
    return video_project(tmp_path / "v", n=12)


def activate(qtbot, win):
    """Window shortcuts (M, Ctrl+Z) need the active window (offscreen, a window shown in the
    test body, or one that showed a progress dialog, is not active by itself)."""
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5000)


def masks_window(qtbot, root, zoom=2.0):
    win = open_main_window(qtbot)
    activate(qtbot, win)
    assert win.open_project(root, recover=False)
    QTest.keyClick(win, Qt.Key.Key_M)
    assert win.tools.tool == "masks" and win.tabs.currentWidget() is win.masks_tool.panel
    if zoom:
        QTest.mouseMove(win.view.viewport(), QPoint(3, 3))  # as an earlier test may leave it
        win.view.zoom(zoom)  # anchored under the mouse, wherever earlier tests left it:
        w, h = win.doc.masks.image_size  # show the frame's centre
        win.view.centerOn(uv_to_scene(w / 2, h / 2))
    return win


def visible_point(win, frac_u, frac_v):
    """An image pixel at this fraction of the visible part of the frame."""
    r = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    return (r.left() + frac_u * r.width() - 0.5, r.top() + frac_v * r.height() - 0.5)


def test_drag_draws_a_mask_in_image_pixels_at_zoom_and_undo_redo(qtbot, vproj):
    win = masks_window(qtbot, vproj.root, zoom=3.0)
    assert win.view.transform().m11() > 2.5
    a, b = visible_point(win, 0.2, 0.25), visible_point(win, 0.7, 0.6)
    assert 0 < a[0] < b[0] < 640 and 0 < a[1] < b[1] < 360  # inside the frame
    drag(win, a, b, steps=8)
    m = win.doc.masks
    assert len(m.boxes) == 1
    box = m.boxes[0]
    for got, want in zip(box, (*a, *b)):
        assert got == pytest.approx(want, abs=TOL_PX)
    assert win.tools.mask == ("mask", 0)
    assert "masks: drag on the frame" in win.frame_label.text()
    assert win.doc.undo_stack.undo_text == "Draw mask"  # the whole drag: one step
    QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert m.boxes == [] and win.tools.mask is None
    QTest.keyClick(
        win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert m.boxes == [box]
    assert win.isWindowModified()


def test_move_resize_and_delete_by_mouse_and_keys(qtbot, vproj):
    win = masks_window(qtbot, vproj.root)
    m = win.doc.masks
    m.add((100, 60, 220, 140))
    inside = (160, 100)
    drag(win, inside, (170, 95))  # move by (+10, -5)
    assert m.boxes[0] == pytest.approx((110, 55, 230, 135), abs=TOL_PX)
    drag(win, (230, 135), (260, 150))  # the bottom-right corner
    assert m.boxes[0] == pytest.approx((110, 55, 260, 150), abs=TOL_PX)
    drag(win, (110, 100), (90, 120))  # the left edge: only x0 moves
    assert m.boxes[0] == pytest.approx((90, 55, 260, 150), abs=TOL_PX)
    assert win.doc.undo_stack.undo_text == "Move mask 1"
    QTest.keyClick(win, Qt.Key.Key_Delete)
    assert m.boxes == []
    QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert m.boxes[0] == pytest.approx((90, 55, 260, 150), abs=TOL_PX)


def test_esc_cancels_a_drag_and_detect_can_be_cancelled(qtbot, vproj):
    win = masks_window(qtbot, vproj.root)
    m = win.doc.masks
    m.add((100, 60, 220, 140))
    vp = win.view.viewport()
    QTest.mousePress(
        vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(win, 160, 100)
    )
    for k in range(1, 5):
        QTest.mouseMove(vp, view_point(win, 160 + 5 * k, 100 + 3 * k))
    assert m.boxes[0] == pytest.approx((120, 72, 240, 152), abs=TOL_PX)
    QTest.keyClick(win.view, Qt.Key.Key_Escape)
    assert m.boxes == [(100, 60, 220, 140)]
    QTest.mouseRelease(
        vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(win, 180, 112)
    )
    assert m.boxes == [(100, 60, 220, 140)]
    assert win.doc.undo_stack.undo_text == "Draw mask"  # the move left nothing behind
    assert win.masks_tool.detect_graphics(cancel_after=2) == 0
    assert m.proposals == [] and "cancelled" in win.statusBar().currentMessage()


def test_masks_are_overlays_hidden_with_h(qtbot, vproj):
    win = masks_window(qtbot, vproj.root, zoom=0)
    win.doc.masks.add((100, 60, 220, 140))
    n_before = len(win.overlay.items)
    assert n_before >= 3 and all(it.isVisible() for it in win.overlay.items)
    QTest.keyClick(win, Qt.Key.Key_H)
    assert not any(it.isVisible() for it in win.overlay.items)
    win.doc.masks.add((300, 60, 420, 140))  # redrawn while hidden: still hidden
    assert len(win.overlay.items) > n_before
    assert not any(it.isVisible() for it in win.overlay.items)


def test_save_writes_masks_json_that_batch_propagate_uses(qtbot, vproj, capsys):
    win = masks_window(qtbot, vproj.root, zoom=0)
    drag(win, (20, 15), (130, 60))
    drag(win, (500, 300), (630, 350))
    assert len(win.doc.masks.boxes) == 2
    journal = autosave_path(win.doc.project).read_text().splitlines()
    assert "propagation_masks" in journal[-1]  # journaled at once, like every edit
    QTest.keyClick(win, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not win.doc.is_dirty and not autosave_path(win.doc.project).exists()
    saved = json.loads(masks_path(vproj.root).read_text())
    assert saved["masks"] == [list(b) for b in win.doc.masks.boxes]
    assert saved["image_size"] == [640, 360]
    win.close()
    # the CLI reads the same masks, and the run records them
    assert project_masks(load_project(vproj.root), (640, 360)) == saved["masks"]
    assert main(["batch-propagate", str(vproj.root), "--sport", "tennis", "--quiet"]) == 0
    summary = json.loads((vproj.root / "propagation" / "summary.json").read_text())
    assert summary["masks"] == saved["masks"]
    assert summary["references"][-1] == ["masks", saved["masks"]]


def test_second_window_cannot_edit_masks(qtbot, vproj):
    first = masks_window(qtbot, vproj.root, zoom=0)
    second = open_main_window(qtbot)
    assert second.open_project(vproj.root) and second.read_only_reason
    second.set_tool("masks")
    assert not second.masks_tool.panel.isEnabled()
    assert not second.actions_by_name["Detect broadcast graphics"].isEnabled()
    drag(second, (20, 15), (130, 60))
    assert second.doc.masks.boxes == [] and not second.doc.is_dirty
    assert "read-only" in second.statusBar().currentMessage()
    second._guarded(second.masks_tool.detect_graphics)
    assert second.doc.masks.proposals == []
    assert not masks_path(vproj.root).exists()
    first.close()


def test_bad_masks_json_is_reported_and_nothing_crashes(qtbot, vproj):
    write(masks_path(vproj.root), '{"masks": [[0, 0, 60, 40], [0, 0, 60, NaN]]}')
    win = masks_window(qtbot, vproj.root, zoom=0)
    panel = win.masks_tool.panel
    assert panel.error.isVisible() or not panel.error.isHidden()
    assert "masks.json" in panel.error.text() and "masks[1][3]" in panel.error.text()
    assert not panel.detect.isEnabled()
    drag(win, (20, 15), (130, 60))
    msg = win.statusBar().currentMessage()
    assert "masks.json" in msg and "fix or remove" in msg
    win._guarded(win.propagate_dialog)  # propagation names the file too, no traceback
    assert "masks[1][3]" in win.statusBar().currentMessage()
    assert win.doc.masks.boxes == [] and not win.doc.is_dirty


def test_detect_graphics_proposes_and_enter_accepts(qtbot, tmp_path):
    p = video_project(tmp_path / "g", n=30, graphics=True, reference=False, seed=3)
    win = masks_window(qtbot, p.root, zoom=0)
    QTest.keyClick(
        win, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    m = win.doc.masks
    assert len(m.proposals) >= 4 and m.boxes == []
    assert "screen-fixed graphic" in win.statusBar().currentMessage()
    for truth in graphics_boxes((640, 360)):
        assert _covered(truth, m.proposals) > 0.95
    first = m.proposals[0]
    assert win.tools.mask == ("proposal", 0)
    QTest.keyClick(win.view, Qt.Key.Key_Return)
    assert m.boxes == [first] and win.tools.mask == ("mask", 0)
    win.masks_tool.panel.accept_all.click()
    assert m.proposals == [] and len(m.boxes) >= 4
    activate(qtbot, win)  # the detector's progress dialog may have taken the focus
    QTest.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(m.proposals) >= 3  # undo brings the proposals back


def test_detect_graphics_on_too_few_frames_says_so(qtbot, sample_root):
    win = masks_window(qtbot, sample_root, zoom=0)
    win.masks_tool.panel.detect.click()
    assert "too few frames" in win.statusBar().currentMessage()
    assert win.doc.masks.proposals == []


def test_unsaved_masks_of_a_killed_session_are_offered_for_recovery(qtbot, vproj):
    from courtstudio.editing.autosave import Autosave
    from courtstudio.editing.document import AnnotationDocument

    doc = AnnotationDocument(load_project(vproj.root))
    auto = Autosave(doc)
    doc.masks.add((20, 15, 130, 60))
    auto._close_fd()  # the session dies here: nothing saved, the journal holds the edit
    asked = []
    win = open_main_window(qtbot, answer="Recover")
    win.ask = lambda title, text, buttons: asked.append(text) or "Recover"
    assert win.open_project(vproj.root)
    assert any("registration masks" in t for t in asked)
    assert win.doc.masks.boxes == [(20, 15, 130, 60)] and win.doc.is_dirty
    assert not masks_path(vproj.root).exists()
    win.save()
    assert json.loads(masks_path(vproj.root).read_text())["masks"] == [[20, 15, 130, 60]]


def test_screenshot_of_the_masks_panel_shows_the_saved_masks(qtbot, vproj, tmp_path):
    """`courtstudio gui PROJECT --panel masks --screenshot X.png` (in-process): the saved
    masks are drawn over the frame, and nothing is written into the project."""
    import cv2
    import numpy as np

    from annotation_ui.app import run

    plain, masked = tmp_path / "plain.png", tmp_path / "masked.png"
    assert run(str(vproj.root), screenshot=str(plain), panel="masks") == 0
    write(masks_path(vproj.root), {"masks": [[400, 40, 600, 120]]})
    before = sorted(p.name for p in vproj.root.rglob("*"))
    assert run(str(vproj.root), screenshot=str(masked), panel="masks") == 0
    assert sorted(p.name for p in vproj.root.rglob("*")) == before
    a, b = cv2.imread(str(plain)), cv2.imread(str(masked))
    diff = np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 30
    ys, xs = np.nonzero(diff)
    # the change is the mask over the frame (right of centre, near the top) and the panel's
    # table row: the frame's part lies in the canvas, left of the side panel
    canvas = xs < a.shape[1] * 0.6
    assert canvas.sum() > 500
    assert np.median(ys[canvas]) < a.shape[0] * 0.4

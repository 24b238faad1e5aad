"""The fast paths behind the GUI latency targets (issues 8 and 10): overlay items updated in
place, panel tables updated cell by cell, and the doctor, the ball's 1-sigma and new player
silhouettes deferred until a stepped-to frame has been shown. Each checks that the fast path
ends up showing what the slow one did."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsScene, QTableWidget

import annotation_ui.overlay_items as oi
from annotation_ui.overlay_items import OverlayLayer
from annotation_ui.widget_updates import fill_table

RED, BLUE = QColor(255, 0, 0), QColor(0, 0, 255)


def draw(layer, shift=0.0, with_extra=False):
    layer.begin()
    layer.polylines([np.array([[0.0, 0.0], [100.0 + shift, 50.0]])], RED)
    layer.marker((10.0, 20.0), "cross", RED)
    layer.marker((30.0 + shift, 40.0), "circle", BLUE, fill=True)
    layer.label((5.0, 5.0), "near_left_corner", RED)
    layer.rect((1, 2, 30, 40), BLUE)
    if with_extra:
        layer.marker((50.0, 50.0), "cross", BLUE)
    layer.end()
    return list(layer.items)


def test_overlay_items_are_kept_and_only_changed_ones_touched(qtbot):
    scene = QGraphicsScene()
    layer = OverlayLayer(scene)
    first = draw(layer)
    assert len(first) == 5 and len(scene.items()) == 5
    keys = [it._overlay_key for it in first]
    second = draw(layer, shift=3.0)  # the line and the circle moved
    assert [id(a) for a in first] == [id(b) for b in second]  # no item re-created
    changed = [k != it._overlay_key for k, it in zip(keys, second)]
    assert sum(changed) == 2
    path = next(
        it
        for it in second
        if type(it).__name__ == "QGraphicsPathItem" and it.path().elementCount() == 2
    )
    assert path.path().elementAt(1).x == pytest.approx(103.0 + 0.5)  # pixel centre shift
    more = draw(layer, with_extra=True)
    assert len(more) == 6 and len(scene.items()) == 6
    fewer = draw(layer)
    assert len(fewer) == 5 and len(scene.items()) == 5  # the extra marker removed
    layer.set_visible(False)
    draw(layer, shift=1.0)
    assert not any(it.isVisible() for it in layer.items)
    layer.clear()
    assert layer.items == [] and scene.items() == []


def test_fill_table_updates_cells_in_place(qtbot):
    table = QTableWidget(0, 2)
    fill_table(table, [["a", "1.00"], ["b", "2.00"]], [None, QColor(220, 0, 200)])
    item = table.item(1, 1)
    fill_table(table, [["a", "1.00"], ["b", "2.50"]], [None, None])
    assert table.item(1, 1) is item and item.text() == "2.50"
    assert item.foreground().style().name == "NoBrush"
    fill_table(table, [["a", "1.00"]])
    assert table.rowCount() == 1


def test_stepping_shows_the_frame_then_runs_the_doctor(window, sample_root):
    """The doctor and the ball's 1-sigma follow the frame's first repaint; the annotator
    sees the same suspects and 1-sigma as before, a moment later."""
    window.open_project(sample_root, recover=False)
    shown = []
    window.view.painted.connect(lambda: shown.append(window._diagnosis_pending))
    window.step(1)
    fid = window.doc.current_frame.id
    assert window._diagnosis_pending
    state = window.doc.camera_state(fid, diagnose=False)
    if state.calibration is not None:  # the frame's first drawing: no leave-one-out yet
        assert np.all(np.isnan(state.calibration.loo.residual_px))
    from PySide6.QtCore import QCoreApplication

    deadline = 200
    while window._diagnosis_pending and deadline:
        QCoreApplication.processEvents()
        deadline -= 1
    assert not window._diagnosis_pending
    assert shown and shown[0] is True  # painted while the doctor was still pending
    cal = window.doc.camera_state(fid).calibration
    table = window.court_panel.table
    if cal is not None:
        col = [table.item(r, 2).text() for r in range(table.rowCount())]
        assert any(t != "-" for t in col)  # leave-one-out residuals shown


def pixmap_items(win):
    return [it for it in win.overlay.items if type(it).__name__ == "QGraphicsPixmapItem"]


def test_opening_shows_the_frame_then_the_silhouettes_and_doctor(window, sample_root, qtbot):
    """The sample's tennis frame has two players with meshes: its first drawing shows the
    court, clicks, ball and boxes; the silhouettes, leave-one-out residuals and the ball's
    1-sigma follow right after the first repaint, as the release of a drag shows them."""
    oi._SILHOUETTES.clear()
    oi._LAST_SILHOUETTE.clear()
    first = []
    window.view.painted.connect(
        lambda: first.append((window._diagnosis_pending, len(pixmap_items(window))))
    )
    window.open_project(sample_root, recover=False)
    assert window._diagnosis_pending and not pixmap_items(window)
    qtbot.waitUntil(lambda: not window._diagnosis_pending, timeout=5000)
    assert first and first[0] == (True, 0)  # shown before the deferred pass
    assert len(pixmap_items(window)) == 2
    table = window.court_panel.table
    assert any(table.item(r, 2).text() != "-" for r in range(table.rowCount()))
    assert "(on release)" not in window.ball_panel.sigma.text()
    window.refresh()  # nothing pending: the same drawing
    assert len(pixmap_items(window)) == 2


def test_stepping_on_skips_the_doctor_of_a_frame_left_at_once(
    window, sample_root, qtbot, monkeypatch
):
    """Holding the arrow key: frames passed over before their first repaint never run the
    doctor (the token of the frame shown must match)."""
    window.open_project(sample_root, recover=False)
    qtbot.waitUntil(lambda: not window._diagnosis_pending, timeout=5000)
    diagnosed = []
    real = window.doc.camera_state

    def spy(fid, diagnose=True):
        if diagnose:
            diagnosed.append(fid)
        return real(fid, diagnose)

    monkeypatch.setattr(window.doc, "camera_state", spy)
    window.step(1)
    window.step(1)  # no event processed in between
    qtbot.waitUntil(lambda: not window._diagnosis_pending, timeout=5000)
    assert diagnosed and set(diagnosed) == {window.doc.current_frame.id}


@pytest.mark.parametrize("n", [0, 1, 2, 700])
def test_uv_polyline_matches_point_by_point(n):
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QPolygonF

    from annotation_ui.coords import PIXEL_CENTRE, uv_polyline

    uv = np.random.default_rng(n).uniform(-50.0, 2000.0, (n, 2))
    ref = QPolygonF([QPointF(x + PIXEL_CENTRE, y + PIXEL_CENTRE) for x, y in uv.tolist()])
    assert uv_polyline(uv) == ref
    assert uv_polyline(uv.T.copy().T) == ref  # not C-contiguous input


def test_finish_deferred_shows_everything_at_once(window, sample_root):
    """Screenshots (courtstudio gui --screenshot) call it before grabbing the window."""
    oi._SILHOUETTES.clear()
    window.open_project(sample_root, recover=False)
    assert window._diagnosis_pending
    window.finish_deferred()
    assert not window._diagnosis_pending
    assert len(pixmap_items(window)) == 2
    table = window.court_panel.table
    assert any(table.item(r, 2).text() != "-" for r in range(table.rowCount()))

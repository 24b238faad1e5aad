"""The annotator's rough edges (issue 10 section 6), offscreen: wheel zoom at the cursor,
decluttered labels, a clickable court diagram, a laptop layout, the new-project dialog, and
the labelme/CVAT habits (view adjustments, go to frame, copy the previous frame's keypoints,
hide overlays, occluded/estimated keypoints). The real-X-server wheel test is in
tests/test_gui_xvfb.py."""

import shutil

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from annotation_ui.coords import scene_to_uv, uv_to_scene
from annotation_ui.main_window import MainWindow
from courtstudio.export.reconstruct import SAMPLE_PROJECT

IGNORE = shutil.ignore_patterns(".courtstudio")


def wheel(view, pos: QPoint, notches: int = 1):
    """One wheel event per notch at viewport position pos (what a mouse wheel sends)."""
    for _ in range(abs(notches)):
        ev = QWheelEvent(
            QPointF(pos),
            QPointF(view.viewport().mapToGlobal(pos)),
            QPoint(0, 0),
            QPoint(0, 120 if notches > 0 else -120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
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
    assert view.transform().m11() == pytest.approx(fit_scale * 1.25**6)
    after = uv_under(view, pos)
    # one screen pixel is under 1/3 image pixel at this zoom: the same image pixel stays
    assert np.all(np.abs(after - before) < 1.0), (before, after)
    wheel(view, pos, -4)
    assert np.all(np.abs(uv_under(view, pos) - before) < 1.0)


def test_a_drag_flushes_the_journal_once_when_it_ends(sample_root, monkeypatch):
    """A mouse move of a drag costs no fdatasync (issue 10: drag latency); the release
    flushes the journal, which then holds the drag's last position."""
    import courtstudio.editing.autosave as autosave_mod
    from courtstudio.editing.autosave import Autosave, pending_recovery
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.io.project import load_project

    syncs = []
    real = autosave_mod._datasync
    monkeypatch.setattr(autosave_mod, "_datasync", lambda fd: (syncs.append(fd), real(fd)))
    project = load_project(sample_root)
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    fid = project.frames[0].id
    doc.toggle_flag(fid)  # the first edit rewrites (compacts) the journal atomically
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


def label_items(win):
    from PySide6.QtWidgets import QGraphicsSimpleTextItem

    return [it for it in win.overlay.items if isinstance(it, QGraphicsSimpleTextItem)]


def screen_rect(win, item):
    """The label's box in viewport pixels."""
    return item.deviceTransform(win.view.viewportTransform()).mapRect(item.boundingRect())


def test_labels_declutter_current_hovered_and_suspects(window, sample_root):
    window.open_project(sample_root, recover=False)
    doc, fid = window.doc, window.doc.current_frame.id
    pts = doc.annotation(fid).points
    a = "far_left_corner"
    u, v = pts[a]
    doc.set_keypoint(fid, "far_baseline_left_singles", (u + 3.0, v + 1.0))  # 3 px apart
    window.tools.set_keypoint(a)
    window._hover_kp = "far_baseline_left_singles"
    window.refresh()
    spec = doc.spec()
    items = [
        it
        for it in label_items(window)
        if it.text().replace("? ", "").replace("next: ", "").split(" (")[0] in spec.keypoints
    ]
    texts = [it.text() for it in items]
    labelled = {t.replace("? ", "").split(" (")[0] for t in texts}
    cal = doc.camera_state(fid).calibration
    assert {a, "far_baseline_left_singles"} <= labelled
    assert labelled <= {a, "far_baseline_left_singles", *cal.suspects}  # no other keypoint
    rects = [screen_rect(window, it) for it in items]
    for i in range(len(rects)):
        for j in range(i):
            assert not rects[i].intersects(rects[j]), (texts[i], texts[j])


def test_hovering_a_click_labels_it(window, sample_root):
    from PySide6.QtTest import QTest

    window.open_project(sample_root, recover=False)
    window.set_tool("court")
    fid = window.doc.current_frame.id
    name, uv = next(iter(window.doc.annotation(fid).points.items()))
    window.tools.set_keypoint(None)
    QTest.mouseMove(window.view.viewport(), window.view.mapFromScene(uv_to_scene(*uv)))
    assert window._hover_kp == name
    assert any(name in it.text() for it in label_items(window))


@pytest.mark.parametrize(
    "sport",
    [
        "tennis",
        "badminton",
        "pickleball",
        "volleyball",
        "beach_volleyball",
        "basketball_nba",
        "table_tennis",
    ],
)
def test_court_diagram_every_keypoint_clickable(qtbot, sport):
    from PySide6.QtTest import QTest

    from annotation_ui.court_panel import MIN_DIAGRAM_PX, CourtDiagram
    from court_specs import available_specs, load_spec

    if sport not in available_specs():
        pytest.skip(f"no {sport} spec")
    d = CourtDiagram()
    qtbot.addWidget(d)
    d.resize(MIN_DIAGRAM_PX)  # the smallest it gets (a laptop)
    d.show()
    d.set_state(load_spec(sport), {}, None)
    got = []
    d.keypoint_clicked.connect(got.append)
    for name, pos in d._keypoint_positions().items():
        QTest.mouseClick(
            d, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos.toPoint()
        )
        assert got[-1] == name, (name, got[-1])


def test_laptop_layout(qtbot, sample_root):
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    qtbot.waitExposed(win)
    win.open_project(sample_root, recover=False)
    QApplication.processEvents()
    assert win.height() <= 768  # everything fits
    assert win.view.width() >= 880  # was 695
    table = win.court_panel.table
    rows = table.viewport().height() / table.verticalHeader().defaultSectionSize()
    assert rows >= 8  # was 3
    d = win.court_panel.diagram
    assert d.width() >= 230 and d.height() >= 170  # was 51x95


def test_new_project_defaults_to_images_and_cleans_up_a_failure(window, tmp_path):
    from annotation_ui.dialogs import NewProjectDialog

    assert NewProjectDialog(window).values()["kind"] == "images"
    empty = tmp_path / "no_images"
    empty.mkdir()
    messages = []
    window.ask = lambda title, text, buttons: messages.append(text) or buttons[-1]
    target = tmp_path / "new_project"
    assert not window.create_project(
        {"kind": "images", "source": str(empty), "sport": "tennis", "folder": str(target)}
    )
    assert messages and "no images" in messages[0]
    assert not target.exists()  # the folder it made is gone
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "keep.txt").write_text("mine")
    assert not window.create_project(
        {
            "kind": "video",
            "source": str(tmp_path / "nope.mp4"),
            "sport": "tennis",
            "folder": str(existing),
        }
    )
    assert sorted(p.name for p in existing.iterdir()) == ["keep.txt"]
    # the last choice is remembered
    assert (
        NewProjectDialog(window, window.settings.value("new_project/kind", "images", str)).values()[
            "kind"
        ]
        == "video"
    )
    images = tmp_path / "imgs"
    shutil.copytree(SAMPLE_PROJECT / "frames", images)
    assert window.create_project(
        {"kind": "images", "source": str(images), "sport": "tennis", "folder": str(tmp_path / "ok")}
    )
    assert window.doc is not None and window.doc.frame_count >= 1


def test_view_adjust_changes_the_view_not_the_file(window, sample_root):
    import hashlib

    from annotation_ui.view_adjust import ViewAdjust

    assert np.array_equal(ViewAdjust().lut(), np.arange(256))
    lut = ViewAdjust(gamma=2.0).lut()
    assert lut[0] == 0 and lut[255] == 255 and lut[64] > 100  # shadows lifted
    assert ViewAdjust(brightness=0.2).lut()[100] == 151
    window.open_project(sample_root, recover=False)
    frame = window.doc.current_frame
    path = window.doc.project.image_path(frame)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    dark = window.view.pixmap.toImage().pixelColor(300, 300).lightness()
    dlg = window.view_adjust_dialog()
    dlg.sliders["gamma"].setValue(20)  # gamma 4
    assert window.view.pixmap.toImage().pixelColor(300, 300).lightness() > dark + 20
    window.step(1)
    window.step(-1)  # kept while stepping
    assert window.view.pixmap.toImage().pixelColor(300, 300).lightness() > dark + 20
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    dlg.reset()
    assert window.view.pixmap.toImage().pixelColor(300, 300).lightness() == dark
    dlg.close()


def test_go_to_frame_copy_previous_hide_overlays_and_point_flags(window, sample_root):
    window.open_project(sample_root, recover=False)
    doc = window.doc
    acts = window.actions_by_name
    window.ask_int = lambda title, label, value, lo, hi: 3
    acts["Go to frame..."].trigger()
    assert doc.current_index == 2
    # copy: frame 2's clicks from the nearest earlier frame of the same size with clicks
    fid = doc.current_frame.id
    had = dict(doc.annotation(fid).points)
    for n in list(had):
        doc.remove_keypoint(fid, n)
    src = doc.previous_keypoint_frame(fid)
    assert src is not None
    n_undo = doc.undo_stack.index
    acts["Copy previous frame's keypoints"].trigger()
    assert doc.annotation(fid).points == doc.annotation(src).points
    assert doc.undo_stack.index == n_undo + 1  # one undo step
    window.undo()
    assert doc.annotation(fid).points == {}
    window.redo()
    # hide overlays with one key, kept across redraws
    assert window.overlay.items and all(it.isVisible() for it in window.overlay.items)
    acts["Hide overlays"].trigger()
    window.refresh()
    assert window.overlay.items and not any(it.isVisible() for it in window.overlay.items)
    acts["Hide overlays"].trigger()
    assert all(it.isVisible() for it in window.overlay.items)
    # occluded / estimated: stored, drawn, and left out of the calibration
    name = next(iter(doc.annotation(fid).points))
    window.tools.set_keypoint(name)
    acts["Keypoint occluded / estimated"].trigger()
    ann = doc.annotation(fid)
    assert ann.point_flags == {name: "occluded"}
    assert ann.to_json()["point_flags"] == {name: "occluded"}
    cal = doc.camera_state(fid).calibration
    assert cal is None or name not in cal.names
    acts["Keypoint occluded / estimated"].trigger()
    assert doc.annotation(fid).point_flags == {name: "estimated"}
    acts["Keypoint occluded / estimated"].trigger()
    assert doc.annotation(fid).point_flags == {}
    assert "point_flags" not in doc.annotation(fid).to_json()


def test_point_flags_round_trip_and_are_validated(tmp_path):
    from courtstudio.io.project import ProjectError, parse_annotation

    rec = {
        "format": "courtstudio.annotation",
        "format_version": 1,
        "frame_id": "a",
        "image_size": [100, 80],
        "points": {"p": [1, 2], "q": [3, 4]},
        "point_flags": {"p": "estimated"},
    }
    ann = parse_annotation(rec, "x.json")
    assert ann.point_flags == {"p": "estimated"} and set(ann.calibration_points) == {"q"}
    assert parse_annotation(ann.to_json(), "y.json").point_flags == {"p": "estimated"}
    for bad in ({"p": "hidden"}, ["p"], {"p": 1}):
        with pytest.raises(ProjectError, match="point_flags"):
            parse_annotation({**rec, "point_flags": bad}, "x.json")


def test_every_shortcut_is_in_the_one_table_once(window):
    keys = [k.strip() for _, ks in window.shortcut_table for k in ks.split(",")]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    names = {n for n, _ in window.shortcut_table}
    for n in (
        "Go to frame...",
        "Copy previous frame's keypoints",
        "Hide overlays",
        "Keypoint occluded / estimated",
        "Brightness / contrast / gamma...",
    ):
        assert n in names


def test_flight_marks_are_undone_recovered_and_dropped_on_a_clean_close(qtbot, sample_root):
    """The ball-flight draft is the document's: Ctrl+Z takes a mark back (the panel follows),
    a crash keeps it for Recover, and closing without unsaved edits drops it."""
    from courtstudio.editing.autosave import autosave_path, pending_recovery
    from courtstudio.io.project import load_project
    from tests.conftest import open_main_window

    win = open_main_window(qtbot, "Recover")
    win.open_project(sample_root, recover=False)
    win.go_to(1)
    win.mark_flight("start")
    fid = win.doc.current_frame.id
    assert win.doc.flight_draft == {"start": fid}
    assert win.ball_panel.flight.text() == f"draft: start {fid}"
    assert not win.doc.is_dirty and not win.isWindowModified()  # a draft is not a save
    win.undo()
    assert win.ball_panel.flight.text() == "no flight through this frame"
    win.redo()
    # a crash: the window goes without closing the project (no save, no journal removal)
    win.autosave.close()
    win.project_lock.release()
    win.doc = win.autosave = win.project_lock = None
    assert pending_recovery(load_project(sample_root))["flight_draft"] == {"start": fid}
    win2 = open_main_window(qtbot, "Recover")
    assert win2.open_project(sample_root)  # asks; "Recover"
    assert win2.doc.flight_draft == {"start": fid}
    assert win2.close_project()
    assert not autosave_path(load_project(sample_root)).exists()


@pytest.mark.parametrize(
    "clip, frame, undetermined",
    [("basketball_nykbos_pan", 600, True), ("volleyball_rio2015_brausa_pan", 20, False)],
)
def test_the_court_summary_marks_a_lens_the_clicks_do_not_determine(clip, frame, undetermined):
    """Six hand clicks on a real NBA frame choose k1 = 1.46 +- 3.57: the Court panel's lens
    text says it is not determined (the volleyball frame's 0.74 +- 0.27 is shown plainly)."""
    import json
    from pathlib import Path

    from annotation_ui.court_panel import lens_text
    from court_specs import load_spec
    from courtstudio.pipeline.calibration import calibrate_court

    root = Path(__file__).resolve().parents[1] / "bench" / "devset_clips" / "annotations"
    ann = json.loads((root / clip / f"{frame}.json").read_text())
    cal = calibrate_court(load_spec(ann["sport"]), tuple(ann["image_size"]), ann["points"])
    text = lens_text(cal)
    assert text.startswith("k1 +") and ("not determined" in text) == undetermined

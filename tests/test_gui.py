"""The desktop app, offscreen (pytest-qt): real clicks and keys drive the model, model edits
drive the widgets, and an end-to-end run calibrates, places a ball and exports."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from annotation_ui.coords import scene_to_uv, uv_to_scene
from annotation_ui.main_window import MainWindow
from court_specs.model import PAPER_SIX
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project import load_project

IGNORE = shutil.ignore_patterns(".courtstudio")  # a session's lock/journal, if any
from courtstudio.synth.synthetic_clip import write_video
from courtstudio.synth.synthetic_project import write_synthetic_project

CLICK_TOL_PX = 1.5  # one screen pixel is about 1.8 image pixels at fit zoom


@pytest.fixture(scope="module")
def blank_template(tmp_path_factory):
    """Two synthetic badminton frames with ground truth and no annotations, generated once
    per module (tests get a copy: they annotate and save it)."""
    p = write_synthetic_project(
        tmp_path_factory.mktemp("blank") / "blank", ["badminton"], per_sport=2, seed=3
    )
    shutil.rmtree(p.root / "annotations")
    return p.root


@pytest.fixture
def blank_project(blank_template, tmp_path):
    """A fresh copy of blank_template."""
    return load_project(shutil.copytree(blank_template, tmp_path / "blank", ignore=IGNORE))


def truth(project, frame_id):
    return json.loads(project.truth_path(frame_id).read_text())


def view_point(win, u, v):
    return win.view.mapFromScene(uv_to_scene(u, v))


def click(win, u, v, modifier=Qt.KeyboardModifier.NoModifier):
    QTest.mouseClick(
        win.view.viewport(), Qt.MouseButton.LeftButton, modifier, view_point(win, u, v)
    )


def drag(win, a, b, steps=5):
    vp = win.view.viewport()
    QTest.mousePress(
        vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(win, *a)
    )
    for k in range(1, steps + 1):
        t = k / steps
        p = view_point(win, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        QTest.mouseMove(vp, p)
    QTest.mouseRelease(
        vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(win, *b)
    )


def test_qt_bindings_keep_none_alive(qtbot):
    """PySide6 6.12.0 decrements None's refcount on calls returning None; on Python 3.11 the
    app then dies after a few thousand redraws. The pinned bindings must not."""
    from PySide6.QtGui import QColor, QPen
    from PySide6.QtWidgets import QGraphicsPathItem

    item = QGraphicsPathItem()
    before = sys.getrefcount(None)
    for _ in range(2000):
        item.setPen(QPen(QColor(1, 2, 3), 1.5))
        item.setZValue(1.0)
    assert sys.getrefcount(None) - before > -100


def annotate_from_truth(win, t):
    """Click the paper's six keypoints, then the ball and its ground point, where they are."""
    for name in PAPER_SIX:
        click(win, *t["keypoints_uv"][name])
    win.set_tool("ball")
    click(win, *t["ball"]["uv"])
    click(win, *t["ball"]["ground_uv"])


def test_coordinate_convention_round_trip():
    p = uv_to_scene(0.0, 0.0)
    assert (p.x(), p.y()) == (0.5, 0.5)  # centre of the top-left pixel
    assert scene_to_uv(uv_to_scene(123.25, 7.5)) == (123.25, 7.5)


def test_sample_opens_calibrated(window, sample_root):
    assert window.open_project(sample_root, recover=False)
    assert window.doc.frame_count >= 4
    assert "f = " in window.court_panel.summary.text()
    assert window.court_panel.table.rowCount() == 6
    assert len(window.overlay.items) > 10


def test_clicks_calibrate_live_and_undo(window, blank_project):
    window.open_project(blank_project.root, recover=False)
    fid = window.doc.current_frame.id
    t = truth(blank_project, fid)
    assert window.tools.keypoint == PAPER_SIX[0]  # auto-selected first keypoint
    for name in PAPER_SIX:
        assert window.tools.keypoint == name  # auto-advance
        click(window, *t["keypoints_uv"][name])
    pts = window.doc.annotation(fid).points
    for name in PAPER_SIX:
        assert np.linalg.norm(np.subtract(pts[name], t["keypoints_uv"][name])) < CLICK_TOL_PX
    cal = window.doc.camera_state(fid).calibration
    assert cal is not None
    assert abs(cal.camera.K[0, 0] / t["camera"]["K"][0][0] - 1) < 0.02
    assert "f = " in window.court_panel.summary.text()
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert PAPER_SIX[-1] not in window.doc.annotation(fid).points
    QTest.keyClick(
        window,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert PAPER_SIX[-1] in window.doc.annotation(fid).points


def test_dragging_a_click_is_one_undo_step(window, blank_project, qtbot):
    window.open_project(blank_project.root, recover=False)
    fid = window.doc.current_frame.id
    t = truth(blank_project, fid)
    for name in PAPER_SIX:
        click(window, *t["keypoints_uv"][name])
    start = window.doc.annotation(fid).points["near_left_corner"]
    target = (start[0] + 30, start[1] - 10)
    drag(window, start, target)
    moved = window.doc.annotation(fid).points["near_left_corner"]
    assert np.linalg.norm(np.subtract(moved, target)) < CLICK_TOL_PX
    # the drop is shown first; the doctor follows the repaint
    assert window._diagnosis_pending
    qtbot.waitUntil(lambda: not window._diagnosis_pending, timeout=5000)
    assert window.court_panel.diagram.suspects  # a 30 px error stands out
    window.undo()
    assert np.allclose(window.doc.annotation(fid).points["near_left_corner"], start)


def test_model_edits_update_the_widgets(window, blank_project):
    window.open_project(blank_project.root, recover=False)
    fid = window.doc.current_frame.id
    t = truth(blank_project, fid)
    assert window.court_panel.table.rowCount() == 0
    for name in PAPER_SIX:
        window.doc.set_keypoint(fid, name, t["keypoints_uv"][name])
    assert window.court_panel.table.rowCount() == 6
    assert window.timeline.statuses[0]["court"]
    window.doc.set_player_box(fid, 1, (100, 200, 180, 400))
    assert window.players_panel.table.rowCount() == 1
    assert window.topdown.players and window.topdown.players[0][0] == 1


def test_ball_tool_lifts_the_ball(window, blank_project):
    window.open_project(blank_project.root, recover=False)
    fid = window.doc.current_frame.id
    t = truth(blank_project, fid)
    for name in PAPER_SIX:
        window.doc.set_keypoint(fid, name, t["keypoints_uv"][name])
    QTest.keyClick(window, Qt.Key.Key_B)
    assert window.tools.tool == "ball" and window.tabs.currentIndex() == 1
    click(window, *t["ball"]["uv"])
    assert "ground point" in window.ball_panel.hint.text()
    g = np.array(t["ball"]["ground_uv"]) + [4.0, 0.0]  # off the line: snapped
    click(window, *g)
    res = window.doc.annotation(fid).ball
    assert res.visible and res.ground_uv is not None
    world = json.loads(json.dumps(window.ball_panel.position.text().strip("()").split(", ")))
    assert np.allclose([float(w) for w in world], t["ball"]["world"], atol=0.15)
    QTest.keyClick(window, Qt.Key.Key_N)
    assert not window.doc.annotation(fid).ball.visible
    assert window.ball_panel.not_visible.isChecked()


def test_player_boxes_draw_move_delete(window, blank_project):
    window.open_project(blank_project.root, recover=False)
    fid = window.doc.current_frame.id
    QTest.keyClick(window, Qt.Key.Key_P)
    drag(window, (300, 300), (380, 500))
    ann = window.doc.annotation(fid)
    assert [p.id for p in ann.players] == [1]
    x0, y0, x1, y1 = ann.players[0].box_xyxy
    assert abs(x0 - 300) < 2 and abs(y1 - 500) < 2
    drag(window, (340, 400), (440, 400))  # move
    # both ends of a drag round to a screen pixel: one screen pixel each, in image pixels
    tol = 2 * window.view.pixels_per_screen_px() + 0.5
    assert abs(window.doc.annotation(fid).players[0].box_xyxy[0] - 400) < tol
    drag(window, (900, 300), (960, 450))  # a second player
    assert [p.id for p in window.doc.annotation(fid).players] == [1, 2]
    QTest.keyClick(window, Qt.Key.Key_Delete)
    assert [p.id for p in window.doc.annotation(fid).players] == [1]


def test_keyboard_navigation_and_flags(window, sample_root):
    window.open_project(sample_root, recover=False)
    QTest.keyClick(window, Qt.Key.Key_Right)
    assert window.doc.current_index == 1
    QTest.keyClick(window, Qt.Key.Key_End)
    assert window.doc.current_index == window.doc.frame_count - 1
    QTest.keyClick(window, Qt.Key.Key_Home)
    assert window.doc.current_index == 0
    QTest.keyClick(window, Qt.Key.Key_F)
    assert window.timeline.statuses[0]["flagged"]
    kp = window.tools.keypoint
    QTest.keyClick(window, Qt.Key.Key_BracketRight)
    assert window.tools.keypoint != kp
    assert ("Keyboard shortcuts", "F1") in window.shortcut_table
    window.doc.undo()  # leave the bundled sample unchanged


def test_timeline_click_goes_to_frame(window, sample_root):
    window.open_project(sample_root, recover=False)
    w = window.timeline.width()
    n = window.doc.frame_count
    QTest.mouseClick(
        window.timeline,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        window.timeline.rect().center().__class__(int(w * (n - 0.5) / n), 10),
    )
    assert window.doc.current_index == n - 1


def test_crash_recovery_restores_every_click(qtbot, blank_project):
    win = MainWindow()
    win.ask = lambda title, text, buttons: "Discard"  # at teardown, after the "crash"
    qtbot.addWidget(win)
    win.show()
    win.open_project(blank_project.root, recover=False)
    fid = win.doc.current_frame.id
    t = truth(blank_project, fid)
    for name in PAPER_SIX[:3]:
        click(win, *t["keypoints_uv"][name])
    clicks = dict(win.doc.annotation(fid).points)
    win.hide()  # a crash: no save, no close prompt; the journal is all that is left
    win.project_lock.release()  # the crashed process is gone: its lock would be stale
    win2 = MainWindow()
    qtbot.addWidget(win2)
    asked = []
    win2.ask = lambda title, text, buttons: asked.append(title) or "Recover"
    win2.open_project(blank_project.root)
    assert asked == ["Recover unsaved work?"]
    assert win2.doc.annotation(fid).points == clicks
    win2.save()
    assert (
        json.loads(blank_project.annotation_path(fid).read_text())["points"].keys() == clicks.keys()
    )


def test_malformed_project_is_reported_and_left_alone(window, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    text = '{"format": "courtstudio.project", "format_version": 9, "sport": "tennis"}'
    (bad / "courtstudio_project.json").write_text(text)
    said = []
    window.ask = lambda title, msg, buttons: said.append(msg) or "OK"
    assert not window.open_project(bad)
    assert "newer than this CourtStudio reads" in said[0]
    assert (bad / "courtstudio_project.json").read_text() == text


def test_export_progress_can_be_cancelled(window, tmp_path, sample_root):
    window.open_project(sample_root, recover=False)
    out = window.export_to(tmp_path / "all", all_frames=True)
    assert [s.status for s in out] == ["ok"] * window.doc.frame_count
    part = window.export_to(tmp_path / "part", all_frames=True, cancel_after=1)
    assert len(part) == 1


def test_end_to_end_calibrate_ball_export(window, blank_project, tmp_path):
    window.open_project(blank_project.root, recover=False)
    fid = window.doc.current_frame.id
    t = truth(blank_project, fid)
    annotate_from_truth(window, t)
    window.save()
    summaries = window.export_to(tmp_path / "out", all_frames=False)
    assert summaries[0].status == "ok"
    scene = json.loads((tmp_path / "out" / fid / "scene.json").read_text())
    assert np.allclose(scene["ball"]["world"], t["ball"]["world"], atol=0.15)
    assert abs(scene["camera"]["K"][0][0] / t["camera"]["K"][0][0] - 1) < 0.02
    assert (tmp_path / "out" / fid / "overlay.png").exists()


def test_video_project_frames_are_frame_accurate(window, tmp_path):
    from courtstudio.io.frames import VideoReader
    from courtstudio.io.project_new import new_project_from_video

    video = tmp_path / "clip.avi"
    write_video(video, [np.full((180, 320, 3), 8 * i, np.uint8) for i in range(30)])
    p = new_project_from_video(tmp_path / "vp", video, "tennis")
    assert len(p.frames) == 30
    r = VideoReader(video)
    for i in (17, 3, 4, 29, 0):
        assert abs(int(r.read(i).mean()) - 8 * i) <= 2
    r.close()
    window.open_project(p.root, recover=False)
    window.go_to(12)
    assert abs(int(window.doc.frames.image(window.doc.current_frame).mean()) - 96) <= 2


def test_tracking_through_a_video_clip(window, tmp_path):
    """A tracker with the SAM3 video adapter's interface fills boxes on every frame, ids kept."""
    from courtstudio.io.project_new import new_project_from_video
    from hmr.sam3_boxes import TrackedBox

    video = tmp_path / "clip.avi"
    write_video(video, [np.full((180, 320, 3), 30 * i, np.uint8) for i in range(6)])
    p = new_project_from_video(tmp_path / "vp", video, "tennis")
    window.open_project(p.root, recover=False)
    window.go_to(2)

    class Tracker:
        def track(self, path, size, prompt_frame):
            # the project holds its media: the video was brought into frames/
            assert (Path(path), size, prompt_frame) == (
                p.root / "frames" / "clip.avi",
                (320, 180),
                2,
            )
            return [
                TrackedBox(f, tid, (10.0 + f + 50 * tid, 20, 40 + f + 50 * tid, 90), 0.9)
                for f in range(6)
                for tid in (0, 3)
            ]

    assert window.track_players(Tracker()) == 12
    for f in p.frames:
        ann = window.doc.annotation(f.id)
        assert [pl.id for pl in ann.players] == [1, 4]
        assert ann.player(4).box_xyxy[0] == 10.0 + f.index + 150
    window.undo()  # one step per frame: the last frame's boxes go
    assert window.doc.annotation(p.frames[-1].id).players == []
    with pytest.raises(ValueError, match="video project"):
        shutil.copytree(SAMPLE_PROJECT, tmp_path / "s", ignore=IGNORE)
        window.open_project(tmp_path / "s", recover=False)
        window.track_players(Tracker())


def test_screenshot_command(tmp_path):
    out = tmp_path / "shot.png"
    exe = Path(sys.executable).parent / "courtstudio"
    proc = subprocess.run(
        [
            str(exe),
            "gui",
            "--sample",
            "--screenshot",
            str(out),
            "--panel",
            "ball",
            "--view",
            "3d",
            "--size",
            "1200",
            "700",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert proc.returncode == 0, proc.stderr
    img = cv2.imread(str(out))
    assert img.shape[:2] == (700, 1200)
    assert img.std() > 10  # not a blank window


def test_end_to_end_on_the_bundled_sample(window, tmp_path):
    """The sample's tennis frame annotated from scratch through the UI, then exported."""
    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p", ignore=IGNORE)
    project = load_project(tmp_path / "p")
    fid = project.frames[0].id
    project.annotation_path(fid).unlink()
    window.open_project(project.root, recover=False)
    assert window.doc.camera_state(fid).calibration is None
    t = truth(project, fid)
    annotate_from_truth(window, t)
    QTest.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not window.doc.is_dirty and project.annotation_path(fid).exists()
    out = window.export_to(tmp_path / "out", all_frames=True)
    assert [s.status for s in out] == ["ok"] * len(project.frames)
    scene = json.loads((tmp_path / "out" / fid / "scene.json").read_text())
    assert np.linalg.norm(np.subtract(scene["ball"]["world"], t["ball"]["world"])) < 0.3
    assert abs(scene["camera"]["K"][0][0] / t["camera"]["K"][0][0] - 1) < 0.02


def test_new_project_from_images_and_recent_list(window, tmp_path):
    from courtstudio.io.project import ProjectError
    from courtstudio.io.project_new import new_project_from_images

    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(3):
        cv2.imwrite(str(frames / f"f{i}.png"), np.full((90, 160, 3), 40 * i, np.uint8))
    p = new_project_from_images(tmp_path / "proj", frames, "badminton")
    with pytest.raises(ProjectError, match="a project already exists"):
        new_project_from_images(tmp_path / "proj", frames, "badminton")
    window.open_project(p.root, recover=False)
    assert window.doc.frame_count == 3 and window.doc.spec().id == "badminton"
    recent = window.settings.value("recent", [], list)
    assert recent[0] == str(p.root)
    assert any(a.text() == str(p.root) for a in window.recent_menu.actions())


def test_ball_flight_marked_drawn_and_exported(window, tmp_path):
    """Three frames with lifted balls on one parabola: the fit covers the frames between,
    draws the arc, and export fills their balls from it."""
    from court_specs import load_spec
    from courtstudio.io.project_new import new_project_from_video
    from courtstudio.synth.synthetic_clip import make_clip

    spec = load_spec("tennis")
    clip = make_clip(spec, 11, (640, 360), seed=9, pan_deg=0, tilt_deg=0, zoom=0)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    p = new_project_from_video(tmp_path / "vp", video, "tennis")
    window.open_project(p.root, recover=False)
    cam = clip.cameras[0]
    fps = window.doc.project.fps

    def ball(i):
        t = i / fps
        return np.array([20 - 20 * t, 5 + 1 * t, 1.0 + 3 * t - 4.9 * t * t])

    for i in range(11):  # a static camera: every frame gets the clicks
        fid = p.frames[i].id
        for n in PAPER_SIX:
            window.doc.set_keypoint(fid, n, cam.project(spec.keypoints[n][None])[0])
    for i in (0, 5, 10):
        fid = p.frames[i].id
        b = ball(i)
        g = b.copy()
        g[2] = 0
        window.doc.set_ball_pixel(fid, cam.project(b[None])[0])
        window.doc.set_ball_ground(fid, cam.project(g[None])[0])
    for i, part in ((0, "start"), (5, "middle"), (10, "end")):
        window.go_to(i)
        window.mark_flight(part)
    assert len(window.doc.project.ball_flights) == 1
    window.go_to(7)
    assert "flight" in window.ball_panel.flight.text() and "ok" in window.ball_panel.flight.text()
    out = window.export_to(tmp_path / "out", all_frames=True)
    assert all(s.status == "ok" for s in out)
    scene = json.loads((tmp_path / "out" / p.frames[7].id / "scene.json").read_text())
    assert scene["ball"]["method"] == "flight_fit"
    assert np.allclose(scene["ball"]["world"], ball(7), atol=0.05)
    window.undo()
    assert window.doc.project.ball_flights == []

"""The annotation document, undo/redo and autosave recovery, without any window."""

import json

import numpy as np
import pytest

from courtstudio.editing.autosave import Autosave, discard_recovery, pending_recovery
from courtstudio.editing.document import AnnotationDocument
from courtstudio.editing.undo import Command, UndoStack
from courtstudio.io.project import ProjectError, load_project


@pytest.fixture
def doc(project):
    return AnnotationDocument(project)


def test_undo_stack_merges_and_tracks_clean():
    state = {"v": 0}
    s = UndoStack()
    seen = []
    s.changed.connect(lambda: seen.append(1))

    def setv(v):
        state["v"] = v

    s.push(Command("a", setv, 0, 1))
    s.set_clean()
    s.push(Command("drag", setv, 1, 2, merge_key="k"))
    s.push(Command("drag", setv, 2, 3, merge_key="k"))
    assert state["v"] == 3 and not s.is_clean
    s.undo()
    assert state["v"] == 1 and s.is_clean  # the whole drag is one step
    s.redo()
    assert state["v"] == 3
    s.break_merge()
    s.push(Command("drag", setv, 3, 4, merge_key="k"))
    s.undo()
    assert state["v"] == 3
    assert seen


def test_keypoint_edits_undo_redo_and_calibrate(doc):
    fid = doc.current_frame.id
    ann = doc.annotation(fid)
    assert doc.camera_state(fid).calibration is not None
    f0 = doc.camera_state(fid).camera.K[0, 0]
    name = "near_left_corner"
    uv0 = ann.points[name]
    events = []
    doc.annotation_changed.connect(events.append)
    for k in range(5):
        doc.set_keypoint(fid, name, (uv0[0] + 3 + k, uv0[1]), drag=True)
    doc.end_drag()
    assert events == [fid] * 5
    assert doc.annotation(fid).points[name][0] == uv0[0] + 7
    assert doc.camera_state(fid).camera.K[0, 0] != f0
    doc.undo()  # the drag is one step
    assert doc.annotation(fid).points[name] == tuple(uv0)
    assert abs(doc.camera_state(fid).camera.K[0, 0] - f0) < 1e-9
    doc.redo()
    assert doc.annotation(fid).points[name][0] == uv0[0] + 7
    doc.remove_keypoint(fid, name)
    assert name not in doc.annotation(fid).points
    doc.undo()
    assert name in doc.annotation(fid).points


def test_bad_edits_are_refused_and_change_nothing(doc):
    fid = doc.current_frame.id
    before = doc.annotation(fid).to_json()
    with pytest.raises(ProjectError, match="no keypoint"):
        doc.set_keypoint(fid, "no_such_point", (10, 10))
    with pytest.raises(ProjectError, match="outside the 1920x1080"):
        doc.set_keypoint(fid, "far_left_corner", (5000, 10))
    doc.clear_ball(fid)
    with pytest.raises(ProjectError, match="click the ball before"):
        doc.set_ball_ground(fid, (10, 10))
    with pytest.raises(ProjectError, match="at least 2 px"):
        doc.set_player_box(fid, 1, (10, 10, 11, 50))
    doc.undo()  # only the clear_ball was recorded
    assert doc.annotation(fid).to_json() == before


def test_ball_players_flags_and_ranges(doc):
    fid = doc.current_frame.id
    doc.set_ball_pixel(fid, (900, 300))
    assert doc.annotation(fid).ball.ground_uv is None
    doc.set_ball_ground(fid, (900, 500))
    doc.set_ball_not_visible(fid)
    assert not doc.annotation(fid).ball.visible
    pid = doc.next_player_id()
    assert doc.annotation(fid).player(pid) is None
    doc.set_player_box(fid, pid, (100, 200, 40, 400))
    assert doc.annotation(fid).player(pid).box_xyxy == (40, 200, 100, 400)  # normalised
    assert doc.next_player_id() == pid + 1
    doc.set_player_height(fid, pid, 0.1)
    doc.toggle_flag(fid)
    assert doc.frame_status(0)["flagged"] and doc.frame_status(0)["players"]
    doc.set_camera_range(0, 2, fid)
    assert doc.frame_status(2)["static"]
    doc.undo()
    assert not doc.frame_status(2)["static"]


def test_static_range_inherits_the_source_camera(tmp_path):
    from courtstudio.synth.synthetic_project import write_synthetic_project

    p = write_synthetic_project(tmp_path / "s", ["tennis"], per_sport=2, seed=4)
    d = AnnotationDocument(p)
    a, b = p.frames[0].id, p.frames[1].id
    for n in list(d.annotation(b).points):
        d.remove_keypoint(b, n)
    assert d.camera_state(b).calibration is None
    d.set_camera_range(0, 1, a)
    st = d.camera_state(b)
    assert st.inherited and st.source_frame_id == a
    assert np.allclose(st.camera.K, d.camera_state(a).camera.K)


def test_save_writes_files_and_is_atomic_per_file(doc, project):
    fid = doc.current_frame.id
    doc.toggle_flag(fid)
    assert doc.is_dirty
    written = doc.save()
    assert project.annotation_path(fid) in written and not doc.is_dirty
    assert json.loads(project.annotation_path(fid).read_text())["flags"] == ["review"]
    assert doc.undo_stack.is_clean


def test_autosave_recovers_every_click_after_a_kill(project):
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    fid = project.frames[1].id
    doc.set_keypoint(fid, "far_left_corner", (500.5, 300.25))
    doc.set_ball_pixel(fid, (800, 200))
    assert auto.path.exists()
    # "kill": the document is gone without saving; a new session opens the project
    del doc
    reopened = load_project(project.root)
    rec = pending_recovery(reopened)
    assert rec is not None and fid in rec["annotations"]
    doc2 = AnnotationDocument(reopened)
    doc2.restore_unsaved_state(rec)
    assert doc2.annotation(fid).points["far_left_corner"] == (500.5, 300.25)
    assert doc2.annotation(fid).ball.uv == (800.0, 200.0)
    assert doc2.is_dirty
    auto2 = Autosave(doc2)
    doc2.save()
    assert not auto2.path.exists() and pending_recovery(reopened) is None
    auto.close()
    auto2.close()


def test_unreadable_journal_is_set_aside(project):
    from courtstudio.editing.autosave import autosave_path

    p = autosave_path(project)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("{garbage")
    assert pending_recovery(project) is None
    assert p.with_name("autosave.jsonl.unreadable").exists()
    discard_recovery(project)


def test_relabelling_is_one_undo_step(doc):
    fid = doc.current_frame.id
    before = dict(doc.annotation(fid).points)
    doc.apply_relabelling(
        fid, {"far_left_corner": "far_right_corner", "far_right_corner": "far_left_corner"}
    )
    pts = doc.annotation(fid).points
    assert pts["far_left_corner"] == before["far_right_corner"]
    doc.undo()
    assert doc.annotation(fid).points == before


def test_frame_statuses_come_from_one_listing_kept_current_by_saves(project, monkeypatch):
    """The timeline asks every frame's status: the annotation folder is listed once at open,
    not stat-ed per frame, and a frame saved later has its file from then on."""
    from pathlib import Path

    doc = AnnotationDocument(project)
    on_disk = {p.stem for p in (project.root / "annotations").glob("*.json")}
    stats = []
    real_exists = Path.exists
    monkeypatch.setattr(Path, "exists", lambda self: stats.append(self) or real_exists(self))
    statuses = [doc.frame_status(i) for i in range(len(project.frames))]
    assert not [p for p in stats if p.parent.name == "annotations"], "a stat per frame"
    assert {f.id for f in project.frames if doc.has_annotation_file(f.id)} >= on_disk
    assert any(s["court"] for s in statuses)
    monkeypatch.undo()
    # a frame without a file gets one when saved; a fresh load lists it too
    fresh = [f.id for f in project.frames if f.id not in on_disk]
    if not fresh:
        (project.root / "annotations" / f"{project.frames[0].id}.json").unlink()
        project = load_project(project.path)
        doc = AnnotationDocument(project)
        fresh = [project.frames[0].id]
    assert not project.has_annotation_file(fresh[0])
    doc.toggle_flag(fresh[0])
    doc.save()
    assert project.has_annotation_file(fresh[0])
    assert load_project(project.path).has_annotation_file(fresh[0])

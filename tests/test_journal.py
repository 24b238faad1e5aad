"""The append-only autosave journal (courtstudio/editing/autosave.py): one record per edit, replay
(last record wins, a torn last line ignored), compaction on open, removal on save, cleanup of
killed writers' temp files, and the kill -9 harness (bench/kill_durability.py) in small."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from courtstudio.editing import autosave as autosave_mod
from courtstudio.editing.autosave import (
    Autosave,
    autosave_path,
    discard_recovery,
    pending_recovery,
    read_journal,
)
from courtstudio.editing.document import AnnotationDocument
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project import FrameAnnotation, load_project


def _many_frames(tmp_path, n):
    """A copy of the sample with n frames, all showing the tennis frame's image."""
    root = tmp_path / "many"
    shutil.copytree(SAMPLE_PROJECT, root)
    data = json.loads((root / "courtstudio_project.json").read_text())
    data["frames"] = [{"id": f"f{i:05d}", "image": "frames/tennis_0001.jpg"} for i in range(n)]
    (root / "courtstudio_project.json").write_text(json.dumps(data))
    shutil.rmtree(root / "annotations")
    return load_project(root)


def _lines(path):
    return [json.loads(ln) for ln in path.read_text().splitlines()]


def test_an_edit_journals_only_the_frame_it_changed(tmp_path, monkeypatch):
    """The cost of journaling an edit does not grow with the number of unsaved frames."""
    project = _many_frames(tmp_path, 60)
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    calls = []
    real = FrameAnnotation.to_json
    monkeypatch.setattr(FrameAnnotation, "to_json", lambda self: calls.append(1) or real(self))

    def cost_of_one_edit(i):
        calls.clear()
        doc.toggle_flag(project.frames[0].id)
        return len(calls)

    doc.toggle_flag(project.frames[1].id)  # a session's first edit writes the journal anew
    cost_few = cost_of_one_edit(0)
    for f in project.frames[1:]:
        doc.toggle_flag(f.id)
    cost_many = cost_of_one_edit(1)
    assert cost_many == cost_few <= 4  # the edit's own before/after + its journal record
    size = autosave_path(project).stat().st_size
    doc.toggle_flag(project.frames[5].id)
    grown = autosave_path(project).stat().st_size - size
    assert grown < 400  # one small record appended, not 60 rewritten
    auto.close()


def test_replay_keeps_the_last_record_and_ignores_a_torn_last_line(project):
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    a, b = project.frames[0].id, project.frames[1].id
    doc.set_keypoint(a, "far_left_corner", (500.5, 300.25))
    doc.set_keypoint(b, "far_left_corner", (10.0, 20.0))
    doc.set_keypoint(a, "far_left_corner", (501.0, 301.0))
    doc.set_camera_range(0, 1, a)
    path = autosave_path(project)
    assert [r.get("frame") for r in _lines(path)[1:]] == [a, b, a, None]
    with open(path, "a") as fh:  # a kill in the middle of the next append
        fh.write('{"frame": "%s", "annotation": {"points": {"far_le' % a)
    rec = pending_recovery(load_project(project.root))
    assert rec["skipped_lines"] == 1
    assert rec["annotations"][a]["points"]["far_left_corner"] == [501.0, 301.0]
    assert rec["annotations"][b]["points"]["far_left_corner"] == [10.0, 20.0]
    assert rec["camera_ranges"] == [{"first": 0, "last": 1, "source": a}]
    auto.close()
    # the next session recovers, compacts (the torn line goes) and appends again
    doc2 = AnnotationDocument(load_project(project.root))
    doc2.restore_unsaved_state(rec)
    auto2 = Autosave(doc2)
    doc2.toggle_flag(b)
    rec = read_journal(path)
    assert rec["skipped_lines"] == 0 and rec["annotations"][b]["flags"] == ["review"]
    assert rec["annotations"][a]["points"]["far_left_corner"] == [501.0, 301.0]
    auto2.close()


def test_journal_is_compacted_on_open_and_removed_on_save(project):
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    fid = project.frames[1].id
    for i in range(20):
        doc.set_keypoint(fid, "far_left_corner", (500.0 + i, 300.0), drag=True)
    assert len(_lines(autosave_path(project))) == 21
    auto.close()
    reopened = load_project(project.root)
    doc2 = AnnotationDocument(reopened)
    doc2.restore_unsaved_state(pending_recovery(reopened))
    auto2 = Autosave(doc2)  # compacts: one record per unsaved frame
    lines = _lines(autosave_path(project))
    assert len(lines) == 2 and lines[0]["format_version"] == 2
    assert lines[1]["annotation"]["points"]["far_left_corner"] == [519.0, 300.0]
    doc2.save()
    assert not autosave_path(project).exists() and pending_recovery(reopened) is None
    auto2.close()


def test_growth_past_the_threshold_compacts(project, monkeypatch):
    monkeypatch.setattr(autosave_mod, "COMPACT_MIN_BYTES", 4000)
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    fid = project.frames[1].id
    for i in range(200):
        doc.set_keypoint(fid, "far_left_corner", (500.0 + i, 300.0), drag=True)
    assert autosave_path(project).stat().st_size < 5000
    rec = pending_recovery(load_project(project.root))
    assert rec["annotations"][fid]["points"]["far_left_corner"] == [699.0, 300.0]
    auto.close()


def test_a_kill_between_save_and_journal_removal_offers_nothing(project, monkeypatch):
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    fid = project.frames[1].id
    doc.set_keypoint(fid, "far_left_corner", (500.5, 300.25))
    kept = autosave_path(project).read_bytes()
    doc.save()
    autosave_path(project).write_bytes(kept)  # the journal as the kill left it
    assert pending_recovery(load_project(project.root)) is None
    auto.close()


def test_version_1_snapshot_is_still_recovered(project):
    fid = project.frames[1].id
    ann = AnnotationDocument(project).annotation(fid).to_json()
    ann["points"]["far_left_corner"] = [1.0, 2.0]
    legacy = project.root / ".courtstudio" / "autosave.json"
    legacy.parent.mkdir(exist_ok=True)
    legacy.write_text(
        json.dumps(
            {
                "format": "courtstudio.autosave",
                "format_version": 1,
                "annotations": {fid: ann},
                "camera_ranges": None,
                "ball_flights": None,
            }
        )
    )
    rec = pending_recovery(project)
    assert rec["annotations"][fid]["points"]["far_left_corner"] == [1.0, 2.0]
    doc = AnnotationDocument(project)
    doc.restore_unsaved_state(rec)
    auto = Autosave(doc)
    assert not legacy.exists() and read_journal(autosave_path(project))["annotations"]
    discard_recovery(project)
    assert not autosave_path(project).exists()
    auto.close()


def test_temp_files_of_killed_writers_are_cleaned_at_start_and_save(project):
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    ann_dir = project.root / "annotations"
    left = [
        ann_dir / f".tennis_0001.json.courtstudio-tmp-{p.pid}-0badc0de.json",
        project.root / ".courtstudio" / f".autosave.jsonl.courtstudio-tmp-{p.pid}-1.jsonl",
    ]
    left[1].parent.mkdir(exist_ok=True)
    for f in left:
        f.write_text("{")
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    assert not any(f.exists() for f in left)
    left[0].write_text("{")
    doc.toggle_flag(project.frames[0].id)
    doc.save()
    assert not left[0].exists()
    auto.close()


def test_kill_9_harness_loses_no_acknowledged_edit(tmp_path):
    sys.path.insert(0, str(SAMPLE_PROJECT.parents[1] / "bench"))
    try:
        import kill_durability
    finally:
        sys.path.pop(0)
    out = kill_durability.run(kills=4, seed=1, workdir=tmp_path, compact_bytes=3000)
    assert out["acknowledged"] > 3
    assert out["lost_or_wrong_frames"] == 0 and out["temp_files_after_next_start"] == 0


def test_opening_leaves_a_journal_alone_until_the_first_edit(project):
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    a, b = project.frames[0].id, project.frames[1].id
    doc.set_keypoint(a, "far_left_corner", (500.5, 300.25))
    auto.close()
    before = autosave_path(project).read_bytes()
    doc2 = AnnotationDocument(load_project(project.root))  # neither restored nor discarded
    auto2 = Autosave(doc2)
    assert autosave_path(project).read_bytes() == before
    doc2.toggle_flag(b)  # the first edit: the journal is this session's from now on
    rec = read_journal(autosave_path(project))
    assert list(rec["annotations"]) == [b]
    doc2.toggle_flag(a)
    assert list(read_journal(autosave_path(project))["annotations"]) == [b, a]
    auto2.close()


def test_a_failed_append_is_followed_by_a_whole_rewrite(project, monkeypatch):
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    a, b = project.frames[0].id, project.frames[1].id
    doc.toggle_flag(a)
    real_write = autosave_mod.os.write

    def disk_full(fd, data):  # half the record reaches the disk, then ENOSPC
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(autosave_mod.os, "write", disk_full)
    with pytest.raises(OSError):
        doc.toggle_flag(b)
    monkeypatch.setattr(autosave_mod.os, "write", real_write)
    doc.set_keypoint(a, "far_left_corner", (5.0, 6.0))  # space again
    rec = read_journal(autosave_path(project))
    assert rec["skipped_lines"] == 0
    assert rec["annotations"][b]["flags"] == ["review"]
    assert rec["annotations"][a]["points"]["far_left_corner"] == [5.0, 6.0]
    auto.close()


def test_a_kill_while_the_journal_is_created_leaves_none_or_a_readable_one(project, monkeypatch):
    """After a save the next edit starts a new journal. It is created whole with its header
    (atomically): killed before the rename there is no journal (and the next start cleans
    the temporary file), after it a readable one. Created with a bare open and a separate
    header write, a kill between the two left an empty file that the next start could not
    read (the kill harness, bench/kill_durability.py, caught it under load)."""
    import safe_io.atomic as atomic_mod

    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    a, b = project.frames[0].id, project.frames[1].id
    doc.set_keypoint(a, "far_left_corner", (10.0, 20.0))
    doc.save()
    assert not autosave_path(project).exists()
    real_replace = atomic_mod.os.replace

    class Killed(BaseException):
        pass

    def killed(src, dst):
        if str(dst) == str(autosave_path(project)):
            raise Killed()
        return real_replace(src, dst)

    monkeypatch.setattr(atomic_mod.os, "replace", killed)
    with pytest.raises(Killed):
        doc.set_keypoint(b, "far_left_corner", (11.0, 21.0))
    monkeypatch.setattr(atomic_mod.os, "replace", real_replace)
    assert not autosave_path(project).exists() and pending_recovery(project) is None
    doc2 = AnnotationDocument(load_project(project.root))
    auto2 = Autosave(doc2)  # cleans the killed writer's temporary file
    assert [p.name for p in autosave_path(project).parent.iterdir()] == []
    doc2.save()
    doc2.set_keypoint(b, "far_left_corner", (12.0, 22.0))  # the new journal by appending
    rec = read_journal(autosave_path(project))
    assert rec["annotations"][b]["points"]["far_left_corner"] == [12.0, 22.0]
    auto2.close()
    auto.close()


def test_an_empty_journal_gets_its_header_before_the_next_record(project):
    """An empty journal where a new one would start (a kill right after an earlier version
    created it) is given its header before the next record is appended, so it reads back."""
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    a, b = project.frames[0].id, project.frames[1].id
    doc.set_keypoint(a, "far_left_corner", (10.0, 20.0))
    doc.save()  # the journal removed; the next edit appends to a new one
    autosave_path(project).write_bytes(b"")
    doc.set_keypoint(b, "far_left_corner", (11.0, 21.0))
    rec = read_journal(autosave_path(project))
    assert rec["annotations"][b]["points"]["far_left_corner"] == [11.0, 21.0]
    auto.close()

"""The ball-flight draft (the start / middle / end frames marked so far) lives in the document:
each mark is one undo step, it is journaled, and it survives a kill -9
(courtstudio/editing/document_lists.py, courtstudio/editing/autosave.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from courtstudio.editing.autosave import Autosave, autosave_path, pending_recovery, read_journal
from courtstudio.editing.document import AnnotationDocument
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project import ProjectError, check_recovered_state, load_project

ROOT = Path(__file__).resolve().parents[1]


def _project(tmp_path, n=6):
    """A copy of the sample with n frames (all the tennis frame's image)."""
    root = tmp_path / "p"
    shutil.copytree(SAMPLE_PROJECT, root)
    data = json.loads((root / "courtstudio_project.json").read_text())
    data["frames"] = [{"id": f"f{i}", "image": "frames/tennis_0001.jpg"} for i in range(n)]
    data.pop("camera_ranges", None)
    data.pop("ball_flights", None)
    (root / "courtstudio_project.json").write_text(json.dumps(data))
    shutil.rmtree(root / "annotations")
    return load_project(root)


def test_marks_are_undoable_and_the_third_adds_the_flight_in_one_step(tmp_path):
    doc = AnnotationDocument(_project(tmp_path))
    seen = []
    doc.flight_draft_changed.connect(lambda: seen.append("draft"))
    doc.ranges_changed.connect(lambda: seen.append("ranges"))
    assert doc.mark_ball_flight("end", "f4") is False
    assert doc.mark_ball_flight("start", "f0") is False
    assert doc.flight_draft == {"end": "f4", "start": "f0"} and seen == ["draft", "draft"]
    assert not doc.is_dirty and doc.has_journal_state  # a draft is journaled, never saved
    doc.undo()
    assert doc.flight_draft == {"end": "f4"}
    doc.redo()
    assert doc.mark_ball_flight("middle", "f2") is True
    assert [(b.start, b.middle, b.end) for b in doc.project.ball_flights] == [("f0", "f2", "f4")]
    assert doc.flight_draft == {} and doc.is_dirty and seen[-1] == "ranges"
    doc.undo()  # one step: the flight goes, the two marks come back
    assert doc.project.ball_flights == [] and doc.flight_draft == {"end": "f4", "start": "f0"}
    with pytest.raises(ProjectError, match="start, middle, end"):
        doc.mark_ball_flight("apex", "f1")
    with pytest.raises(ProjectError, match="three different frames"):
        doc.mark_ball_flight("middle", "f0")
    assert doc.flight_draft == {} and doc.project.ball_flights == []  # as before: reset


def test_a_draft_survives_a_save_in_the_journal(tmp_path):
    project = _project(tmp_path)
    doc = AnnotationDocument(project)
    auto = Autosave(doc)
    doc.toggle_flag("f1")
    doc.mark_ball_flight("start", "f1")
    doc.save()  # the flag is saved; the draft is not part of the project file
    assert "flight_draft" not in (project.root / "courtstudio_project.json").read_text()
    rec = read_journal(autosave_path(project))
    assert rec["flight_draft"] == {"start": "f1"} and rec["annotations"] == {}
    doc.undo()  # the mark: the draft empties, and nothing unsaved is left to journal
    assert doc.flight_draft == {} and not autosave_path(project).exists()
    doc.redo()
    assert read_journal(autosave_path(project))["flight_draft"] == {"start": "f1"}
    auto.close()


KILLED_SESSION = """
import os, signal, sys
from courtstudio.editing.autosave import Autosave
from courtstudio.editing.document import AnnotationDocument
from courtstudio.io.project import load_project
doc = AnnotationDocument(load_project(sys.argv[1]))
Autosave(doc)
doc.mark_ball_flight("start", "f1")
doc.mark_ball_flight("end", "f5")
doc.undo()
doc.mark_ball_flight("middle", "f3")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_draft_edit_survives_a_kill_and_recovery_restores_it(tmp_path):
    project = _project(tmp_path)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_SESSION, str(project.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -9, proc.stderr
    journal = pending_recovery(load_project(project.root))
    assert journal is not None and journal["flight_draft"] == {"start": "f1", "middle": "f3"}
    doc = AnnotationDocument(load_project(project.root))
    doc.restore_unsaved_state(journal)
    assert doc.flight_draft == {"start": "f1", "middle": "f3"}
    assert doc.mark_ball_flight("end", "f5") is True  # the flight completes after recovery
    assert [(b.start, b.middle, b.end) for b in doc.project.ball_flights] == [("f1", "f3", "f5")]
    doc.undo()
    doc.undo()  # the recovery itself is one undo step
    assert doc.flight_draft == {}


@pytest.mark.parametrize(
    "draft, field",
    [
        ({"apex": "f1"}, r"flight_draft: 'apex' is not one of \['start', 'middle', 'end'\]"),
        ({"start": "nope"}, "flight_draft.start"),
        (["f1"], "flight_draft"),
    ],
)
def test_a_tampered_draft_in_the_journal_is_refused(tmp_path, draft, field):
    project = _project(tmp_path)
    with pytest.raises(ProjectError, match=field):
        check_recovered_state(project, {"annotations": {}, "flight_draft": draft}, "journal")

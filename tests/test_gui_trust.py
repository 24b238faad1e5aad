"""The app and untrusted or shared projects (issue 8 §1, §2, §3 app side, §5): a second
window opens read-only, a failed journal or save write is said in a dialog and not kept as if
safe, headless runs never block, screenshots change no file."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from annotation_ui.main_window import WRITING_ACTIONS
from courtstudio.editing.autosave import Autosave, autosave_path
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project_lock import lock_path, read_lock
from tests.conftest import open_main_window

IGNORE = shutil.ignore_patterns(".courtstudio")  # a session's lock/journal, if any
from courtstudio.editing.undo import ReadOnlyError
from tests.test_project_trust import snapshot

EXE = Path(sys.executable).parent / "courtstudio"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def proj(tmp_path):
    return Path(shutil.copytree(SAMPLE_PROJECT, tmp_path / "proj", ignore=IGNORE))


def new_window(qtbot, answer="Discard"):
    return open_main_window(qtbot, answer)


@pytest.fixture
def critical(monkeypatch):
    """QMessageBox.critical, auto-dismissed: records (title, text)."""
    shown = []
    monkeypatch.setattr(
        QMessageBox,
        "critical",
        staticmethod(lambda parent, title, text, *a: shown.append((title, text))),
    )
    return shown


def test_second_window_opens_read_only(qtbot, proj, capsys):
    first = new_window(qtbot)
    assert first.open_project(proj, recover=False)
    assert read_lock(proj).pid == os.getpid() and first.read_only_reason is None
    fid = first.doc.current_frame.id
    first.doc.toggle_flag(fid)  # unsaved work of the first window, in its journal
    journal = autosave_path(first.doc.project).read_bytes()
    capsys.readouterr()

    second = new_window(qtbot)
    assert second.open_project(proj)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read-only" in err[0] and "courtstudio gui" in err[0]
    assert second.banner.isVisible() and "Read-only" in second.banner.text()
    assert "read-only" in second.windowTitle()
    assert not any(second.actions_by_name[a].isEnabled() for a in WRITING_ACTIONS)
    assert not second.court_panel.isEnabled() and not second.players_panel.isEnabled()
    before = snapshot(proj)
    with pytest.raises(ReadOnlyError, match="read-only"):
        second.doc.toggle_flag(fid)
    second._edit(second.doc.set_ball_not_visible, fid, True)  # from a panel: refused, said
    assert "read-only" in second.statusBar().currentMessage()
    assert not second.save() and not second.doc.is_dirty
    second.close()
    assert snapshot(proj) == before  # the first window's lock and journal are untouched
    assert autosave_path(first.doc.project).read_bytes() == journal

    first.save()
    first.close()
    assert not lock_path(proj).exists()
    third = new_window(qtbot)
    assert third.open_project(proj) and third.read_only_reason is None
    assert not third.banner.isVisible()
    assert all(third.actions_by_name[a].isEnabled() for a in WRITING_ACTIONS)


def test_stale_lock_is_taken_over_silently(qtbot, proj, capsys):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock_path(proj).parent.mkdir()
    lock_path(proj).write_text(
        json.dumps(
            {
                "format": "courtstudio.lock",
                "format_version": 1,
                "pid": dead.pid,
                "host": __import__("socket").gethostname(),
                "started": "2026-11-30T10:00:00+00:00",
                "tool": "courtstudio gui",
                "version": "0",
                "token": "old",
            }
        )
    )
    win = new_window(qtbot)
    assert win.open_project(proj, recover=False)
    assert win.read_only_reason is None and not win.banner.isVisible()
    assert read_lock(proj).pid == os.getpid()
    assert "read-only" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "error",
    [
        OSError(28, "No space left on device"),
        ValueError("Out of range float values are not JSON compliant"),
    ],
)
def test_failed_journal_write_is_said_and_the_edit_not_kept(
    qtbot, proj, monkeypatch, critical, error
):
    win = new_window(qtbot)
    win.open_project(proj, recover=False)
    fid = win.doc.current_frame.id
    win._edit(win.doc.toggle_flag, fid)  # journaled fine
    assert win.doc.annotation(fid).flags == ["review"]

    def broken(*a, **k):
        raise error

    monkeypatch.setattr(Autosave, "write", broken)  # whatever the journal's format
    win._edit(win.doc.set_ball_not_visible, fid, True)
    assert [t for t, _ in critical] == ["Edit not kept"]
    assert str(autosave_path(win.doc.project)) in critical[0][1]
    assert win.doc.annotation(fid).ball.visible  # the unjournaled edit was undone
    assert win.doc.annotation(fid).flags == ["review"]  # the journaled one stays
    assert win.doc.undo_stack.undo_text == "Toggle review"
    monkeypatch.undo()
    win._edit(win.doc.set_ball_not_visible, fid, True)  # works again once fixed
    assert not win.doc.annotation(fid).ball.visible and len(critical) == 1
    assert autosave_path(win.doc.project).exists()


def test_failed_save_is_said_and_nothing_marked_saved(qtbot, proj, monkeypatch, critical):
    win = new_window(qtbot, answer="Save")
    win.open_project(proj, recover=False)
    fid = win.doc.current_frame.id
    win._edit(win.doc.toggle_flag, fid)
    before = (proj / "annotations" / f"{fid}.json").read_bytes()

    def broken(*a, **k):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("courtstudio.io.project.write_json_atomic", broken)
    win.actions_by_name["Save"].trigger()
    assert [t for t, _ in critical] == ["Save failed"]
    assert "Read-only file system" in critical[0][1]
    assert win.doc.is_dirty and win.isWindowModified()
    assert autosave_path(win.doc.project).exists()  # the journal still holds the edit
    assert not win.close_project()  # "Save" on close fails too: the project stays open
    assert win.doc is not None and len(critical) == 2
    assert (proj / "annotations" / f"{fid}.json").read_bytes() == before
    monkeypatch.undo()
    assert win.save() and not win.doc.is_dirty


def test_crafted_journal_fails_the_open_with_a_dialog(qtbot, proj):
    (proj / ".courtstudio").mkdir()
    ann = json.loads((proj / "annotations" / "tennis_0001.json").read_text())
    ann["frame_id"] = "../../outside/x"
    autosave_path_ = proj / ".courtstudio" / "autosave.json"
    autosave_path_.write_text(
        json.dumps(
            {
                "format": "courtstudio.autosave",
                "format_version": 1,
                "annotations": {"tennis_0001": ann},
            }
        )
    )
    before = {k: v[0] for k, v in snapshot(proj.parent).items()}  # contents
    win = new_window(qtbot)
    said = []
    win.ask = lambda title, text, buttons: said.append((title, text)) or "Recover"
    assert not win.open_project(proj)
    assert said[0][0] == "Cannot open project"
    assert "autosave.json" in said[0][1] and "frame_id" in said[0][1]
    assert {k: v[0] for k, v in snapshot(proj.parent).items()} == before
    assert win.doc is None


def run_gui(*args, env_extra=None, timeout=90):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": str(ROOT),
        **(env_extra or {}),
    }
    return subprocess.run(
        [str(EXE), "gui", *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env
    )


def run_gui_here(capfd, *args) -> tuple[int, str]:
    """(exit code, stderr) of ``courtstudio gui ARGS`` run by the CLI's main() in this process
    (pytest-qt's QApplication): for runs whose point is what they say and leave behind; the
    runs above and below start the real command in a process of its own."""
    from courtstudio.cli import main

    capfd.readouterr()
    code = main(["gui", *map(str, args)])
    return code, capfd.readouterr().err


def test_headless_bad_project_exits_2_with_one_line(proj, tmp_path, qapp, capfd):
    (proj / "annotations" / "tennis_0001.json").write_text('{"format": 3}')
    proc = run_gui(proj)  # headless, as started from a shell: no dialog may block
    runs = [(proc.returncode, proc.stderr)]
    runs.append(run_gui_here(capfd, proj, "--screenshot", tmp_path / "x.png"))
    for code, err in runs:
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, err
        assert "Cannot open project" in lines[0] and "tennis_0001.json" in lines[0]
    assert not (tmp_path / "x.png").exists()


def test_no_display_exits_2_with_one_line(proj):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.run(
        [str(EXE), "gui", str(proj)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT)},
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "no display" in lines[0], proc.stderr
    assert not lock_path(proj).exists()


def test_screenshot_changes_no_file_of_the_project(proj, tmp_path, qapp, capfd):
    # unsaved clicks of a killed session: the journal a screenshot must not touch
    (proj / ".courtstudio").mkdir()
    ann = json.loads((proj / "annotations" / "tennis_0001.json").read_text())
    ann["flags"] = ["review"]
    (proj / ".courtstudio" / "autosave.json").write_text(
        json.dumps(
            {
                "format": "courtstudio.autosave",
                "format_version": 1,
                "annotations": {"tennis_0001": ann},
            }
        )
    )
    before = snapshot(proj)
    code, err = run_gui_here(
        capfd, proj, "--screenshot", tmp_path / "shot.png", "--size", "800", "500"
    )
    assert code == 0, err
    assert (tmp_path / "shot.png").stat().st_size > 1000
    assert snapshot(proj) == before


def test_read_only_banner_screenshot(qtbot, proj, tmp_path):
    first = new_window(qtbot)
    first.open_project(proj, recover=False)
    second = new_window(qtbot)
    second.open_project(proj)
    path = tmp_path / "read_only.png"
    assert second.grab().save(str(path))
    assert second.banner.isVisible() and second.banner.geometry().height() > 10
    assert (
        second.banner.geometry().top() < second.view.mapTo(second, second.view.rect().topLeft()).y()
    )


def test_crafted_project_is_named_in_a_dialog_and_nothing_written(qtbot, proj):
    path = proj / "annotations" / "badminton_0001.json"
    ann = json.loads(path.read_text())
    ann["frame_id"] = "/tmp/x"
    path.write_text(json.dumps(ann))
    before = snapshot(proj.parent)
    win = new_window(qtbot)
    said = []
    win.ask = lambda title, text, buttons: said.append((title, text)) or "OK"
    assert not win.open_project(proj)
    assert said[0][0] == "Cannot open project"
    assert str(path) in said[0][1] and "field frame_id" in said[0][1]
    assert snapshot(proj.parent) == before and win.doc is None


def test_unwritable_project_folder_opens_read_only(qtbot, proj, monkeypatch, capsys):
    def refuse(*a):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("courtstudio.io.project_lock._create", refuse)
    win = new_window(qtbot)
    assert win.open_project(proj, recover=False)
    assert win.read_only_reason and "not writable" in win.banner.text()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read-only" in err[0]
    with pytest.raises(ReadOnlyError):
        win.doc.toggle_flag(win.doc.current_frame.id)

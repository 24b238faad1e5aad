"""One writer per project (issue 8 §2): the lock file, stale-lock detection, CLI writers."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from courtstudio.cli import main
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project_lock import (
    ProjectLockedError,
    acquire,
    check_not_locked,
    enclosing_project,
    holder_state,
    lock_path,
    read_lock,
)

IGNORE = shutil.ignore_patterns(".courtstudio")  # a session's lock/journal, if any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE_PROJECT, root, ignore=IGNORE)
    return root


def write_lock(root, **fields):
    data = {
        "format": "courtstudio.lock",
        "format_version": 1,
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": "2026-01-01T00:00:00+00:00",
        "tool": "test",
        "version": "0",
        "token": "theirs",
    }
    data.update(fields)
    lock_path(root).parent.mkdir(exist_ok=True)
    lock_path(root).write_text(json.dumps(data))


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_lock_content_and_release(proj):
    lock = acquire(proj, "courtstudio gui")
    data = json.loads(lock_path(proj).read_text())
    assert data["pid"] == os.getpid() and data["host"] == socket.gethostname()
    assert data["tool"] == "courtstudio gui" and data["format"] == "courtstudio.lock"
    assert "T" in data["started"] and data["version"]
    assert lock.held
    with pytest.raises(ProjectLockedError, match="open in courtstudio gui"):
        acquire(proj, "second")  # this process is alive: a second window is refused
    lock.release()
    assert not lock_path(proj).exists()
    with acquire(proj, "third"):
        assert lock_path(proj).exists()
    assert not lock_path(proj).exists()


def test_release_leaves_someone_elses_lock(proj):
    lock = acquire(proj)
    write_lock(proj, token="another")  # e.g. taken over after being judged stale
    lock.release()
    assert read_lock(proj).token == "another"


def test_stale_lock_of_a_dead_pid_is_taken_over_silently(proj):
    write_lock(proj, pid=dead_pid(), started="2026-11-30T10:00:00+00:00")
    assert holder_state(read_lock(proj)) == "stale"
    lock = acquire(proj, "me")
    assert read_lock(proj).pid == os.getpid() and lock.held
    lock.release()
    assert sorted(p.name for p in lock_path(proj).parent.iterdir()) == []


def test_reused_pid_is_stale(proj):
    # a live pid whose process started after the lock was written is not the holder
    write_lock(proj, pid=os.getpid(), started="2000-01-01T00:00:00+00:00")
    assert holder_state(read_lock(proj)) == "stale"
    write_lock(proj, pid=os.getpid(), started="2099-01-01T00:00:00+00:00")
    assert holder_state(read_lock(proj)) == "live"


def test_foreign_host_is_treated_as_live(proj):
    write_lock(proj, pid=dead_pid(), host="another-machine")
    with pytest.raises(ProjectLockedError, match="another machine: if it is gone, delete"):
        acquire(proj)
    assert read_lock(proj).host == "another-machine"


def test_corrupt_lock_fresh_is_live_old_is_stale(proj):
    lock_path(proj).parent.mkdir(exist_ok=True)
    lock_path(proj).write_text("{not json")
    with pytest.raises(ProjectLockedError, match="unreadable lock"):
        acquire(proj)
    old = time.time() - 60
    os.utime(lock_path(proj), (old, old))
    with acquire(proj):
        assert read_lock(proj).pid == os.getpid()


def test_enclosing_project(proj, tmp_path):
    assert enclosing_project(proj / "exports" / "a" / "b.json") == proj
    assert enclosing_project(proj) == proj
    assert enclosing_project(tmp_path / "elsewhere") is None


def hold_in_subprocess(root):
    code = (
        "import sys, time; from courtstudio.io.project_lock import acquire; "
        f"lock = acquire({str(root)!r}, 'courtstudio gui'); print('held', flush=True); "
        "time.sleep(60)"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": ROOT},
    )
    assert p.stdout.readline().strip() == "held"
    return p


def test_cli_writers_refuse_a_locked_project_then_take_over_after_kill(proj, tmp_path, capsys):
    holder = hold_in_subprocess(proj)
    try:
        before = sorted(p.name for p in proj.rglob("*"))
        for argv in (
            [
                "batch-propagate",
                str(proj),
                "--sport",
                "tennis",
                "--out",
                str(tmp_path / "prop"),
                "--quiet",
            ],
            ["export", str(proj), "--format", "coco", "-o", str(proj / "coco")],
            ["reconstruct", "--sample", "-o", str(proj / "out")],
            ["synth", "--sports", "tennis", "-o", str(proj)],
        ):
            assert main(argv) == 2
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and "open in courtstudio gui" in err[0], err
            assert str(holder.pid) in err[0]
        assert sorted(p.name for p in proj.rglob("*")) == before
        with pytest.raises(ProjectLockedError):
            check_not_locked(proj, "write")
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the holder was killed: its lock is stale and the next writer takes it over
    assert main(["export", str(proj), "--format", "coco", "-o", str(proj / "coco")]) == 0
    assert not lock_path(proj).exists()

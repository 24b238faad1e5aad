"""Atomic writes (safe_io/atomic.py): file modes follow the umask, the folder is fsynced after
the rename, temporary names are recognisable and the leftovers of killed writers are cleaned."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import h5py
import numpy as np
import pytest

from safe_io import atomic


@pytest.fixture
def umask():
    """Set a umask for the test and restore the previous one."""
    old = os.umask(0o022)
    os.umask(old)

    def set_(mask):
        os.umask(mask)

    yield set_
    os.umask(old)


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_saved_files_follow_the_umask(tmp_path, umask, mask):
    umask(mask)
    atomic.write_json_atomic(tmp_path / "a.json", {"x": 1})
    with atomic.atomic_path(tmp_path / "b.h5") as tmp:
        with h5py.File(tmp, "w") as f:
            f["x"] = np.zeros(3)
    atomic.write_json_atomic(tmp_path / "new" / "c.json", {"x": 1})
    assert _mode(tmp_path / "a.json") == 0o666 & ~mask
    assert _mode(tmp_path / "b.h5") == 0o666 & ~mask
    assert _mode(tmp_path / "new" / "c.json") == 0o666 & ~mask
    d = atomic.make_temp_dir(tmp_path / "frame")
    atomic.replace_dir(d, tmp_path / "frame")
    assert _mode(tmp_path / "frame") == 0o777 & ~mask


def test_the_folder_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    events = []
    real_replace = os.replace
    monkeypatch.setattr(
        atomic.os, "replace", lambda a, b: (events.append(("replace", str(b))), real_replace(a, b))
    )
    monkeypatch.setattr(atomic, "fsync_dir", lambda p: events.append(("fsync_dir", str(p))))
    atomic.write_json_atomic(tmp_path / "a.json", {"x": 1})
    assert events == [("replace", str(tmp_path / "a.json")), ("fsync_dir", str(tmp_path))]


def test_temp_names_are_recognisable_and_removed_on_failure(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic.atomic_path(tmp_path / "scene.json") as tmp:
            assert atomic.is_temp_name(tmp.name) and tmp.name.startswith(".scene.json.")
            assert f"courtstudio-tmp-{os.getpid()}-" in tmp.name
            tmp.write_text("half")
            raise RuntimeError("writer failed")
    assert list(tmp_path.iterdir()) == []


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_leftovers_of_killed_writers_are_cleaned_and_live_ones_kept(tmp_path):
    dead = _dead_pid()
    stale = tmp_path / f".a.json.courtstudio-tmp-{dead}-0badc0de.json"
    stale.write_text("{")
    stale_dir = tmp_path / f".f1.courtstudio-tmp-{dead}-0badc0de"
    (stale_dir / "sub").mkdir(parents=True)
    mine = tmp_path / f".b.json.courtstudio-tmp-{os.getpid()}-12345678.json"
    mine.write_text("{")
    parent = tmp_path / f".c.json.courtstudio-tmp-{os.getppid()}-12345678.json"
    parent.write_text("{")  # a live process that started before the file: kept
    foreign = tmp_path / ".d.json.tmp123"
    foreign.write_text("{")  # not ours: never touched
    (tmp_path / "f2").mkdir()
    (tmp_path / "f2" / "new.json").write_text("{}")
    old_kept = tmp_path / f".f2.courtstudio-old-{dead}-0badc0de"  # swap finished: removed
    old_kept.mkdir()
    old_lost = tmp_path / f".f3.courtstudio-old-{dead}-0badc0de"  # killed mid-swap: put back
    old_lost.mkdir()
    (old_lost / "scene.json").write_text("{}")
    removed = atomic.clean_stale_temp_files(tmp_path)
    assert set(removed) == {stale, stale_dir, old_kept}
    assert mine.exists() and parent.exists() and foreign.exists()
    assert (tmp_path / "f3" / "scene.json").exists() and not old_lost.exists()


def test_a_reused_pid_does_not_protect_an_old_leftover(tmp_path):
    # our parent is alive but started long after this file was written: the pid was reused
    leftover = tmp_path / f".a.json.courtstudio-tmp-{os.getppid()}-12345678.json"
    leftover.write_text("{")
    start = atomic.process_start_epoch(os.getppid())
    if start is None:
        pytest.skip("no /proc here")
    os.utime(leftover, (start - 3600, start - 3600))
    assert atomic.clean_stale_temp_files(tmp_path) == [leftover]


def test_replace_dir_swaps_a_folder_and_removes_it(tmp_path):
    target = tmp_path / "frame"
    target.mkdir()
    (target / "old.json").write_text("{}")
    new = atomic.make_temp_dir(target)
    (new / "new.json").write_text("{}")
    atomic.replace_dir(new, target)
    assert [p.name for p in target.iterdir()] == ["new.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame"]
    atomic.replace_dir(None, target)
    assert list(tmp_path.iterdir()) == []

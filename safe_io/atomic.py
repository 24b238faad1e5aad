"""Atomic file writes: write a temporary file beside the target, fsync, ``os.replace``, then
fsync the folder (so the rename itself survives a power cut).

A crash mid-save leaves the previous file intact; readers never see a half-written file.
Files are created with mode ``0o666 & ~umask`` (folders ``0o777 & ~umask``), like any other
program's, not the 0600 of ``tempfile.mkstemp``.

Temporary names are recognisable and carry the writer's pid:
``.<target name>.courtstudio-tmp-<pid>-<token><suffix>`` (new content) and
``.<target name>.courtstudio-old-<pid>-<token>`` (a folder's previous content during a swap).
``clean_stale_temp_files`` removes those whose writer is no longer running (a killed run), and
puts back an ``-old-`` folder whose target is missing (a kill between the two renames of a
swap), so the next start or save cleans up after a kill.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

TMP_TAG = ".courtstudio-tmp-"
OLD_TAG = ".courtstudio-old-"
_TEMP_RE = re.compile(r"^\.(?P<name>.+)\.courtstudio-(?P<kind>tmp|old)-(?P<pid>\d+)-[0-9a-f]+")


def temp_name(target_name: str, suffix: str = "", kind: str = "tmp") -> str:
    """A recognisable temporary name for ``target_name`` in the same folder."""
    return f".{target_name}.courtstudio-{kind}-{os.getpid()}-{os.urandom(4).hex()}{suffix}"


def is_temp_name(name: str) -> bool:
    return _TEMP_RE.match(name) is not None


def fsync_dir(folder) -> None:
    """Make renames and new entries in ``folder`` durable (a no-op where folders cannot be
    opened, e.g. Windows)."""
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _create_file(path: Path) -> None:
    # 0o666 through os.open: the umask applies, as for any file a program creates
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.close(fd)


@contextmanager
def atomic_path(target, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; on success it replaces the target.

    For writers that want a file name (h5py, cv2.FileStorage, image encoders). ``suffix``
    defaults to the target's, since some writers choose the format by extension.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = target.parent / temp_name(target.name, target.suffix if suffix is None else suffix)
    _create_file(tmp_path)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
        fsync_dir(target.parent)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_bytes_atomic(target, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(target, text: str) -> None:
    write_bytes_atomic(target, text.encode("utf-8"))


def write_json_atomic(target, obj) -> None:
    """JSON with 1-space indentation and a final newline, written atomically."""
    write_text_atomic(target, json.dumps(obj, indent=1, allow_nan=False) + "\n")


# ------------------------------------------------------------------------------ folders
def make_temp_dir(target) -> Path:
    """A new empty folder beside ``target`` (a folder), to be swapped in by replace_dir."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / temp_name(target.name)
    os.mkdir(tmp, 0o777)  # the umask applies
    return tmp


def replace_dir(new_dir: Path | None, target) -> None:
    """Put folder ``new_dir`` in the place of folder ``target`` (or, with None, remove
    ``target``). The previous folder is renamed aside first, so a kill leaves either the old
    or the new content under a recognisable name (clean_stale_temp_files restores the old one
    when the target is missing); files are fsynced by their writers, the parent here."""
    target = Path(target)
    old = None
    if target.exists():
        old = target.parent / temp_name(target.name, kind="old")
        os.replace(target, old)
    if new_dir is not None:
        for p in new_dir.iterdir():
            if p.is_dir():
                fsync_dir(p)
        fsync_dir(new_dir)
        os.replace(new_dir, target)
    fsync_dir(target.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# ------------------------------------------------------------------------------ cleanup
def process_start_epoch(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), from /proc; None elsewhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        btime = next(
            int(ln.split()[1])
            for ln in Path("/proc/stat").read_text().splitlines()
            if ln.startswith("btime ")
        )
        return btime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _writer_running(pid: int, mtime: float) -> bool:
    """Whether the process that made a temp file (modified at ``mtime``) may still be
    writing it: ours, or a live process that started before the file was made."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's live process
    start = process_start_epoch(pid)
    return start is None or start <= mtime + 2.0  # else the pid was reused after a kill


def clean_stale_temp_files(folder) -> list[Path]:
    """Remove the temporary files and folders left in ``folder`` (not recursive) by writers
    that are no longer running; an ``-old-`` folder whose target is missing is put back.
    Returns what was removed. Names that are not ours are never touched."""
    folder = Path(folder)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = _TEMP_RE.match(entry.name)
        if m is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if _writer_running(int(m["pid"]), st.st_mtime):
            continue
        path = Path(entry.path)
        target = folder / m["name"]
        try:
            if m["kind"] == "old" and not os.path.lexists(target):
                os.replace(path, target)
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
            removed.append(path)
        except OSError:
            continue
    if removed:
        fsync_dir(folder)
    return removed

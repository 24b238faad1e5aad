"""One writer per project: the lock file ``PROJECT/.courtstudio/lock`` (Qt-free).

The lock is a small JSON file (docs/formats.md, "Project lock")::

    {"format": "courtstudio.lock", "format_version": 1, "pid": 4242, "host": "studio-3",
     "started": "2026-11-30T15:40:04+00:00", "tool": "courtstudio gui", "version": "0.1.0",
     "token": "<random hex>"}

It is created atomically: the content is written to a temporary file that is then hard-linked
to ``lock`` (``link`` fails if ``lock`` exists, exactly like ``O_CREAT | O_EXCL``, and a
reader never sees a half-written lock); where links are not supported, ``O_EXCL`` is used.

Who holds it:
- a lock of this host whose pid is not running (or is running a process started after the
  lock was written: a reused pid) is stale and is taken over silently;
- a lock of another host is treated as live: this machine cannot see that process (the
  message says so and how to remove it);
- an unreadable lock younger than ``CORRUPT_GRACE_S`` is treated as live (it may be being
  written), an older one as stale.

Whoever holds the lock releases it on close (and at interpreter exit); a killed process
leaves a stale lock, taken over by the next writer.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as _dt
import json
import os
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from safe_io.atomic import process_start_epoch

LOCK_FORMAT = "courtstudio.lock"
LOCK_VERSION = 1
LOCK_NAME = "lock"
CORRUPT_GRACE_S = 10.0
PROJECT_FILE = "courtstudio_project.json"


class ProjectLockedError(ValueError):
    """Another live process holds the project's lock; the message says who and what to do."""

    def __init__(self, message: str, holder: "LockInfo | None" = None):
        super().__init__(message)
        self.holder = holder


@dataclass(frozen=True)
class LockInfo:
    """What a lock file says (``corrupt``: it could not be read as a lock)."""

    pid: int | None
    host: str | None
    started: str | None
    tool: str | None
    version: str | None
    token: str | None
    corrupt: bool = False
    age_s: float = 0.0

    def describe(self) -> str:
        if self.corrupt:
            return "an unreadable lock file"
        return (
            f"{self.tool or 'a program'} (pid {self.pid} on host {self.host}, since {self.started})"
        )


def lock_path(root) -> Path:
    return Path(root) / ".courtstudio" / LOCK_NAME


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("courtstudio")
    except Exception:  # noqa: BLE001 - not installed as a package (source checkout)
        return "unknown"


def read_lock(root) -> LockInfo | None:
    """The lock file's content, None if there is no lock."""
    path = lock_path(root)
    try:
        st = path.stat()
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError:
        return LockInfo(None, None, None, None, None, None, corrupt=True)
    age = max(0.0, time.time() - st.st_mtime)
    try:
        data = json.loads(text)
        pid = data["pid"]
        if (
            data.get("format") != LOCK_FORMAT
            or not isinstance(pid, int)
            or isinstance(pid, bool)
            or pid <= 0
            or not isinstance(data["host"], str)
        ):
            raise ValueError("not a lock")
        return LockInfo(
            pid,
            data["host"],
            str(data.get("started")),
            str(data.get("tool")),
            str(data.get("version")),
            str(data.get("token")),
            age_s=age,
        )
    except (ValueError, KeyError, TypeError):
        return LockInfo(None, None, None, None, None, None, corrupt=True, age_s=age)


def _pid_running(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, owned by someone else
    except OverflowError:
        return False
    begun = process_start_epoch(pid)
    try:
        locked_at = _dt.datetime.fromisoformat(started).timestamp() if started else None
    except ValueError:
        locked_at = None
    # a process that started after the lock was written reuses a dead holder's pid
    return not (begun is not None and locked_at is not None and begun > locked_at + 2.0)


class HolderState(StrEnum):
    """Who holds a project's lock."""

    STALE = "stale"  # nobody any more: safe to take over
    LIVE = "live"  # a running process on this host
    FOREIGN = "foreign"  # a process on another host (cannot be checked)


def _hostname() -> str:
    import socket  # here: a command that writes into no project never needs it (start-up)

    return socket.gethostname()


def holder_state(info: LockInfo) -> HolderState:
    if info.corrupt:
        return HolderState.STALE if info.age_s > CORRUPT_GRACE_S else HolderState.LIVE
    if info.host != _hostname():
        return HolderState.FOREIGN
    return HolderState.LIVE if _pid_running(info.pid, info.started) else HolderState.STALE


def locked_message(root, info: LockInfo, state: HolderState) -> str:
    path = lock_path(root)
    if state == HolderState.FOREIGN:
        return (
            f"{root}: the project is locked by {info.describe()}; CourtStudio cannot "
            f"check a process on another machine: if it is gone, delete {path}"
        )
    if info.corrupt:
        return (
            f"{root}: the project has an unreadable lock file {path} (written just now?); "
            "if no other CourtStudio uses the project, delete it"
        )
    return f"{root}: the project is open in {info.describe()}"


def live_holder(root) -> tuple[LockInfo, HolderState] | None:
    """(lock, state) when a live or foreign process holds the project, else None."""
    info = read_lock(root)
    if info is None:
        return None
    state = holder_state(info)
    return None if state == HolderState.STALE else (info, state)


class ProjectLock:
    """A held lock; ``release()`` removes it if it is still ours."""

    def __init__(self, root: Path, token: str):
        self.root = Path(root)
        self.token = token
        atexit.register(self.release)

    @property
    def held(self) -> bool:
        info = read_lock(self.root)
        return info is not None and info.token == self.token

    def release(self) -> None:
        if self.held:
            try:
                lock_path(self.root).unlink()
            except FileNotFoundError:
                pass
        atexit.unregister(self.release)

    def __enter__(self) -> "ProjectLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _create(path: Path, content: bytes) -> bool:
    """Create ``path`` with ``content`` only if it does not exist (atomic); False if it does."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    with open(tmp, "xb") as fh:
        fh.write(content)
        fh.flush()
        os.fsync(fh.fileno())
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError:  # no hard links here: O_EXCL, then write
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        return True
    finally:
        tmp.unlink()


def _remove_stale(path: Path, seen: bytes | None) -> None:
    """Move a stale lock aside, putting it back if it turns out another process replaced it
    with a live lock in the meantime."""
    aside = path.with_name(f".{path.name}.stale.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return
    if read_lock_file(aside) != seen:
        try:
            os.link(aside, path)
        except OSError:
            pass
    aside.unlink()


def read_lock_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def acquire(root, tool: str = "courtstudio") -> ProjectLock:
    """Take the project's lock (taking over a stale one); raise ProjectLockedError naming the
    holder when a live process (or another host) holds it."""
    root = Path(root)
    path = lock_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectLockedError(
            f"{root}: cannot create {path.parent} ({exc.strerror}): the "
            "project folder is not writable here"
        ) from None
    token = os.urandom(16).hex()
    content = (
        json.dumps(
            {
                "format": LOCK_FORMAT,
                "format_version": LOCK_VERSION,
                "pid": os.getpid(),
                "host": _hostname(),
                "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "tool": tool,
                "version": _version(),
                "token": token,
            },
            indent=1,
        )
        + "\n"
    ).encode()
    for _ in range(5):
        try:
            created = _create(path, content)
        except OSError as exc:
            raise ProjectLockedError(
                f"{root}: cannot write the project's lock {path} "
                f"({exc.strerror}): the project folder is not "
                "writable here"
            ) from None
        if created:
            return ProjectLock(root, token)
        seen_bytes = read_lock_file(path)
        info = read_lock(root)
        if info is None:
            continue  # released meanwhile: try again
        state = holder_state(info)
        if state != HolderState.STALE:
            raise ProjectLockedError(locked_message(root, info, state), info)
        _remove_stale(path, seen_bytes)
    raise ProjectLockedError(
        f"{root}: could not take the project lock {path} (another process keeps replacing it)"
    )


def enclosing_project(path) -> Path | None:
    """The project folder containing ``path`` (or being it), or None."""
    p = Path(path).absolute()
    for folder in [p] + list(p.parents):
        if (folder / PROJECT_FILE).is_file():
            return folder
    return None


def check_not_locked(root, action: str) -> None:
    """Raise ProjectLockedError when a live process holds ``root``'s lock (for writers that
    do not take the lock themselves)."""
    held = live_holder(root)
    if held is not None:
        info, state = held
        raise ProjectLockedError(
            f"{locked_message(root, info, state)}; refusing to {action} "
            "while it is open (close it first)",
            info,
        )


@contextlib.contextmanager
def hold_projects(paths, tool: str):
    """Hold the lock of every project that contains one of ``paths`` (outputs a command is
    about to write) for the duration of the block; ProjectLockedError if one is in use."""
    roots = []
    for p in paths:
        root = enclosing_project(p)
        if root is not None and root.resolve() not in [r.resolve() for r in roots]:
            roots.append(root)
    with contextlib.ExitStack() as stack:
        for root in roots:
            try:
                stack.enter_context(acquire(root, tool))
            except ProjectLockedError as exc:
                raise ProjectLockedError(
                    f"{exc}; {tool} writes into it: close it there first", exc.holder
                ) from None
        yield roots

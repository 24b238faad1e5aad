"""Stage output folders written as a unit, with a provenance record that decides reuse.

A (clip, stage) task writes ``OUT/clips/<clip>/<stage>/``. It builds the folder under a
hidden working name beside it and swaps it in only when complete, ``provenance.json`` last,
so a killed run leaves either the previous complete folder or none. The provenance holds the
digests of the task's inputs, the tool version and the parameters; its own digest names the
task's result: a rerun whose inputs give the same digest reuses the folder, anything else is
redone (and so is every stage downstream of it, whose inputs include this digest).

Long stages may resume their own partial work: ``partial_dir(digest)`` is stable for one set
of inputs (propagation appends to its cameras.jsonl there) and is discarded when the inputs
change.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

PROVENANCE = "provenance.json"
_CHUNK = 1 << 20


def file_digest(path) -> str:
    """sha256 of a file's bytes (streamed: hour-long videos are hashed without loading)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def tree_digest(
    root, patterns=("courtstudio_project.json", "annotations/*.json", "meshes/**/*")
) -> str:
    """sha256 over the relative names and bytes of a project's annotation files (media are
    named by the project file; a project's media are assumed immutable)."""
    root = Path(root)
    h = hashlib.sha256()
    for pattern in patterns:
        for p in sorted(root.glob(pattern)):
            if p.is_file():
                h.update(p.relative_to(root).as_posix().encode() + b"\0")
                h.update(file_digest(p).encode() + b"\0")
    return h.hexdigest()


def provenance_digest(record: dict) -> str:
    blob = json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class StageDir:
    """The output folder of one (clip, stage) task under ``clip_dir``."""

    def __init__(self, clip_dir, stage: str):
        self.clip_dir = Path(clip_dir)
        self.stage = stage
        self.final = self.clip_dir / stage

    def finished_digest(self) -> str | None:
        """The digest of the completed folder, or None (absent or unreadable)."""
        try:
            rec = json.loads((self.final / PROVENANCE).read_text())
            return str(rec["digest"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def partial_dir(self, digest: str) -> Path:
        """A working folder stable for these inputs; older partial folders are removed."""
        keep = self.clip_dir / f".{self.stage}.partial-{digest[:16]}"
        for old in self.clip_dir.glob(f".{self.stage}.partial-*"):
            if old != keep:
                shutil.rmtree(old, ignore_errors=True)
        keep.mkdir(parents=True, exist_ok=True)
        return keep

    def commit(self, work: Path, provenance: dict) -> None:
        """Write the provenance into ``work`` and swap it in for the stage's folder."""
        record = dict(provenance, digest=provenance_digest(provenance))
        (work / PROVENANCE).write_text(json.dumps(record, indent=1, allow_nan=False) + "\n")
        _fsync_tree(work)
        old = None
        if self.final.exists():
            old = self.clip_dir / f".{self.stage}.old-{os.getpid()}"
            shutil.rmtree(old, ignore_errors=True)
            os.replace(self.final, old)
        os.replace(work, self.final)
        _fsync_dir(self.clip_dir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def clean_leftovers(self) -> None:
        """Folders left by killed runs that no resume can use (old swaps)."""
        for old in self.clip_dir.glob(f".{self.stage}.old-*"):
            shutil.rmtree(old, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for dirpath, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as fh:
                os.fsync(fh.fileno())
        _fsync_dir(Path(dirpath))

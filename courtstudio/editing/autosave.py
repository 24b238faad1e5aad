"""Autosave journal and crash recovery: an append-only journal, one record per edit.

``PROJECT/.courtstudio/autosave.jsonl`` holds one JSON object per line:

- line 1, the header: ``{"format": "courtstudio.autosave", "format_version": 2,
  "written_utc", "project"}``;
- ``{"frame": ID, "annotation": {...}}``: a frame's whole annotation after an edit (the
  ``courtstudio.annotation`` object of docs/formats.md);
- ``{"camera_ranges": [...], "ball_flights": [...], "flight_draft": {...}}``: the
  project-level lists after an edit (``flight_draft``: the ball-flight frames marked so far,
  ``{part: frame id}``; journaled but never saved, so a saved project with a draft keeps a
  journal of that one record);
- ``{"propagation_masks": [[x0, y0, x1, y1], ...]}``: the project's registration masks after
  an edit (courtstudio/editing/mask_layer.py; saved to PROJECT/propagation/masks.json).

After every edit (every command pushed, undone or redone) the records of what it changed are
appended and fdatasync'ed before the edit returns, so a kill loses no acknowledged click; the
cost is that of the one frame edited, whatever the number of unsaved frames. Replaying keeps
the last record per frame; a torn last line (a kill mid-append) is ignored. The journal is
compacted (rewritten atomically as one record per unsaved frame) when it is opened, after a
recovery, and when it has grown well past its compacted size; saving removes it (after the
annotation files are written, so a kill in between loses nothing either). Version 1
(``autosave.json``, one snapshot rewritten per edit) is still read.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from courtstudio.editing.document import AnnotationDocument
from courtstudio.io.project import Project
from safe_io.atomic import clean_stale_temp_files, fsync_dir, write_text_atomic

AUTOSAVE_FORMAT = "courtstudio.autosave"
AUTOSAVE_VERSION = 2
JOURNAL_NAME = "autosave.jsonl"
LEGACY_NAME = "autosave.json"  # format_version 1: one snapshot
COMPACT_MIN_BYTES = 8 << 20  # compact past max(this, 4 x the compacted size): amortised O(1)


def autosave_path(project: Project) -> Path:
    return project.root / ".courtstudio" / JOURNAL_NAME


def _legacy_path(project: Project) -> Path:
    return project.root / ".courtstudio" / LEGACY_NAME


def _line(record: dict) -> str:
    return json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n"


def _header(project: Project) -> dict:
    return {
        "format": AUTOSAVE_FORMAT,
        "format_version": AUTOSAVE_VERSION,
        "written_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "project": project.name,
    }


def clean_project_leftovers(project: Project) -> list[Path]:
    """Temporary files of killed writers in the project's folders (safe_io/atomic.py)."""
    root = project.root
    folders = [root, root / "annotations", root / ".courtstudio", root / "propagation"]
    meshes = root / "meshes"
    if meshes.is_dir() and not meshes.is_symlink():
        folders += [p for p in meshes.iterdir() if p.is_dir() and not p.is_symlink()]
    return [p for f in folders if f.is_dir() for p in clean_stale_temp_files(f)]


class Autosave:
    """Journals ``doc``'s edits. A document with unsaved work (a recovered journal restored
    into it) is compacted at once; otherwise an existing journal is left alone until the
    first edit, which rewrites it with the document's state (so opening never deletes
    recovery data; restore or discard_recovery decide about it)."""

    def __init__(self, doc: AnnotationDocument):
        self.doc = doc
        self.path = autosave_path(doc.project)
        self._fd: int | None = None
        self._unsynced = False  # drag moves appended but not yet flushed
        self._bytes = 0
        self._compacted_bytes = 0
        self._compacted = False  # appends only go to a journal written by this session
        clean_project_leftovers(doc.project)
        if doc.has_journal_state:
            self.compact()
        doc.undo_stack.changed.connect(self.write)
        doc.saved.connect(self._saved)

    # ------------------------------------------------------------------ writing
    def write(self) -> None:
        """Append the records of the edits since the last call, durably. The moves of a drag
        after its first (UndoStack.merged_last) are appended without fdatasync, and synced
        when the drag ends (break_merge): a mouse move costs no disk flush, a crash of the
        app loses nothing, a power cut mid-drag at most that drag."""
        if not self.doc.has_journal_state:
            self.clear()
            return
        if not self._compacted:
            self.compact()
            return
        records = self.doc.journal_records()
        if not records:
            if self._unsynced and self._fd is not None and not self.doc.undo_stack.merged_last:
                _datasync(self._fd)
                self._unsynced = False
            return
        data = "".join(_line(r) for r in records).encode("utf-8")
        try:
            fd = self._open()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            # a drag's moves are synced when it ends (the release is not merged)
            self._unsynced = self.doc.undo_stack.merged_last
            if not self._unsynced:
                _datasync(fd)
        except BaseException:
            # a part of the record may be on disk: the next write rewrites the whole journal
            # (atomically) instead of appending after a torn line
            self._close_fd()
            self._compacted = False
            raise
        self._bytes += len(data)
        if self._bytes > max(COMPACT_MIN_BYTES, 4 * self._compacted_bytes):
            self.compact()

    def _open(self) -> int:
        if self._fd is not None:
            return self._fd
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists() or self.path.stat().st_size == 0:
            # created whole with its header: a kill between creating the file and writing the
            # header left an empty journal, which the next start found unreadable (the kill
            # harness, bench/kill_durability.py, caught it under load); an empty one holds
            # nothing to keep
            write_text_atomic(self.path, _line(_header(self.doc.project)))
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND, 0o666)
        size = os.fstat(fd).st_size
        with open(self.path, "rb") as fh:
            fh.seek(max(0, size - 1))
            if size and fh.read(1) != b"\n":
                os.write(fd, b"\n")  # a torn line stays one (ignored) line
        self._bytes = os.fstat(fd).st_size
        self._fd = fd
        return fd

    def compact(self) -> None:
        """Rewrite the journal as one record per unsaved frame (atomically), or remove it
        when nothing is unsaved."""
        self._close_fd()
        self.doc.drop_journal_records()  # everything is in the snapshot below
        if not self.doc.has_journal_state:
            self.clear()
            return
        state = self.doc.unsaved_state()
        text = _line(_header(self.doc.project)) + "".join(
            _line({"frame": fid, "annotation": ann}) for fid, ann in state["annotations"].items()
        )
        if (
            state["camera_ranges"] is not None
            or state["ball_flights"] is not None
            or state["flight_draft"] is not None
        ):
            text += _line(
                {
                    "camera_ranges": state["camera_ranges"],
                    "ball_flights": state["ball_flights"],
                    "flight_draft": state["flight_draft"],
                }
            )
        if state.get("propagation_masks") is not None:
            text += _line({"propagation_masks": state["propagation_masks"]})
        write_text_atomic(self.path, text)
        legacy = _legacy_path(self.doc.project)
        if legacy.exists():
            legacy.unlink()
        self._bytes = self._compacted_bytes = len(text.encode("utf-8"))
        self._compacted = True

    def clear(self) -> None:
        """Remove the journal (everything is saved)."""
        self._close_fd()
        self.doc.drop_journal_records()
        _remove_journal(self.doc.project)
        self._compacted = True  # the next edit starts a new journal by appending

    def _saved(self) -> None:
        if self.doc.has_journal_state:  # a ball-flight draft: not saved, still journaled
            self.compact()
        else:
            self.clear()
        clean_project_leftovers(self.doc.project)

    def _close_fd(self) -> None:
        if self._fd is not None:
            if self._unsynced:
                _datasync(self._fd)
                self._unsynced = False
            os.close(self._fd)
            self._fd = None

    def close(self) -> None:
        self._close_fd()
        self.doc.undo_stack.changed.disconnect(self.write)
        self.doc.saved.disconnect(self._saved)


def _datasync(fd: int) -> None:
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def _remove_journal(project: Project) -> None:
    removed = False
    for p in (autosave_path(project), _legacy_path(project)):
        if p.exists():
            p.unlink()
            removed = True
    if removed:
        fsync_dir(autosave_path(project).parent)


# ------------------------------------------------------------------------------ reading
def read_journal(path: Path) -> dict:
    """Replay a journal: ``{"format", "format_version", "annotations": {frame id: annotation
    JSON} (last record wins), "camera_ranges", "ball_flights", "flight_draft",
    "propagation_masks" (None when not edited), "skipped_lines"}``. A line that does not
    parse (a torn last line from a kill) is skipped. Raises ValueError when the header is not
    a journal's."""
    with open(path, "rb") as fh:
        lines = fh.read().decode("utf-8", errors="replace").split("\n")
    try:
        head = json.loads(lines[0])
    except ValueError:
        raise ValueError(f"{path}: not an autosave journal") from None
    if (
        not isinstance(head, dict)
        or head.get("format") != AUTOSAVE_FORMAT
        or head.get("format_version") != AUTOSAVE_VERSION
    ):
        raise ValueError(f"{path}: not an autosave journal (version {AUTOSAVE_VERSION})")
    out = {
        **head,
        "annotations": {},
        "camera_ranges": None,
        "ball_flights": None,
        "flight_draft": None,
        "propagation_masks": None,
        "skipped_lines": 0,
    }
    for line in lines[1:]:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            out["skipped_lines"] += 1
            continue
        if not isinstance(rec, dict):
            out["skipped_lines"] += 1
        elif isinstance(rec.get("frame"), str) and isinstance(rec.get("annotation"), dict):
            out["annotations"].pop(rec["frame"], None)  # keep the order of the last edits
            out["annotations"][rec["frame"]] = rec["annotation"]
        elif "camera_ranges" in rec or "ball_flights" in rec or "flight_draft" in rec:
            out["camera_ranges"] = rec.get("camera_ranges")
            out["ball_flights"] = rec.get("ball_flights")
            out["flight_draft"] = rec.get("flight_draft")
        elif "propagation_masks" in rec:
            out["propagation_masks"] = rec["propagation_masks"]
        else:
            out["skipped_lines"] += 1
    return out


def _read_legacy(path: Path) -> dict:
    data = json.loads(path.read_text())
    if (
        not isinstance(data, dict)
        or data.get("format") != AUTOSAVE_FORMAT
        or not isinstance(data.get("annotations"), dict)
    ):
        raise ValueError("not an autosave journal")
    return data


def pending_recovery(project: Project) -> dict | None:
    """The unsaved work left by a session that did not save (``read_journal``'s dict), or
    None. Records equal to what is saved (a kill between saving and removing the journal)
    are dropped. A journal that cannot be read is moved aside (``.unreadable``)."""
    path, legacy = autosave_path(project), _legacy_path(project)
    src = path if path.exists() else legacy if legacy.exists() else None
    if src is None:
        return None
    try:
        data = read_journal(src) if src == path else _read_legacy(src)
    except (OSError, ValueError):
        src.replace(src.with_name(src.name + ".unreadable"))
        return None
    _drop_saved(project, data)
    if (
        not data["annotations"]
        and data.get("camera_ranges") is None
        and data.get("ball_flights") is None
        and not data.get("flight_draft")
        and data.get("propagation_masks") is None
    ):
        return None
    return data


def _drop_saved(project: Project, data: dict) -> None:
    ids = {f.id for f in project.frames}
    for fid, ann in list(data["annotations"].items()):
        if fid not in ids:
            continue  # left for restore_unsaved_state to report
        try:
            saved = project.load_annotation(fid)
        except (OSError, ValueError):
            continue
        if saved is not None and json.loads(json.dumps(saved.to_json())) == ann:
            del data["annotations"][fid]
    ranges = [{"first": r.first, "last": r.last, "source": r.source} for r in project.camera_ranges]
    flights = [[b.start, b.middle, b.end] for b in project.ball_flights]
    if data.get("camera_ranges") == ranges and data.get("ball_flights") == flights:
        data["camera_ranges"] = data["ball_flights"] = None
    if data.get("propagation_masks") is not None:
        from courtstudio.io.masks_file import masks_path, read_masks_file

        try:
            saved_masks = read_masks_file(masks_path(project.root))[0]
        except ValueError:
            saved_masks = None
        if saved_masks == data["propagation_masks"]:
            data["propagation_masks"] = None


def discard_recovery(project: Project) -> None:
    _remove_journal(project)

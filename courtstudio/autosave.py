"""Autosave journal and crash recovery.

After every edit (every command pushed, undone or redone) the document's unsaved state is
written atomically to ``PROJECT/.courtstudio/autosave.json``, so a crash or a kill loses no
click. Saving clears the journal. On the next open ``pending_recovery`` returns it and the app
offers to restore it (``AnnotationDocument.restore_unsaved_state``).
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from courtstudio.document import AnnotationDocument
from courtstudio.project import Project
from exporters.atomic import write_json_atomic

AUTOSAVE_FORMAT = "courtstudio.autosave"
AUTOSAVE_VERSION = 1


def autosave_path(project: Project) -> Path:
    return project.root / ".courtstudio" / "autosave.json"


class Autosave:
    def __init__(self, doc: AnnotationDocument):
        self.doc = doc
        self.path = autosave_path(doc.project)
        doc.undo_stack.changed.connect(self.write)
        doc.saved.connect(self.clear)

    def write(self) -> None:
        if not self.doc.is_dirty:
            self.clear()
            return
        write_json_atomic(self.path, {
            "format": AUTOSAVE_FORMAT, "format_version": AUTOSAVE_VERSION,
            "written_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            **self.doc.unsaved_state()})

    def clear(self) -> None:
        if self.path.exists():
            self.path.unlink()

    def close(self) -> None:
        self.doc.undo_stack.changed.disconnect(self.write)
        self.doc.saved.disconnect(self.clear)


def pending_recovery(project: Project) -> dict | None:
    """The journal left by a session that did not save, or None. A journal that cannot be
    read is moved aside (``autosave.json.unreadable``) rather than deleted."""
    path = autosave_path(project)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        if data.get("format") != AUTOSAVE_FORMAT or not isinstance(data.get("annotations"),
                                                                     dict):
            raise ValueError("not an autosave journal")
    except (OSError, ValueError):
        path.replace(path.with_name(path.name + ".unreadable"))
        return None
    if (not data["annotations"] and data.get("camera_ranges") is None
            and data.get("ball_flights") is None):
        return None
    return data


def discard_recovery(project: Project) -> None:
    path = autosave_path(project)
    if path.exists():
        path.unlink()

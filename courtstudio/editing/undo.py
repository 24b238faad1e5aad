"""Undo/redo: a command stack on the model (every edit is a command with do/undo).

Consecutive commands with the same ``merge_key`` merge into one (a keypoint drag is one undo
step, not a hundred). The stack knows its clean index (what is saved on disk).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from courtstudio.editing.events import Signal


class ReadOnlyError(ValueError):
    """An edit on a document opened read-only (the message says why it is read-only)."""


@dataclass
class Command:
    """An edit: ``apply(state)`` sets the model to ``state``; do = apply(after), undo =
    apply(before). States are small value snapshots of the part of the model edited."""

    text: str
    apply: Callable[[Any], None]
    before: Any
    after: Any
    merge_key: Any = None

    def do(self) -> None:
        self.apply(self.after)

    def undo(self) -> None:
        self.apply(self.before)


class UndoStack:
    def __init__(self, limit: int = 1000):
        self._commands: list[Command] = []
        self._index = 0  # commands[:index] are done
        self._clean = 0
        self.limit = limit
        self.read_only: str | None = None  # why edits are refused (another writer), or None
        # the last push merged into the previous command (a drag in progress): the autosave
        # journals the drag once, when break_merge ends it
        self.merged_last = False
        self.changed = Signal("undo.changed")

    def _check_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"read-only: {self.read_only}")

    def push(self, cmd: Command) -> None:
        """Do ``cmd`` and record it (dropping the redo branch); merge with the previous
        command when both carry the same non-None merge_key."""
        self._check_writable()
        cmd.do()
        del self._commands[self._index :]
        if self._clean > self._index:
            self._clean = -1  # the saved state is no longer reachable
        prev = self._commands[-1] if self._commands else None
        if (
            cmd.merge_key is not None
            and prev is not None
            and prev.merge_key == cmd.merge_key
            and self._clean != self._index
        ):
            prev.after = cmd.after
            self.merged_last = True
        else:
            self.merged_last = False
            self._commands.append(cmd)
            if len(self._commands) > self.limit:
                self._commands.pop(0)
                self._clean -= 1
        self._index = len(self._commands)
        self.changed.emit()

    def undo(self) -> bool:
        self._check_writable()
        self.merged_last = False
        if not self.can_undo:
            return False
        self._index -= 1
        self._commands[self._index].undo()
        self.changed.emit()
        return True

    def redo(self) -> bool:
        self._check_writable()
        self.merged_last = False
        if not self.can_redo:
            return False
        self._commands[self._index].do()
        self._index += 1
        self.changed.emit()
        return True

    def break_merge(self) -> None:
        """End the current merge run (e.g. on mouse release); emits ``changed`` when the run
        merged moves (so they are journaled now)."""
        if self._index > 0:
            self._commands[self._index - 1].merge_key = None
        if self.merged_last:
            self.merged_last = False
            self.changed.emit()

    @property
    def index(self) -> int:
        """How many commands are done (the position in the stack)."""
        return self._index

    @property
    def can_undo(self) -> bool:
        return self._index > 0

    @property
    def can_redo(self) -> bool:
        return self._index < len(self._commands)

    @property
    def undo_text(self) -> str:
        return self._commands[self._index - 1].text if self.can_undo else ""

    @property
    def redo_text(self) -> str:
        return self._commands[self._index].text if self.can_redo else ""

    @property
    def is_clean(self) -> bool:
        return self._index == self._clean

    def set_clean(self) -> None:
        self._clean = self._index
        self.changed.emit()

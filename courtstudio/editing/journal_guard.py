"""An autosave that never fails silently (Qt-free).

If the recovery journal cannot be written (disk full, folder made read-only, a value JSON
refuses), going on would leave an edit on screen that a crash would lose. ``GuardedAutosave``
reverts the undo stack to the last state the journal holds and reports the error through
``on_error(exc)`` (the app shows a critical dialog); a journal that cannot be cleared after a
save is reported the same way (nothing is reverted: the edits are saved).
"""

from __future__ import annotations

from typing import Callable

from courtstudio.editing.autosave import Autosave
from courtstudio.editing.document import AnnotationDocument


class GuardedAutosave(Autosave):
    def __init__(self, doc: AnnotationDocument, on_error: Callable[[Exception], None]):
        self.on_error = on_error
        self._journaled_index = doc.undo_stack.index
        self._reverting = False
        super().__init__(doc)

    def write(self) -> None:
        if self._reverting:
            return
        try:
            super().write()
        except (OSError, ValueError) as exc:
            self._revert()
            self.on_error(exc)
            return
        self._journaled_index = self.doc.undo_stack.index

    def clear(self) -> None:
        try:
            super().clear()
        except OSError as exc:
            self.on_error(exc)

    def _revert(self) -> None:
        """Step the undo stack back to the state last written to the journal."""
        stack, target = self.doc.undo_stack, self._journaled_index
        if stack.index == target and self.doc.is_dirty and stack.can_undo:
            target -= 1  # a drag merged into the last command, or a full stack: undo it
        self._reverting = True
        try:
            while stack.index > target and stack.can_undo:
                stack.undo()
            while stack.index < target and stack.can_redo:
                stack.redo()
        finally:
            self._reverting = False
        self._journaled_index = stack.index

"""A minimal Qt-free signal: models emit, views (Qt or not) listen.

Every ``connect`` has its ``disconnect``; a slot raising does not stop the others (the error
is re-raised after all slots ran, so tests still see it).
"""

from __future__ import annotations

from typing import Callable


class Signal:
    def __init__(self, name: str = "signal"):
        self.name = name
        self._slots: list[Callable] = []

    def connect(self, slot: Callable) -> Callable:
        if slot not in self._slots:
            self._slots.append(slot)
        return slot

    def disconnect(self, slot: Callable) -> None:
        self._slots.remove(slot)

    def emit(self, *args) -> None:
        first_error = None
        for slot in list(self._slots):
            try:
                slot(*args)
            except Exception as exc:  # noqa: BLE001 - re-raised below
                first_error = first_error or exc
        if first_error is not None:
            raise first_error

    def __len__(self) -> int:
        return len(self._slots)

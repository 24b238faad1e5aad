"""``torch`` for the test modules, imported at its first use rather than when the module is
collected: every xdist worker collects every test module, and importing torch costs each of
them ~2.5 s of CPU. The tests that use torch run in one worker (the ``torch`` xdist group,
tests/conftest.py), so the other one never imports it."""

from __future__ import annotations

import importlib
from types import ModuleType


class _LazyTorch:
    """Attribute access imports torch; use ``torch.module()`` for the module itself (to
    monkeypatch one of its attributes)."""

    @staticmethod
    def module() -> ModuleType:
        return importlib.import_module("torch")

    def __getattr__(self, name: str):
        if name.startswith("_"):  # collection probes (_mock_name, __wrapped__...): not torch's
            raise AttributeError(name)
        return getattr(self.module(), name)


torch = _LazyTorch()

"""The examples in the docstrings run (and stay true): every module of the project's
packages whose docstrings hold a ``>>>`` example (a spec's keypoints moved to the line
centres while its package docstring still showed the outer edge, unchecked)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# hmr imports torch lazily and annotation_ui is Qt: both hold no examples today, and would
# be collected here the day they do
# a long expected line may wrap (ruff's 100 columns)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
PACKAGES = ("court_specs", "courtstudio", "exporters", "geometry", "qa", "safe_io", "hmr")


def _modules_with_examples() -> list[str]:
    names = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if ">>> " not in path.read_text(encoding="utf-8"):
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_examples_are_found():
    assert "geometry.fit_extrapolation" in MODULES and "court_specs" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result}"

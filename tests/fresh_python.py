"""Run Python code in a fresh interpreter with the repository importable (for tests of what a
new process imports, or of how it exits)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_fresh(code: str, timeout_s: float = 120.0) -> subprocess.CompletedProcess:
    """``python -c code`` with PYTHONPATH = the repository root; stdout and stderr captured
    as text. Raises subprocess.TimeoutExpired after timeout_s."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=timeout_s,
    )

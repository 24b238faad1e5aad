"""The bundled sample project, copied where the app may write (autosave, saves).

The copy lives in ``$COURTSTUDIO_HOME`` (default ``~/.courtstudio``); an existing copy is
reused so an annotator's work on it survives.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from courtstudio.reconstruct import SAMPLE_PROJECT


def user_home() -> Path:
    return Path(os.environ.get("COURTSTUDIO_HOME", Path.home() / ".courtstudio"))


def sample_project_copy(dest: Path | None = None) -> Path:
    dest = Path(dest) if dest is not None else user_home() / "sample_project"
    if not (dest / "courtstudio_project.json").exists():
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(SAMPLE_PROJECT, dest)
    return dest

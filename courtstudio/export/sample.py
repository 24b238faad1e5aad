"""The bundled sample project, copied where the app may write (autosave, saves).

The copy lives in ``$COURTSTUDIO_HOME`` (default ``~/.courtstudio``) under a folder named by
a digest of the bundled sample's project and annotation files: an existing copy is reused so
an annotator's work on it survives, and a newer bundled sample gets a fresh copy beside it
instead of being hidden behind an old one.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.settings import user_home


def sample_digest(root: Path = SAMPLE_PROJECT) -> str:
    """12 hex digits over the sample's project file and annotations (what a copy edits)."""
    h = hashlib.sha1()
    for p in [root / "courtstudio_project.json"] + sorted((root / "annotations").glob("*.json")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def sample_project_copy(dest: Path | None = None) -> Path:
    dest = Path(dest) if dest is not None else user_home() / f"sample_project_{sample_digest()}"
    if not (dest / "courtstudio_project.json").exists():
        if dest.exists():
            shutil.rmtree(dest)
        # never a session's lock or journal, should the bundled folder have one
        shutil.copytree(SAMPLE_PROJECT, dest, ignore=shutil.ignore_patterns(".courtstudio"))
    return dest

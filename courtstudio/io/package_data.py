"""Where the data files the code opens live, installed or not.

Schemas, court specs and QA wording sit inside their packages and are found with
importlib.resources. The sample project lives in the source tree at ``samples/sample_project``;
a wheel carries it as ``courtstudio/_samples/sample_project`` (pyproject.toml maps the folder in),
and the PyInstaller bundle beside the packages as in the source tree.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def package_file(package: str, *parts: str) -> Path:
    """The path of a data file shipped inside ``package`` (a folder on disk: wheels install
    unzipped, and the bundle extracts its data files)."""
    return Path(str(resources.files(package).joinpath(*parts)))


def sample_project_dir() -> Path:
    """The bundled sample project's folder (read-only: the app edits a copy,
    courtstudio.export.sample)."""
    installed = package_file("courtstudio", "_samples", "sample_project")
    if (installed / "courtstudio_project.json").is_file():
        return installed
    return Path(__file__).resolve().parents[2] / "samples" / "sample_project"

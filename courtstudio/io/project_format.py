"""What the project file and the annotation files share: ProjectError, the format version
this CourtStudio reads, and the check of a file's format name and version."""

from __future__ import annotations

from pathlib import Path

from courtstudio.io.points_file import InputError

FORMAT_VERSION = 1


class ProjectError(InputError):
    """A project or annotation file is malformed; the message names the file and field."""


def _check_version(data: dict, path: Path, fmt: str) -> None:
    if data.get("format") != fmt:
        raise ProjectError(f"{path}: field format: expected {fmt!r}, got {data.get('format')!r}")
    v = data.get("format_version")
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ProjectError(f"{path}: field format_version: expected a positive integer")
    if v > FORMAT_VERSION:
        raise ProjectError(
            f"{path}: format_version {v} is newer than this CourtStudio reads "
            f"({FORMAT_VERSION}); upgrade CourtStudio. The file was not changed"
        )

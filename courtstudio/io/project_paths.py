"""What a project file may name: bare frame ids, paths that stay inside the project, numbers
in sane ranges. Qt-free; every check raises the caller's error naming the file and field.

A project folder is handed from annotator to annotator, so everything in it is untrusted:
a frame id becomes a file name (``annotations/<id>.json``), a path is opened for reading or
writing. The rules (docs/formats.md, "Project safety rules"):

- a frame id is 1..128 characters from ``A-Z a-z 0-9 _ - .``, starts with a letter or a
  digit, contains no ``..``; an annotation's ``frame_id`` equals its file's stem;
- every path the project names is relative and, after resolving symlinks, inside the project
  folder (not the folder itself);
- the project's own folders (``annotations``, ``.courtstudio``, ``meshes``, ...) are not links
  leaving the project.
"""

from __future__ import annotations

import math
import re
from pathlib import Path, PurePosixPath

FRAME_ID_MAX_CHARS = 128
FRAME_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_UNSAFE_CHARS_RE = re.compile(r"[^A-Za-z0-9_.\-]+")

# folders a project writes into (or reads recovery data from): never links leaving it
PROJECT_FOLDERS = ("annotations", ".courtstudio", "meshes", "propagation", "truth", "frames")

PIXEL_LIMIT = 1e6  # |u|, |v|, box corners: pixels
HEIGHT_LIMIT_M = 100.0  # |lowest_vertex_height_m|
IMAGE_SIDE_LIMIT = 100_000  # image_size: pixels per side
FPS_LIMIT = 10_000.0
INDEX_LIMIT = 10**9  # video frame index
PLAYER_ID_LIMIT = 10**6
NAME_MAX_CHARS = 1000


def frame_id_problem(fid) -> str | None:
    """Why ``fid`` is not a valid frame id, or None if it is."""
    if not isinstance(fid, str) or not fid:
        return "expected a non-empty string"
    if len(fid) > FRAME_ID_MAX_CHARS:
        return f"longer than {FRAME_ID_MAX_CHARS} characters"
    if not FRAME_ID_RE.fullmatch(fid) or ".." in fid:
        return (
            f"{fid[:60]!r} is not a bare name (letters, digits, '_', '-', '.'; starting "
            "with a letter or digit; no '..')"
        )
    return None


def check_frame_id(fid, where: str, error: type[Exception]) -> str:
    problem = frame_id_problem(fid)
    if problem:
        raise error(f"{where}: {problem}")
    return fid


def safe_frame_id(text: str) -> str:
    """A valid frame id made from any file stem ('My Match 1' -> 'My_Match_1')."""
    fid = _UNSAFE_CHARS_RE.sub("_", text).replace("..", "_").lstrip("._-")
    return fid[: FRAME_ID_MAX_CHARS - 12] or "frame"


def relative_path_problem(rel) -> str | None:
    """Why ``rel`` cannot name a file inside a project (syntax only), or None."""
    if not isinstance(rel, str) or not rel:
        return "expected a path relative to the project"
    if "\\" in rel or "\x00" in rel:
        return f"{rel[:80]!r}: backslashes and NUL are not allowed (use '/')"
    p = PurePosixPath(rel)
    if p.is_absolute() or re.match(r"^[A-Za-z]:", rel):
        return f"{rel[:80]!r} is absolute; expected a path relative to the project"
    if ".." in p.parts:
        return f"{rel[:80]!r} leaves the project ('..')"
    return None


def resolve_inside(root: Path, rel, where: str, error: type[Exception]) -> Path:
    """``root / rel`` after checking it stays inside ``root`` once symlinks are resolved."""
    problem = relative_path_problem(rel)
    if problem:
        raise error(f"{where}: {problem}")
    root_real = Path(root).resolve()
    path = Path(root) / rel
    real = path.resolve()
    if real == root_real or not real.is_relative_to(root_real):
        raise error(
            f"{where}: {rel[:80]!r} resolves to {real}, outside the project "
            f"{root_real} (links leaving the project are refused)"
        )
    return path


def check_project_folders(root: Path, error: type[Exception]) -> None:
    """Refuse a project whose own folders (or project file) are links leaving it."""
    root_real = Path(root).resolve()
    for name in PROJECT_FOLDERS + ("courtstudio_project.json",):
        p = Path(root) / name
        if p.is_symlink() or p.exists():
            real = p.resolve()
            if real == root_real or not real.is_relative_to(root_real):
                raise error(
                    f"{p}: links to {real}, outside the project (refused: saves and "
                    "recovery data must stay in the project)"
                )


def finite_number(value, where: str, error: type[Exception], limit: float) -> float:
    """A JSON number (not a bool), finite, with |value| <= limit."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"{where}: expected a number, got {value!r:.40}")
    try:
        x = float(value)
    except OverflowError:
        raise error(f"{where}: number too large") from None
    if not math.isfinite(x) or abs(x) > limit:
        raise error(f"{where}: {x!r} is not a finite number within +-{limit:g}")
    return x


def bounded_int(value, where: str, error: type[Exception], low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise error(f"{where}: expected an integer in {low}..{high}, got {value!r:.40}")
    return value

"""Loading and validating court spec files (JSON, schema in schema/court_spec.schema.json)."""

from __future__ import annotations

import hashlib
import os
import re
from contextlib import contextmanager
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from court_specs.bundled_digests import SCHEMA_SHA256, SPEC_SHA256
from court_specs.model import CORNERS, CourtSpec, Zone
from court_specs.synthesis import (
    DEFAULT_BALL_RADIUS_M,
    DEFAULT_LINE_WIDTH_M,
    check_optional_fields,
    parse_raised_surface,
    parse_synthesis,
)
from safe_io.validation import (
    MAX_ABS_WORLD_M,
    field_path,
    first_schema_error,
    parse_json_bytes,
    read_file_bytes,
)

SPEC_DIR = Path(str(resources.files("court_specs")))  # the bundled specs (package data)
SCHEMA_PATH = SPEC_DIR / "schema" / "court_spec.schema.json"
MAX_SPEC_BYTES = 4 * 1024 * 1024  # the bundled specs are ~20 KB
# User spec folders, searched before the bundled one: os.pathsep-separated (the CLI's
# --specs-dir and the app's Preferences set it; docs/court_specs.md)
SPECS_DIR_ENV = "COURTSTUDIO_SPECS_DIR"
SPEC_ID = re.compile(r"[a-z][a-z0-9_]*")  # the schema's id pattern: a file name, never a path


class SpecError(ValueError):
    """A court spec file is missing, malformed or inconsistent; names the file and field."""


# the user's settings (File > Preferences > Court specs folder), after the environment's
_configured_dirs: tuple[str, ...] = ()


def configure_spec_dirs(dirs) -> None:
    """The spec folders of the user's settings (``courtstudio.io.settings.Settings.specs_dir``),
    searched after COURTSTUDIO_SPECS_DIR / --specs-dir and before the bundled specs; set by
    whoever loads the settings (the app, the CLI). Empty: none."""
    global _configured_dirs
    _configured_dirs = tuple(str(d) for d in dirs or () if d and str(d).strip())


def spec_dirs() -> list[Path]:
    """The folders searched for ``<id>.json``, first match wins: the user's folders
    (COURTSTUDIO_SPECS_DIR, os.pathsep-separated, in order), then the bundled specs. A user
    folder that does not exist is an error (a typo would otherwise hide the user's sports)."""
    dirs: list[Path] = []
    sources = [
        (part, f"from {SPECS_DIR_ENV} or --specs-dir")
        for part in os.environ.get(SPECS_DIR_ENV, "").split(os.pathsep)
    ]
    sources += [(part, "from Preferences: Court specs folder") for part in _configured_dirs]
    for part, where in sources:
        if not part.strip():
            continue
        d = Path(part).expanduser()
        if not d.is_dir():
            raise SpecError(f"{d}: spec folder not found ({where})")
        if d not in dirs:
            dirs.append(d)
    return dirs + [SPEC_DIR]


@contextmanager
def extra_spec_dirs(dirs):
    """Put ``dirs`` (folder paths) first on the search path for the with-block, through
    COURTSTUDIO_SPECS_DIR so worker processes started inside it see them too (the CLI's
    --specs-dir); no dirs: no change."""
    dirs = [str(d) for d in dirs or ()]
    if not dirs:
        yield
        return
    old = os.environ.get(SPECS_DIR_ENV)
    os.environ[SPECS_DIR_ENV] = os.pathsep.join(dirs + ([old] if old else []))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(SPECS_DIR_ENV, None)
        else:
            os.environ[SPECS_DIR_ENV] = old


def _spec_paths() -> dict[str, Path]:
    """id -> file of every spec on the search path (the first folder holding an id wins)."""
    found: dict[str, Path] = {}
    for d in spec_dirs():
        for p in sorted(d.glob("*.json")):
            if SPEC_ID.fullmatch(p.stem):  # other names cannot be asked for by id
                found.setdefault(p.stem, p)
    return found


def available_specs() -> list[str]:
    """Ids of the specs on the search path (spec_dirs): the user's and the bundled ones."""
    return sorted(_spec_paths())


@lru_cache(maxsize=64)
def _load_cached(path_str: str, mtime_ns: int) -> CourtSpec:
    return _parse(Path(path_str))


def load_spec_file(path) -> CourtSpec:
    """Load and validate one spec file; raise SpecError naming the file and the bad field."""
    path = Path(path)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise SpecError(f"{path}: cannot read ({exc.strerror})") from None
    return _load_cached(str(path.resolve()), mtime)


def load_spec(sport_or_path: str) -> CourtSpec:
    """A spec by id ('tennis': from the search path, spec_dirs) or any spec file by path.
    A file found by id must hold that id (its ``id`` field equals its file name)."""
    p = Path(sport_or_path)
    if p.suffix == ".json" or p.exists():
        return load_spec_file(p)
    path = None
    if SPEC_ID.fullmatch(sport_or_path):
        path = next(
            (
                d / f"{sport_or_path}.json"
                for d in spec_dirs()
                if (d / f"{sport_or_path}.json").is_file()
            ),
            None,
        )
    if path is None:
        raise SpecError(
            f"unknown sport {sport_or_path!r}; available: {', '.join(available_specs())}"
        )
    spec = load_spec_file(path)
    if spec.id != sport_or_path:
        raise SpecError(
            f"{path}: field id: {spec.id!r} differs from the file name "
            f"({sport_or_path!r}); name the file <id>.json"
        )
    return spec


def _absurd_number(data) -> str | None:
    """Path of the first number (all metres) with |x| > MAX_ABS_WORLD_M, or None."""
    stack = [((), data)]
    while stack:
        parts, v = stack.pop()
        if isinstance(v, dict):
            stack.extend((parts + (k,), x) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((parts + (i,), x) for i, x in enumerate(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > MAX_ABS_WORLD_M:
            return field_path(parts)
    return None


@lru_cache(maxsize=1)
def _bundled() -> tuple[Path, bool]:
    """(the bundled specs' folder, resolved; whether the schema is the one the digest table
    was written under)."""
    same = hashlib.sha256(SCHEMA_PATH.read_bytes()).hexdigest() == SCHEMA_SHA256
    return SPEC_DIR.resolve(), same


def _checked_before(path: Path, raw: bytes) -> bool:
    """True when path (resolved) is a bundled spec file whose bytes ``raw`` passed the
    current schema when court_specs/bundled_digests.py was written: the schema check (and the
    jsonschema import it needs, 40-60 ms of a command's start-up) would find nothing. Every
    other file, an edited bundled one included, is checked."""
    want = SPEC_SHA256.get(path.name)
    if want is None:
        return False
    folder, same_schema = _bundled()
    return same_schema and path.parent == folder and hashlib.sha256(raw).hexdigest() == want


def _parse(path: Path) -> CourtSpec:
    raw = read_file_bytes(path, MAX_SPEC_BYTES, SpecError, "court spec file")
    data = parse_json_bytes(raw, path, SpecError)
    problem = None if _checked_before(path, raw) else first_schema_error(SCHEMA_PATH, data)
    if problem:
        raise SpecError(f"{path}: {problem}")
    absurd = _absurd_number(data)
    if absurd:
        raise SpecError(f"{path}: field {absurd}: magnitude above {MAX_ABS_WORLD_M:g} m")

    def bad(field: str, msg: str):
        raise SpecError(f"{path}: field {field}: {msg}")

    if data["default_plane"] not in data["planes"]:
        bad(
            "default_plane",
            f"{data['default_plane']!r} is not one of planes ({', '.join(data['planes'])})",
        )
    if abs(data["planes"][data["default_plane"]]) > 1e-12:
        bad("planes", "the default plane (the playing surface) must be z = 0")
    for c in CORNERS:
        if c not in data["keypoints"]:
            bad(f"keypoints.{c}", "missing (every spec names its four outer corners)")
    L, W = data["length_m"], data["width_m"]
    expect = {
        "far_left_corner": (0, 0),
        "far_right_corner": (0, W),
        "near_left_corner": (L, 0),
        "near_right_corner": (L, W),
    }
    for c, (x, y) in expect.items():
        kx, ky, kz = data["keypoints"][c]
        if abs(kx - x) > 1e-6 or abs(ky - y) > 1e-6 or abs(kz) > 1e-6:
            bad(
                f"keypoints.{c}",
                f"expected ({x}, {y}, 0) for a {L} x {W} court, got ({kx}, {ky}, {kz})",
            )
    names = [z["name"] for z in data["zones"]]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        bad("zones", f"duplicate zone name(s): {', '.join(sorted(dup))}")
    if data["net"] is not None:
        for k in ("post_left_top", "post_right_top"):
            if abs(data["net"][k][0] - data["net"]["x_m"]) > 1e-6:
                bad(f"net.{k}", "post is not on the net line x = net.x_m")
    check_optional_fields(data, bad)
    zones = [
        Zone(
            name=z["name"],
            label=z["label"],
            half=z.get("half"),
            polygon=np.asarray(z["polygon"], float),
        )
        for z in data["zones"]
    ]
    return CourtSpec(
        id=data["id"],
        name=data["name"],
        length_m=float(L),
        width_m=float(W),
        planes={k: float(v) for k, v in data["planes"].items()},
        default_plane=data["default_plane"],
        keypoints={k: np.asarray(v, float) for k, v in data["keypoints"].items()},
        lines={k: np.asarray(v, float) for k, v in data["lines"].items()},
        zones=zones,
        net=data["net"],
        frame_phrase=data.get("frame_phrase", ""),
        notes=data.get("notes", ""),
        ball_radius_m=float(data.get("ball_radius_m", DEFAULT_BALL_RADIUS_M)),
        broadcast_view=data.get("broadcast_view", "end"),
        source=str(path),
        raw=data,
        line_width_m=float(data.get("line_width_m", DEFAULT_LINE_WIDTH_M)),
        line_widths_m={k: float(v) for k, v in data.get("line_widths_m", {}).items()},
        raised_surface=parse_raised_surface(data),
        synthesis=parse_synthesis(data),
    )

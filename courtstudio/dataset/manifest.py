"""Dataset manifests: the clips and projects a dataset build covers, and its QA options.

A manifest is JSON or YAML (schema: ``manifest.schema.json`` beside this file, documented in
docs/scale.md)::

    {"clips": [{"id": "ao2025_r1", "video": "clips/ao2025_r1.mp4", "sport": "tennis",
                "match": "ao2025_m07", "references": [{"frame": 0, "points": "ref.json"}]},
               {"id": "club_p3", "project": "projects/club_p3", "sport": "pickleball"}],
     "qa": {"seed": 0, "per_image": 12, "bench_fraction": 0.2, "export_every": 25}}

Relative paths are relative to the manifest's folder. Every error names the manifest and the
field (``clips[1].video``) and is a ``ManifestError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("manifest.schema.json")
MAX_MANIFEST_BYTES = 64 * 1024 * 1024


class ManifestError(ValueError):
    """The manifest is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class ClipReference:
    """A reference frame of a video clip: its index and its clicked court keypoints file."""

    frame: int
    points: Path


@dataclass(frozen=True)
class Clip:
    """One clip of the build: a video with reference frames, or an annotated project."""

    id: str
    sport: str
    match: str
    video: Path | None = None
    project: Path | None = None
    references: tuple[ClipReference, ...] = ()
    players: bool = False
    export_every: int | None = None


@dataclass(frozen=True)
class QAOptions:
    seed: int = 0
    per_image: int = 12
    bench_fraction: float = 0.2
    export_every: int = 25
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Manifest:
    path: Path
    clips: tuple[Clip, ...]
    qa: QAOptions


def _read(path: Path):
    from safe_io.validation import read_json_file

    try:
        st = path.stat()
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read the manifest ({exc.strerror})") from None
    if not path.is_file():
        raise ManifestError(f"{path}: not a regular file")
    if st.st_size > MAX_MANIFEST_BYTES:
        raise ManifestError(
            f"{path}: {st.st_size} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may have"
        )
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(path.read_text())
        except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
            raise ManifestError(
                f"{path}: not valid YAML ({' '.join(str(exc).split())[:200]})"
            ) from None
        _check_finite(data, path, [])
        return data
    data = read_json_file(path, ManifestError, "manifest")
    _check_finite(data, path, [])
    return data


def _check_finite(obj, path: Path, where: list) -> None:
    """YAML (and Python's json) accept .nan / Infinity: refuse them, naming the field."""
    from safe_io.validation import field_path

    if isinstance(obj, float) and not math.isfinite(obj):
        raise ManifestError(f"{path}: field {field_path(where)}: {obj} is not a finite number")
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite(v, path, where + [str(k)])
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_finite(v, path, where + [i])


def _existing(base: Path, value: str, path: Path, where: str, kind: str) -> Path:
    from courtstudio.io.project import PROJECT_FILE

    p = Path(value)
    p = p if p.is_absolute() else base / p
    if kind == "file" and not p.is_file():
        raise ManifestError(f"{path}: field {where}: no such file {p}")
    if kind == "project" and not (p / PROJECT_FILE).is_file():
        raise ManifestError(
            f"{path}: field {where}: {p} is not a CourtStudio project (no {PROJECT_FILE})"
        )
    return p


def load_manifest(path) -> Manifest:
    """Read and validate a manifest (JSON or YAML); paths resolved against its folder."""
    from court_specs import SpecError, load_spec
    from safe_io.validation import first_schema_error

    path = Path(path)
    data = _read(path)
    err = first_schema_error(SCHEMA_PATH, data)
    if err:
        raise ManifestError(f"{path}: {err}")
    base = path.parent
    clips, seen = [], set()
    for i, c in enumerate(data["clips"]):
        where = f"clips[{i}]"
        if c["id"] in seen:
            raise ManifestError(f"{path}: field {where}.id: {c['id']!r} is used twice")
        seen.add(c["id"])
        try:
            load_spec(c["sport"])
        except SpecError as exc:
            raise ManifestError(f"{path}: field {where}.sport: {exc}") from None
        refs = tuple(
            ClipReference(
                r["frame"],
                _existing(base, r["points"], path, f"{where}.references[{j}].points", "file"),
            )
            for j, r in enumerate(c.get("references", []))
        )
        if "video" in c:
            video = _existing(base, c["video"], path, f"{where}.video", "file")
            if not refs:
                raise ManifestError(
                    f"{path}: field {where}.references: a video clip needs "
                    "at least one reference frame with clicked keypoints"
                )
            project = None
        else:
            video, project = (
                None,
                _existing(base, c["project"], path, f"{where}.project", "project"),
            )
        clips.append(
            Clip(
                c["id"],
                c["sport"],
                c.get("match", c["id"]),
                video,
                project,
                refs,
                bool(c.get("players", False)),
                c.get("export_every"),
            )
        )
    q = dict(data.get("qa") or {})
    known = {k: q.pop(k) for k in ("seed", "per_image", "bench_fraction", "export_every") if k in q}
    return Manifest(path, tuple(clips), QAOptions(**known, extra=q))

"""Exporting a frame's reconstruction: camera files, scene (JSON + HDF5), GLB, overlay.

Shared by ``courtstudio reconstruct`` / ``export --format scenes`` and the app's File > Export,
so a frame exports identically from either. Works from an AnnotationDocument, so unsaved edits,
static-camera ranges and video frames are all handled in one place.

An export folder carries a manifest, ``courtstudio_export.json`` (docs/formats.md): tool
version, time, and per frame its status and files (bytes, SHA-256). Each frame's outputs are
written into a temporary folder beside it and swapped in as a unit; what the previous
manifest listed for a frame and this run did not write (a frame that now fails or is
skipped) is removed and reported. A non-empty folder that is not a previous export is
refused unless ``force``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Callable

from court_specs import load_spec
from courtstudio.editing.document import AnnotationDocument
from courtstudio.export.frame_export import (  # noqa: F401
    KEPT,
    OUTPUT_NAMES,
    OVERLAY_FORMATS,
    ExportStatus,
    FrameSummary,
    _ball_status,
    _player_record,
    export_frame,
)
from courtstudio.io.project import FrameRef
from exporters.coco import write_coco_court_keypoints
from exporters.scene import TOOL_VERSION
from safe_io.atomic import (
    clean_stale_temp_files,
    is_temp_name,
    make_temp_dir,
    replace_dir,
    write_json_atomic,
)

MANIFEST_NAME = "courtstudio_export.json"
MANIFEST_FORMAT = "courtstudio.export"
MANIFEST_VERSION = 1


class ExportFolderError(ValueError):
    """The output folder is not empty and is not a previous export (pass force)."""

    def __init__(self, folder: Path, why: str):
        super().__init__(
            f"{folder}: {why}; choose an empty folder or a previous export, or "
            "write into it anyway with --force"
        )
        self.folder = folder


def export_frames(
    doc: AnnotationDocument,
    frames: list[FrameRef],
    out_dir,
    progress: Callable[[int, int, FrameSummary], bool] | None = None,
    force: bool = False,
    overlay_format: str = "png",
    overlay: bool = True,
    glb: bool = True,
) -> list[FrameSummary]:
    """Export frames; ``progress(done, total, summary)`` returning False cancels. A frame
    that fails is reported and the others go on. Writes summary.json, COCO keypoints and the
    manifest. Raises ExportFolderError for a non-empty folder that is not a previous export
    (unless ``force``). overlay / glb: also write the overlay image / scene.glb per frame."""
    out_dir = Path(out_dir)
    previous = read_previous_export(out_dir, force)
    out_dir.mkdir(parents=True, exist_ok=True)
    clean_stale_temp_files(out_dir)
    entries: dict[str, dict] = dict(previous.get("frames", {})) if previous else {}
    if previous is None:  # so that a killed first export is still known as an export
        _write_manifest(out_dir, doc, entries, {})
    out = []
    for i, frame in enumerate(frames):
        s, entry = _export_frame_unit(
            doc,
            frame,
            out_dir,
            entries.get(frame.id),
            previous is not None,
            overlay_format,
            overlay,
            glb,
        )
        entries[frame.id] = entry
        out.append(s)
        if progress is not None and progress(i + 1, len(frames), s) is False:
            break
    top = [p.name for p in export_coco(doc, frames, out_dir)]
    write_json_atomic(
        out_dir / "summary.json", {"project": doc.project.name, "frames": [vars(s) for s in out]}
    )
    top.append("summary.json")
    for name in set(previous.get("files", {}) if previous else ()) - set(top):
        p = out_dir / name
        if _plain_name(name) and p.is_file() and not p.is_symlink():
            p.unlink()  # e.g. the COCO file of a sport no longer exported
    _write_manifest(out_dir, doc, entries, {name: _file_record(out_dir / name) for name in top})
    return out


def _write_manifest(out_dir: Path, doc: AnnotationDocument, frames: dict, files: dict) -> None:
    write_json_atomic(
        out_dir / MANIFEST_NAME,
        {
            "format": MANIFEST_FORMAT,
            "format_version": MANIFEST_VERSION,
            "tool": "courtstudio",
            "tool_version": TOOL_VERSION,
            "written_utc": _now(),
            "project": doc.project.name,
            "frames": frames,
            "files": files,
        },
    )


def read_previous_export(out_dir: Path, force: bool = False) -> dict | None:
    """The manifest of a previous export in ``out_dir`` (None for a missing or empty folder,
    or with ``force`` for a folder that is not an export)."""
    if not out_dir.exists():
        return None
    if not out_dir.is_dir():
        raise ExportFolderError(out_dir, "not a folder")
    path = out_dir / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if (
            not isinstance(data, dict)
            or data.get("format") != MANIFEST_FORMAT
            or not isinstance(data.get("frames"), dict)
        ):
            raise ValueError("not a manifest")
        if data.get("format_version") != MANIFEST_VERSION:
            raise ExportFolderError(
                out_dir,
                f"an export of another CourtStudio version "
                f"(manifest version {data.get('format_version')})",
            )
        return data
    except ExportFolderError:
        if force:
            return None
        raise
    except (OSError, ValueError, RecursionError):
        pass
    if force or not any(not is_temp_name(p.name) for p in out_dir.iterdir()):
        return None
    raise ExportFolderError(
        out_dir, f"not empty and not a CourtStudio export (no readable {MANIFEST_NAME})"
    )


def _export_frame_unit(
    doc,
    frame: FrameRef,
    out_dir: Path,
    before: dict | None,
    was_export: bool,
    overlay_format: str,
    overlay: bool = True,
    glb: bool = True,
) -> tuple[FrameSummary, dict]:
    """Export one frame into a temporary folder and swap it in for ``out_dir/<id>``, keeping
    files no export wrote there; returns the summary and its manifest entry."""
    target = out_dir / frame.id
    if os.path.lexists(target) and (target.is_symlink() or not target.is_dir()):
        s = FrameSummary(
            frame.id,
            frame.sport,
            ExportStatus.ERROR,
            f"{target} exists and is not a folder: left alone",
        )
        return s, {"status": ExportStatus.ERROR, "message": s.message, "files": {}}
    tmp = make_temp_dir(target)
    try:
        try:
            s = export_frame(
                doc,
                frame,
                out_dir,
                overlay=overlay,
                glb=glb,
                into=tmp,
                overlay_format=overlay_format,
            )
        except ValueError as exc:
            s = FrameSummary(frame.id, frame.sport, ExportStatus.ERROR, " ".join(str(exc).split()))
        if s.status not in KEPT:  # partial outputs of a failed frame are not kept
            shutil.rmtree(tmp)
            tmp.mkdir()
        written = {p.name: _file_record(p) for p in sorted(tmp.iterdir())}
        ours = set((before or {}).get("files", {}))
        if target.is_dir():
            for p in target.iterdir():
                mine = p.name in ours or (was_export and p.name in OUTPUT_NAMES)
                if p.name in written:
                    continue
                if mine:
                    s.removed.append(p.name)
                else:  # not an export's file: it stays
                    os.replace(p, tmp / p.name)
        s.removed.sort()
        if any(tmp.iterdir()):
            replace_dir(tmp, target)
        else:
            tmp.rmdir()
            if target.exists():
                replace_dir(None, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    entry = {"status": s.status, "message": s.message, "exported_utc": _now(), "files": written}
    return s, entry


def _file_record(path: Path) -> dict:
    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    return {"bytes": path.stat().st_size, "sha256": digest}


def _plain_name(name) -> bool:
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and "\\" not in name
        and "\0" not in name
    )


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def export_coco(doc: AnnotationDocument, frames: list[FrameRef], out_dir) -> list[Path]:
    """COCO keypoints of the clicked court points, one file per sport."""
    by_sport: dict[str, list] = {}
    for frame in frames:
        if not doc.has_annotation_file(frame.id):
            continue
        ann = doc.annotation(frame.id)
        if ann.points:
            by_sport.setdefault(frame.sport, []).append(
                {
                    "id": frame.id,
                    "file_name": frame.image or f"{frame.video}#{frame.index}",
                    "image_size": ann.image_size,
                    "points": ann.points,
                }
            )
    return [
        write_coco_court_keypoints(
            Path(out_dir) / f"court_keypoints_{sport}.coco.json",
            sport,
            load_spec(sport).keypoint_names,
            items,
        )
        for sport, items in by_sport.items()
    ]

"""cameras.jsonl, propagation's per-frame records: reading them back (a resumed run, the app,
the dataset build) with every record checked as untrusted input, and writing them atomically.
Record fields: docs/formats.md."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from geometry.camera import Camera

MAX_JSONL_BYTES = 1024**3  # cameras.jsonl: ~1 KB a frame, a million frames
STATUSES = tuple(Status)


def check_record(d) -> str | None:
    """Why a cameras.jsonl record is unusable (None: it is fine). A record with a camera
    (K) must hold a valid one (K, R, t, image_size, dist: finite, a rotation, positive
    focal, pixels <= 1e6, metres <= 1e4) and a numeric rms_px."""
    from geometry.errors import GeometryError
    from safe_io.validation import MAX_ABS_PIXEL, MAX_ABS_WORLD_M

    if not isinstance(d, dict):
        return "expected a JSON object"
    f = d.get("frame")
    if not isinstance(f, int) or isinstance(f, bool) or f < 0:
        return "field frame: expected a frame number >= 0"
    if d.get("status") not in STATUSES:
        return f"field status: expected one of {', '.join(STATUSES)}"
    rms = d.get("rms_px")
    if rms is not None and (
        not isinstance(rms, (int, float)) or isinstance(rms, bool) or not 0 <= rms <= MAX_ABS_PIXEL
    ):
        return "field rms_px: expected pixels >= 0 or null"
    ref = d.get("reference")
    if ref is not None and (not isinstance(ref, int) or isinstance(ref, bool)):
        return "field reference: expected a frame number"
    for k in ("reason",):
        if k in d and not isinstance(d[k], str):
            return f"field {k}: expected text"
    if "K" in d:
        if rms is None:
            return "field rms_px: a record with a camera needs its RMS"
        try:
            cam = Camera.from_dict(d, "camera")
        except GeometryError as exc:
            return f"field {exc}"
        if (
            np.abs(cam.K).max() > MAX_ABS_PIXEL
            or max(cam.image_size) > MAX_ABS_PIXEL
            or np.abs(cam.camera_centre_world).max() > MAX_ABS_WORLD_M
            or np.abs(cam.dist).max() > MAX_ABS_WORLD_M
        ):
            return "field K/t/dist/image_size: absurd magnitude"
    return None


def read_done(path: Path, problems: list | None = None) -> dict[int, dict]:
    """Valid records of a cameras.jsonl by frame (a partial last line from a kill, and any
    line that is not a valid record, is skipped and, when ``problems`` is given, described
    there as 'line N: why'). The file must be a regular file of at most MAX_JSONL_BYTES."""
    done = {}
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return done
    for d, _, _ in valid_lines(path, iter_jsonl_lines(path), problems):
        done[d["frame"]] = d
    return done


def iter_jsonl_lines(path: Path, max_bytes: int = MAX_JSONL_BYTES):
    """The lines of a cameras.jsonl (a regular file of at most max_bytes; InputError), one
    bytes object at a time."""
    from courtstudio.io.points_file import InputError
    from safe_io.validation import iter_file_lines

    return iter_file_lines(path, max_bytes, InputError, "cameras.jsonl file")


def valid_lines(path: Path, lines, problems: list | None = None):
    """(record, byte offset, byte length without the newline) of each valid record line of
    a cameras.jsonl, in file order, from its lines (an iterable of bytes, each with its
    newline but perhaps the last: iter_jsonl_lines); the others (not JSON, not a valid
    record: every record is checked as untrusted input, check_record) are skipped and, when
    ``problems`` is given, described there as '<path>: line N: why'."""
    from courtstudio.io.points_file import InputError
    from safe_io.validation import parse_json_text

    pos = 0
    for n, raw in enumerate(lines, 1):
        line_start, pos = pos, pos + len(raw)
        raw = raw[:-1] if raw.endswith(b"\n") else raw
        line = raw.decode("utf-8", "replace")
        if not line.strip():
            continue
        try:
            d = parse_json_text(line, f"{path}: line {n}", InputError)
        except InputError as exc:
            if problems is not None:
                problems.append(str(exc))
            continue
        why = check_record(d)
        if why is not None:
            if problems is not None:
                problems.append(f"{path}: line {n}: {why}")
            continue
        yield d, line_start, len(raw)


def iter_records(path: Path):
    """The records of a cameras.jsonl a run of this process has just written (propagate
    with keep_records=False), one dict at a time in file order: memory of one record. Not for
    files handed over (read_done checks every record)."""
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def write_jsonl_atomic(path: Path, records: list[dict]) -> None:
    from safe_io.atomic import write_text_atomic

    write_text_atomic(path, "".join(json.dumps(r) + "\n" for r in records))

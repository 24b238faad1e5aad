"""Reading untrusted files, and JSON-schema validation with errors that name the bad field.

Every file a user hands over is untrusted. ``read_json_file`` is the one entry point for JSON:

* regular files only (a FIFO, a device such as ``/dev/zero`` or a folder is refused before a
  byte is read; the file is opened non-blocking and checked again with ``fstat``);
* at most ``MAX_JSON_BYTES`` (64 MiB) read, unless the caller passes a smaller or larger limit;
* nesting at most ``MAX_JSON_DEPTH`` (64) arrays/objects deep (checked before parsing, so a
  deeply nested file never reaches the recursive parser);
* numbers: ``NaN``/``Infinity`` refused, floats that overflow to infinity refused, integers of
  more than ``MAX_INT_DIGITS`` (18) digits refused, and any number with
  ``|x| > MAX_JSON_ABS`` (1e15) refused; the error names the file and the field path
  (``players[1].box_xyxy[2]``).

Domain loaders check their own, tighter magnitudes (metres, pixels) with ``check_finite_array``.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import jsonschema

MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 18
MAX_JSON_ABS = 1e15
# Domain magnitudes (documented in docs/formats.md "Limits on untrusted input")
MAX_ABS_WORLD_M = 1e4  # any world coordinate or distance, metres
MAX_ABS_PIXEL = 1e6  # any pixel coordinate or focal length, pixels

_BRACKET_STEP = np.zeros(256, np.int8)
_BRACKET_STEP[[ord("["), ord("{")]] = 1
_BRACKET_STEP[[ord("]"), ord("}")]] = -1
_STRING_RE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


@lru_cache(maxsize=8)
def schema_validator(schema_path: str) -> "jsonschema.Draft202012Validator":
    import jsonschema  # here: 40-60 ms to import, and a command may check no schema

    return jsonschema.Draft202012Validator(json.loads(Path(schema_path).read_text()))


def field_path(parts) -> str:
    """['players', 1, 'id'] -> 'players[1].id'."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def check_regular_file(path, error: type[Exception] = ValueError, what: str = "file") -> int:
    """Raise ``error`` unless ``path`` is an existing regular file (symlinks to one are fine);
    return its size in bytes. Never opens the file, so a FIFO cannot block."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (OSError, ValueError) as exc:
        raise error(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{path}: is a folder, expected a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path}: not a regular file (a device, FIFO or socket), expected a {what}")
    return st.st_size


def _open_regular(path: Path, error: type[Exception], what: str) -> int:
    """A read-only descriptor of a regular file (opened non-blocking and re-checked with
    fstat: no race with a swapped-in FIFO); raise ``error`` naming the file otherwise."""
    check_regular_file(path, error, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise error(f"{path}: not a regular file, expected a {what}")
    return fd


def _chunks(fd: int, path: Path, max_bytes: int, error: type[Exception], what: str):
    """The file's bytes in chunks of at most 1 MiB; ``error`` once more than max_bytes."""
    left = max_bytes + 1
    while left > 0:
        try:
            b = os.read(fd, min(left, 1 << 20))
        except OSError as exc:
            raise error(f"{path}: cannot read ({exc.strerror})") from None
        if not b:
            return
        left -= len(b)
        if left <= 0:
            raise error(f"{path}: larger than the {_size_text(max_bytes)} limit for a {what}")
        yield b


def read_file_bytes(
    path, max_bytes: int, error: type[Exception] = ValueError, what: str = "file"
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; raise ``error`` naming the file
    otherwise. Opens non-blocking and re-checks with fstat (no race with a swapped-in FIFO),
    then reads at most ``max_bytes + 1`` bytes."""
    path = Path(path)
    fd = _open_regular(path, error, what)
    try:
        return b"".join(_chunks(fd, path, max_bytes, error, what))
    finally:
        os.close(fd)


def iter_file_lines(path, max_bytes: int, error: type[Exception] = ValueError, what: str = "file"):
    """The lines of a regular file of at most ``max_bytes``, one bytes object at a time
    (each with its b"\\n", the last one perhaps without): what read_file_bytes checks, with
    memory of a line and a chunk instead of the whole file. ``error`` (naming the file) is
    raised when the limit is passed, perhaps after some lines were yielded."""
    path = Path(path)
    fd = _open_regular(path, error, what)
    try:
        pieces: list[bytes] = []  # of a line that spans chunks (joined once: linear)
        for chunk in _chunks(fd, path, max_bytes, error, what):
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                pieces.append(chunk[start : end + 1])
                yield b"".join(pieces)
                pieces, start = [], end + 1
            if start < len(chunk):
                pieces.append(chunk[start:])
        if pieces:
            yield b"".join(pieces)
    finally:
        os.close(fd)


def _size_text(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n} bytes"


class _BadNumber:
    """Stands in for a refused number while parsing, so the field path can be reported."""

    __slots__ = ("text", "why")

    def __init__(self, text: str, why: str):
        self.text, self.why = text, why


def _parse_constant(text: str):
    return _BadNumber(text, "non-finite number")


def _parse_float(text: str):
    v = float(text)
    if not math.isfinite(v):
        return _BadNumber(text[:40], "number overflows to infinity")
    if abs(v) > MAX_JSON_ABS:
        return _BadNumber(text[:40], f"magnitude above {MAX_JSON_ABS:g}")
    return v


def _parse_int(text: str):
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        return _BadNumber(text[:20] + "...", f"integer of {digits} digits (limit {MAX_INT_DIGITS})")
    v = int(text)
    if abs(v) > MAX_JSON_ABS:
        return _BadNumber(text, f"magnitude above {MAX_JSON_ABS:g}")
    return v


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays/objects in JSON text nest deeper than ``limit`` (brackets inside strings
    ignored). Linear time, no recursion."""
    if text.count("[") + text.count("{") <= limit:
        return False
    stripped = _STRING_RE.sub('""', text)
    b = np.frombuffer(stripped.encode("utf-8", "surrogatepass"), np.uint8)
    step = _BRACKET_STEP[b]
    return bool(step.size) and int(np.cumsum(step, dtype=np.int32).max()) > limit


def _find_bad(data):
    """(path parts, _BadNumber) of the first refused number, or None. Iterative."""
    stack = [((), data)]
    while stack:
        parts, v = stack.pop()
        if isinstance(v, _BadNumber):
            return parts, v
        if isinstance(v, dict):
            stack.extend((parts + (k,), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((parts + (i,), x) for i, x in reversed(list(enumerate(v))))
    return None


def parse_json_text(text: str, where: str, error: type[Exception] = ValueError):
    """Parse untrusted JSON text with the depth and number rules above; ``where`` names the
    source in errors."""
    if json_too_deep(text):
        raise error(f"{where}: nested deeper than {MAX_JSON_DEPTH} levels")
    refused = []  # the tree is walked for the field path only when a number was refused

    def flag(parse):
        def hook(t):
            v = parse(t)
            if isinstance(v, _BadNumber):
                refused.append(v)
            return v

        return hook

    try:
        data = json.loads(
            text,
            parse_constant=flag(_parse_constant),
            parse_float=flag(_parse_float),
            parse_int=flag(_parse_int),
        )
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:  # the depth check should have caught it; never a traceback
        raise error(f"{where}: nested too deeply") from None
    except ValueError as exc:  # e.g. int() refusing a huge literal
        raise error(f"{where}: not valid JSON ({exc})") from None
    bad = _find_bad(data) if refused else None
    if bad is not None:
        parts, num = bad
        raise error(f"{where}: field {field_path(parts)}: {num.why} ({num.text})")
    return data


def read_json_file(
    path, error: type[Exception] = ValueError, what: str = "file", max_bytes: int = MAX_JSON_BYTES
):
    """Parse an untrusted JSON file; raise ``error`` naming the file (and the field, for a
    refused number): missing, not a regular file, over ``max_bytes``, not UTF-8, not JSON
    (with the line of the mistake), nested deeper than ``MAX_JSON_DEPTH``, or holding a
    non-finite, overflowing or absurdly large number."""
    path = Path(path)
    return parse_json_bytes(read_file_bytes(path, max_bytes, error, what), path, error)


def parse_json_bytes(raw: bytes, path, error: type[Exception] = ValueError):
    """read_json_file's parse of a file's bytes ``raw`` (UTF-8, a BOM allowed), for callers
    that also need the bytes; errors name ``path``."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_json_text(text, str(path), error)


def check_finite_array(
    value,
    where: str,
    error: type[Exception] = ValueError,
    shape: tuple | None = None,
    max_abs: float | None = None,
) -> np.ndarray:
    """``value`` as a float64 array; raise ``error`` with ``where`` if it is not numeric, not of
    ``shape`` (None entries are free), holds a non-finite entry or one with |x| > max_abs."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{where}: expected numbers") from None
    if shape is not None and (
        a.ndim != len(shape) or any(s is not None and n != s for n, s in zip(a.shape, shape))
    ):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
        raise error(f"{where}: expected shape {want}, got {a.shape}")
    if a.size and not np.isfinite(a).all():
        raise error(f"{where}: non-finite number")
    if max_abs is not None and a.size and np.abs(a).max() > max_abs:
        raise error(f"{where}: magnitude above the {max_abs:g} limit")
    return a


def first_schema_error(schema_path, data) -> str | None:
    """'field <path>: <message>' for the first error (in document order), or None if valid."""
    errors = sorted(
        schema_validator(str(schema_path)).iter_errors(data),
        key=lambda e: [str(p) for p in e.absolute_path],
    )
    if not errors:
        return None
    e = errors[0]
    return f"field {field_path(e.absolute_path)}: {e.message}"

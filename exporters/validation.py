"""JSON-schema validation with errors that name the path of the bad field."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import jsonschema


@lru_cache(maxsize=8)
def schema_validator(schema_path: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(Path(schema_path).read_text()))


def field_path(parts) -> str:
    """['players', 1, 'id'] -> 'players[1].id'."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def read_json_file(path, error: type[Exception] = ValueError, what: str = "file"):
    """Parse a JSON file; raise ``error`` naming the file: missing, unreadable, or not JSON
    (with the line of the mistake)."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def first_schema_error(schema_path, data) -> str | None:
    """'field <path>: <message>' for the first error (in document order), or None if valid."""
    errors = sorted(schema_validator(str(schema_path)).iter_errors(data),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return None
    e = errors[0]
    return f"field {field_path(e.absolute_path)}: {e.message}"

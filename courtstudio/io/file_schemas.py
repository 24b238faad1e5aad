"""Project and annotation files checked against their JSON schemas (``courtstudio/io/schema/``,
shipped as package data), in the style of the court spec and scene schemas: the first error
names the file and the field (``...json: field players[0].box_xyxy[2]: 1e+30 is greater than
the maximum of 1000000``). The checks that span fields stay in code (courtstudio.io.project,
courtstudio.io.project_paths).

Speed: a video project lists every frame and an open parses every annotation file, so a valid
file is checked by the schema compiled to Python (fastjsonschema: 20,000 frames in about
0.3 s, where jsonschema takes several seconds); only a file that fails is checked again with
jsonschema (safe_io.validation.first_schema_error) for the message every schema error in
CourtStudio has. The schemas use only keywords that mean the same in draft 7 (fastjsonschema)
and 2020-12 (jsonschema); tests/test_file_schemas.py checks both validators agree.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Callable

from courtstudio.io.package_data import package_file
from safe_io.validation import field_path, first_schema_error

PROJECT_SCHEMA = "project"
ANNOTATION_SCHEMA = "annotation"
RECOVERED_STATE_SCHEMA = "recovered_state"  # a recovery journal's unsaved state
MAX_MESSAGE_CHARS = 300  # a schema message quotes the bad value: one short line


@lru_cache(maxsize=8)
def schema_path(name: str) -> Path:
    """``courtstudio/io/schema/<name>.schema.json``, installed or not (cached: an open asks
    once per annotation file)."""
    return package_file("courtstudio.io", "schema", f"{name}.schema.json")


@lru_cache(maxsize=8)
def _compiled(name: str) -> Callable[[object], object]:
    import fastjsonschema  # lazily: 10 ms, and only a command that opens a project needs it

    return fastjsonschema.compile(json.loads(schema_path(name).read_text()))


def check_schema(data: object, name: str, where: str, error: type[Exception]) -> None:
    """Raise ``error('<where>: field <path>: <message>')`` for the first schema error."""
    from fastjsonschema import JsonSchemaValueException

    try:
        _compiled(name)(data)
        return
    except JsonSchemaValueException as exc:
        fast = f"field {field_path(list(exc.path or [])[1:])}: {exc.message}"
    problem = first_schema_error(schema_path(name), data) or fast
    if len(problem) > MAX_MESSAGE_CHARS:
        problem = problem[: MAX_MESSAGE_CHARS - 3] + "..."
    raise error(f"{where}: {problem}")

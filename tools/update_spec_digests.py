"""Rewrite ``court_specs/bundled_digests.py``: the SHA-256 of the schema and of every bundled
court spec file, each spec first validated against the schema (a spec that fails is left out
and named). The loader skips the schema check of a bundled file whose bytes are in the table
(docs/court_specs.md "Validation"); tests/test_court_specs.py fails until the table is rewritten
after a spec or the schema changes.

Run: ``python tools/update_spec_digests.py`` (tools/make_court_specs.py runs it too).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from court_specs.loader import SCHEMA_PATH, SPEC_DIR  # noqa: E402
from safe_io.validation import first_schema_error, read_json_file  # noqa: E402

TABLE = ROOT / "court_specs" / "bundled_digests.py"
HEADER = '''"""SHA-256 of the schema and of the bundled court spec files validated against it
(written by tools/update_spec_digests.py; checked by tests/test_court_specs.py).

A bundled file whose bytes have the digest listed here, under the schema listed here, passed
the schema check when the table was written, so the loader does not run it again: the check
needs jsonschema, whose import alone is 40-60 ms of every command's start-up. Any other file,
or a changed one, is checked as before (docs/court_specs.md "Validation").
"""

'''


def digests() -> tuple[str, dict[str, str]]:
    """(schema digest, {file name: digest}) of the bundled specs that pass the schema."""
    specs = {}
    for path in sorted(SPEC_DIR.glob("*.json")):
        problem = first_schema_error(SCHEMA_PATH, read_json_file(path))
        if problem:
            print(f"{path}: {problem}: left out", file=sys.stderr)
            continue
        specs[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashlib.sha256(SCHEMA_PATH.read_bytes()).hexdigest(), specs


def render() -> str:
    schema, specs = digests()
    rows = "".join(f'    "{name}": "{digest}",\n' for name, digest in specs.items())
    return f'{HEADER}SCHEMA_SHA256 = "{schema}"\nSPEC_SHA256 = {{\n{rows}}}\n'


def main() -> None:
    TABLE.write_text(render())
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()

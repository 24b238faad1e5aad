"""SHA-256 of the schema and of the bundled court spec files validated against it
(written by tools/update_spec_digests.py; checked by tests/test_court_specs.py).

A bundled file whose bytes have the digest listed here, under the schema listed here, passed
the schema check when the table was written, so the loader does not run it again: the check
needs jsonschema, whose import alone is 40-60 ms of every command's start-up. Any other file,
or a changed one, is checked as before (docs/court_specs.md "Validation").
"""

SCHEMA_SHA256 = "9ce707784c4b4be97e6496c794524617ab1507f2a040de3883451cd57d762666"
SPEC_SHA256 = {
    "badminton.json": "9bc23464d223974efa5e365a026f854e12f693bf05b433a1213e2fd7baf10be6",
    "basketball_fiba.json": "b3c4f74df1f20b41e304bbfeead11c991c9d16e9de49b50ad5a7a720f096daf4",
    "basketball_nba.json": "20e197f87df9eb84e2bcef44981dbaedc9e1472b38684d463000fcae98609e0a",
    "beach_volleyball.json": "4b77bcfbeb2167706fa0611de56d4d5eb1b07580214be1c92f9cf1be7efbbaad",
    "pickleball.json": "8ff74010a1b3052570d99bead1b2d122d6090be013be1fefb1e22b2642f3b480",
    "table_tennis.json": "f3b6c3687d3f7f2a7920b98bebeb1186834323bbb974d87929721e9fda20494b",
    "tennis.json": "fe11501a9b77ead1beb1432ab81e2ca89ad47bd2a5843737a60918376e9b839f",
    "volleyball.json": "b02aac9ae9a5acd9f28a1de6f9397abd782d095d1a965446cb24b48fc006fe09",
}

"""SHA-256 of the schema and of the bundled court spec files validated against it
(written by tools/update_spec_digests.py; checked by tests/test_court_specs.py).

A bundled file whose bytes have the digest listed here, under the schema listed here, passed
the schema check when the table was written, so the loader does not run it again: the check
needs jsonschema, whose import alone is 40-60 ms of every command's start-up. Any other file,
or a changed one, is checked as before (docs/court_specs.md "Validation").
"""

SCHEMA_SHA256 = "9ce707784c4b4be97e6496c794524617ab1507f2a040de3883451cd57d762666"
SPEC_SHA256 = {
    "badminton.json": "82f41b05939e1390271d10de6c0b134acf0a2edb8539ae7761d3ea57f020141c",
    "basketball_fiba.json": "e0f7945b02583d5fca2d5e3f353ea0e0cfdb97602c67e67c02fcc2a17dc2db4b",
    "basketball_nba.json": "8bae8b1a823f18a9d9250717a8474c20f8e8de697d1f349119f50fdea4fe6f38",
    "beach_volleyball.json": "348d6f5a6a020d464964c2f0485c61dbf2391b7fdc785b2ec4d18cdbe4a189a8",
    "pickleball.json": "efc58726956209ec8cdc61dd670f5cb2a80d55b2f689410695050ea402ca50e6",
    "table_tennis.json": "1c24cd1d1b3243b18636553a3457724b46e35b9292a233a4f3a4f1a696fc6a62",
    "tennis.json": "19ddb3d0c3c1f3f572eb7cfd74400387f435e89a92b6d6d59c916e16c7828931",
    "volleyball.json": "8276aa8cbfe2592646733d4dfd4e3e3bd6f1d00e43686cc8ee914479136029a6",
}

"""Layer rules (import-linter contracts in pyproject.toml): no Qt outside annotation_ui, no
torch outside hmr, geometry imports none of the other CourtStudio packages."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run([exe, str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 kept, 0 broken" in proc.stdout


def test_contracts_detect_a_violation(tmp_path):
    """The contracts are live: a geometry module importing court_specs breaks them."""
    bad = ROOT / "geometry" / "_tmp_contract_probe.py"
    bad.write_text("import court_specs  # noqa\n")
    try:
        exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
        proc = subprocess.run([exe, str(ROOT / "pyproject.toml"), "--no-cache"],
                              cwd=ROOT, capture_output=True, text=True)
    finally:
        bad.unlink()
    assert proc.returncode != 0
    assert "broken" in proc.stdout

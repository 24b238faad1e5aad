"""Layer rules (import-linter contracts in pyproject.toml): no Qt outside annotation_ui, no
torch outside hmr, geometry imports none of the other CourtStudio packages."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOT_PACKAGES = ("courtstudio", "annotation_ui", "geometry", "hmr", "exporters", "court_specs",
                 "qa")


def test_import_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run([exe, str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 kept, 0 broken" in proc.stdout


def test_contracts_detect_a_violation(tmp_path):
    """The contracts are live: a geometry module importing court_specs breaks them. The probe goes
    into a copy of the packages under tmp_path, never into the source tree."""
    for package in ROOT_PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.json", "*.png", "*.npz"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "geometry" / "_tmp_contract_probe.py").write_text("import court_specs  # noqa\n")
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.run([exe, str(tmp_path / "pyproject.toml"), "--no-cache"],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode != 0
    assert "geometry imports none of the other CourtStudio packages BROKEN" in proc.stdout
    assert "geometry._tmp_contract_probe -> court_specs" in proc.stdout

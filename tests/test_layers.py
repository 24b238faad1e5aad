"""Layer rules (import-linter contracts in pyproject.toml): the packages layered as the README's
layout table says, courtstudio/ layered inside, no Qt outside annotation_ui, no torch outside
hmr, geometry imports none of the other CourtStudio packages."""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
ROOT_PACKAGES = tuple(PYPROJECT["tool"]["importlinter"]["root_packages"])
CONTRACTS = PYPROJECT["tool"]["importlinter"]["contracts"]


def test_import_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run(
        [exe, str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(CONTRACTS)} kept, 0 broken" in proc.stdout


@pytest.mark.parametrize(
    "probe, source, contract, line",
    [
        (
            "geometry/_tmp_contract_probe.py",
            "import court_specs  # noqa\n",
            "geometry imports none of the other CourtStudio packages",
            "geometry._tmp_contract_probe -> court_specs",
        ),
        (
            "court_specs/_tmp_contract_probe.py",
            "import exporters.scene  # noqa\n",
            "The packages are layered as the README's layout table says",
            "court_specs._tmp_contract_probe -> exporters.scene",
        ),
        (
            "courtstudio/io/_tmp_contract_probe.py",
            "import courtstudio.editing.document  # noqa\n",
            "courtstudio/ is layered: cli, then builds and synthesis, export, editing,",
            "courtstudio.io._tmp_contract_probe -> courtstudio.editing.document",
        ),
    ],
)
def test_contracts_detect_a_violation(tmp_path, probe, source, contract, line):
    """The contracts are live: an upward import breaks them. The probe goes into a copy of the
    packages under tmp_path, never into the source tree."""
    for package in ROOT_PACKAGES:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.json", "*.png", "*.npz"),
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / probe).write_text(source)
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.run(
        [exe, str(tmp_path / "pyproject.toml"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode != 0
    out = " ".join(proc.stdout.split())
    assert f"{contract}" in out and "BROKEN" in out, proc.stdout
    assert line in out, proc.stdout

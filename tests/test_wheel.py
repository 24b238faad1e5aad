"""`pip install .` gives a working CourtStudio: the wheel holds every module and every data file
the code opens (specs, schemas, QA wording, the sample project), and the installed copy runs
`courtstudio specs` and `courtstudio reconstruct --sample` away from the source tree
(issue 9 §6)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the top-level packages (import-linter's root_packages: one list for the layer contracts)
PACKAGES = tuple(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
)
SAMPLE = Path("samples") / "sample_project"
CACHES = shutil.ignore_patterns("__pycache__", "*.pyc", ".courtstudio", "*.egg-info")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]


def _source_files() -> list[Path]:
    """The files a clean clone has (git's list when there is one), relative to the root."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
        return [Path(p) for p in out.split("\0") if p and (ROOT / p).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [
            p.relative_to(ROOT)
            for p in ROOT.rglob("*")
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts
        ]


def _expected_in_wheel(files: list[Path]) -> set[str]:
    """Every module and data file of the packages, and the sample under courtstudio/_samples."""
    expected = set()
    for p in files:
        if p.parts[0] in PACKAGES and p.suffix == ".pyx":
            continue  # compiled: the wheel holds the extension module (checked on its own)
        if p.parts[0] in PACKAGES:
            expected.add(p.as_posix())
        elif p.parts[:2] == SAMPLE.parts:
            expected.add((Path("courtstudio/_samples") / p.relative_to("samples")).as_posix())
    return expected


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the clean clone's files (a build writes build/ and
    *.egg-info beside pyproject.toml: never in the source tree)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    for rel in _source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            str(src),
            "-w",
            str(tmp / "dist"),
        ],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whl,) = (tmp / "dist").glob("courtstudio-*.whl")
    return whl


def test_the_wheel_holds_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _expected_in_wheel(_source_files())
    # the files the code opens by name are among them (a guard on the expectation itself)
    for must in [
        "exporters/schema/scene.schema.json",
        "court_specs/tennis.json",
        "court_specs/schema/court_spec.schema.json",
        "qa/data/wording.json",
        "courtstudio/_samples/sample_project/courtstudio_project.json",
        "courtstudio/io/schema/project.schema.json",
        "courtstudio/io/schema/annotation.schema.json",
        "courtstudio/io/schema/recovered_state.schema.json",
    ]:
        assert must in expected
    missing = sorted(expected - names)
    assert not missing, f"not in the wheel: {missing}"
    # each Cython source is in the wheel as its built extension module (and its .pyi stub)
    for pyx in (p for p in _source_files() if p.suffix == ".pyx"):
        stem = pyx.with_suffix("").as_posix()
        assert any(n.startswith(stem + ".") and n.endswith((".so", ".pyd")) for n in names), pyx
        assert stem + ".pyi" in names


def test_the_installed_wheel_runs_away_from_the_source_tree(wheel, tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-compile",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = dict(os.environ, PYTHONPATH=str(site), COURTSTUDIO_HOME=str(tmp_path / "home"))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    # where the installed modules and data files are, then `courtstudio specs` (its main(), in
    # the same process: one Python start; `python -m courtstudio` runs the reconstruction)
    where = run(
        "-c",
        "import courtstudio, court_specs, exporters.scene as s, qa.scenes as q;"
        "import courtstudio.export.reconstruct as r, importlib.metadata as m;"
        "print(courtstudio.__file__); print(r.SAMPLE_PROJECT); print(s.SCHEMA_PATH);"
        "print(q.WORDING_PATH);"
        "print(courtstudio.__version__ == m.version('courtstudio'));"
        "import courtstudio.cli as c, sys; sys.exit(c.main(['specs']))",
    )
    assert where.returncode == 0, where.stderr
    lines = where.stdout.splitlines()
    for line in lines[:4]:
        assert Path(line).is_relative_to(site) and Path(line).exists(), line
    assert lines[4] == "True"
    specs = "\n".join(lines[5:])
    assert "tennis" in specs and "table_tennis" in specs
    out = tmp_path / "out"
    rec = run("-m", "courtstudio", "reconstruct", "--sample", "-o", str(out))
    assert rec.returncode == 0, rec.stderr
    assert json.loads((out / "summary.json").read_text())
    assert sorted(p.parent.name for p in out.glob("*/scene.json")) == [
        "badminton_0001",
        "pickleball_0001",
        "table_tennis_0001",
        "tennis_0001",
    ]

"""What a bench ran on: the versions its figures depend on and whether they are the locked ones.

Bench records are only comparable on the same software: on one machine, the same 643-frame
real clip propagated with OpenCV 5.0.0 and 5.1.0 gave 626 different records (RANSAC, KLT and
remap differ between releases). ``constraints.txt`` holds the tested versions (`make setup`
installs them); each bench prints ``environment_line()`` so a table says what it ran on and
says so when the installed packages are not the locked ones.
"""

from __future__ import annotations

import os
import platform
import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def locked_versions(path: Path = CONSTRAINTS) -> dict[str, str]:
    """{normalised package name: version} of the ``name==version`` lines of a constraints
    file (comments and other lines skipped); {} when the file is missing."""
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        m = _PIN.match(line.strip())
        if m:
            out[_normalised(m.group(1))] = m.group(2)
    return out


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def unlocked_packages(path: Path = CONSTRAINTS) -> list[str]:
    """'name installed X, locked Y' for each locked package installed at another version
    (packages that are not installed are not listed: extras this machine did not ask for)."""
    out = []
    for name, want in sorted(locked_versions(path).items()):
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        if have != want:
            out.append(f"{name} installed {have}, locked {want}")
    return out


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo), else platform.processor() or 'unknown'."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment_line() -> str:
    """One line for a bench's output: Python, NumPy and OpenCV versions, the CPU, and whether
    the installed packages are constraints.txt's."""
    import cv2
    import numpy as np

    differs = unlocked_packages()
    lock = (
        "installed packages are constraints.txt's"
        if not differs
        else "NOT the locked versions (records not comparable): " + "; ".join(differs)
    )
    return (
        f"environment: Python {platform.python_version()}, NumPy {np.__version__}, "
        f"OpenCV {cv2.__version__}, {cpu_model()} x {os.cpu_count()}; {lock}"
    )

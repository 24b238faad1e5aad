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


def machine_pace(units: int = 2000, frames: int = 20, repeats: int = 5) -> tuple[float, float]:
    """(small-call µs, decode ms): the best of ``repeats`` timings of two fixed workloads, to
    tell a machine's pace on the day a table was made. On one 2-vCPU machine the main thread of
    the same propagation run took 4.2 ms a frame one day and 6.6 the next, while its decoding
    moved by 10 % (BENCHMARKS.md, "Fourteenth and fifteenth sessions"): a run's ratio to its
    decode time moves with the first against the second.

    small-call µs: one unit of the small NumPy / OpenCV calls a propagation's main thread is
    made of (a 7x7 solve, a Rodrigues, a projectPoints of 6 points), per unit. decode ms: one
    cv2.imdecode of a fixed 1280x720 JPEG (seeded noise over a gradient, quality 90)."""
    import time

    import cv2
    import numpy as np

    rng = np.random.default_rng(7)
    A = rng.normal(size=(7, 7))
    A = A @ A.T + 7 * np.eye(7)
    b = rng.normal(size=7)
    X = rng.uniform(-5, 5, size=(6, 3))
    X[:, 2] = 0.0
    r, t = np.array([1.9, 0.1, -0.1]), np.array([0.5, 2.0, 30.0])
    K = np.array([[1500.0, 0, 640], [0, 1500.0, 360], [0, 0, 1]])
    dist = np.zeros(5)
    y, x = np.mgrid[0:720, 0:1280]
    img = ((x + y) % 256).astype(np.uint8)[..., None] + rng.integers(0, 8, (720, 1280, 3))
    ok, jpeg = cv2.imencode(".jpg", img.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise RuntimeError("OpenCV could not encode the pace bench's JPEG")

    def small() -> None:
        for _ in range(units):
            np.linalg.solve(A, b)
            cv2.Rodrigues(r)
            cv2.projectPoints(X, r, t, K, dist)

    def decode() -> None:
        for _ in range(frames):
            cv2.imdecode(jpeg, cv2.IMREAD_COLOR)

    def best(fn) -> float:
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    return 1e6 * best(small) / units, 1e3 * best(decode) / frames


def pace_line() -> str:
    """One line for a speed bench's output: machine_pace's two figures and their ratio."""
    small_us, decode_ms = machine_pace()
    return (
        f"machine pace: small NumPy/OpenCV calls {small_us:.1f} µs a unit, 720p JPEG decode "
        f"{decode_ms:.2f} ms (ratio {small_us / decode_ms:.1f}: the higher, the higher a run's "
        f"ratio to its decode time on the same code)"
    )

"""Wheel zoom at the cursor under a real X server (issue 10 section 6): real pointer motion
and wheel clicks from xdotool reach the app through X, so Qt's own cursor position and
last-mouse-move anchor are exercised, not only the offscreen path (tests/test_gui_edges.py).

Starts its own Xvfb when the binaries are there (Debian: ``apt-get install -y xvfb xdotool
libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0``); otherwise skipped, saying what is missing."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from courtstudio.export.reconstruct import SAMPLE_PROJECT

PROBE = Path(__file__).with_name("xvfb_wheel_probe.py")
MISSING = [b for b in ("Xvfb", "xdotool") if shutil.which(b) is None]


@pytest.fixture(scope="module")
def x_display():
    if MISSING:
        pytest.skip(
            f"needs a real X server: {', '.join(MISSING)} not installed "
            "(apt-get install -y xvfb xdotool libxcb-icccm4 libxcb-keysyms1)"
        )
    read, write = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    if not number:
        proc.kill()
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    proc.terminate()
    proc.wait(10)


POSITIONS = [(0.3, 0.35), (0.8, 0.75)]
NOTCHES = 6


@pytest.fixture(scope="module")
def probed(x_display, tmp_path_factory) -> dict:
    """{(fx, fy): the probe's JSON for that pointer position}: one probe process for every
    position (a fresh window on its own copy of the sample each), waiting for events, not
    for fixed times."""
    tmp = tmp_path_factory.mktemp("xvfb")
    args = []
    for k, (fx, fy) in enumerate(POSITIONS):
        project = shutil.copytree(
            SAMPLE_PROJECT, tmp / f"p{k}", ignore=shutil.ignore_patterns(".courtstudio")
        )
        args += [str(project), str(fx), str(fy)]
    env = {
        **os.environ,
        "DISPLAY": x_display,
        "QT_QPA_PLATFORM": "xcb",
        "COURTSTUDIO_HOME": str(tmp / "home"),
        "PYTHONPATH": os.pathsep.join([str(PROBE.parents[1]), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, str(PROBE), str(NOTCHES), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if "could not load the qt platform plugin" in proc.stderr.lower():
        pytest.skip(
            "Qt's xcb plugin cannot load (apt-get install -y libxcb-icccm4 "
            "libxcb-keysyms1 libxcb-cursor0)"
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(line) for line in proc.stdout.strip().splitlines() if line.startswith("{")]
    assert len(lines) == len(POSITIONS), proc.stdout
    return dict(zip(POSITIONS, lines))


@pytest.mark.parametrize("fx, fy", POSITIONS)
def test_wheel_zoom_stays_at_the_cursor_under_x(probed, fx, fy):
    out = probed[(fx, fy)]
    assert out["platform"] == "xcb"
    assert out["scale_after"] / out["scale_before"] == pytest.approx(1.25**NOTCHES, rel=1e-6)
    # one screen pixel is 0.7 image pixels at the final zoom: the same pixel stays under it
    du, dv = (a - b for a, b in zip(out["after"], out["before"]))
    assert abs(du) < 1.0 and abs(dv) < 1.0, out

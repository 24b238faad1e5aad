"""`courtstudio --help` and usage errors import no heavy library (issue 9 §7; the time itself is
measured by bench/cli_startup.py, not here)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "cv2", "jsonschema", "h5py", "scipy", "trimesh", "PIL", "PySide6", "torch")

PROBE = """
import sys
from courtstudio.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("HEAVY:", *sorted(m for m in {heavy!r} if m in sys.modules))
"""


def _heavy_modules_after(*argv: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("HEAVY:")]
    return line.split()[1:]


def test_help_imports_no_heavy_library():
    assert _heavy_modules_after("--help") == []
    assert _heavy_modules_after("calibrate", "--help") == []
    assert _heavy_modules_after("qa", "--help") == []


def test_a_usage_error_imports_no_heavy_library():
    assert _heavy_modules_after("calibrate", "--no-such-option") == []


def test_a_command_still_loads_what_it_needs():
    assert "numpy" in _heavy_modules_after("specs")


def test_propagation_imports_no_scipy():
    """A batch-propagate run imports no SciPy (scipy.optimize alone: 0.36 s of start-up,
    against a 0.3-0.7 s decode of a short clip), the line refinement included: its fits are
    geometry.levenberg_marquardt's (docs/propagation.md, "Speed")."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import courtstudio.cli.propagate, courtstudio.pipeline.propagate\n"
        "import courtstudio.pipeline.propagation_uncertainty, geometry.line_refine\n"
        "from court_specs import load_spec\n"
        "from courtstudio.pipeline.line_refinement import refine_on_lines\n"
        "from courtstudio.synth.synthetic import render_frame, sample_broadcast_camera\n"
        "from geometry.camera_params import ParamModel\n"
        "spec = load_spec('tennis')\n"
        "rng = np.random.default_rng(3)\n"
        "cam = sample_broadcast_camera(spec, (960, 540), rng)\n"
        "m = ParamModel('simple')\n"
        "off = m.to_camera(m.from_camera(cam) + [0, 0, 0.002, 0, 0, 0, 5.0], (960, 540))\n"
        "new, rep = refine_on_lines(off, spec, render_frame(spec, cam, rng=rng), model='keep')\n"
        "assert rep.accepted, rep.reason\n"
        "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_a_video_pass_loads_only_what_it_uses(tmp_path):
    """`batch-propagate VIDEO` on 2 CPUs (no registration ahead) imports neither the project
    modules, nor numpy.ma (NumPy 2.4's np.unique and np.median load it: 15-17 ms), nor
    concurrent.futures (registration ahead's pool: 8-9 ms), nor jsonschema or SciPy
    (docs/propagation.md "Speed", start-up)."""
    import json

    from court_specs import load_spec
    from court_specs.model import PAPER_SIX
    from courtstudio.synth.synthetic_clip import make_clip, write_video

    spec = load_spec("tennis")
    clip = make_clip(spec, 12, (640, 360), seed=4)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    cam = clip.cameras[0]
    pts = {n: [float(c) for c in cam.project(spec.keypoints[n][None])[0]] for n in PAPER_SIX}
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps({"image_size": [640, 360], "points": pts}))
    out = tmp_path / "out"
    unwanted = ("courtstudio.io.project", "numpy.ma", "concurrent.futures", "jsonschema", "scipy")
    code = (
        "import os, sys\n"
        "os.sched_getaffinity = lambda pid: {0, 1}\n"
        "from courtstudio.cli import main\n"
        f"code = main(['batch-propagate', {str(video)!r}, '--sport', 'tennis', '--reference',"
        f" '0:{ref}', '--out', {str(out)!r}, '--quiet'])\n"
        f"print('LOADED:', *sorted(m for m in {unwanted!r} if m in sys.modules))\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (out / "cameras.jsonl").read_text().count("\n") == 12
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("LOADED:")]
    assert line.split()[1:] == []

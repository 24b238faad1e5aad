"""The benches' environment check (bench/machine.py, constraints.txt) and the real-clip run
comparison (bench/real_clips_compare.py): what tells two bench tables apart."""

import json
import sys
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import machine  # noqa: E402
import real_clips_compare  # noqa: E402


def test_locked_versions_reads_pins_and_skips_the_rest(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text(
        "# a comment\n\nopencv-python-headless==5.1.0.95\nPySide6_Essentials==6.11.3  # x\n"
        "torch>=2\n-e /somewhere\nzope.interface==7.1 ; python_version>'3'\n"
    )
    assert machine.locked_versions(f) == {
        "opencv-python-headless": "5.1.0.95",
        "pyside6-essentials": "6.11.3",
        "zope-interface": "7.1",
    }
    assert machine.locked_versions(tmp_path / "missing.txt") == {}


def test_unlocked_packages_names_each_installed_package_at_another_version(tmp_path):
    numpy_version = metadata.version("numpy")
    f = tmp_path / "c.txt"
    f.write_text(f"numpy=={numpy_version}\nno-such-package-here==1.0\n")
    assert machine.unlocked_packages(f) == []  # a package not installed is not listed
    f.write_text("numpy==0.0.1\n")
    assert machine.unlocked_packages(f) == [f"numpy installed {numpy_version}, locked 0.0.1"]


def test_the_suite_runs_on_the_locked_versions():
    """`make setup` installs constraints.txt; CI runs on what the benches were measured on."""
    locked = machine.locked_versions()
    assert {"numpy", "opencv-python-headless", "scipy"} <= set(locked)
    assert machine.unlocked_packages() == []
    line = machine.environment_line()
    assert "OpenCV" in line and "constraints.txt's" in line


def _run(base: Path, clip: str, ref: int, records: list[dict]) -> None:
    d = base / clip / f"ref{ref}"
    d.mkdir(parents=True)
    (d / "cameras.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _records(n: int, rms: float = 0.5) -> list[dict]:
    return [
        {"frame": i, "status": "ok", "rms_px": rms + i * 1e-3, "reference": 0} for i in range(n)
    ]


def test_compare_identical_runs_pass_and_a_changed_field_fails(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    _run(a, "clip", 0, _records(5))
    _run(b, "clip", 0, _records(5))
    assert real_clips_compare.main([str(a), str(b)]) == 0
    assert "1 of 1 runs identical (5 records" in capsys.readouterr().out

    c = tmp_path / "c"
    recs = _records(5)
    recs[3]["rms_px"] += 1e-12  # one bit is a difference
    _run(c, "clip", 0, recs)
    assert real_clips_compare.main([str(a), str(c)]) == 1
    out = capsys.readouterr().out
    assert "clip/ref0: 1 records differ, first frame 3: ['rms_px']" in out


def test_compare_fails_on_missing_frames_and_missing_runs(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    _run(a, "clip", 0, _records(5))
    _run(a, "clip", 7, _records(2))
    _run(b, "clip", 0, _records(4))
    assert real_clips_compare.main([str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "clip/ref7: only in" in out
    assert "frames differ: 1 only in A [4]" in out
    # --clip restricts both sides; nothing to compare is a failure, not a pass
    assert real_clips_compare.main([str(a), str(b), "--clip", "other"]) == 1
    assert "no run to compare" in capsys.readouterr().out
    _run(b, "clip", 7, _records(2))
    assert real_clips_compare.main([str(a), str(b), "--clip", "clip"]) == 1  # ref0 differs


def test_machine_pace_times_both_workloads_and_the_line_reports_them(monkeypatch):
    small_us, decode_ms = machine.machine_pace(units=50, frames=2, repeats=1)
    assert 0 < small_us < 1e5 and 0 < decode_ms < 1e4  # finite, positive, per unit
    monkeypatch.setattr(machine, "machine_pace", lambda: (20.0, 4.0))
    line = machine.pace_line()
    assert "20.0 µs a unit" in line and "4.00 ms" in line and "ratio 5.0" in line


def _camera_records(n: int, shift_m: float = 0.0) -> list[dict]:
    """n records with one tennis broadcast camera, moved sideways by shift_m metres."""
    R = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])  # looking along +y, z up
    t = -R @ np.array([5.5 + shift_m, -20.0, 8.0])
    cam = {
        "K": [[1500.0, 0, 639.5], [0, 1500.0, 359.5], [0, 0, 1]],
        "R": R.tolist(),
        "t": t.tolist(),
        "image_size": [1280, 720],
        "dist": [0.0] * 5,
    }
    return [{**r, **cam} for r in _records(n)]


def test_compare_cameras_keeps_verdicts_exact_and_measures_the_cameras(tmp_path, capsys):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"clips": [{"id": "clip", "sport": "tennis"}]}))
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    _run(a, "clip", 0, _camera_records(4))
    recs = _camera_records(4)
    recs[2] = _camera_records(3, shift_m=0.01)[2]  # 1 cm sideways at 20 m: about 0.75 px
    _run(b, "clip", 0, recs)
    args = ["--cameras", "--manifest", str(manifest)]
    assert real_clips_compare.main([str(a), str(b), *args]) == 0
    out = capsys.readouterr().out
    assert "0 status or reason changes" in out
    assert "above 0.01 / 0.1 / 1 px: 1 / 1 / 0 of 4 records" in out
    recs[1]["status"], recs[1]["reason"] = "flagged", "lines do not match"
    _run(c, "clip", 0, recs)
    assert real_clips_compare.main([str(a), str(c), *args]) == 1
    out = capsys.readouterr().out
    assert "clip/ref0 frame 1: ok (None) -> flagged (lines do not match)" in out
    assert "1 status or reason changes" in out
    assert real_clips_compare.main([str(a), str(c), *args, "--clip", "other"]) == 1

"""The hour-long propagation bench's own pieces (bench/propagation_long.py): the forward-backward
clip has no cut, and its record check catches what a kill and resume could break."""

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import propagation_long as pl  # noqa: E402

from geometry.camera import Camera  # noqa: E402


def test_source_index_plays_forward_and_back_without_a_jump():
    idx = [pl.source_index(k, period=4) for k in range(13)]
    assert idx == [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0]
    long = np.array([pl.source_index(k) for k in range(5 * pl.PERIOD)])
    assert long.min() == 0 and long.max() == pl.PERIOD - 1
    assert np.all(np.abs(np.diff(long)) == 1)  # every step one frame: no cut anywhere


def _camera() -> Camera:
    K = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])
    R = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])  # looking along +y, z up
    return Camera(K=K, R=R, t=np.array([-5.0, 1.5, 40.0]), image_size=(1280, 720))


def _record(i: int, cam: Camera) -> dict:
    return {"frame": i, "status": "ok", "rms_px": 0.1, "reference": 0, **cam.to_dict()}


def test_check_records_passes_a_clean_file_and_names_each_fault(tmp_path):
    cam = _camera()
    cams = [cam] * pl.PERIOD
    f = tmp_path / "cameras.jsonl"
    lines = [json.dumps(_record(i, cam)) for i in range(5)]
    f.write_text("\n".join(lines) + "\n")
    problems, fig = pl.check_records(f, 5, cams)
    assert problems == []
    assert fig["statuses"] == {"ok": 5} and fig["max_px"] < 1e-6

    f.write_text("\n".join(lines[:4] + [lines[2], lines[4][:30]]) + "\n")  # a twice, a cut line
    problems, _ = pl.check_records(f, 5, cams)
    assert problems == ["1 frames written twice", "1 frames without a record"]

    f.write_text("\n".join(lines + ["{not json", "[]"]) + "\n")
    problems, _ = pl.check_records(f, 5, cams)
    assert len(problems) == 1 and problems[0].startswith("2 invalid lines")


def test_line_counter_counts_what_is_added_and_a_replaced_file_afresh(tmp_path):
    f = tmp_path / "cameras.jsonl"
    count = pl.LineCounter(f)
    assert count() == 0  # no file yet
    f.write_text("a\nb\n")
    assert count() == 2
    with open(f, "a") as fh:
        fh.write("c\nd")  # the last line not ended yet
    assert count() == 3
    new = tmp_path / "new"
    new.write_text("x\n")
    new.replace(f)  # an atomic rewrite: another file under the same name
    assert count() == 1

"""bench/real_clips.py scoring (issue 11 §6): held-out frames and flag checks are scored against a
known camera, a flagged frame without a camera counts as off, and --rescore reads a kept
cameras.jsonl; the committed flag-check clicks validate like the annotations."""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from court_specs import load_spec
from geometry.camera import Camera, rotation_look_at

ROOT = Path(__file__).resolve().parents[1]
CLIPS = ROOT / "bench" / "devset_clips"
sys.path.insert(0, str(ROOT / "bench"))
import real_clips  # noqa: E402

MANIFEST = {c["id"]: c for c in json.loads((CLIPS / "manifest.json").read_text())["clips"]}
CHECKS = sorted((CLIPS / "flag_checks").glob("*/*.json"))
ENTRY = {"id": "synthetic", "sport": "basketball_nba", "image_size": [1280, 720]}
NAMES = ["far_key_left_end", "far_key_right_end", "far_free_throw_left", "far_free_throw_right"]


def _camera() -> Camera:
    """A side-on camera 14 m back from the near sideline, 8 m up, over the halfway line."""
    centre = np.array([14.3, -14.0, 8.0])
    R = rotation_look_at(centre, np.array([8.0, 7.6, 0.0]))
    K = np.array([[1400.0, 0, 640], [0, 1400.0, 360], [0, 0, 1]])
    return Camera(K, R, -R @ centre, (1280, 720))


def _clicks(cam: Camera, shift_px: float = 0.0) -> dict:
    spec = load_spec("basketball_nba")
    uv = cam.project(np.array([spec.keypoints[n] for n in NAMES]))
    uv[-1, 0] += shift_px  # one keypoint moved: the frame's worst error is shift_px
    return {n: tuple(map(float, p)) for n, p in zip(NAMES, uv)}


def _record(frame: int, status: str, cam: Camera | None) -> dict:
    rec = {"frame": frame, "status": status, "reason": "", "rms_px": None, "reference": 0}
    if cam is not None:
        rec["rms_px"] = 0.5  # a record with a camera carries its RMS (cameras.jsonl contract)
    if cam is not None:
        rec.update(cam.to_dict())
    return rec


def test_scores_held_out_frames_and_flag_checks_against_the_camera():
    cam = _camera()
    ann = {0: _clicks(cam), 10: _clicks(cam, 0.5), 20: _clicks(cam, 9.0)}
    checks = {30: _clicks(cam, 12.0), 40: _clicks(cam, 2.0), 50: _clicks(cam), 60: _clicks(cam)}
    records = [
        _record(0, "reference", cam),
        _record(10, "ok", cam),
        _record(20, "ok", cam),  # 9 px > 6.7 px at 720p: off, not flagged
        _record(30, "flagged", cam),  # flagged and off
        _record(40, "flagged", cam),  # flagged, 2 px: a false alarm
        _record(50, "flagged", None),  # flagged without a camera: counts as off
        _record(60, "ok", cam),
    ]
    r = real_clips.summarize(ENTRY, records, ann, [0], checks)
    assert [h["frame"] for h in r["held_out"]] == [10, 20]
    assert r["held_out"][0]["max_px"] == pytest.approx(0.5, abs=1e-6)
    assert r["off_px"] == pytest.approx(10 * 720 / 1080)
    assert r["unflagged_off"] == 1 and r["flagged_held"] == 0 and r["flag_precision"] is None
    by = {h["frame"]: h for h in r["flag_checks"]}
    assert by[30]["off"] and by[30]["flagged"] and by[30]["max_px"] == pytest.approx(12.0, abs=1e-6)
    assert by[40]["flagged"] and not by[40]["off"]
    assert by[50]["flagged"] and by[50]["off"] and by[50]["max_px"] is None
    assert not by[60]["flagged"] and not by[60]["off"]
    row = real_clips.flag_table([r]).splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    # flagged (no camera), flagged and off, precision, precision with a camera, left ok, ok off
    assert cells[3:] == ["3 (1)", "2", "0.67", "0.50", "1", "0 (> 6.7)"]


def test_rescore_reads_the_kept_cameras_jsonl(tmp_path):
    cam = _camera()
    run = tmp_path / "synthetic" / "ref0"
    run.mkdir(parents=True)
    records = [_record(0, "reference", cam), _record(10, "flagged", None), _record(10, "ok", cam)]
    (run / "cameras.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    ann = {0: _clicks(cam), 10: _clicks(cam, 1.0)}
    (r,) = real_clips.rescore(tmp_path, ENTRY, ann, {})
    assert r["references"] == [0] and r["frames"] == 2
    (h,) = r["held_out"]  # the last record of a frame wins
    assert h["status"] == "ok" and h["max_px"] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("path", CHECKS, ids=[f"{p.parent.name}/{p.stem}" for p in CHECKS])
def test_flag_check_validates_and_is_not_an_annotated_frame(path):
    clip = MANIFEST[path.parent.name]
    ann = json.loads(path.read_text())
    assert ann["sport"] == clip["sport"] and ann["image_size"] == clip["image_size"]
    spec = load_spec(ann["sport"])
    w, h = ann["image_size"]
    assert len(ann["points"]) >= 2
    for name, uv in ann["points"].items():
        assert name in spec.keypoints
        assert all(isinstance(c, (int, float)) and math.isfinite(c) for c in uv)
        assert -0.5 <= uv[0] <= w - 0.5 and -0.5 <= uv[1] <= h - 0.5
    assert ann["source"]["frame_index"] == int(path.stem) < clip["frame_count"]
    assert not (CLIPS / "annotations" / path.parent.name / path.name).exists()


def test_a_refused_reference_is_reported_and_the_other_references_still_run(
    tmp_path, monkeypatch, capsys
):
    from geometry.errors import CalibrationError

    cam = _camera()
    clip = {**ENTRY, "file": "synthetic.avi", "frame_count": 30}
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"clips": [clip]}))
    ann_dir = tmp_path / "annotations" / "synthetic"
    ann_dir.mkdir(parents=True)
    five = NAMES + ["far_left_corner"]
    spec = load_spec("basketball_nba")
    for frame in (0, 20):
        uv = cam.project(np.array([spec.keypoints[n] for n in five]))
        pts = {n: [float(u), float(v)] for n, (u, v) in zip(five, uv)}
        (ann_dir / f"{frame}.json").write_text(json.dumps({"points": pts}))
    ran = []

    def run_clip(entry, video, ann, out, refs, refine_lines, checks):
        if refs == [0]:
            raise CalibrationError("the clicks nearly lie on one line")
        ran.append(refs)
        records = [_record(0, "ok", cam), _record(20, "reference", cam)]
        return {**real_clips.summarize(entry, records, ann, refs, checks), "wall_s": 1.0}

    monkeypatch.setattr(real_clips, "run_clip", run_clip)
    code = real_clips.main(
        [
            str(tmp_path),
            "--manifest",
            str(manifest),
            "--annotations",
            str(tmp_path / "annotations"),
            "--flag-checks",
            str(tmp_path / "none"),
            "--each-reference",
        ]
    )
    out = capsys.readouterr()
    assert code == 0 and ran == [[20]]
    assert "synthetic reference [0]: the clicks nearly lie on one line" in out.out
    assert "refused, skipped" in out.err

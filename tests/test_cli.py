"""The command line: the documented names, JSON keys and exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from courtstudio.cli import main
from courtstudio.export.reconstruct import SAMPLE_PROJECT

ANN = SAMPLE_PROJECT / "annotations" / "tennis_0001.json"
IMG = SAMPLE_PROJECT / "frames" / "tennis_0001.jpg"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_specs_list_and_json(capsys):
    code, out, _ = run(capsys, "specs")
    assert code == 0 and "tennis" in out and "basketball_nba" in out
    code, out, _ = run(capsys, "specs", "tennis", "--json")
    d = json.loads(out)
    # the crossing of the 10 cm baseline's and 5 cm sideline's centres (docs/court_specs.md)
    assert d["keypoints"]["near_right_corner"] == [23.72, 10.945, 0.0]
    assert (d["length_m"], d["width_m"]) == (23.77, 10.97)
    code, out, _ = run(capsys, "specs", "badminton")
    assert "net_post_left_top" in out


def test_calibrate_writes_the_camera_contract(capsys, tmp_path):
    cam = tmp_path / "camera.json"
    code, out, err = run(
        capsys,
        "calibrate",
        "--sport",
        "tennis",
        "--points",
        ANN,
        "--json",
        "-o",
        cam,
        "--opencv-yaml",
        tmp_path / "cam.yaml",
    )
    assert code == 0, err
    d = json.loads(out)
    assert d == json.loads(cam.read_text())
    for k in (
        "K",
        "R",
        "t",
        "image_size",
        "dist",
        "rms_px",
        "residuals_px",
        "focal_sigma_pct",
        "camera_centre_world",
    ):
        assert k in d
    assert (tmp_path / "cam.yaml").exists()
    code, out, _ = run(capsys, "calibrate", "--sport", "tennis", "--points", ANN)
    assert "leave-one-out" in out and "focal" in out


def test_lift_ball_with_a_minimal_foreign_camera(capsys, tmp_path):
    truth = json.loads((SAMPLE_PROJECT / "truth" / "tennis_0001.json").read_text())
    cam = {k: truth["camera"][k] for k in ("K", "R", "t", "image_size", "dist")}
    (tmp_path / "cam.json").write_text(json.dumps(cam))
    b, g = truth["ball"]["uv"], truth["ball"]["ground_uv"]
    code, out, err = run(
        capsys,
        "lift-ball",
        "--camera",
        tmp_path / "cam.json",
        "--ball",
        *b,
        "--ground",
        *g,
        "--json",
    )
    assert code == 0, err
    d = json.loads(out)
    assert np.allclose(d["world"], truth["ball"]["world"], atol=1e-4)
    assert abs(d["height_m"] - truth["ball"]["world"][2]) < 1e-4


def test_overlay_writes_an_image(capsys, tmp_path):
    run(capsys, "calibrate", "--sport", "tennis", "--points", ANN, "-o", tmp_path / "c.json")
    out_png = tmp_path / "o.png"
    code, _, err = run(
        capsys,
        "overlay",
        "--camera",
        tmp_path / "c.json",
        "--sport",
        "tennis",
        IMG,
        "--points",
        ANN,
        "--ball",
        900,
        300,
        "--ground",
        900,
        500,
        "-o",
        out_png,
    )
    assert code == 0, err
    a, b = cv2.imread(str(out_png)), cv2.imread(str(IMG))
    assert a.shape == b.shape and np.mean(np.any(a != b, axis=2)) > 0.005


def test_reconstruct_sample_and_export(capsys, tmp_path):
    code, out, err = run(capsys, "reconstruct", "--sample", "-o", tmp_path / "out")
    assert code == 0, err
    for f in ("tennis_0001", "badminton_0001", "table_tennis_0001"):
        for name in ("camera.json", "camera.yaml", "scene.json", "scene.glb", "overlay.png"):
            assert (tmp_path / "out" / f / name).exists(), (f, name)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    for fr in summary["frames"]:
        assert fr["status"] == "ok"
        assert abs(fr["focal_error_pct"]) < 2.0
        assert np.linalg.norm(fr["ball_error_cm"]) < 30
        # the sample's players: meshes with simulated HMR depth error, corrected by height
        assert fr["player_pelvis_error_cm"] and max(fr["player_pelvis_error_cm"].values()) < 20
    from exporters.scene import load_scene

    scene = load_scene(tmp_path / "out" / "tennis_0001" / "scene.json")
    assert scene.players[0].vertices_world.shape[1] == 3 and scene.players[0].joints_world
    code, out, err = run(
        capsys, "export", tmp_path / "out" / "tennis_0001" / "scene.json", "-o", tmp_path / "t.glb"
    )
    assert code == 0 and (tmp_path / "t.glb").stat().st_size > 1000
    code, out, err = run(
        capsys, "export", SAMPLE_PROJECT, "--format", "coco", "-o", tmp_path / "coco"
    )
    assert code == 0 and (tmp_path / "coco" / "court_keypoints_tennis.coco.json").exists()


def test_zone(capsys):
    code, out, _ = run(capsys, "zone", "--sport", "basketball_nba", "1.6", "7.62", "--json")
    assert json.loads(out)["label"] == "Restricted Area"


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["calibrate", "--sport", "squash", "--points", ANN], "unknown sport 'squash'"),
        (
            ["calibrate", "--sport", "tennis", "--points", "/nonexistent.json"],
            "no such points file",
        ),
        (["lift-ball", "--camera", ANN, "--ball", "1", "2", "--ground", "3", "4"], "K: missing"),
        (["zone", "--sport", "tennis", "1", "2", "--json"], None),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, msg):
    code, out, err = run(capsys, *argv)
    if msg is None:
        assert code == 0
        return
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("courtstudio: error:") and msg in err


def test_calibrate_reports_bad_points_file_fields(capsys, tmp_path):
    p = tmp_path / "p.json"
    p.write_text(json.dumps({"image_size": [1920, 1080], "points": {"far_left_corner": [1]}}))
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", p)
    assert code == 2 and "points.far_left_corner" in err
    p.write_text(json.dumps({"points": {}}))
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", p)
    assert code == 2 and "image_size: missing" in err
    d = json.loads(ANN.read_text())
    d["points"]["near_left_corner"] = d["points"]["near_right_corner"]
    p.write_text(json.dumps(d))
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", p)
    assert code == 2 and "duplicated click" in err


def test_console_script_help():
    exe = Path(sys.executable).parent / "courtstudio"
    out = subprocess.run([str(exe), "calibrate", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "examples:" in out.stdout


def test_synth_clip_then_propagate(capsys, tmp_path):
    code, out, err = run(
        capsys,
        "synth-clip",
        "--sport",
        "badminton",
        "--frames",
        "12",
        "--size",
        "640",
        "360",
        "-o",
        tmp_path / "c.avi",
        "--points",
        tmp_path / "p.json",
    )
    assert code == 0, err
    code, out, err = run(
        capsys,
        "batch-propagate",
        tmp_path / "c.avi",
        "--sport",
        "badminton",
        "--reference",
        f"0:{tmp_path / 'p.json'}",
        "--out",
        tmp_path / "o",
        "--quiet",
    )
    assert code == 0 and "12 frames" in out

"""Untrusted files and arguments at the command line (issue 8, §3, §4, §6): each known way to
get a traceback, a hang or a runaway allocation now exits 2 with one line naming the file and
field (or, for an optional file, reports it and goes on)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import zlib

import h5py
import numpy as np
import pytest

from courtstudio.cli import main
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from exporters.glb import check_glb_json
from safe_io.images import MAX_IMAGE_PIXELS, max_pixels
from tests.test_cli import ANN, IMG, run  # noqa: F401 (the same sample inputs and runner)


def one_line_error(code, err, *needles):
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("courtstudio: error: "), err
    assert "internal error" not in err, err
    for n in needles:
        assert n in err, err
    return err


@pytest.fixture(scope="module")
def scene_dir(tmp_path_factory):
    """A reconstructed sample frame: scene.json + scene.h5 (with player meshes), camera.json."""
    out = tmp_path_factory.mktemp("scene")
    proj = out / "proj"
    shutil.copytree(SAMPLE_PROJECT, proj)
    data = json.loads((proj / "courtstudio_project.json").read_text())
    data["frames"] = [f for f in data["frames"] if f["id"] == "tennis_0001"]
    (proj / "courtstudio_project.json").write_text(json.dumps(data))
    assert main(["reconstruct", str(proj), "-o", str(out / "r")]) == 0
    return out / "r" / "tennis_0001"


def copy_scene(scene_dir, tmp_path):
    for name in ("scene.json", "scene.h5"):
        shutil.copy(scene_dir / name, tmp_path / name)
    return tmp_path / "scene.json"


# ------------------------------------------------------------------------- §4 resources
def test_points_from_dev_zero_and_a_fifo_are_refused_at_once(capsys, tmp_path):
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", "/dev/zero")
    one_line_error(code, err, "/dev/zero", "not a regular file")
    fifo = tmp_path / "points.json"
    os.mkfifo(fifo)  # opening it for reading would block forever
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", fifo)
    one_line_error(code, err, "not a regular file")


def test_a_huge_declared_hdf5_mesh_is_refused_before_reading(capsys, tmp_path, scene_dir):
    scene = copy_scene(scene_dir, tmp_path)
    with h5py.File(tmp_path / "scene.h5", "a") as f:  # 275 KB on disk, 400M vertices declared
        del f["players/1/vertices_world"]
        f.create_dataset(
            "players/1/vertices_world", shape=(400_000_000, 3), dtype="f4", chunks=(4096, 3)
        )
    assert (tmp_path / "scene.h5").stat().st_size < 5_000_000
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / "x.glb")
    one_line_error(code, err, "players[0].mesh.vertices_world", "over the limit")
    # a camera export needs no mesh and never opens the HDF5 file
    (tmp_path / "scene.h5").unlink()
    os.mkfifo(tmp_path / "scene.h5")
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / "x.yaml")
    assert code == 0, err


def test_hdf5_mesh_datasets_of_the_wrong_kind(capsys, tmp_path, scene_dir):
    scene = copy_scene(scene_dir, tmp_path)
    for make, msg in [
        (lambda f, n: f.create_dataset(n, data="text"), "expected (V, 3)"),
        (lambda f, n: f.create_dataset(n, data=np.full((5, 3), np.nan)), "non-finite"),
        (lambda f, n: f.create_dataset(n, data=np.full((5, 3), 1e9)), "magnitude"),
        (lambda f, n: f.create_group(n), "is not in scene.h5"),
    ]:
        shutil.copy(scene_dir / "scene.h5", tmp_path / "scene.h5")
        with h5py.File(tmp_path / "scene.h5", "a") as f:
            del f["players/1/vertices_world"]
            make(f, "players/1/vertices_world")
        code, _, err = run(capsys, "export", scene, "-o", tmp_path / "x.glb")
        one_line_error(code, err, msg)
    secret = tmp_path / "secret.bin"  # data stored outside the HDF5 file: never read
    np.zeros((5, 3), "<f8").tofile(secret)
    for how in ("external", "link"):
        shutil.copy(scene_dir / "scene.h5", tmp_path / "scene.h5")
        with h5py.File(tmp_path / "scene.h5", "a") as f:
            del f["players/1/vertices_world"]
            if how == "external":
                f.create_dataset(
                    "players/1/vertices_world",
                    shape=(5, 3),
                    dtype="<f8",
                    external=[(str(secret), 0, 120)],
                )
            else:
                with h5py.File(tmp_path / "other.h5", "w") as g:
                    g["v"] = np.zeros((5, 3))
                f["players/1/vertices_world"] = h5py.ExternalLink(str(tmp_path / "other.h5"), "v")
        code, _, err = run(capsys, "export", scene, "-o", tmp_path / "x.glb")
        one_line_error(code, err, "refused")
    data = json.loads(scene.read_text())
    data["players"][0]["mesh"]["hdf5"] = "../../etc/x.h5"
    scene.write_text(json.dumps(data))
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / "x.glb")
    one_line_error(code, err, "mesh.hdf5: expected a file name beside the scene file")


def _png_claiming(w, h):
    def chunk(t, data):
        return (
            struct.pack(">I", len(data))
            + t
            + data
            + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\0" * 100))
        + chunk(b"IEND", b"")
    )


def test_image_dimensions_are_checked_from_the_header(capsys, tmp_path, scene_dir):
    big = tmp_path / "big.png"
    big.write_bytes(_png_claiming(20000, 20000))  # 400 MP declared, a few hundred bytes
    code, _, err = run(
        capsys,
        "overlay",
        big,
        "--camera",
        scene_dir / "camera.json",
        "--sport",
        "tennis",
        "-o",
        tmp_path / "o.png",
    )
    one_line_error(code, err, "20000 x 20000 pixels is over the 100 megapixel limit")
    # the limit is a setting: a lower one refuses the real 2 MP frame, the default takes it
    code, _, err = run(
        capsys,
        "--max-megapixels",
        "1",
        "overlay",
        IMG,
        "--camera",
        scene_dir / "camera.json",
        "--sport",
        "tennis",
        "-o",
        tmp_path / "o.png",
    )
    one_line_error(code, err, "1920 x 1080 pixels is over the 1 megapixel limit")
    assert max_pixels() == MAX_IMAGE_PIXELS  # reset after the command
    code, _, err = run(
        capsys,
        "overlay",
        IMG,
        "--camera",
        scene_dir / "camera.json",
        "--sport",
        "tennis",
        "-o",
        tmp_path / "o.png",
    )
    assert code == 0, err
    trunc = tmp_path / "t.jpg"
    trunc.write_bytes(IMG.read_bytes()[:5000])
    code, _, err = run(
        capsys,
        "overlay",
        trunc,
        "--camera",
        scene_dir / "camera.json",
        "--sport",
        "tennis",
        "-o",
        tmp_path / "o.png",
    )
    one_line_error(code, err, "t.jpg")


# ------------------------------------------------------------------------ §3 finite numbers
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "1e999", "9" * 400])
def test_non_finite_and_huge_numbers_in_points(capsys, tmp_path, literal):
    p = tmp_path / "p.json"
    p.write_text('{"image_size": [1920, 1080], "points": {"far_left_corner": [%s, 3]}}' % literal)
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", p)
    one_line_error(code, err, "field points.far_left_corner[0]")


def test_absurd_pixels_in_points(capsys, tmp_path):
    d = json.loads(ANN.read_text())
    d["points"]["far_left_corner"] = [5e7, 3.0]
    p = tmp_path / "p.json"
    p.write_text(json.dumps(d))
    code, _, err = run(capsys, "calibrate", "--sport", "tennis", "--points", p)
    one_line_error(code, err, "far_left_corner: pixel coordinate beyond 1e+06")


def test_nan_and_absurd_numbers_in_a_spec(capsys, tmp_path):
    text = (SAMPLE_PROJECT.parents[1] / "court_specs" / "tennis.json").read_text()
    spec = json.loads(text)
    bad = tmp_path / "nan_spec.json"
    bad.write_text(text.replace('"height_at_centre_m": 0.914', '"height_at_centre_m": NaN'))
    code, _, err = run(capsys, "specs", bad, "--json")
    one_line_error(code, err, "field net.height_at_centre_m: non-finite")
    spec["keypoints"]["net_centre_top"] = [11.885, 5.485, 1e7]
    bad.write_text(json.dumps(spec))
    code, _, err = run(capsys, "specs", bad)
    one_line_error(code, err, "keypoints.net_centre_top[2]: magnitude above 10000 m")


@pytest.mark.parametrize(
    "field,value,msg",
    [
        (("ball", "world"), [1.0, float("nan"), 0.0], "ball.world[1]: non-finite"),
        (("players", 0, "box_xyxy"), [0, 0, 1e9, 5], "players[0].box_xyxy: magnitude"),
        (("camera", "camera_centre_world"), [1e6, 0, 5], "camera.camera_centre_world: magnitude"),
        (
            ("players", 0, "lowest_vertex_height_m"),
            float("inf"),
            "players[0].lowest_vertex_height_m: non-finite",
        ),
    ],
)
def test_scene_numbers_and_glb_json(capsys, tmp_path, scene_dir, field, value, msg):
    scene = copy_scene(scene_dir, tmp_path)
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / "ok.glb")
    assert code == 0, err
    check_glb_json((tmp_path / "ok.glb").read_bytes())  # strict: no NaN anywhere
    data = json.loads(scene.read_text())
    node = data
    for k in field[:-1]:
        node = node[k]
    node[field[-1]] = value
    scene.write_text(json.dumps(data))  # Python writes NaN / Infinity
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / "bad.glb")
    one_line_error(code, err, msg)
    assert not (tmp_path / "bad.glb").exists()


def test_glb_json_check_refuses_nan():
    body = b'{"accessors": [{"min": [NaN]}]}  '
    glb = (
        b"glTF"
        + struct.pack("<II", 2, 20 + len(body))
        + struct.pack("<I4s", len(body), b"JSON")
        + body
    )
    with pytest.raises(ValueError, match="NaN"):
        check_glb_json(glb)


def test_camera_file_magnitudes_and_sport(capsys, tmp_path, scene_dir):
    cam = json.loads((scene_dir / "camera.json").read_text())
    p = tmp_path / "cam.json"
    for key, value, msg in [
        ("K", [[1e9, 0, 960], [0, 1e9, 540], [0, 0, 1]], "field K"),
        ("image_size", [1920, 10**7], "field image_size"),
        ("sport", 7, "field sport: expected a spec id"),
        ("covariance", {"model": [1], "params": 3}, "field covariance"),
    ]:
        p.write_text(json.dumps({**cam, key: value}))
        code, _, err = run(
            capsys, "lift-ball", "--camera", p, "--ball", "900", "500", "--ground", "900", "600"
        )
        one_line_error(code, err, msg)


# ------------------------------------------------------------------------ §6 no traceback
def test_outputs_that_cannot_be_written(capsys, tmp_path, scene_dir):
    scene = copy_scene(scene_dir, tmp_path)
    (tmp_path / "folder.glb").mkdir()
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / "folder.glb")
    one_line_error(code, err, "folder.glb")
    code, _, err = run(capsys, "export", scene, "-o", tmp_path / ("x" * 300 + ".glb"))
    one_line_error(code, err, "File name too long")
    code, _, err = run(
        capsys,
        "calibrate",
        "--sport",
        "tennis",
        "--points",
        ANN,
        "-o",
        tmp_path / "scene.json" / "cam.json",
    )
    one_line_error(code, err, "scene.json: File exists")  # a file where a folder should be
    code, _, err = run(
        capsys,
        "overlay",
        IMG,
        "--camera",
        scene_dir / "camera.json",
        "--sport",
        "tennis",
        "-o",
        tmp_path / "x.xyz",
    )
    one_line_error(code, err, "x.xyz: cannot write an image with this extension")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.glb", "scene.h5", "scene.json"]


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["synth-clip", "--sport", "tennis", "--frames", "0"], "--frames: expected 1..100000"),
        (
            ["synth-clip", "--sport", "tennis", "--frames", "3", "--reference-frame", "500"],
            "--reference-frame 500: outside the clip's frames 0..2",
        ),
        (["synth-clip", "--sport", "tennis", "--frames", "3", "--cut-at", "7"], "--cut-at 7"),
        (
            ["lift-ball", "--camera", "c.json", "--ball", "nan", "0", "--ground", "0", "0"],
            "expected a finite number",
        ),
        (
            ["calibrate", "--sport", "tennis", "--points", "p.json", "--click-sigma", "0"],
            "expected a positive number",
        ),
        (["zone", "--sport", "tennis", "inf", "0"], "expected a finite number"),
        (["specs", "--bogus"], "unrecognized arguments"),
        (["nosuchcommand"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line(capsys, tmp_path, argv, msg):
    argv = argv + (
        ["-o", str(tmp_path / "c.avi"), "--points", str(tmp_path / "p.json")]
        if argv[0] == "synth-clip"
        else []
    )
    code, _, err = run(capsys, *argv)
    one_line_error(code, err, msg)
    assert not (tmp_path / "c.avi").exists()


def test_optional_files_of_a_frame_do_not_abort_the_export(capsys, tmp_path):
    """A malformed truth file is noted and the frame exports; a truncated mesh .npz fails
    that frame only (reported), the other frames export; a cameras.jsonl record without
    image_size or with rms_px null is skipped."""
    proj = tmp_path / "proj"
    shutil.copytree(SAMPLE_PROJECT, proj)
    (proj / "truth" / "tennis_0001.json").write_text("{}")
    mesh = sorted((proj / "meshes" / "badminton_0001").glob("*.npz"))[0]
    mesh.write_bytes(mesh.read_bytes()[:300])
    (proj / "propagation").mkdir()
    (proj / "propagation" / "cameras.jsonl").write_text(
        '{"frame": 0, "status": "ok", "rms_px": null, "K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}\n'
        '{"frame": 1, "status": "ok", "rms_px": 1.0, "K": 5}\n'
    )
    code, out, err = run(capsys, "reconstruct", proj, "-o", tmp_path / "out")
    assert code == 1, err  # one frame failed
    summary = {
        f["frame_id"]: f
        for f in json.loads((tmp_path / "out" / "summary.json").read_text())["frames"]
    }
    assert summary["tennis_0001"]["status"] == "ok"
    assert "truth file ignored" in summary["tennis_0001"]["message"]
    assert summary["badminton_0001"]["status"] == "error"
    assert mesh.name in summary["badminton_0001"]["message"]
    assert summary["pickleball_0001"]["status"] == "ok"
    assert "Traceback" not in err


def test_cameras_jsonl_reader_skips_and_describes_bad_records(tmp_path):
    from courtstudio.pipeline.propagate import read_done

    good = {
        "frame": 2,
        "status": "ok",
        "rms_px": 0.5,
        "K": [[1000, 0, 640], [0, 1000, 360], [0, 0, 1]],
        "R": np.eye(3).tolist(),
        "t": [0, 0, 10],
        "image_size": [1280, 720],
        "dist": [0, 0, 0, 0, 0],
    }
    lines = [
        json.dumps(good),
        json.dumps({**good, "frame": 3, "rms_px": None}),
        json.dumps({k: v for k, v in {**good, "frame": 4}.items() if k != "image_size"}),
        json.dumps({**good, "frame": 5, "status": 7}),
        '{"frame": 6, "status": "ok", "rm',
    ]
    p = tmp_path / "cameras.jsonl"
    p.write_text("\n".join(lines))
    problems = []
    done = read_done(p, problems)
    assert list(done) == [2]
    assert len(problems) == 4 and "line 3: field camera.image_size: missing" in problems[1]


def test_videos_are_probed_before_decoding(capsys, tmp_path):
    clip, pts = tmp_path / "clip.avi", tmp_path / "ref.json"
    assert (
        main(
            [
                "synth-clip",
                "--sport",
                "tennis",
                "--frames",
                "3",
                "--size",
                "160",
                "96",
                "-o",
                str(clip),
                "--points",
                str(pts),
            ]
        )
        == 0
    )
    capsys.readouterr()
    code, _, err = run(
        capsys,
        "--max-megapixels",
        "0.01",
        "batch-propagate",
        clip,
        "--sport",
        "tennis",
        "--reference",
        f"0:{pts}",
        "--out",
        tmp_path / "p",
        "--quiet",
    )
    one_line_error(code, err, "video frames: 160 x 96 pixels is over the 0.01 megapixel")
    for bad in (b"", clip.read_bytes()[:3000], b"RIFF" + b"\0" * 500):
        (tmp_path / "bad.avi").write_bytes(bad)
        code, _, err = run(
            capsys,
            "batch-propagate",
            tmp_path / "bad.avi",
            "--sport",
            "tennis",
            "--reference",
            f"0:{pts}",
            "--out",
            tmp_path / "q",
            "--quiet",
        )
        one_line_error(code, err, "bad.avi")
    os.mkfifo(tmp_path / "fifo.avi")
    code, _, err = run(
        capsys,
        "batch-propagate",
        tmp_path / "fifo.avi",
        "--sport",
        "tennis",
        "--reference",
        f"0:{pts}",
        "--out",
        tmp_path / "q",
        "--quiet",
    )
    one_line_error(code, err, "no such video or project")

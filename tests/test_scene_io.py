"""Scene files: round trips, unknown keys kept, bad fields named, atomic writes; GLB, OpenCV
YAML and COCO exports."""

import json

import numpy as np
import pytest
import trimesh

from court_specs import load_spec
from exporters.coco import coco_court_keypoints
from exporters.glb import scene_to_glb_bytes
from exporters.opencv_yaml import read_opencv_yaml, write_opencv_yaml
from exporters.scene import (
    JOINT_NAMES,
    BallRecord,
    PlayerRecord,
    Scene,
    SceneError,
    load_scene,
    save_scene,
)
from safe_io import atomic


def make_scene(camera, with_mesh=True):
    rng = np.random.default_rng(0)
    V = rng.normal([15, 4, 0.9], 0.3, (60, 3))
    F = rng.integers(0, 60, (40, 3))
    joints = {n: V[i] for i, n in enumerate(JOINT_NAMES)}
    p1 = PlayerRecord(
        id=1,
        box_xyxy=np.array([10, 20, 110, 300.0]),
        joints_world=joints,
        vertices_world=V if with_mesh else None,
        faces=F if with_mesh else None,
        scale=0.93,
        lowest_vertex_height_m=0.0,
        source="test",
    )
    p2 = PlayerRecord(
        id=2,
        box_xyxy=np.array([500, 20, 600, 300.0]),
        joints_world={n: V[i] + 2 for i, n in enumerate(JOINT_NAMES)},
    )
    ball = BallRecord(
        visible=True,
        uv=np.array([800.0, 400.0]),
        ground_uv=np.array([805, 600.0]),
        world=np.array([15.0, 3.0, 1.2]),
        height_m=1.2,
        sigma_world_m=np.array([0.05, 0.02, 0.03]),
    )
    return Scene(
        frame_id="f1",
        image="frames/f1.jpg",
        image_size=(1920, 1080),
        spec_id="tennis",
        camera=camera,
        camera_info={"rms_px": 0.5},
        ball=ball,
        players=[p1, p2],
        frame_index=3,
        frame_phrase="phrase",
    )


def test_round_trip_with_meshes(tmp_path, tennis_camera):
    s = make_scene(tennis_camera)
    save_scene(s, tmp_path / "scene.json")
    assert (tmp_path / "scene.h5").exists()
    back = load_scene(tmp_path / "scene.json")
    assert np.allclose(back.camera.K, tennis_camera.K)
    assert np.allclose(back.ball.world, s.ball.world)
    assert np.allclose(back.players[0].vertices_world, s.players[0].vertices_world, atol=1e-5)
    assert np.array_equal(back.players[0].faces, s.players[0].faces)
    assert back.players[1].vertices_world is None
    assert np.allclose(back.players[1].joints_world["head"], s.players[1].joints_world["head"])
    assert back.frame_index == 3 and back.camera_info["rms_px"] == 0.5


def test_unknown_keys_survive_load_and_save(tmp_path, tennis_camera):
    path = tmp_path / "scene.json"
    save_scene(make_scene(tennis_camera, with_mesh=False), path)
    d = json.loads(path.read_text())
    d["qa_notes"] = {"keep": True}
    d["ball"]["tracker_id"] = 17
    d["players"][1]["team"] = "blue"
    path.write_text(json.dumps(d))
    s = load_scene(path)
    save_scene(s, path)
    d2 = json.loads(path.read_text())
    assert d2["qa_notes"] == {"keep": True}
    assert d2["ball"]["tracker_id"] == 17
    assert d2["players"][1]["team"] == "blue"


@pytest.mark.parametrize(
    "mutate,field",
    [
        (lambda d: d["players"][0]["joints_world"].pop("head"), "players[0].joints_world"),
        (lambda d: d["camera"].__setitem__("K", [[1, 2], [3, 4]]), "camera.K"),
        (lambda d: d["ball"].pop("world"), "ball"),
        (lambda d: d["court"].__setitem__("frame_convention", "other"), "court.frame_convention"),
        (lambda d: d["frame"].__setitem__("image_size", [0, 10]), "frame.image_size[0]"),
        (lambda d: d["players"][1].__setitem__("id", 1), "players[1].id"),
    ],
)
def test_malformed_scene_names_the_field(tmp_path, tennis_camera, mutate, field):
    path = tmp_path / "scene.json"
    save_scene(make_scene(tennis_camera, with_mesh=False), path)
    d = json.loads(path.read_text())
    mutate(d)
    path.write_text(json.dumps(d))
    with pytest.raises(SceneError) as e:
        load_scene(path)
    assert field in str(e.value) and str(path) in str(e.value)


def test_newer_version_and_missing_hdf5_are_clear(tmp_path, tennis_camera):
    path = tmp_path / "scene.json"
    save_scene(make_scene(tennis_camera), path)
    (tmp_path / "scene.h5").unlink()
    with pytest.raises(SceneError, match=r"players\[0\].mesh.hdf5: cannot open"):
        load_scene(path)
    d = json.loads(path.read_text())
    d["format_version"] = 99
    path.write_text(json.dumps(d))
    with pytest.raises(SceneError, match="newer than this CourtStudio reads"):
        load_scene(path)
    path.write_text("{")
    with pytest.raises(SceneError, match="not valid JSON"):
        load_scene(path)
    with pytest.raises(SceneError, match="nope.json: no such scene file"):
        load_scene(tmp_path / "nope.json")


def test_a_failed_write_keeps_the_previous_file(tmp_path, tennis_camera, monkeypatch):
    path = tmp_path / "scene.json"
    save_scene(make_scene(tennis_camera, with_mesh=False), path)
    before = path.read_text()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError):
        atomic.write_json_atomic(path, {"x": 1})
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["scene.json"]  # no temp file left


def test_glb_export_loads_back(tennis_camera):
    s = make_scene(tennis_camera)
    data = scene_to_glb_bytes(s, load_spec("tennis"))
    import io

    loaded = trimesh.load(io.BytesIO(data), file_type="glb")
    names = set(loaded.geometry)
    assert {"surface", "lines", "net", "ball", "player_1", "camera"} <= names
    # the court lies flat in glTF's y-up frame: nothing below the surface (y = 0), the court
    # spans x, and world +y (right) maps to glTF -z
    bounds = loaded.bounds
    assert abs(bounds[0][1]) < 1e-6 and bounds[1][1] > 5  # camera frustum high above
    assert bounds[1][0] > 23.77 and bounds[0][0] < 0
    assert bounds[0][2] < -10.97 and bounds[1][2] > 0


def test_opencv_yaml_round_trip(tmp_path, tennis_camera):
    p = write_opencv_yaml(tennis_camera, tmp_path / "cam.yaml")
    back = read_opencv_yaml(p)
    assert np.allclose(back.K, tennis_camera.K) and np.allclose(back.R, tennis_camera.R)
    assert np.allclose(back.t, tennis_camera.t) and back.image_size == tennis_camera.image_size


def test_coco_keypoints():
    d = coco_court_keypoints(
        "tennis",
        ["a", "b", "c"],
        [
            {
                "id": "f1",
                "file_name": "x.jpg",
                "image_size": (100, 50),
                "points": {"a": (1, 2), "c": (5, 9)},
            }
        ],
    )
    ann = d["annotations"][0]
    assert ann["keypoints"] == [1.0, 2.0, 2, 0.0, 0.0, 0, 5.0, 9.0, 2]
    assert ann["num_keypoints"] == 2 and ann["bbox"] == [1.0, 2.0, 4.0, 7.0]
    assert d["categories"][0]["keypoints"] == ["a", "b", "c"]


def test_world_convention_round_trips_and_is_validated(tmp_path, tennis_camera):
    import dataclasses

    path = tmp_path / "scene.json"
    save_scene(make_scene(tennis_camera, with_mesh=False), path)
    assert "world_convention" not in json.loads(path.read_text())["court"]  # not recorded
    assert load_scene(path).world_convention == ""
    side = dataclasses.replace(
        make_scene(tennis_camera, with_mesh=False), world_convention="side_on"
    )
    save_scene(side, path)
    assert json.loads(path.read_text())["court"]["world_convention"] == "side_on"
    assert load_scene(path).world_convention == "side_on"
    d = json.loads(path.read_text())
    d["court"]["world_convention"] = "diagonal"
    path.write_text(json.dumps(d))
    with pytest.raises(SceneError, match="world_convention"):
        load_scene(path)

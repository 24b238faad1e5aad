"""Player meshes: the PersonMesh record, mesh files, world placement and height correction."""

import numpy as np
import pytest
import trimesh

from courtstudio.pipeline.players import height_from_ground_click, world_player
from hmr.mesh_files import load_mesh_file
from hmr.person_mesh import MeshError, PersonMesh
from tests.stand_ins import stand_in_player


def test_person_mesh_validation():
    with pytest.raises(MeshError, match=r"vertices_cam: expected \(V, 3\)"):
        PersonMesh(np.zeros((4, 2)), np.zeros((0, 3), int))
    with pytest.raises(MeshError, match="faces"):
        PersonMesh(np.ones((3, 3)), np.array([[0, 1, 5]]))
    with pytest.raises(MeshError, match="joints_cam.head"):
        PersonMesh(np.ones((3, 3)), np.array([[0, 1, 2]]), {"head": [1, 2]})


def test_npz_round_trip(tmp_path, tennis_camera):
    mesh, _, _ = stand_in_player(tennis_camera, (18.0, 4.0))
    mesh.params["betas"] = np.arange(10.0)
    back = PersonMesh.load_npz(mesh.save_npz(tmp_path / "m.npz"))
    assert np.allclose(back.vertices_cam, mesh.vertices_cam, atol=1e-5)
    assert np.array_equal(back.faces, mesh.faces)
    assert back.joints_cam.keys() == mesh.joints_cam.keys() and back.has_body_joints
    assert np.allclose(back.params["betas"], np.arange(10.0))
    (tmp_path / "x.npz").write_bytes(b"not a zip")
    with pytest.raises(MeshError, match="cannot read person mesh"):
        PersonMesh.load_npz(tmp_path / "x.npz")


def test_mesh_files_in_camera_or_world_frame(tmp_path, tennis_camera):
    mesh, Vw, _ = stand_in_player(tennis_camera, (18.0, 4.0))
    cam_file = tmp_path / "cam.ply"
    trimesh.Trimesh(mesh.vertices_cam, mesh.faces, process=False).export(cam_file)
    m1 = load_mesh_file(cam_file)
    assert np.allclose(m1.vertices_cam, mesh.vertices_cam, atol=1e-5) and not m1.joints_cam
    world_file = tmp_path / "world.obj"
    trimesh.Trimesh(Vw, mesh.faces, process=False).export(world_file)
    m2 = load_mesh_file(world_file, frame="world", camera=tennis_camera)
    assert np.allclose(m2.vertices_cam, mesh.vertices_cam, atol=1e-4)
    with pytest.raises(MeshError, match="behind the camera"):
        load_mesh_file(world_file)  # world coordinates read as camera coordinates
    with pytest.raises(MeshError, match="unsupported mesh type"):
        load_mesh_file(tmp_path / "m.txt")


@pytest.mark.parametrize("depth_scale", [0.5, 0.9, 1.3, 2.5])
@pytest.mark.parametrize("lift", [0.0, 0.35])
def test_height_correction_recovers_the_true_mesh(tennis_camera, depth_scale, lift):
    mesh, Vw, Jw = stand_in_player(tennis_camera, (17.0, 3.0), lift_m=lift, depth_scale=depth_scale)
    w = world_player(tennis_camera, mesh, lift)
    assert np.allclose(w.vertices_world, Vw, atol=1e-6)
    assert abs(w.scale - 1 / depth_scale) < 1e-9
    for k in Jw:
        assert np.allclose(w.joints_world[k], Jw[k], atol=1e-6)
    unscaled = world_player(tennis_camera, mesh, None)
    assert unscaled.scale == 1.0


def test_height_from_a_ground_click(tennis_camera):
    mesh, Vw, _ = stand_in_player(tennis_camera, (16.0, 5.0), lift_m=0.4, depth_scale=1.7)
    low = Vw[np.argmin(Vw[:, 2])]
    ground_uv = tennis_camera.project(np.array([[low[0], low[1], 0.0]]))[0]
    h = height_from_ground_click(tennis_camera, mesh, ground_uv)
    assert abs(h - 0.4) < 1e-6

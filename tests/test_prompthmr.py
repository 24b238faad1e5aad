"""PromptHMR results: the image demo's torch-saved dict read as PersonMesh, padded intrinsics
mapped back, and ``courtstudio players correct`` placing the people in the world."""

import json

import numpy as np
import pytest

from courtstudio.cli import main
from hmr.person_mesh import MeshError
from hmr.prompthmr import (
    NET_INPUT_PX,
    body25_to_named,
    load_image_output,
    named_to_body25,
    original_boxes,
    original_intrinsics,
    padding,
    smplx_faces,
)
from tests.conftest import IMAGE_SIZE
from tests.lazy_torch import torch  # torch==2.13.0 (CPU), imported at first use
from tests.stand_ins import stand_in_player


def pad_like_prompthmr(K, image_size):
    """PromptHMR's own forward mapping (prompt_hmr/models/inference.py: pad_image)."""
    scale, offset = padding(image_size)
    Kp = np.array(K, float)
    Kp[:2] *= scale
    Kp[:2, 2] += offset
    return Kp


def write_output_pt(path, camera, people, with_vertices=True):
    """people: [(PersonMesh, ...)] -> the image demo's output.pt."""
    d = {
        "body_joints": torch.tensor(np.stack([named_to_body25(m.joints_cam) for m in people])),
        "betas": torch.zeros(len(people), 10),
        "transl": torch.zeros(len(people), 3),
        "rotmat": torch.eye(3).repeat(len(people), 22, 1, 1),
        "pose": torch.zeros(len(people), 22, 6),
        "cam_int": torch.tensor(pad_like_prompthmr(camera.K, camera.image_size))[None],
    }
    if with_vertices:
        d["vertices"] = torch.tensor(np.stack([m.vertices_cam for m in people]))
    torch.save(d, path)
    return path


@pytest.fixture
def two_players(tennis_camera):
    a = stand_in_player(tennis_camera, (17.0, 3.0), depth_scale=1.8)
    b = stand_in_player(tennis_camera, (20.0, 8.0), lift_m=0.3, depth_scale=0.6)
    return a, b


def test_intrinsics_and_boxes_round_trip(tennis_camera):
    Kp = pad_like_prompthmr(tennis_camera.K, IMAGE_SIZE)
    assert np.allclose(original_intrinsics(Kp[None], IMAGE_SIZE), tennis_camera.K)
    s, off = padding(IMAGE_SIZE)
    assert abs(s - NET_INPUT_PX / 1920) < 1e-12 and np.allclose(off, [0, (896 - 1080 * s) / 2])
    boxes = np.array([[100.0, 200, 300, 700], [1500, 50, 1900, 1000]])
    padded = boxes * s + np.r_[off, off]
    assert np.allclose(original_boxes(padded, IMAGE_SIZE), boxes)


def test_body25_mapping():
    J = np.arange(75, dtype=float).reshape(25, 3)
    named = body25_to_named(J)
    back = body25_to_named(named_to_body25(named))
    assert all(np.allclose(back[k], named[k]) for k in named)  # a round trip
    assert np.allclose(named["pelvis"], J[8])  # MidHip
    assert np.allclose(named["head"], (J[17] + J[18]) / 2)
    assert np.allclose(named["left_hand"], J[7]) and np.allclose(named["right_hand"], J[4])


def test_read_output_pt(tmp_path, tennis_camera, two_players):
    (ma, _, _), (mb, _, _) = two_players
    res = load_image_output(write_output_pt(tmp_path / "output.pt", tennis_camera, [ma, mb]))
    assert len(res.people) == 2
    assert np.allclose(res.people[1].vertices_cam, mb.vertices_cam)
    assert np.allclose(res.people[0].joints_cam["pelvis"], ma.joints_cam["pelvis"])
    assert res.people[0].params["betas"].shape == (10,)
    assert np.allclose(original_intrinsics(res.cam_int_padded, IMAGE_SIZE), tennis_camera.K)


def test_smplx_faces_from_the_users_model(tmp_path):
    (tmp_path / "smplx").mkdir()
    np.savez(tmp_path / "smplx" / "SMPLX_NEUTRAL.npz", f=np.zeros((20908, 3), np.int32))
    assert smplx_faces(tmp_path).shape == (20908, 3)
    with pytest.raises(MeshError, match="no SMPL-X model"):
        smplx_faces(tmp_path / "nowhere")


@pytest.mark.parametrize(
    "content,msg",
    [
        (lambda: {"betas": torch.zeros(1, 10)}, "neither 'vertices' nor 'body_joints'"),
        (lambda: {"vertices": torch.zeros(2, 5)}, r"vertices: expected \(B, V, 3\)"),
        (lambda: {"body_joints": torch.zeros(1, 24, 3)}, r"body_joints: expected \(B, 25, 3\)"),
        (
            lambda: {"vertices": torch.ones(2, 5, 3), "body_joints": torch.ones(3, 25, 3)},
            "2 people",
        ),
    ],
)
def test_malformed_results_are_named(tmp_path, content, msg):
    torch.save(content(), tmp_path / "bad.pt")
    with pytest.raises(MeshError, match=msg):
        load_image_output(tmp_path / "bad.pt")
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(MeshError, match="cannot read as a torch-saved"):
        load_image_output(tmp_path / "junk.pt")


def _camera_file(tmp_path, camera):
    p = tmp_path / "camera.json"
    p.write_text(json.dumps(camera.to_dict()))
    return p


def test_cli_players_correct(tmp_path, capsys, tennis_camera, two_players):
    (ma, _, Ja), (mb, _, Jb) = two_players
    pt = write_output_pt(tmp_path / "output.pt", tennis_camera, [ma, mb])
    cam = _camera_file(tmp_path, tennis_camera)
    code = main(
        [
            "players",
            "correct",
            "--camera",
            str(cam),
            "--hmr",
            str(pt),
            "--height",
            "0",
            "--person",
            "0",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["warnings"] == []
    p = out["people"][0]
    assert abs(p["scale"] - 1 / 1.8) < 1e-5
    assert np.allclose(p["pelvis_world"], Ja["pelvis"], atol=1e-4)
    assert np.allclose(p["joints_world"]["left_foot"], Ja["left_foot"], atol=1e-4)
    assert abs(p["lowest_vertex_world"][2]) < 1e-6
    main(
        [
            "players",
            "correct",
            "--camera",
            str(cam),
            "--hmr",
            str(pt),
            "--height",
            "0.3",
            "--person",
            "1",
            "--json",
        ]
    )
    p = json.loads(capsys.readouterr().out)["people"][0]
    assert np.allclose(p["pelvis_world"], Jb["pelvis"], atol=1e-4)


def test_cli_players_correct_from_joints_only(tmp_path, capsys, tennis_camera, two_players):
    (ma, _, Ja), _ = two_players
    pt = write_output_pt(tmp_path / "joints.pt", tennis_camera, [ma], with_vertices=False)
    cam = _camera_file(tmp_path, tennis_camera)
    assert (
        main(
            [
                "players",
                "correct",
                "--camera",
                str(cam),
                "--hmr",
                str(pt),
                "--height",
                "0.05",
                "--json",
            ]
        )
        == 0
    )
    p = json.loads(capsys.readouterr().out)["people"][0]
    # the lowest joint (a foot, 5 cm above the sole) at 0.05 m puts the body where it was
    assert np.allclose(p["pelvis_world"], Ja["pelvis"], atol=1e-4)


def test_cli_players_correct_bad_input(tmp_path, capsys, tennis_camera, two_players):
    (ma, _, _), _ = two_players
    pt = write_output_pt(tmp_path / "output.pt", tennis_camera, [ma])
    cam = _camera_file(tmp_path, tennis_camera)
    code = main(
        [
            "players",
            "correct",
            "--camera",
            str(cam),
            "--hmr",
            str(pt),
            "--height",
            "0",
            "--person",
            "3",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "--person 3: the result has 1 people" in err and err.count("\n") == 1
    code = main(
        [
            "players",
            "correct",
            "--camera",
            str(cam),
            "--hmr",
            str(tmp_path / "no.pt"),
            "--height",
            "0",
        ]
    )
    assert code == 2 and "no such PromptHMR result" in capsys.readouterr().err
    other = tennis_camera.K.copy()
    other[0, 0] *= 1.2
    other[1, 1] *= 1.2
    d = torch.load(pt, weights_only=True)
    d["cam_int"] = torch.tensor(pad_like_prompthmr(other, IMAGE_SIZE))[None]
    torch.save(d, pt)
    assert (
        main(["players", "correct", "--camera", str(cam), "--hmr", str(pt), "--height", "0"]) == 0
    )
    assert "run PromptHMR with this camera's K" in capsys.readouterr().err


def write_real_layout_pt(path, camera, people, dtype=None):
    """The image demo's output.pt exactly as scripts/demo_phmr.py saves it for B people:
    phmr.py expands cam_int to (B, 3, 3) and keeps pose as the decoder's (B, 132)."""
    dtype = torch.float32 if dtype is None else dtype
    B = len(people)
    Kp = torch.tensor(pad_like_prompthmr(camera.K, camera.image_size), dtype=dtype)
    d = {
        "pose": torch.zeros(B, 132, dtype=dtype),
        "betas": torch.zeros(B, 10, dtype=dtype),
        "transl": torch.zeros(B, 3, dtype=dtype),
        "rotmat": torch.eye(3, dtype=dtype).repeat(B, 22, 1, 1),
        "vertices": torch.tensor(np.stack([m.vertices_cam for m in people]), dtype=dtype),
        "body_joints": torch.tensor(
            np.stack([named_to_body25(m.joints_cam) for m in people]), dtype=dtype
        ),
        "cam_int": Kp[None].expand(B, 3, 3),
    }
    torch.save(d, path)
    return path


@pytest.mark.parametrize("n_people", [1, 2, 3, 4])
def test_real_output_layout_for_1_to_4_people(tmp_path, capsys, tennis_camera, n_people):
    feet = [(17.0, 3.0), (20.0, 8.0), (12.0, 1.5), (22.0, 6.0)][:n_people]
    made = [stand_in_player(tennis_camera, f, depth_scale=1.3) for f in feet]
    pt = write_real_layout_pt(tmp_path / "output.pt", tennis_camera, [m for m, _, _ in made])
    res = load_image_output(pt)
    assert len(res.people) == n_people and res.cam_int_padded.shape == (3, 3)
    assert np.allclose(
        original_intrinsics(res.cam_int_padded, IMAGE_SIZE), tennis_camera.K, rtol=1e-5
    )
    assert res.people[0].params["pose"].shape == (132,)
    cam = _camera_file(tmp_path, tennis_camera)
    assert (
        main(
            [
                "players",
                "correct",
                "--camera",
                str(cam),
                "--hmr",
                str(pt),
                "--height",
                "0",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["warnings"] == [] and len(out["people"]) == n_people
    for p, (_, _, J) in zip(out["people"], made):
        assert np.allclose(p["pelvis_world"], J["pelvis"], atol=2e-3)  # float32 storage


@pytest.mark.parametrize("shape", [(3, 3), (1, 3, 3), (4, 3, 3)])
def test_cam_int_shapes(tennis_camera, shape):
    Kp = pad_like_prompthmr(tennis_camera.K, IMAGE_SIZE)
    cam_int = np.broadcast_to(Kp, shape)
    assert np.allclose(original_intrinsics(cam_int, IMAGE_SIZE), tennis_camera.K)


def test_cam_int_copies_must_agree(tmp_path, tennis_camera, two_players):
    (ma, _, _), (mb, _, _) = two_players
    pt = write_real_layout_pt(tmp_path / "output.pt", tennis_camera, [ma, mb])
    d = torch.load(pt, weights_only=True)
    K = d["cam_int"].clone()
    K[1, 0, 0] *= 1.1
    d["cam_int"] = K
    torch.save(d, pt)
    with pytest.raises(MeshError, match=r"cam_int: the 2 per-person intrinsics disagree"):
        load_image_output(pt)
    for bad, msg in [
        (torch.zeros(2, 2, 3), r"expected \(3, 3\), \(1, 3, 3\) or \(N, 3, 3\)"),
        (torch.full((1, 3, 3), float("nan")), "non-finite"),
    ]:
        d["cam_int"] = bad
        torch.save(d, pt)
        with pytest.raises(MeshError, match=msg):
            load_image_output(pt)


@pytest.mark.parametrize(
    "mutate,msg",
    [
        (lambda d: d.update({0: d.pop("vertices")}), "keys must be names"),
        (lambda d: d.update({"betas": torch.tensor(1.0)}), None),  # scalar betas: ignored
        (lambda d: d.update({"vertices": d["vertices"] * float("nan")}), "vertices: non-finite"),
        (lambda d: d.update({"vertices": d["vertices"] * 1e6}), "beyond"),
        (
            lambda d: d.update({"body_joints": torch.zeros(2, 25, 3, dtype=torch.bool)}),
            "expected a numeric array",
        ),
        (lambda d: d.update({"vertices": [[1, 2, 3]]}), r"vertices: expected \(B, V, 3\)"),
        (lambda d: d.update({"vertices": "text"}), "expected a numeric array"),
    ],
)
def test_malformed_real_results(tmp_path, tennis_camera, two_players, mutate, msg):
    (ma, _, _), (mb, _, _) = two_players
    pt = write_real_layout_pt(tmp_path / "output.pt", tennis_camera, [ma, mb])
    d = torch.load(pt, weights_only=True)
    mutate(d)
    torch.save(d, pt)
    if msg is None:
        assert len(load_image_output(pt).people) == 2
    else:
        with pytest.raises(MeshError, match=msg):
            load_image_output(pt)


def test_npz_results_are_read_within_bounds(tmp_path, tennis_camera, two_players):
    (ma, _, _), _ = two_players
    np.savez(tmp_path / "r.npz", vertices=ma.vertices_cam[None], cam_int=np.eye(3)[None])
    assert len(load_image_output(tmp_path / "r.npz").people) == 1
    np.savez(tmp_path / "o.npz", vertices=np.array([object()], dtype=object))
    with pytest.raises(MeshError, match="object array"):
        load_image_output(tmp_path / "o.npz")
    raw = (tmp_path / "r.npz").read_bytes()
    (tmp_path / "t.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(MeshError, match="cannot read PromptHMR result"):
        load_image_output(tmp_path / "t.npz")

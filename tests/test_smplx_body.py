"""SMPL-X meshes from parameters, on a made-up SMPL-X model file with the real array shapes
(never the licensed model): skinning, shared shape across frames, PromptHMR video results."""

import joblib
import numpy as np
import pytest

from hmr.person_mesh import MeshError
from hmr.smplx_body import PickleRiskWarning, SmplxBody, load_video_results

V, J = 10475, 55
# trusted loads warn by design (checked with pytest.warns where it matters)
pytestmark = pytest.mark.filterwarnings("ignore::hmr.smplx_body.PickleRiskWarning")


def rot_z(deg):
    a = np.deg2rad(deg)
    return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1.0]])


@pytest.fixture(scope="module")
def smplx_dir(tmp_path_factory):
    """A made-up SMPL-X: a random template; the first shape direction stretches it along y
    (10 % per unit); every vertex skinned to the pelvis, so poses move it rigidly."""
    rng = np.random.default_rng(0)
    root = tmp_path_factory.mktemp("smplx_model")
    (root / "smplx").mkdir()
    v = rng.normal(0, [0.2, 0.5, 0.1], (V, 3))
    shapedirs = np.zeros((V, 3, 400), np.float32)
    shapedirs[:, 1, 0] = 0.1 * v[:, 1]
    jreg = np.zeros((J, V), np.float32)
    for j in range(J):
        jreg[j, rng.choice(V, 20, replace=False)] = 1 / 20
    weights = np.zeros((V, J), np.float32)
    weights[:, 0] = 1
    parents = np.zeros(J, np.int64)
    parents[0] = -1
    np.savez(
        root / "smplx" / "SMPLX_NEUTRAL.npz",
        v_template=v.astype(np.float32),
        f=rng.integers(0, V, (20908, 3)).astype(np.int32),
        shapedirs=shapedirs,
        posedirs=np.zeros((V, 3, 486), np.float32),
        J_regressor=jreg,
        weights=weights,
        kintree_table=np.stack([parents, np.arange(J)]),
        hands_componentsl=np.eye(45, dtype=np.float32),
        hands_componentsr=np.eye(45, dtype=np.float32),
        hands_meanl=np.zeros(45, np.float32),
        hands_meanr=np.zeros(45, np.float32),
        lmk_faces_idx=np.zeros(51, np.int64),
        lmk_bary_coords=np.full((51, 3), 1 / 3),
        dynamic_lmk_faces_idx=np.zeros((79, 17), np.int64),
        dynamic_lmk_bary_coords=np.full((79, 17, 3), 1 / 3),
    )
    return root, v, jreg


def test_rigid_pose_and_shape(smplx_dir):
    root, v, jreg = smplx_dir
    body = SmplxBody(root)
    R = np.tile(np.eye(3), (55, 1, 1))
    R[0] = rot_z(30)
    t = np.array([0.5, 0.2, 8.0])
    m = body.mesh(R, np.zeros(10), t)
    j0 = jreg[0] @ v
    expected = (v - j0) @ rot_z(30).T + j0 + t
    assert np.allclose(m.vertices_cam, expected, atol=1e-4)
    assert m.faces.shape == (20908, 3) and m.has_body_joints
    tall = body.mesh(np.tile(np.eye(3), (22, 1, 1)), np.r_[1.0, np.zeros(9)], np.zeros(3))
    assert np.allclose(tall.vertices_cam[:, 1], 1.1 * v[:, 1], atol=1e-4)


def test_video_results_share_the_track_shape(smplx_dir, tmp_path):
    root, v, _ = smplx_dir
    T = 3
    rot = np.tile(np.eye(3), (T, 55, 1, 1))
    shape = np.zeros((T, 10))
    shape[:, 0] = [0.0, 1.0, 2.0]  # the shape estimate drifts between frames
    res = {
        "people": {
            7: {
                "frames": np.array([10, 11, 12]),
                "bboxes": np.zeros((T, 4)),
                "smplx_cam": {"rotmat": rot, "shape": shape, "trans": np.tile([0, 0, 9.0], (T, 1))},
            }
        },
        "camera": {"img_focal": 1500.0, "img_center": [960, 540]},
    }
    joblib.dump(res, tmp_path / "results.pkl")
    with pytest.warns(PickleRiskWarning, match="runs any code"):
        load_video_results(tmp_path / "results.pkl", root, 10, trust_pickle=True)
    a = load_video_results(tmp_path / "results.pkl", root, 10, trust_pickle=True)[7]
    b = load_video_results(tmp_path / "results.pkl", root, 12, trust_pickle=True)[7]
    assert np.allclose(a.vertices_cam, b.vertices_cam)  # one body: mean shape 1.0
    assert np.allclose(a.params["betas"][0], 1.0)
    assert load_video_results(tmp_path / "results.pkl", root, 99, trust_pickle=True) == {}


def test_missing_model_and_bad_results(tmp_path, smplx_dir):
    with pytest.raises(MeshError, match="no SMPL-X model at"):
        SmplxBody(tmp_path)
    joblib.dump({"people": {1: {"frames": [0]}}}, tmp_path / "bad.pkl")
    with pytest.raises(MeshError, match=r"people\[1\]: missing"):
        load_video_results(tmp_path / "bad.pkl", smplx_dir[0], 0, trust_pickle=True)
    with pytest.raises(MeshError, match="rotmat: expected"):
        SmplxBody(smplx_dir[0]).mesh(np.zeros((3, 3)), np.zeros(10), np.zeros(3))


class _RunsCode:
    """A pickle payload that, when loaded, creates the file named by ``marker``."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickles_are_refused_unless_trusted(tmp_path, smplx_dir):
    marker = tmp_path / "pwned"
    joblib.dump({"people": {}, "x": _RunsCode(marker)}, tmp_path / "evil.pkl")
    with pytest.raises(MeshError, match="runs any code it contains; refused.*--trust-pickle"):
        load_video_results(tmp_path / "evil.pkl", smplx_dir[0], 0)
    assert not marker.exists()  # the payload never ran
    with pytest.warns(PickleRiskWarning):
        load_video_results(tmp_path / "evil.pkl", smplx_dir[0], 0, trust_pickle=True)
    assert marker.exists()  # what trusting a pickle means: its code runs
    with pytest.raises(MeshError, match="not a regular file"):
        load_video_results("/dev/zero", smplx_dir[0], 0, trust_pickle=True)


def test_video_results_with_bad_shapes_are_named(tmp_path, smplx_dir):
    res = {
        "people": {
            3: {
                "frames": np.array([0, 1]),
                "smplx_cam": {
                    "rotmat": np.zeros((2, 55, 3, 3)),
                    "shape": np.zeros(2),
                    "trans": np.zeros((2, 3)),
                },
            }
        }
    }
    joblib.dump(res, tmp_path / "r.pkl")
    with pytest.raises(MeshError, match=r"people\[3\]\.smplx_cam: expected"):
        load_video_results(tmp_path / "r.pkl", smplx_dir[0], 0, trust_pickle=True)
    res["people"][3]["smplx_cam"]["shape"] = np.full((2, 10), np.nan)
    joblib.dump(res, tmp_path / "r.pkl")
    with pytest.raises(MeshError, match="non-finite"):
        load_video_results(tmp_path / "r.pkl", smplx_dir[0], 0, trust_pickle=True)


def test_cli_video_results_need_the_trust_flag(smplx_dir, tmp_path, capsys, tennis_camera):
    import json

    from courtstudio.cli import main

    marker = tmp_path / "pwned"
    T = 2
    res = {
        "people": {
            4: {
                "frames": np.array([0, 1]),
                "smplx_cam": {
                    "rotmat": np.tile(np.eye(3), (T, 55, 1, 1)),
                    "shape": np.zeros((T, 10)),
                    "trans": np.tile([0.0, 0.5, 12.0], (T, 1)),
                },
            }
        },
        "payload": _RunsCode(marker),
    }
    joblib.dump(res, tmp_path / "results.pkl")
    cam = tmp_path / "camera.json"
    cam.write_text(json.dumps(tennis_camera.to_dict()))
    argv = [
        "players",
        "correct",
        "--camera",
        str(cam),
        "--hmr",
        str(tmp_path / "results.pkl"),
        "--video-frame",
        "1",
        "--smplx",
        str(smplx_dir[0]),
        "--height",
        "0",
        "--json",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runs any code it contains; refused" in err
    assert "--trust-pickle" in err and not marker.exists()
    assert main(argv + ["--trust-pickle"]) == 0
    out = capsys.readouterr()
    assert "courtstudio: warning:" in out.err and "runs any code" in out.err
    people = json.loads(out.out)["people"]
    assert len(people) == 1 and "track4@1" in people[0]["source"]
    assert abs(people[0]["lowest_vertex_world"][2]) < 1e-6 and marker.exists()

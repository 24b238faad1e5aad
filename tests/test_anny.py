"""The Anny body model adapter: poses, joints, placement, and the correction on real bodies."""

import numpy as np
import pytest

from courtstudio.pipeline.players import world_player
from hmr.anny_body import POSES, AnnyBody, place_on_court
from hmr.person_mesh import MeshError, PersonMesh

# one worker builds the body model once (module fixture) and fills its on-disk cache; split
# across workers, each would build it and both would write the cache
pytestmark = pytest.mark.xdist_group("torch")  # tests/conftest.py TORCH_TESTS


@pytest.fixture(scope="module")
def body():
    return AnnyBody()


@pytest.mark.parametrize("pose", POSES)
def test_poses_are_human(body, pose):
    s = body.sample(pose, {"height": 0.6})
    V, J = place_on_court(s, (10.0, 3.0), 0.0, 0.3 if pose == "jump" else 0.0)
    stature = V[:, 2].max() - V[:, 2].min()
    assert 1.4 < stature < 2.2
    assert np.allclose(J["pelvis"][:2], [10.0, 3.0])
    assert abs(V[:, 2].min() - (0.3 if pose == "jump" else 0.0)) < 1e-9
    assert J["head"][2] > J["pelvis"][2] > J["left_foot"][2]
    assert J["left_foot"][1] > J["right_foot"][1]  # facing +x, the left side is +y
    if pose == "lunge":
        assert J["left_foot"][0] > J["pelvis"][0] + 0.25  # the leading foot is forward
    if pose == "jump":
        assert J["left_hand"][2] > J["head"][2]  # arms up


def test_facing_rotates_the_body(body):
    s = body.sample("lunge")
    _, J = place_on_court(s, (0.0, 0.0), np.pi / 2)  # facing +y
    assert J["left_foot"][1] > 0.25 and J["left_foot"][0] < 0.0


def test_unknown_pose_or_phenotype(body):
    with pytest.raises(MeshError, match="unknown pose 'sit'"):
        body.sample("sit")
    with pytest.raises(MeshError, match="unknown phenotype 'tallness'"):
        body.sample("standing", {"tallness": 1})


def test_correction_recovers_an_anny_player(body, tennis_camera):
    s = body.sample("jump", {"height": 0.9, "muscle": 0.8})
    Vw, Jw = place_on_court(s, (19.0, 7.0), 2.5, lift_m=0.42)
    mesh = PersonMesh(
        1.9 * tennis_camera.world_to_cam(Vw),
        s.faces,
        {k: 1.9 * tennis_camera.world_to_cam(v[None])[0] for k, v in Jw.items()},
    )
    w = world_player(tennis_camera, mesh, 0.42)
    assert np.allclose(w.vertices_world, Vw, atol=1e-6)
    assert all(np.allclose(w.joints_world[k], Jw[k], atol=1e-6) for k in Jw)

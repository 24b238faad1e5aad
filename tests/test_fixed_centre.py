import numpy as np

from court_specs.model import PAPER_SIX
from geometry.fixed_centre import FixedCentreModel, solve_fixed_centre
from geometry.uncertainty import numeric_jacobian
from tests.conftest import IMAGE_SIZE


def test_jacobian_matches_numeric(tennis, tennis_camera):
    X = np.array([tennis.keypoints[n] for n in PAPER_SIX])
    m = FixedCentreModel(tennis_camera.camera_centre_world)
    theta = np.concatenate([tennis_camera.rvec, [tennis_camera.K[0, 0]]])
    _, J = m.project_with_jacobian(theta, X, IMAGE_SIZE)
    Jn = numeric_jacobian(lambda th: m.project_with_jacobian(th, X, IMAGE_SIZE)[0].ravel(), theta)
    assert np.allclose(J, Jn, rtol=1e-4, atol=1e-3)


def test_rotation_and_focal_recovered_at_a_known_centre(tennis, tennis_camera, rng):
    X = np.array([tennis.keypoints[n] for n in PAPER_SIX])
    uv = tennis_camera.project(X)
    m = FixedCentreModel(tennis_camera.camera_centre_world)
    start = m.to_camera(
        np.concatenate([tennis_camera.rvec + 0.02, [0.9 * tennis_camera.K[0, 0]]]), IMAGE_SIZE
    )
    cam, rms = solve_fixed_centre(X, uv, IMAGE_SIZE, tennis_camera.camera_centre_world, start)
    assert rms < 1e-4 and np.allclose(cam.R, tennis_camera.R, atol=1e-7)
    assert abs(cam.K[0, 0] / tennis_camera.K[0, 0] - 1) < 1e-8
    assert np.allclose(cam.camera_centre_world, tennis_camera.camera_centre_world)

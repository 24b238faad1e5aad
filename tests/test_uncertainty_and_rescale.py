"""First-order uncertainty matches Monte Carlo; the camera-centre rescale is exact."""

import numpy as np
import pytest

from courtstudio.pipeline.ball import lift_ball_with_uncertainty
from courtstudio.pipeline.calibration import calibrate_court
from geometry.errors import GeometryError
from geometry.rays import lift_ball
from geometry.rescale import rescale_to_lowest_vertex_height, scale_about_centre
from geometry.uncertainty import ParamCovariance
from tests.conftest import IMAGE_SIZE, true_clicks


def test_ball_sigma_matches_monte_carlo(tennis, tennis_camera):
    B = np.array([16.0, 4.0, 1.2])
    G = np.array([16.0, 4.0, 0.0])
    uv_b, uv_g = tennis_camera.project(np.array([B, G]))
    clicks = true_clicks(tennis, tennis_camera)
    # the simulated clicks below have 1 px noise: say so (the default estimates it)
    cal = calibrate_court(tennis, IMAGE_SIZE, clicks, diagnose=False, click_sigma_px=1.0)
    res = lift_ball_with_uncertainty(
        cal.camera, uv_b, uv_g, "court", 0.0, 1.0, cal.param_covariance
    )
    rng = np.random.default_rng(0)
    names = list(clicks)
    samples = []
    for _ in range(400):
        noisy = {n: clicks[n] + rng.normal(0, 1, 2) for n in names}
        c = calibrate_court(tennis, IMAGE_SIZE, noisy, diagnose=False)
        samples.append(
            lift_ball(c.camera, uv_b + rng.normal(0, 1, 2), uv_g + rng.normal(0, 1, 2)).world
        )
    mc = np.std(np.array(samples), axis=0)
    assert np.allclose(res.sigma_world_m, mc, rtol=0.2), (res.sigma_world_m, mc)


def test_param_covariance_round_trip(tennis, tennis_camera):
    cal = calibrate_court(tennis, IMAGE_SIZE, true_clicks(tennis, tennis_camera), diagnose=False)
    pc = ParamCovariance.from_dict(cal.param_covariance.to_dict())
    assert np.allclose(pc.matrix, cal.fit.covariance) and pc.model == cal.fit.model


def test_rescale_recovers_a_mesh_scaled_about_the_camera(rng):
    C = np.array([40.0, 5.0, 12.0])
    V = rng.normal([15, 4, 0.9], [0.2, 0.2, 0.5], (500, 3))
    V[:, 2] -= V[:, 2].min()  # true mesh stands on the court
    J = V[:6]
    for s_true in (0.4, 0.8, 1.7, 3.0):
        wrong = scale_about_centre(V, C, s_true)  # what an HMR depth error looks like
        res = rescale_to_lowest_vertex_height(wrong, J * 0 + wrong[:6], C, 0.0)
        assert np.allclose(res.vertices_world, V, atol=1e-9)
        assert abs(res.scale - 1 / s_true) < 1e-12
        assert abs(res.lowest_vertex_world[2]) < 1e-12


def test_rescale_keeps_every_vertex_on_its_ray(rng):
    C = np.array([40.0, 5.0, 12.0])
    V = rng.normal([15, 4, 1.0], 0.3, (100, 3))
    res = rescale_to_lowest_vertex_height(V, V[:3], C, 0.25)
    a = (V - C) / np.linalg.norm(V - C, axis=1, keepdims=True)
    b = (res.vertices_world - C) / np.linalg.norm(res.vertices_world - C, axis=1, keepdims=True)
    assert np.allclose(a, b, atol=1e-12)
    assert abs(res.vertices_world[:, 2].min() - 0.25) < 1e-12  # a jumping player


def test_rescale_degenerate_cases():
    C = np.array([0.0, 0.0, 5.0])
    level = np.array([[1.0, 0, 5.0], [2.0, 0, 6.0]])
    with pytest.raises(GeometryError, match="level with the camera"):
        rescale_to_lowest_vertex_height(level, level, C, 0.0)
    below = np.array([[1.0, 0, 1.0]])
    with pytest.raises(GeometryError, match="behind the camera"):
        rescale_to_lowest_vertex_height(below, below, C, 6.0)
    with pytest.raises(GeometryError, match="no vertices"):
        rescale_to_lowest_vertex_height(np.zeros((0, 3)), below, C, 0.0)
    with pytest.raises(GeometryError, match=r"vertices_world: expected shape \(N, 3\)"):
        rescale_to_lowest_vertex_height(np.zeros((4, 2)), below, C, 0.0)

"""Rays, the ground-projection line and analytic ball lifting: exact round trips and
degenerate cases."""

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.synth.synthetic import sample_broadcast_camera
from geometry.camera import Camera, rotation_look_at
from geometry.errors import GeometryError
from geometry.rays import (
    ground_projection_line,
    ground_projection_polyline,
    intersect_rays_with_plane,
    lift_ball,
    pixel_rays_world,
    snap_to_line,
)
from tests.conftest import IMAGE_SIZE


def test_pixel_rays_pass_through_the_points(tennis_camera, rng):
    P = np.column_stack([rng.uniform(0, 23, 30), rng.uniform(0, 11, 30), rng.uniform(0, 4, 30)])
    C, d = pixel_rays_world(tennis_camera, tennis_camera.project(P))
    assert np.allclose(np.linalg.norm(d, axis=1), 1)
    v = P - C
    lam = np.sum(v * d, axis=1)
    assert np.all(lam > 0)
    assert np.allclose(C + lam[:, None] * d, P, atol=1e-8)


def test_plane_intersection_round_trip(tennis_camera, rng):
    G = np.column_stack([rng.uniform(0, 23, 30), rng.uniform(0, 11, 30), np.zeros(30)])
    C, d = pixel_rays_world(tennis_camera, tennis_camera.project(G))
    X, lam = intersect_rays_with_plane(C, d, 0.0)
    assert np.allclose(X, G, atol=1e-8) and np.all(lam > 0)


def test_ray_parallel_to_the_plane_and_behind_the_camera_are_refused():
    with pytest.raises(GeometryError, match="parallel"):
        intersect_rays_with_plane(np.array([0, 0, 5.0]), np.array([[1.0, 0, 0]]), 0.0)
    with pytest.raises(GeometryError, match="behind the camera"):
        intersect_rays_with_plane(np.array([0, 0, 5.0]), np.array([[0.0, 0.6, 0.8]]), 0.0)


@pytest.mark.parametrize("sport", ["tennis", "badminton", "table_tennis", "pickleball"])
def test_ball_lifting_is_exact_without_noise(sport, rng):
    spec = load_spec(sport)
    for seed in range(3):
        cam = sample_broadcast_camera(spec, IMAGE_SIZE, np.random.default_rng(seed))
        for _ in range(20):
            B = np.array(
                [
                    rng.uniform(0, spec.length_m),
                    rng.uniform(0, spec.width_m),
                    rng.uniform(0.02, 3.0),
                ]
            )
            G = B.copy()
            G[2] = 0.0
            uv_b, uv_g = cam.project(np.array([B, G]))
            res = lift_ball(cam, uv_b, uv_g, 0.0)
            assert np.allclose(res.world, B, atol=1e-7)
            assert abs(res.height_m - B[2]) < 1e-7


def test_ball_lifting_onto_the_floor_for_table_tennis():
    spec = load_spec("table_tennis")
    cam = sample_broadcast_camera(spec, IMAGE_SIZE, np.random.default_rng(9))
    B = np.array([1.0, 0.6, 0.3])
    F = np.array([1.0, 0.6, spec.plane_z("floor")])
    uv_b, uv_f = cam.project(np.array([B, F]))
    res = lift_ball(cam, uv_b, uv_f, spec.plane_z("floor"))
    assert np.allclose(res.world, B, atol=1e-7)
    assert abs(res.height_m - (0.3 + 0.76)) < 1e-7


def test_lifting_with_lens_distortion(tennis_camera):
    cam = Camera(
        K=tennis_camera.K,
        R=tennis_camera.R,
        t=tennis_camera.t,
        image_size=IMAGE_SIZE,
        dist=np.array([-0.1, 0.02, 0, 0, 0]),
    )
    B = np.array([15.0, 3.0, 1.2])
    G = np.array([15.0, 3.0, 0.0])
    uv_b, uv_g = cam.project(np.array([B, G]))
    assert np.allclose(lift_ball(cam, uv_b, uv_g).world, B, atol=1e-6)


def test_ground_click_is_snapped_onto_the_line(tennis_camera):
    B = np.array([15.0, 3.0, 1.5])
    G = np.array([15.0, 3.0, 0.0])
    uv_b, uv_g = tennis_camera.project(np.array([B, G]))
    line = ground_projection_line(tennis_camera, uv_b)
    assert abs(line @ [*uv_g, 1]) < 1e-6  # the true ground point lies on the line
    assert abs(line @ [*uv_b, 1]) < 1e-6  # and so does the ball itself (same vertical plane)
    normal = line[:2]
    off = lift_ball(tennis_camera, uv_b, uv_g + 7.0 * normal)
    assert np.allclose(off.world, B, atol=1e-6)  # a click off the line changes nothing
    assert np.allclose(off.uv_ground_snapped, uv_g, atol=1e-6)
    assert np.allclose(snap_to_line(uv_g + 3 * normal, line), uv_g, atol=1e-9)


def test_projection_polyline_is_on_the_line_inside_the_image(tennis_camera):
    B = np.array([15.0, 3.0, 1.5])
    uv_b = tennis_camera.project(B[None])[0]
    poly = ground_projection_polyline(tennis_camera, uv_b)
    assert len(poly) > 10
    line = ground_projection_line(tennis_camera, uv_b)
    assert np.all(np.abs(poly @ line[:2] + line[2]) < 1e-6)
    assert np.all(tennis_camera.in_image(poly))
    # ordered from near (bottom) toward the horizon (up the image)
    assert poly[0, 1] > poly[-1, 1]
    # it passes the ground point
    g = tennis_camera.project(np.array([[15.0, 3.0, 0.0]]))[0]
    assert np.min(np.linalg.norm(poly - g, axis=1)) < 10


def test_impossible_ground_clicks(tennis_camera):
    B = np.array([15.0, 3.0, 1.5])
    uv_b = tennis_camera.project(B[None])[0]
    line = ground_projection_line(tennis_camera, uv_b)
    direction = np.array([-line[1], line[0]])
    # far above the horizon along the line: the ray never meets the court in front
    with pytest.raises(GeometryError, match="ground click"):
        lift_ball(tennis_camera, uv_b, uv_b + 1e5 * direction * np.sign(-direction[1]))


def test_vertical_ball_ray_is_refused():
    C = np.array([10.0, 5.0, 20.0])
    R = rotation_look_at(C, np.array([10.5, 5.0, 0.0]))
    cam = Camera(
        K=np.array([[1000, 0, 959.5], [0, 1000, 539.5], [0, 0, 1.0]]),
        R=R,
        t=-R @ C,
        image_size=IMAGE_SIZE,
    )
    uv_nadir = cam.project(np.array([[10.0, 5.0, 0.0]]))[0]
    with pytest.raises(GeometryError, match="vertical"):
        lift_ball(cam, uv_nadir, uv_nadir + [0, 5])

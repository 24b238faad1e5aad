"""Camera transforms: round trips and validation."""

import numpy as np
import pytest

from geometry.camera import Camera, rotation_look_at
from geometry.errors import GeometryError


def make_camera(dist=None):
    C = np.array([40.0, 6.0, 10.0])
    R = rotation_look_at(C, np.array([12.0, 5.0, 0.0]), 0.01)
    K = np.array([[2000.0, 0, 959.5], [0, 2000.0, 539.5], [0, 0, 1]])
    return Camera(K=K, R=R, t=-R @ C, image_size=(1920, 1080),
                  dist=np.zeros(5) if dist is None else dist)


def test_centre_and_frames_round_trip(rng):
    cam = make_camera()
    assert np.allclose(cam.camera_centre_world, [40, 6, 10], atol=1e-12)
    P = rng.uniform(-5, 25, (50, 3))
    assert np.allclose(cam.cam_to_world(cam.world_to_cam(P)), P, atol=1e-10)


def test_look_at_puts_target_on_the_optical_axis_and_world_up_up():
    cam = make_camera()
    uv = cam.project(np.array([[12.0, 5.0, 0.0]]))[0]
    assert np.allclose(uv, [959.5, 539.5], atol=0.5)  # roll moves it only slightly
    # +y world (right along the far baseline) is to the right in the image
    a, b = cam.project(np.array([[12.0, 2.0, 0.0], [12.0, 8.0, 0.0]]))
    assert b[0] > a[0]
    # +z is up (smaller v)
    lo, hi = cam.project(np.array([[12.0, 5.0, 0.0], [12.0, 5.0, 2.0]]))
    assert hi[1] < lo[1]


def test_points_behind_the_camera_have_no_image():
    cam = make_camera()
    uv = cam.project(np.array([[60.0, 6.0, 10.0], [12.0, 5.0, 0.0]]))
    assert np.all(np.isnan(uv[0])) and np.all(np.isfinite(uv[1]))


def test_undistort_inverts_distortion(rng):
    cam = make_camera(np.array([-0.12, 0.03, 0, 0, 0]))
    P = np.column_stack([rng.uniform(0, 23, 40), rng.uniform(0, 11, 40), np.zeros(40)])
    uv = cam.project(P)
    ideal = make_camera().project(P)
    assert np.allclose(cam.undistort_uv(uv), ideal, atol=1e-4)


def test_from_dict_round_trip_and_errors():
    cam = make_camera()
    back = Camera.from_dict(cam.to_dict())
    assert np.allclose(back.K, cam.K) and np.allclose(back.R, cam.R)
    d = cam.to_dict()
    del d["t"]
    with pytest.raises(GeometryError, match="camera.t: missing"):
        Camera.from_dict(d)
    d = cam.to_dict()
    d["R"] = np.eye(3).tolist()
    d["R"][0][0] = 2
    with pytest.raises(GeometryError, match="not a rotation"):
        Camera.from_dict(d)
    d = cam.to_dict()
    d["K"] = [[1, 0], [0, 1]]
    with pytest.raises(GeometryError, match=r"K: expected shape \(3, 3\)"):
        Camera.from_dict(d)


def test_look_at_vertical_is_refused():
    with pytest.raises(GeometryError, match="vertical"):
        rotation_look_at(np.array([0, 0, 10.0]), np.array([0, 0, 0.0]))

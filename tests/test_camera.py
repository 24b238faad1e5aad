"""Camera transforms: round trips and validation."""

import numpy as np
import pytest

from geometry.camera import Camera, rotation_look_at
from geometry.errors import GeometryError


def make_camera(dist=None):
    C = np.array([40.0, 6.0, 10.0])
    R = rotation_look_at(C, np.array([12.0, 5.0, 0.0]), 0.01)
    K = np.array([[2000.0, 0, 959.5], [0, 2000.0, 539.5], [0, 0, 1]])
    return Camera(
        K=K, R=R, t=-R @ C, image_size=(1920, 1080), dist=np.zeros(5) if dist is None else dist
    )


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


def test_from_dict_round_trips_through_json_with_distortion():
    import json

    cam = make_camera(np.array([-0.12, 0.03, 1e-4, -2e-4, 0.01]))
    back = Camera.from_dict(json.loads(json.dumps(cam.to_dict())))
    for name in ("K", "R", "t", "dist"):
        assert np.allclose(getattr(back, name), getattr(cam, name), rtol=0, atol=1e-12), name
    assert back.image_size == cam.image_size
    # dist is optional (zeros), shorter lists are padded, extra keys are ignored
    d = {k: v for k, v in cam.to_dict().items() if k != "dist"}
    d["status"] = "ok"
    assert not Camera.from_dict(d).has_distortion
    d["dist"] = [-0.1, 0.02]
    assert np.allclose(Camera.from_dict(d).dist, [-0.1, 0.02, 0, 0, 0])


@pytest.mark.parametrize(
    "field, value, message",
    [
        (
            "K",
            [[2000, 0, 959.5], [0, float("nan"), 539.5], [0, 0, 1]],
            r"^frame 7\.K: non-finite value at index \(1, 1\)$",
        ),
        ("K", "2000", r"^frame 7\.K: expected shape \(3, 3\), got \(\)$"),
        ("K", [[1, 2, 3], [4, 5]], r"^frame 7\.K: not a numeric array"),
        ("K", [[-2000, 0, 959.5], [0, 2000, 539.5], [0, 0, 1]], r"^frame 7\.K: focal lengths"),
        ("R", {"a": 1}, r"^frame 7\.R: "),
        ("R", [[1, 0, 0], [0, 1, 0], [0, 0, -1]], r"^frame 7\.R: not a rotation"),
        ("t", [0, 0, float("inf")], r"^frame 7\.t: non-finite value at index \(2,\)"),
        ("t", [0, 0], r"^frame 7\.t: expected shape \(3\), got \(2,\)"),
        ("dist", [0.1] * 6, r"^frame 7\.dist: at most 5 coefficients"),
        ("dist", [[0.1]], r"^frame 7\.dist: expected shape \(N\), got \(1, 1\)"),
        ("image_size", [1920.5, 1080], r"^frame 7\.image_size: expected \[width, height\]"),
        ("image_size", [True, 1080], r"^frame 7\.image_size: expected \[width, height\]"),
        ("image_size", "1920x1080", r"^frame 7\.image_size: expected \[width, height\]"),
        ("image_size", [1920, 1080, 3], r"^frame 7\.image_size: expected \[width, height\]"),
        ("image_size", [0, 1080], r"^frame 7\.image_size: must be positive"),
    ],
)
def test_from_dict_refuses_untrusted_fields_naming_them(field, value, message):
    d = make_camera().to_dict()
    d[field] = value
    with pytest.raises(GeometryError, match=message):
        Camera.from_dict(d, "frame 7")


def test_from_dict_refuses_a_non_object():
    with pytest.raises(GeometryError, match=r"^scene\.camera: expected a JSON object$"):
        Camera.from_dict([1, 2, 3], "scene.camera")  # type: ignore[arg-type]


def test_look_at_vertical_is_refused():
    with pytest.raises(GeometryError, match="vertical"):
        rotation_look_at(np.array([0, 0, 10.0]), np.array([0, 0, 0.0]))


def test_project_is_opencvs_model_to_rounding():
    """Camera.project's own arithmetic (no Jacobian) against cv2.projectPoints: radial and
    tangential terms, both focal lengths, an off-centre principal point."""
    import cv2

    rng = np.random.default_rng(7)
    for trial in range(50):
        R = cv2.Rodrigues(rng.normal(0, 1, 3))[0]
        t = rng.normal(0, 2, 3) + [0, 0, 30]
        K = np.array(
            [
                [rng.uniform(500, 3000), 0, rng.uniform(300, 1000)],
                [0, rng.uniform(500, 3000), rng.uniform(200, 600)],
                [0, 0, 1],
            ]
        )
        dist = rng.normal(0, 0.05, 5) if trial % 2 else np.zeros(5)
        cam = Camera(K, R, t, (1280, 720), dist=dist)
        X = rng.normal(0, 5, (300, 3))
        want = cv2.projectPoints(X, cam.rvec, cam.t, cam.K, cam.dist)[0].reshape(-1, 2)
        got = cam.project(X)
        seen = np.isfinite(got).all(axis=1)
        assert seen.sum() > 200
        assert np.max(np.abs(got[seen] - want[seen])) < 1e-7

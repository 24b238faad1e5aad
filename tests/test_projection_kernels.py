"""The compiled line-fit and keypoint rows (geometry/_projection_kernels.pyx) against the route
they replace, cv2.projectPoints's Jacobian (folded onto the line normals for the line rows): the
residuals and projections to the bit, the derivatives to rounding, for every one-focal model,
points behind the camera and on its plane included; and the held-lens models still take their
own route."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from geometry._projection_kernels import one_focal_line_rows, one_focal_point_rows
from geometry.camera_params import ParamModel
from geometry.joint_covariance import line_offsets_px, line_rows
from geometry.line_ridges import Ridges

SIZE = (1280, 720)


def _opencv_points(model, theta, X):
    """(uv (N, 2), J (2N, P)) of a one-focal ParamModel through cv2.projectPoints, as it
    computed them before the compiled rows (its fx and fy columns summed into f); a subclass
    (a held lens) through its own projector."""
    if type(model) is not ParamModel:
        return model.project_with_jacobian(theta, X, SIZE)
    K, dist = model.intrinsics(theta, SIZE)
    uv, jac = cv2.projectPoints(np.asarray(X, float), theta[:3], theta[3:6], K, dist)
    J = jac[:, np.r_[0:7, 10 : 10 + model.n_radial]].copy()
    J[:, 6] += jac[:, 7]
    return uv.reshape(-1, 2), J


def _rows_through_opencv(model, theta, ridges, sigma, w):
    uv, J = _opencv_points(model, theta, ridges.points_world)
    n = ridges.normals
    r = np.sum((uv - ridges.uv) * n, axis=1) / sigma * w
    J = J.reshape(len(ridges), 2, -1)
    return r, (J[:, 0, :] * n[:, :1] + J[:, 1, :] * n[:, 1:]) / sigma * w[:, None]


def _case(rng, model, S, depth_lo=5.0):
    rvec = rng.normal(0, 1.0, 3)
    t = rng.normal(0, 3, 3) + [0, 0, 30]
    theta = np.concatenate([rvec, t, [rng.uniform(500, 3000)], rng.normal(0, 0.1, model.n_radial)])
    R = cv2.Rodrigues(rvec)[0]
    in_cam = np.column_stack(
        [rng.uniform(-10, 10, S), rng.uniform(-6, 6, S), rng.uniform(depth_lo, 60, S)]
    )
    ang = rng.uniform(0, 2 * np.pi, S)
    ridges = Ridges(
        (in_cam - t) @ R,
        rng.uniform(0, 1280, (S, 2)),
        np.column_stack([np.cos(ang), np.sin(ang)]),
        np.zeros(S, int),
        np.array([S]),
    )
    return theta, ridges, rng.uniform(0.2, 1.0, S)


@pytest.mark.parametrize("name", ["simple", "simple_k1", "simple_k1k2"])
def test_the_rows_are_opencvs(name):
    rng = np.random.default_rng(["simple", "simple_k1", "simple_k1k2"].index(name))
    model = ParamModel(name)
    for _ in range(40):
        theta, ridges, w = _case(rng, model, int(rng.integers(1, 700)), depth_lo=-20.0)
        r, J = line_rows(model, theta, ridges, SIZE, 0.7, w)
        r0, J0 = _rows_through_opencv(model, theta, ridges, 0.7, w)
        assert r.shape == r0.shape and J.shape == J0.shape == (len(ridges), model.size)
        assert np.array_equal(r, r0)
        scale = np.abs(J0).max(axis=0) + 1e-300
        assert np.max(np.abs(J - J0) / scale) < 1e-12


@pytest.mark.parametrize("name", ["simple", "simple_k1", "simple_k1k2"])
def test_the_keypoint_rows_are_opencvs(name):
    """ParamModel's projector and project_with_jacobian (the solver's and the covariance's
    keypoint rows): cv2.projectPoints's projections to the bit, its Jacobian to rounding,
    points behind the camera and a single point included."""
    rng = np.random.default_rng(10 + ["simple", "simple_k1", "simple_k1k2"].index(name))
    model = ParamModel(name)
    for _ in range(40):
        theta, ridges, _ = _case(rng, model, int(rng.integers(1, 40)), depth_lo=-20.0)
        X = ridges.points_world
        uv0, J0 = _opencv_points(model, theta, X)
        for uv, J in (
            model.projector(X, SIZE)(theta),
            model.project_with_jacobian(theta, X, SIZE),
        ):
            assert uv.shape == uv0.shape and J.shape == J0.shape == (2 * len(X), model.size)
            assert np.array_equal(uv, uv0)
            scale = np.abs(J0).max(axis=0) + 1e-300
            assert np.max(np.abs(J - J0) / scale) < 1e-12


def test_a_point_on_the_camera_plane_is_projected_as_opencv_does():
    """Zero depth: OpenCV takes 1/Z as 1 (no NaN, no inf); so do the rows."""
    model = ParamModel("simple_k1")
    theta = np.array([0.0, 0, 0, 0, 0, 0, 1000.0, -0.05])
    ridges = Ridges(
        np.array([[0.3, -0.2, 0.0]]),
        np.array([[640.0, 360.0]]),
        np.array([[0.6, 0.8]]),
        np.zeros(1, int),
        np.array([1]),
    )
    r, J = line_rows(model, theta, ridges, SIZE, 0.7, np.ones(1))
    r0, J0 = _rows_through_opencv(model, theta, ridges, 0.7, np.ones(1))
    assert np.all(np.isfinite(r)) and np.array_equal(r, r0)
    assert np.allclose(J, J0, rtol=1e-12, atol=1e-9)
    uv, J = model.project_with_jacobian(theta, ridges.points_world, SIZE)
    uv0, J0 = _opencv_points(model, theta, ridges.points_world)
    assert np.all(np.isfinite(uv)) and np.array_equal(uv, uv0)
    assert np.allclose(J, J0, rtol=1e-12, atol=1e-9)


def test_no_samples_give_empty_rows():
    model = ParamModel("simple")
    ridges = Ridges(
        np.zeros((0, 3)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, int), np.zeros(1, int)
    )
    r, J = line_rows(model, np.array([0.0, 0, 0, 0, 0, 10, 900]), ridges, SIZE, 0.7, np.zeros(0))
    assert r.shape == (0,) and J.shape == (0, 7)
    uv, J = ParamModel("simple_k1").project_with_jacobian(
        np.array([0.0, 0, 0, 0, 0, 10, 900, 0.1]), np.zeros((0, 3)), SIZE
    )
    assert uv.shape == (0, 2) and J.shape == (0, 8)


def test_the_kernel_refuses_mismatched_shapes():
    R, dR = cv2.Rodrigues(np.zeros(3))
    good = dict(
        t=np.zeros(3),
        points_world=np.zeros((2, 3)),
        uv_target=np.zeros((2, 2)),
        normals=np.zeros((2, 2)),
        weights=np.ones(2),
    )

    def call(**kw):
        a = dict(good, **kw)
        return one_focal_line_rows(
            R,
            dR,
            a["t"],
            1000.0,
            0.0,
            0.0,
            0,
            640.0,
            360.0,
            a["points_world"],
            a["uv_target"],
            a["normals"],
            a["weights"],
            0.7,
        )

    assert call()[1].shape == (2, 7)
    with pytest.raises(ValueError, match="points_world"):
        one_focal_point_rows(R, dR, np.zeros(3), 1e3, 0, 0, 0, 640, 360, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="n_radial"):
        one_focal_point_rows(R, dR, np.zeros(3), 1e3, 0, 0, 3, 640, 360, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="weights"):
        call(weights=np.ones(3))
    with pytest.raises(ValueError, match="points_world"):
        call(points_world=np.zeros((2, 2)))


@pytest.mark.parametrize("name", ["simple", "simple_k1", "simple_k1k2"])
def test_the_line_offsets_are_opencvs_to_the_bit(name):
    """The robust fit's Huber weights come from these offsets: the compiled pass (its
    Jacobian unused) gives cv2.projectPoints's bits, points behind the camera included."""
    rng = np.random.default_rng(10 + ["simple", "simple_k1", "simple_k1k2"].index(name))
    model = ParamModel(name)
    for _ in range(40):
        theta, ridges, _ = _case(rng, model, int(rng.integers(1, 700)), depth_lo=-20.0)
        uv = model.project_with_jacobian(theta, ridges.points_world, SIZE)[0]
        want = np.sum((uv - ridges.uv) * ridges.normals, axis=1)
        assert np.array_equal(line_offsets_px(model, theta, ridges, SIZE), want)


def test_a_held_lens_takes_its_own_route():
    """HeldLensModel (a pinhole through a fixed pixel field) is a ParamModel subclass: its rows
    are its own projector's, not the one-focal kernel's (which would drop the field)."""
    from geometry.held_lens import HeldLensModel
    from geometry.pixel_lens import PixelLens

    lens = PixelLens(
        np.array([[900.0, 0, 640], [0, 900, 360], [0, 0, 1]]),
        np.array([-0.2, 0.05, 0, 0, 0.0]),
        SIZE,
    )
    model = HeldLensModel(lens=lens)
    theta, ridges, w = _case(np.random.default_rng(9), ParamModel("simple"), 300)
    r, J = line_rows(model, theta, ridges, SIZE, 0.7, w)
    r0, J0 = _rows_through_opencv(model, theta, ridges, 0.7, w)
    assert np.array_equal(r, r0) and np.array_equal(J, J0)
    r_pinhole, _ = line_rows(ParamModel("simple"), theta, ridges, SIZE, 0.7, w)
    assert np.max(np.abs(r - r_pinhole)) > 1.0  # the field moves the rows: the route matters
    uv = model.project_with_jacobian(theta, ridges.points_world, SIZE)[0]
    assert np.array_equal(uv, model.projector(ridges.points_world, SIZE)(theta)[0])
    assert (
        np.max(
            np.abs(
                uv - ParamModel("simple").project_with_jacobian(theta, ridges.points_world, SIZE)[0]
            )
        )
        > 1.0
    )
    want = np.sum((uv - ridges.uv) * ridges.normals, axis=1)
    assert np.array_equal(line_offsets_px(model, theta, ridges, SIZE), want)


def test_projection_gives_no_image_behind_the_camera_or_past_the_fold():
    """project_points (Camera.project's pass): NaN at or behind the camera plane and beyond
    the lens's fold radius; shapes checked."""
    from geometry._projection_kernels import project_points

    K = np.array([[1000.0, 0, 640], [0, 1000, 360], [0, 0, 1]])
    pts = np.array([[0.1, 0.2, 5.0], [0.1, 0.2, -5.0], [0.0, 0.0, 0.0], [3.0, 0.0, 1.0]])
    uv = project_points(np.eye(3), np.zeros(3), K, np.zeros(5), np.inf, pts)
    assert np.allclose(uv[0], [660.0, 400.0]) and np.isnan(uv[1:3]).all()
    assert np.allclose(uv[3], [3640.0, 360.0])  # far off the image, but an image
    folded = project_points(np.eye(3), np.zeros(3), K, np.array([-0.3, 0, 0, 0, 0]), 1.0, pts)
    assert np.isnan(folded[3]).all() and np.isfinite(folded[0]).all()
    with pytest.raises(ValueError, match="dist"):
        project_points(np.eye(3), np.zeros(3), K, np.zeros(4), np.inf, pts)


def _sample_geometry_numpy(camera, P, D, search_px, margin_px=4.0, h_step=0.05, width_m=0.05):
    """find_ridges's sample geometry as the NumPy it replaced (the oracle)."""
    uv = camera.project(P)
    ok = np.all(np.isfinite(uv), axis=1) & camera.in_image(uv, -margin_px - search_px)
    keep = np.flatnonzero(ok)
    P, D, uv = P[ok], D[ok], uv[ok]
    side = np.cross(D, [0.0, 0.0, 1.0])
    side /= np.linalg.norm(side, axis=1, keepdims=True) + 1e-12
    uv_a, uv_b, uv_w = np.split(
        camera.project(np.concatenate([P - h_step * D, P + h_step * D, P + width_m * side])), 3
    )
    ok = np.all(np.isfinite(uv_a) & np.isfinite(uv_b) & np.isfinite(uv_w), axis=1)
    keep, uv, uv_a, uv_b, uv_w = keep[ok], uv[ok], uv_a[ok], uv_b[ok], uv_w[ok]
    tangent = uv_b - uv_a
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True) + 1e-12
    normals = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    return keep, uv, normals, np.abs(np.sum((uv_w - uv) * normals, axis=1))


@pytest.mark.parametrize("lens", ["pinhole", "barrel", "pincushion"])
def test_the_line_samples_geometry_is_the_numpy_one_to_the_bit(lens):
    """line_sample_geometry (find_ridges's samples in view, normals and line widths) against
    the NumPy it replaced, on broadcast cameras of a court's densified lines: samples behind
    the camera, past the lens's fold and outside the image included."""
    from court_specs import load_spec
    from courtstudio.pipeline.line_refinement import painted_ground_lines
    from courtstudio.synth.synthetic import sample_broadcast_camera
    from geometry._projection_kernels import line_sample_geometry
    from geometry.camera import Camera
    from geometry.line_ridges import cached_line_samples

    spec = load_spec("basketball_nba")
    P, D, _, _ = cached_line_samples(painted_ground_lines(spec)[1], 0.2)
    dist = {
        "pinhole": [0, 0, 0, 0, 0],
        "barrel": [-0.3, 0.08, 0, 0, 0],
        "pincushion": [0.2, 0, 0, 0, 0],
    }
    rng = np.random.default_rng(["pinhole", "barrel", "pincushion"].index(lens))
    kept = 0
    for k in range(25):
        cam = sample_broadcast_camera(spec, SIZE, rng, zoom=(0.6, 2.5))
        cam = Camera(cam.K, cam.R, cam.t, SIZE, dist=np.array(dist[lens], float))
        if k % 5 == 4:  # swung round: much of the court behind the camera
            R = cv2.Rodrigues(np.array([0.0, 2.5, 0.0]))[0] @ cam.R
            cam = Camera(cam.K, R, cam.t, SIZE, dist=cam.dist)
        search = float(rng.choice([5.0, 10.0, 20.0]))
        want = _sample_geometry_numpy(cam, P, D, search)
        got = line_sample_geometry(
            *cam.projection_args(),
            np.ascontiguousarray(P),
            np.ascontiguousarray(D),
            *SIZE,
            4.0 + search,
            0.05,
            0.05,
        )
        for g, w in zip(got, want):
            assert g.shape == w.shape and np.array_equal(g, w)
        kept += len(got[0])
    assert kept > 5000

"""Real lenses: simple_k1 / simple_k1k2, --model auto, distortion through every consumer."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.cli import main
from courtstudio.pipeline.calibration import calibrate_court
from courtstudio.synth.synthetic import sample_broadcast_camera, visible_keypoints
from exporters.opencv_yaml import read_opencv_yaml, write_opencv_yaml
from geometry.calibration import solve_camera
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.distortion import max_radius, monotonic_over_image
from geometry.errors import CalibrationError
from geometry.rays import intersect_rays_with_plane, lift_ball, pixel_rays_world

SIZE = (1920, 1080)


def wide_camera(spec, k1, seed=0, zoom=(0.55, 0.65)):
    """A wide broadcast camera (the court fills ~60 % of the frame) with radial k1."""
    return sample_broadcast_camera(spec, SIZE, np.random.default_rng(seed), zoom=zoom, k1=k1)


def clicks_of(spec, cam, rng=None, sigma=0.0, ground_only=False):
    kp = visible_keypoints(spec, cam)
    names = [n for n in kp if not ground_only or spec.keypoints[n][2] == 0]
    X = np.array([spec.keypoints[n] for n in names])
    uv = np.array([kp[n] for n in names])
    if sigma:
        uv = uv + rng.normal(0, sigma, uv.shape)
    return names, X, uv


@pytest.mark.parametrize("name", ["simple_k1", "simple_k1k2"])
def test_param_model_round_trip_and_jacobian(name):
    m = ParamModel(name)
    theta = np.array([0.1, -0.2, 0.05, 1.0, 2.0, 30.0, 1500.0, -0.2, 0.05][: m.size])
    cam = m.to_camera(theta, SIZE)
    np.testing.assert_allclose(m.from_camera(cam), theta, atol=1e-12)
    X = np.random.default_rng(0).uniform(-5, 5, (6, 3))
    _, J = m.project_with_jacobian(theta, X, SIZE)
    num = np.zeros_like(J)
    for k in range(m.size):
        h = 1e-6 * max(1.0, abs(theta[k]))
        tp, tm = theta.copy(), theta.copy()
        tp[k] += h
        tm[k] -= h
        num[:, k] = (
            m.project_with_jacobian(tp, X, SIZE)[0] - m.project_with_jacobian(tm, X, SIZE)[0]
        ).ravel() / (2 * h)
    np.testing.assert_allclose(J, num, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("k1", [-0.3, -0.15, -0.05, 0.1])
def test_simple_k1_recovers_the_lens_from_noise_free_clicks(k1):
    spec = load_spec("pickleball")
    cam = wide_camera(spec, k1, seed=3)
    names, X, uv = clicks_of(spec, cam)
    fit = solve_camera(X, uv, SIZE, model="simple_k1", names=names)
    assert fit.rms_px < 1e-3
    assert fit.camera.dist[0] == pytest.approx(k1, abs=1e-4)
    assert fit.camera.K[0, 0] == pytest.approx(cam.K[0, 0], rel=1e-5)
    np.testing.assert_allclose(fit.camera.camera_centre_world, cam.camera_centre_world, atol=1e-4)


def test_simple_k1_reaches_the_opencv_optimum():
    """cv2.calibrateCamera with one focal, fixed centred principal point and only k1 free
    reaches the same optimum on noisy planar clicks."""
    spec = load_spec("tennis")
    cam = wide_camera(spec, -0.2, seed=5)
    rng = np.random.default_rng(1)
    names, X, uv = clicks_of(spec, cam, rng, sigma=1.5, ground_only=True)
    fit = solve_camera(X, uv, SIZE, model="simple_k1", names=names)
    flags = (
        cv2.CALIB_USE_INTRINSIC_GUESS
        | cv2.CALIB_FIX_PRINCIPAL_POINT
        | cv2.CALIB_FIX_ASPECT_RATIO
        | cv2.CALIB_ZERO_TANGENT_DIST
        | cv2.CALIB_FIX_K2
        | cv2.CALIB_FIX_K3
    )
    K0 = fit.camera.K.copy()
    K0[0, 0] = K0[1, 1] = 0.9 * K0[0, 0]
    rms, K, dist, _, _ = cv2.calibrateCamera(
        [X.astype(np.float32)],
        [uv.astype(np.float32)],
        SIZE,
        K0,
        np.zeros(5),
        flags=flags,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200, 1e-12),
    )
    assert fit.rms_px == pytest.approx(rms, abs=0.01)
    assert fit.camera.K[0, 0] == pytest.approx(K[0, 0], rel=1e-3)
    assert fit.camera.dist[0] == pytest.approx(dist.ravel()[0], abs=2e-3)


def test_auto_keeps_the_pinhole_on_undistorted_frames_and_frees_the_lens_where_it_matters():
    """Undistorted: the pinhole nearly always. Barrel k1 = -0.2: wherever the pinhole visibly
    fails (RMS over 2x the click noise of 0.5 px), auto frees the lens, and the court it projects is
    much closer to the truth than the pinhole's."""
    spec = load_spec("pickleball")
    chose, mattered = [], 0
    for seed in range(12):
        cam = wide_camera(spec, 0.0, seed=seed)
        names, X, uv = clicks_of(spec, cam, np.random.default_rng(seed), sigma=1.0)
        fit = solve_camera(X, uv, SIZE, model="auto", names=names)
        chose.append(fit.model.name)
        assert fit.selection["chosen"] == fit.model.name
        assert {"simple", "simple_k1"} <= set(fit.selection["candidates"])
        cam = wide_camera(spec, -0.2, seed=seed)
        if not monotonic_over_image(cam.K, cam.dist, SIZE):
            continue  # k1 alone cannot describe a lens this wide (it would fold back)
        names, X, uv = clicks_of(spec, cam, np.random.default_rng(seed), sigma=0.5)
        if solve_camera(X, uv, SIZE, model="simple", names=names).rms_px > 1.0:
            mattered += 1
            fit = solve_camera(X, uv, SIZE, model="auto", names=names)
            assert fit.model.name != "simple", fit.selection
            pin = solve_camera(X, uv, SIZE, model="simple", names=names)
            g = np.stack(
                np.meshgrid(np.linspace(0, spec.length_m, 9), np.linspace(0, spec.width_m, 5)), -1
            ).reshape(-1, 2)
            G = np.column_stack([g, np.zeros(len(g))])
            truth = cam.project(G)
            err = [
                np.median(np.linalg.norm(c.project(G) - truth, axis=1))
                for c in (fit.camera, pin.camera)
            ]
            assert err[0] < 0.75 * err[1], err
    assert chose.count("simple") >= 10, chose
    assert mattered >= 2


def test_auto_falls_back_to_the_pinhole_with_too_few_clicks_and_says_why():
    spec = load_spec("tennis")
    cam = wide_camera(spec, -0.25, seed=2)
    names = [
        "far_left_corner",
        "far_right_corner",
        "near_left_corner",
        "near_right_corner",
        "net_post_left_top",
    ]
    kp = visible_keypoints(spec, cam)
    cal = calibrate_court(spec, SIZE, {n: kp[n] for n in names}, model="auto")
    doc = cal.to_json()
    assert doc["model"] == "simple"
    assert "needs at least 6 clicks, got 5" in doc["model_selection"]["reason"]
    with pytest.raises(CalibrationError, match="simple_k1k2 model needs at least 7"):
        solve_camera(
            np.array([spec.keypoints[n] for n in names]),
            np.array([kp[n] for n in names]),
            SIZE,
            model="simple_k1k2",
        )


def test_a_lens_the_clicks_cannot_determine_is_refused():
    spec = load_spec("tennis")
    cam = sample_broadcast_camera(spec, SIZE, np.random.default_rng(4))  # narrow, pinhole
    names = [
        "far_left_corner",
        "far_right_corner",
        "near_left_corner",
        "near_right_corner",
        "net_post_left_top",
        "net_post_right_top",
    ]
    kp = visible_keypoints(spec, cam)
    uv = np.array([kp[n] for n in names]) + np.random.default_rng(0).normal(0, 2.0, (6, 2))
    with pytest.raises(CalibrationError, match="cannot determine the simple_k1 lens"):
        solve_camera(np.array([spec.keypoints[n] for n in names]), uv, SIZE, model="simple_k1")


def test_projection_stops_at_the_lens_fold():
    dist = np.array([-0.4, 0, 0, 0, 0])
    r_max = max_radius(dist)
    assert r_max == pytest.approx(np.sqrt(1 / 1.2))  # 1 + 3 k1 r^2 = 0
    cam = Camera(
        np.array([[500.0, 0, 959.5], [0, 500, 539.5], [0, 0, 1]]),
        np.eye(3),
        np.zeros(3),
        SIZE,
        dist,
    )
    inside = np.array([[0.8 * r_max, 0, 1.0]])
    beyond = np.array([[1.5 * r_max, 0, 1.0]])
    assert np.all(np.isfinite(cam.project(inside)))
    assert np.all(np.isnan(cam.project(beyond)))
    assert max_radius([0.1, 0, 0, 0, 0]) == np.inf


@pytest.mark.parametrize("k1", [-0.3, -0.1, 0.1])
def test_rays_and_ball_lifting_round_trip_through_the_lens(k1):
    spec = load_spec("tennis")
    cam = wide_camera(spec, k1, seed=1)
    rng = np.random.default_rng(2)
    P = np.column_stack(
        [rng.uniform(0, spec.length_m, 20), rng.uniform(0, spec.width_m, 20), np.zeros(20)]
    )
    uv = cam.project(P)
    ok = cam.in_image(uv)
    C, d = pixel_rays_world(cam, uv[ok])
    back, _ = intersect_rays_with_plane(C, d, 0.0)
    np.testing.assert_allclose(back, P[ok], atol=1e-6)
    ball = np.array([15.0, 4.0, 1.3])
    ground = ball * [1, 1, 0]
    lift = lift_ball(cam, cam.project(ball[None])[0], cam.project(ground[None])[0], 0.0)
    np.testing.assert_allclose(lift.world, ball, atol=1e-5)


def test_distortion_survives_the_camera_file_and_opencv_yaml(tmp_path):
    spec = load_spec("badminton")
    cam = wide_camera(spec, -0.22, seed=6)
    names, X, uv = clicks_of(spec, cam)
    cal = calibrate_court(spec, SIZE, dict(zip(names, uv)), model="simple_k1")
    doc = json.loads(json.dumps(cal.to_json()))
    back = Camera.from_dict(doc)
    assert back.dist[0] == pytest.approx(-0.22, abs=1e-4)
    np.testing.assert_allclose(back.project(X), uv, atol=1e-3)
    write_opencv_yaml(back, tmp_path / "cam.yaml")
    again = read_opencv_yaml(tmp_path / "cam.yaml")
    np.testing.assert_allclose(again.dist, back.dist, atol=1e-12)
    np.testing.assert_allclose(again.project(X), uv, atol=1e-3)
    # the OpenCV camera undistorts the clicks to the pinhole image of the same points
    und = cv2.undistortPoints(uv.reshape(-1, 1, 2), again.K, again.dist, P=again.K)
    pin = Camera(again.K, again.R, again.t, SIZE).project(X)
    np.testing.assert_allclose(und.reshape(-1, 2), pin, atol=1e-2)


def test_glb_frustum_widens_with_barrel_distortion():
    from exporters.glb import camera_frustum

    spec = load_spec("tennis")
    pin = wide_camera(spec, 0.0, seed=1)
    barrel = Camera(pin.K, pin.R, pin.t, SIZE, [-0.3, 0, 0, 0, 0])
    v_pin = np.asarray(camera_frustum(pin).vertices)
    v_bar = np.asarray(camera_frustum(barrel).vertices)
    spread = [np.linalg.norm(v[1] - v[3]) for v in (v_pin, v_bar)]
    assert spread[1] > 1.02 * spread[0]


def test_cli_calibrate_reports_the_model(capsys, tmp_path):
    spec = load_spec("pickleball")
    cam = wide_camera(spec, -0.25, seed=8)
    names, X, uv = clicks_of(spec, cam, np.random.default_rng(0), sigma=1.0)
    pts = tmp_path / "p.json"
    pts.write_text(
        json.dumps(
            {
                "image_size": list(SIZE),
                "points": {n: list(map(float, p)) for n, p in zip(names, uv)},
            }
        )
    )
    assert main(["calibrate", "--sport", "pickleball", "--points", str(pts), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"] in ("simple_k1", "simple_k1k2")
    assert doc["dist"][0] == pytest.approx(-0.25, abs=0.05)
    assert doc["click_sigma_source"] == "estimated"
    assert (
        main(
            [
                "calibrate",
                "--sport",
                "pickleball",
                "--points",
                str(pts),
                "--model",
                "pinhole",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["model"] == "simple"
    assert main(["calibrate", "--sport", "pickleball", "--points", str(pts), "--refine-lines"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--image" in err[0]


def test_distortion_survives_the_scene_file(tmp_path):
    from exporters.scene import BallRecord, Scene, load_scene, save_scene

    spec = load_spec("tennis")
    cam = wide_camera(spec, -0.18, seed=2)
    scene = Scene(
        frame_id="f1",
        image="f1.png",
        image_size=SIZE,
        spec_id="tennis",
        camera=cam,
        camera_info={"model": "simple_k1"},
        ball=BallRecord(visible=False),
        players=[],
    )
    save_scene(scene, tmp_path / "scene.json")
    back = load_scene(tmp_path / "scene.json")
    np.testing.assert_allclose(back.camera.dist, cam.dist)
    X = np.array([spec.keypoints[n] for n in ("far_left_corner", "near_right_corner")])
    np.testing.assert_allclose(back.camera.project(X), cam.project(X), atol=1e-9)


def test_live_cache_keeps_the_lens_while_dragging_and_follows_the_settings():
    from courtstudio.io.project import FrameAnnotation
    from courtstudio.pipeline.live_calibration import CalibrationCache

    spec = load_spec("pickleball")
    cam = wide_camera(spec, -0.25, seed=8)
    names, X, uv = clicks_of(spec, cam, np.random.default_rng(0), sigma=0.5)
    ann = FrameAnnotation("f", SIZE, {n: tuple(map(float, p)) for n, p in zip(names, uv)})
    cache = CalibrationCache()
    chosen = cache.solve("f", spec, ann).calibration.fit.model.name
    assert chosen != "simple"
    moved = dict(ann.points)
    moved[names[0]] = (moved[names[0]][0] + 0.5, moved[names[0]][1])
    drag = FrameAnnotation("f", SIZE, moved)
    fit = cache.solve("f", spec, drag, diagnose=False).calibration.fit
    assert fit.model.name == chosen and fit.selection is None  # no selection while dragging
    cache.configure("simple", 2.5)
    cal = cache.solve("f", spec, ann).calibration
    assert cal.fit.model.name == "simple" and cal.click_sigma_px == 2.5


def test_max_radius_of_k1_alone_is_np_roots_to_the_bit():
    """k1 alone takes a closed form (every frame of a k1 lens refit asks for a new lens):
    np.roots's answer to the bit, folds (k1 < 0) and no fold (k1 > 0) alike."""
    from geometry.distortion import _max_radius

    rng = np.random.default_rng(3)
    for _ in range(5000):
        k1 = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-7, 1))
        roots = np.roots([0.0, 0.0, 3 * k1, 1.0])
        s = [r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0]
        want = float(np.sqrt(min(s))) if s else float("inf")
        assert _max_radius(np.array([k1, 0.0, 0.0, 0.0, 0.0])) == want
        assert _max_radius(np.array([k1, 0.0])) == want

"""A camera fit with its reference's lens held as a pixel field (geometry/held_lens.py), and
the propagation paths that use it: a frame whose points cannot determine k1 keeps the lens
(courtstudio/pipeline/propagation_solve.recalibrate), and the shared-centre refit keeps the
field while it refits the focal length (propagation_shots.share_centre)."""

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.propagation_shots import share_centre
from courtstudio.pipeline.propagation_solve import recalibrate
from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from geometry.camera import Camera, rotation_look_at
from geometry.camera_params import ParamModel
from geometry.held_lens import HeldLensModel, field_dist, solve_held_lens
from geometry.pixel_lens import PixelLens

SIZE = (1280, 720)
SPEC = load_spec("tennis")
# a broadcast camera behind the near baseline with a strong pincushion lens (k1 = 0.3 at
# f = 1200 px moves the image corners by 80 px)
CENTRE = np.array([48.0, 5.5, 12.0])
R0 = rotation_look_at(CENTRE, np.array([14.0, 5.5, 0.0]))
K_REF = np.array([[1200.0, 0, 639.5], [0, 1200.0, 359.5], [0, 0, 1]])
LENS = PixelLens(K_REF, [0.3, 0, 0, 0, 0], SIZE)
X4 = np.array(
    [SPEC.keypoints[n] for n in ("near_service_left", "near_service_right")]
    + [SPEC.keypoints[n] for n in ("far_service_left", "far_service_right")]
)


def _camera(f_px: float, yaw: float = 0.0) -> Camera:
    """The camera zoomed to f_px and panned by yaw (radians), drawn through the field LENS."""
    c, s = np.cos(yaw), np.sin(yaw)
    R = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]) @ R0
    K = K_REF.copy()
    K[0, 0] = K[1, 1] = f_px
    return Camera(K, R, -R @ CENTRE, SIZE, dist=field_dist(LENS, f_px))


def test_field_dist_draws_the_pixel_field_at_any_focal():
    """A zoomed camera with field_dist's coefficients bends its pinhole image exactly as the
    fixed field does: the normalised k1 follows the focal length squared."""
    cam = _camera(1500.0)
    pin = Camera(cam.K, cam.R, cam.t, SIZE)
    assert np.allclose(cam.project(X4), LENS.distort(pin.project(X4)), atol=1e-9)
    assert cam.dist[0] == pytest.approx(0.3 * (1500 / 1200) ** 2)


def test_model_jacobian_matches_finite_differences():
    model = HeldLensModel(lens=LENS)
    theta = model.from_camera(_camera(1400.0, 0.01))
    uv, J = model.project_with_jacobian(theta, X4, SIZE)
    assert np.allclose(uv, _camera(1400.0, 0.01).project(X4), atol=1e-9)
    for k in range(7):
        h = 1e-6 * max(1.0, abs(theta[k]))
        tp, tm = theta.copy(), theta.copy()
        tp[k] += h
        tm[k] -= h
        num = (
            model.project_with_jacobian(tp, X4, SIZE)[0]
            - model.project_with_jacobian(tm, X4, SIZE)[0]
        ).ravel() / (2 * h)
        assert np.allclose(J[:, k], num, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("start_off", [0.0, 0.2])
def test_four_points_recover_a_zoomed_panned_camera_through_the_held_field(start_off):
    """Four points cannot determine k1, but with the field held they fix pose and focal
    exactly, from a warm start or (start 20 % off in focal and a rotation away) from the
    pinhole's own starts on the straightened points."""
    truth = _camera(1350.0, 0.02)
    start = ParamModel("simple").from_camera(_camera(1200.0))
    start[6] *= 1 + start_off
    start[:3] += start_off * 0.1
    fit = solve_held_lens(X4, truth.project(X4), SIZE, LENS, start, surface_z_m=0.0)
    assert fit.rms_px < 1e-6
    assert fit.camera.K[0, 0] == pytest.approx(1350.0, rel=1e-7)
    assert np.allclose(fit.camera.dist, truth.dist, atol=1e-9)
    far = np.array([v for k, v in SPEC.keypoints.items() if "corner" in k])
    assert np.allclose(fit.camera.project(far), truth.project(far), atol=1e-5, equal_nan=True)


def test_recalibrate_holds_the_reference_lens_for_four_points():
    """A k1 reference's frame with four transferred keypoints (k1 needs five): before, the
    pinhole fitted them and missed the court's corners by 3 px; holding the reference's
    lens, the frame's camera is exact."""
    names = ["near_service_left", "near_service_right", "far_service_left", "far_service_right"]
    truth = _camera(1200.0)
    pts = {n: tuple(truth.project(SPEC.keypoints[n][None])[0]) for n in names}
    theta0 = ParamModel("simple_k1").from_camera(truth)
    theta0[6] *= 1.02
    corners = np.array([v for k, v in SPEC.keypoints.items() if "corner" in k])
    assert np.all(np.isfinite(truth.project(corners)))

    def worst_px(cam: Camera) -> float:
        return float(np.max(np.linalg.norm(cam.project(corners) - truth.project(corners), axis=1)))

    held = recalibrate(SPEC, SIZE, pts, theta0, "simple_k1", LENS)
    assert isinstance(held.model, HeldLensModel)
    assert worst_px(held.camera) < 1e-4
    pinhole = recalibrate(SPEC, SIZE, pts, theta0, "simple_k1")  # no lens to hold
    assert not pinhole.camera.has_distortion
    assert worst_px(pinhole.camera) > 2.0


def test_recalibrate_holds_a_lined_references_lens_whatever_the_points():
    """hold_lens (a reference whose lens came from its painted lines): noisy keypoints enough
    to refit k1 still keep the reference's field; without it k1 is refitted."""
    truth = _camera(1200.0)
    names = [
        n
        for n, X in SPEC.keypoints.items()
        if X[2] == 0 and truth.in_image(truth.project(np.asarray(X)[None]))[0]
    ]
    assert len(names) >= 10
    rng = np.random.default_rng(3)
    pts = {
        n: tuple(truth.project(SPEC.keypoints[n][None])[0] + rng.normal(0, 1.0, 2)) for n in names
    }
    theta0 = ParamModel("simple_k1").from_camera(truth)
    held = recalibrate(SPEC, SIZE, pts, theta0, "simple_k1", LENS, hold_lens=True)
    assert isinstance(held.model, HeldLensModel)
    assert held.camera.dist[0] == pytest.approx(field_dist(LENS, held.camera.K[0, 0])[0])
    free = recalibrate(SPEC, SIZE, pts, theta0, "simple_k1", LENS)
    assert not isinstance(free.model, HeldLensModel)
    assert free.camera.dist[0] != pytest.approx(held.camera.dist[0], abs=1e-6)


def _record(frame: int, cam: Camera, names, start: Camera, held: bool) -> dict:
    pts = {n: [float(v) for v in cam.project(SPEC.keypoints[n][None])[0]] for n in names}
    return {
        "frame": frame,
        "status": Status.OK,
        "K": start.K.tolist(),
        "R": start.R.tolist(),
        "t": start.t.tolist(),
        "image_size": list(SIZE),
        "dist": start.dist.tolist(),
        "rms_px": 0.0,
        "points": pts,
        "reference": 0,
        **({"lens": "held"} if held else {}),
    }


def test_share_centre_keeps_a_held_field_while_it_refits_the_focal():
    """Frames that held their reference's field are refitted about the shared centre as
    pinholes in its ideal pixels, their coefficients following the refitted focal: a held
    frame whose free fit had the focal 3 % off and its centre 0.3 m away comes out exact.
    Holding its normalised coefficients instead leaves the wrong field (a 0.04 % focal error
    here, beyond the 1e-5 asserted)."""
    names = [
        f"{end}_service_{side}" for end in ("far", "near") for side in ("left", "centre", "right")
    ]
    truth = [_camera(1200.0 * z, yaw) for z, yaw in ((1.0, 0.0), (1.1, 0.01), (1.2, -0.01))]
    recs = []
    for k, cam in enumerate(truth):
        f_start = cam.K[0, 0] * (1.03 if k == 2 else 1.0)
        # the start camera shares the truth's pose about a nearby centre and the field
        start = Camera(
            np.diag([f_start, f_start, 1.0]) + np.array([[0, 0, 639.5], [0, 0, 359.5], [0, 0, 0]]),
            cam.R,
            -cam.R @ (CENTRE + [0.0, 0.3 * (k == 2), 0.0]),
            SIZE,
            dist=field_dist(LENS, f_start),
        )
        recs.append(_record(k, cam, [n for n in names if _in_view(cam, n)], start, k == 2))
    share_centre(recs, SPEC, SIZE, flag_rms_px=3.0)
    assert recs[2]["centre"] == "shared"
    out = Camera.from_dict(recs[2], "frame 2")
    assert out.K[0, 0] == pytest.approx(truth[2].K[0, 0], rel=1e-5)
    assert np.allclose(out.dist, truth[2].dist, rtol=1e-4)
    assert recs[2]["rms_px"] < 0.01


def _in_view(cam: Camera, name: str) -> bool:
    u = cam.project(SPEC.keypoints[name][None])[0]
    return bool(np.all(np.isfinite(u)) and 0 <= u[0] < SIZE[0] and 0 <= u[1] < SIZE[1])


def test_line_refinement_keeps_a_held_lens():
    """A held frame refined on its painted lines (propagation's line_model) keeps the field:
    only pose and focal move, and its coefficients follow the focal."""
    from courtstudio.pipeline.line_refinement import refine_on_lines
    from courtstudio.synth.synthetic import render_frame, sample_broadcast_camera

    spec = load_spec("badminton")
    rng = np.random.default_rng(11)
    size = (960, 540)
    truth = sample_broadcast_camera(spec, size, rng, zoom=(0.6, 0.7), k1=0.1)
    img = render_frame(spec, truth, rng=rng)
    lens = PixelLens.of_camera(truth)
    model = HeldLensModel(lens=lens)
    theta = model.from_camera(truth)
    theta[6] *= 1.02
    theta[:3] += 0.003
    start = model.to_camera(theta, size)
    new, rep = refine_on_lines(start, spec, img, model=model)
    assert rep.accepted
    assert np.allclose(new.dist, field_dist(lens, new.K[0, 0]), atol=1e-12)
    X = np.array([v for v in spec.keypoints.values() if abs(v[2]) < 1e-9])
    before = np.median(np.linalg.norm(start.project(X) - truth.project(X), axis=1))
    after = np.median(np.linalg.norm(new.project(X) - truth.project(X), axis=1))
    assert after < 0.2 * before


def test_share_centre_leaves_a_camera_refined_on_its_lines_as_it_is():
    """A frame whose camera was fitted to its painted lines too (``refined``: "lines") keeps
    that camera (a refit to its keypoints alone would drop the lines and the prediction made
    with them) and does not take the shared centre; the others still do."""
    names = [
        f"{end}_service_{side}" for end in ("far", "near") for side in ("left", "centre", "right")
    ]
    truth = [_camera(1200.0 * z, yaw) for z, yaw in ((1.0, 0.0), (1.1, 0.01), (1.2, -0.01))]
    recs = []
    for k, cam in enumerate(truth):
        start = Camera(
            cam.K * [[1.02, 1, 1], [1, 1.02, 1], [1, 1, 1]], cam.R, cam.t, SIZE, cam.dist
        )
        recs.append(_record(k, cam, [n for n in names if _in_view(cam, n)], start, False))
    recs[1]["refined"] = "lines"
    before = {k: list(recs[1][k]) for k in ("K", "R", "t")}
    share_centre(recs, SPEC, SIZE, flag_rms_px=3.0)
    assert recs[1]["centre"] == "free"
    assert all(recs[1][k] == before[k] for k in before)
    assert recs[0]["centre"] == recs[2]["centre"] == "shared"
    # the others are refitted: their 2 % focal error is gone
    assert recs[2]["K"][0][0] == pytest.approx(truth[2].K[0, 0], rel=2e-3)
    assert recs[1]["K"][0][0] == pytest.approx(1.02 * truth[1].K[0, 0])


def test_share_centre_flags_a_frame_whose_keypoints_need_another_centre():
    """On a fixed mount the camera only turns and zooms: a frame whose keypoints were carried
    by a homography that is no pan, tilt or zoom (here sheared 6 % about the image centre, up
    to 10 px) fits the shot's centre several pixels worse than its reference fits its clicks,
    and is flagged, keeping its camera; its neighbours are not. A shear of 1.5 % (2.4 px)
    stays within the limit and is left ok (refitted free)."""
    from courtstudio.pipeline.propagation_shots import CENTRE_MISFIT_PX_1080, OFF_CENTRE

    names = [n for n, X in SPEC.keypoints.items() if abs(X[2]) < 1e-9]
    truth = [_camera(1200.0 * z, yaw) for z, yaw in ((1.0, 0.0), (1.05, 0.01), (1.1, -0.01))]
    truth.append(_camera(1150.0, 0.005))
    limit = CENTRE_MISFIT_PX_1080 * SIZE[1] / 1080
    c = np.array([639.5, 359.5])
    for shear, flagged in ((0.06, True), (0.015, False)):
        recs = []
        for k, cam in enumerate(truth):
            recs.append(_record(k, cam, [n for n in names if _in_view(cam, n)], cam, False))
        recs[0]["status"] = Status.REFERENCE
        S = np.array([[1.0, shear], [0.0, 1.0]])
        recs[2]["points"] = {
            n: [float(v) for v in S @ (np.array(p) - c) + c] for n, p in recs[2]["points"].items()
        }
        share_centre(recs, SPEC, SIZE, flag_rms_px=3.0)
        beyond = recs[2]["centre_rms_px"] - recs[0]["rms_px"]
        if flagged:
            assert recs[2]["status"] == Status.FLAGGED and recs[2]["reason"].startswith(OFF_CENTRE)
            assert beyond > limit and "K" in recs[2]  # it keeps its camera
        else:
            assert recs[2]["status"] == Status.OK and 0.5 < beyond < limit
        assert recs[2]["centre"] == "free"
        for k in (1, 3):
            assert recs[k]["status"] == Status.OK and recs[k]["centre"] == "shared", recs[k]
            assert recs[k]["centre_rms_px"] < 0.05

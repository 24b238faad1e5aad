"""The fast paths of propagation (issue 11 section 5): reduced-resolution registration, one
reduction per frame, decode-ahead, line evidence on BGR samples, the SciPy-free chi-square
quantile, the per-frame recalibration. Each is checked against its plain counterpart or
against synthetic ground truth."""

import threading

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.synth.synthetic_clip import make_clip
from geometry.camera import Camera
from geometry.plane_motion import (
    cut_signature,
    prepare,
    prepare_frame,
    register_to_reference,
    to_reduced,
    transfer_points,
)
from tests.textures import corner_texture


@pytest.fixture(scope="module")
def tennis():
    return load_spec("tennis")


def _corner_error(H_est, H_true, size) -> float:
    w, h = size
    c = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], float)
    return float(
        np.max(np.linalg.norm(transfer_points(H_est, c) - transfer_points(H_true, c), axis=1))
    )


def test_to_reduced_matches_opencvs_resize():
    """A bright dot at full-resolution x lands at s x + (s - 1) / 2 in the reduced image."""
    for full, small in ((1920, 640), (1280, 640), (1920, 960)):
        s = small / full
        img = np.zeros((120, full), np.float32)
        x0 = 0.4 * full + 0.37  # sub-pixel, as a smooth blob
        xs = np.arange(full)
        img[:] = np.exp(-0.5 * ((xs - x0) / 6.0) ** 2)
        red = cv2.resize(img, (small, round(120 * s)), interpolation=cv2.INTER_AREA)[5]
        centroid = float((red * np.arange(small)).sum() / red.sum())
        expect = (to_reduced(s) @ np.array([x0, 0.0, 1.0]))[0]
        assert abs(centroid - expect) < 0.02, (full, centroid, expect)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_reduced_resolution_registration_round_trip(size):
    """A known pan + 1.3x zoom about the image centre: registering at 640 px recovers it
    within 0.15 full-resolution px at every image corner (the reduced image's pixel-centre
    offset, ignored, costs about 0.3 px here at 1080p)."""
    w, h = size
    ref = corner_texture(size, seed=1)
    z, cx, cy = 1.3, w / 2, h / 2
    H_true = np.array(
        [[z, 0.004, cx - z * cx + 9.0], [-0.003, z, cy - z * cy - 6.0], [2e-6, -1e-6, 1.0]]
    )
    frame = cv2.warpPerspective(ref, H_true, (w, h), flags=cv2.INTER_CUBIC)
    a = prepare(ref, corners=True)
    b, sig = prepare_frame(frame)
    assert a.gray.shape[1] == 640 and b.gray.shape == a.gray.shape and sig.shape == (90, 160, 3)
    H_pred = H_true @ np.array([[1.0, 0, 1.5], [0, 1.0, -1.0], [0, 0, 1]])  # 1.5 px off
    reg = register_to_reference(a, b, H_pred, method="track")
    assert reg.ok and reg.method == "track"
    assert _corner_error(reg.H, H_true, size) < 0.15


def test_registration_of_degenerate_frames_never_raises():
    """Black and constant frames through the fast path: a failed registration, no error."""
    size = (1280, 720)
    a = prepare(corner_texture(size), corners=True)
    for img in (np.zeros((720, 1280, 3), np.uint8), np.full((720, 1280, 3), 90, np.uint8)):
        b, _ = prepare_frame(img)
        reg = register_to_reference(a, b, np.eye(3))
        assert not reg.ok and reg.reason


def test_prepare_frame_matches_prepare_and_cut_signature():
    img = corner_texture((1920, 1080), seed=4)
    p, sig = prepare_frame(img)
    q = prepare(img)
    assert p.scale == q.scale and p.size == q.size == (1920, 1080)
    assert np.abs(p.gray.astype(int) - q.gray.astype(int)).max() == 0
    ref_sig = cut_signature(img)
    assert sig.shape == ref_sig.shape
    assert np.abs(sig.astype(int) - ref_sig.astype(int)).mean() < 2.0
    g, gsig = prepare_frame(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))  # gray input works too
    assert g.gray.shape == p.gray.shape and gsig.shape == (90, 160, 3)


def test_line_evidence_on_bgr_samples_equals_the_gray_image(tennis):
    from courtstudio.pipeline.propagate_frame import LINE_STEP_M, ground_lines
    from geometry.line_support import line_evidence
    from geometry.projection import densify_all

    clip = make_clip(tennis, 1, (1280, 720), seed=3)
    img, cam = clip.frames[0], clip.cameras[0]
    dense = densify_all(ground_lines(tennis), LINE_STEP_M)
    a = line_evidence(img, cam, [], dense=dense)
    b = line_evidence(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cam, [], dense=dense)
    assert a["samples"] == b["samples"] > 100
    assert abs(a["support"] - b["support"]) <= 0.01 and a["support"] > 0.7
    assert abs(a["found"] - b["found"]) <= 0.01 * a["samples"]
    moved = Camera(cam.K, cam.R, cam.t + np.array([0.3, 0.0, 0.0]), cam.image_size)
    assert line_evidence(img, moved, [], dense=dense)["support"] < 0.5 * a["support"]


def test_chi2_quantile_without_scipy_matches_scipy():
    from scipy.stats import chi2

    from geometry.chi2 import chi2_isf, chi2_sf

    for dof in list(range(1, 60)) + [99, 100, 257, 400, 401, 1000]:
        for q in (0.5, 0.05, 1e-3, 1e-7):
            assert chi2_isf(q, dof) == pytest.approx(chi2.isf(q, dof), rel=1e-10)
        for x in (0.0, 0.3, float(dof), 2.5 * dof + 8):
            assert chi2_sf(x, dof) == pytest.approx(chi2.sf(x, dof), rel=1e-9, abs=1e-300)
    for bad in ((0.001, 0), (0.001, 2.5), (0.0, 3), (1.0, 3)):
        with pytest.raises(ValueError):
            chi2_isf(*bad)


def test_the_doctor_limit_is_scipys():
    from scipy.stats import chi2

    from geometry.doctor import POOR_CHI2_QUANTILE, _chi2_limit

    for dof in (1, 2, 7, 20, 120):
        assert _chi2_limit(dof) == pytest.approx(chi2.ppf(POOR_CHI2_QUANTILE, dof), rel=1e-10)


def _true_camera(tennis, size=(1280, 720)):
    return make_clip(tennis, 1, size, seed=7).cameras[0]


def test_recalibrate_round_trip_from_a_warm_start(tennis):
    from courtstudio.pipeline.propagate_frame import recalibrate
    from geometry.camera_params import ParamModel

    cam = _true_camera(tennis)
    names = [n for n, X in tennis.keypoints.items() if abs(X[2]) < 1e-9]
    uv = cam.project(np.array([tennis.keypoints[n] for n in names]))
    inside = (uv[:, 0] >= 0) & (uv[:, 0] < 1280) & (uv[:, 1] >= 0) & (uv[:, 1] < 720)
    pts = {n: tuple(q) for n, q, ok in zip(names, uv, inside) if ok}
    theta0 = ParamModel("simple").from_camera(cam)
    theta0[:3] += 0.01  # about half a degree off
    theta0[6] *= 1.05
    fit = recalibrate(tennis, (1280, 720), pts, theta0, "simple")
    assert fit.rms_px < 1e-3
    assert abs(fit.camera.K[0, 0] / cam.K[0, 0] - 1) < 1e-5
    assert np.linalg.norm(fit.camera.camera_centre_world - cam.camera_centre_world) < 1e-3
    # a lens model the points cannot determine falls back to the pinhole, never raises
    few = dict(list(pts.items())[:4])
    fit4 = recalibrate(tennis, (1280, 720), few, np.r_[theta0, 0.0], "simple_k1")
    assert fit4.model.name in ("simple", "simple_k1") and fit4.rms_px < 0.5


def test_frame_model_ignores_a_lens_that_moves_no_pixel(tennis):
    from dataclasses import replace

    from courtstudio.pipeline.calibration import calibrate_court
    from courtstudio.pipeline.propagate_frame import frame_model

    cam = _true_camera(tennis)
    clicks = {
        n: tuple(cam.project(tennis.keypoints[n][None])[0])
        for n in (
            "far_left_corner",
            "far_right_corner",
            "near_left_corner",
            "near_right_corner",
            "net_post_left_top",
            "net_post_right_top",
        )
    }
    fit = calibrate_court(tennis, (1280, 720), clicks, diagnose=False).fit
    tiny = replace(
        fit, camera=Camera(cam.K, cam.R, cam.t, cam.image_size, dist=np.array([-2e-18, 0, 0, 0, 0]))
    )
    real = replace(
        fit, camera=Camera(cam.K, cam.R, cam.t, cam.image_size, dist=np.array([-0.05, 0, 0, 0, 0]))
    )
    for f in (tiny, real):
        object.__setattr__(f, "model", type(fit.model)("simple_k1"))
    assert frame_model(tiny) == "simple"
    assert frame_model(real) == "simple_k1"


def _write_numbered_video(path, n=40, size=(320, 240)):
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, size)
    for i in range(n):
        img = np.full((size[1], size[0], 3), 5 * i, np.uint8)
        wr.write(img)
    wr.release()


def test_decode_ahead_gives_the_same_frames_in_any_order(tmp_path):
    from courtstudio.io.frames import VideoReader
    from courtstudio.pipeline.propagate_sources import VideoFrames

    path = tmp_path / "n.avi"
    _write_numbered_video(path)
    direct = VideoReader(path)
    truth = [direct.read(i) for i in range(40)]
    vf = VideoFrames(path, cache=2, ahead=3)
    order = [0, 0, 1, 2, 3, 10, 11, 12, 5, 6, 39, 38, 20] + list(range(21, 40))
    for i in order:
        assert np.array_equal(vf.image(i), truth[i]), i
    vf.close()
    assert not any(t.name == "decode-ahead" and t.is_alive() for t in threading.enumerate())


def test_decode_ahead_reports_a_broken_frame_to_its_reader(tmp_path, monkeypatch):
    from courtstudio.io.project import ProjectError
    from courtstudio.pipeline.propagate_sources import VideoFrames

    path = tmp_path / "n.avi"
    _write_numbered_video(path, n=12)
    vf = VideoFrames(path, ahead=2)
    real = vf.reader.read

    def flaky(i):
        if i == 6:
            raise ProjectError("cannot decode frame 6")
        return real(i)

    monkeypatch.setattr(vf.reader, "read", flaky)
    for i in range(6):
        vf.image(i)
    with pytest.raises(ProjectError):
        vf.image(6)
    assert vf.image(7).shape == (240, 320, 3)  # the run goes on after the broken frame
    vf.close()


def test_graphics_grid_test_equals_the_cell_loop():
    from geometry.screen_fixed import MIN_MOVING_FRACTION, _camera_moved

    def loop(tex, still, cells=6):
        h, w = tex.shape
        moving = textured = 0
        for r in range(cells):
            for c in range(cells):
                sl = (
                    slice(r * h // cells, (r + 1) * h // cells),
                    slice(c * w // cells, (c + 1) * w // cells),
                )
                t = tex[sl]
                if int(t.sum()) < 20:
                    continue
                textured += 1
                moving += np.mean(~still[sl][t]) > 0.5
        return textured > 0 and moving >= MIN_MOVING_FRACTION * textured

    rng = np.random.default_rng(0)
    for _ in range(300):
        h, w = rng.integers(30, 200), rng.integers(30, 300)
        tex = rng.random((h, w)) < rng.random()
        still = rng.random((h, w)) < rng.random()
        if rng.random() < 0.3:
            tex[: h // 2] = False
        assert _camera_moved(tex, still) == loop(tex, still)


def test_exit_while_decoding_ahead_is_clean(tmp_path):
    """A process that stops reading mid-video exits normally (a decoder thread killed
    inside OpenCV at exit would abort it)."""
    from tests.fresh_python import run_fresh

    path = tmp_path / "n.avi"
    _write_numbered_video(path, n=40)
    code = (
        "from courtstudio.pipeline.propagate_sources import VideoFrames\n"
        f"vf = VideoFrames({str(path)!r}, ahead=4)\n"
        "vf.image(0); vf.image(1); vf.image(20)\n"
    )
    out = run_fresh(code)
    assert out.returncode == 0, out.stderr
    assert "terminate" not in out.stderr


def test_cut_features_decide_as_is_cut(tennis):
    from geometry.plane_motion import cut_features, is_cut, is_cut_features

    a = make_clip(tennis, 3, (640, 360), seed=2).frames
    rng = np.random.default_rng(3)
    frames = list(a) + [
        corner_texture((640, 360), seed=5),
        np.zeros((360, 640, 3), np.uint8),
        (rng.random((360, 640, 3)) * 255).astype(np.uint8),
        cv2.flip(a[0], 1),
        np.roll(a[1], 40, axis=1),
    ]
    feats = [cut_features(cut_signature(f)) for f in frames]
    decisions = set()
    for i in range(len(frames)):
        for j in range(len(frames)):
            d = is_cut(cut_signature(frames[i]), cut_signature(frames[j]))
            assert is_cut_features(feats[i], feats[j]) == d, (i, j)
            decisions.add(d)
    assert decisions == {True, False}


def test_graphics_integer_update_votes_as_the_float_formula():
    """ScreenFixedDetector.update (uint8 / int16 arithmetic) casts the same votes as the plain
    float32 formula of its docstring, on moving frames with a screen-fixed logo."""
    from geometry.screen_fixed import (
        MIN_GRADIENT,
        STILL_DIFF,
        ScreenFixedDetector,
        _camera_moved,
    )

    base = cv2.cvtColor(corner_texture((700, 400), seed=4), cv2.COLOR_BGR2GRAY)
    frames = []
    for k in range(12):
        g = np.ascontiguousarray(base[k * 3 : k * 3 + 300, k * 5 : k * 5 + 520])
        g[10:60, 20:140] = base[:50, :120]  # the logo stays put
        frames.append(g)
    det = ScreenFixedDetector(frames[0].shape)
    votes = np.zeros(frames[0].shape, np.float32)
    textured = np.zeros_like(votes)
    counted = 0
    for a_img, b_img in zip(frames[:-4], frames[4:]):
        det.update(a_img, b_img)
        a = cv2.GaussianBlur(a_img, (3, 3), 0).astype(np.float32)
        b = cv2.GaussianBlur(b_img, (3, 3), 0).astype(np.float32)
        gx = cv2.Sobel(b, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(b, cv2.CV_32F, 0, 1, ksize=3)
        tex = (np.abs(gx) + np.abs(gy)) > MIN_GRADIENT * 4
        still = np.abs(b - a) < STILL_DIFF
        if tex.sum() >= 50 and _camera_moved(tex, still):
            votes += tex & still
            textured += tex
            counted += 1
    assert counted >= 4 and det.pairs == counted
    assert np.array_equal(det.votes, votes) and np.array_equal(det.textured, textured)
    assert det.mask() is not None and det.mask()[30, 80] == 0  # the logo is masked
    # the frames' textures made beforehand (a source's decode thread makes them), for one
    # frame of a pair, the other or both: the same votes
    from geometry.screen_fixed import frame_texture

    for given in ("prev", "cur", "both"):
        ahead = ScreenFixedDetector(frames[0].shape)
        for a_img, b_img in zip(frames[:-4], frames[4:]):
            ta = frame_texture(a_img) if given in ("prev", "both") else None
            tb = frame_texture(b_img) if given in ("cur", "both") else None
            ahead.update(a_img, b_img, ta, tb)
        assert ahead.pairs == counted, given
        assert np.array_equal(ahead.votes, votes) and np.array_equal(ahead.textured, textured)


@pytest.mark.parametrize("lens", ["pinhole", "shared", "per_frame"])
def test_fixed_centre_many_reaches_the_per_frame_optimum(lens):
    """The vectorised shared-centre refit (propagation's share_centre) lands on the same
    cameras as geometry.fixed_centre's per-frame solve (to 1e-5 px), with frames of
    different point counts (padding), noisy clicks, moved true centres and a lens; and its
    Rodrigues matches OpenCV's, including the zero rotation."""
    from geometry.fixed_centre import solve_fixed_centre
    from geometry.fixed_centre_batch import rodrigues_many, solve_fixed_centre_many

    rng = np.random.default_rng(7)
    rv = np.vstack([rng.normal(0, 1, (20, 3)), np.zeros((1, 3))])
    assert np.allclose(rodrigues_many(rv), [cv2.Rodrigues(v)[0] for v in rv], atol=1e-12)
    size, C = (1280, 720), np.array([0.5, -30.0, 8.0])
    F, N = 25, 9
    X, U, W = np.zeros((F, N, 3)), np.zeros((F, N, 2)), np.zeros((F, N))
    th0, dists, starts = np.zeros((F, 4)), np.zeros((F, 5)), []
    for f in range(F):
        z = rng.normal(0, 2, 3) - C
        z /= np.linalg.norm(z)
        x = np.cross(z, [0, 0, 1.0])
        x /= np.linalg.norm(x)
        R = np.stack([x, np.cross(z, x), z])
        fl = 1500 * (1 + rng.normal(0, 0.1))
        K = np.array([[fl, 0, 639.5], [0, fl, 359.5], [0, 0, 1]])
        d = {
            "pinhole": np.zeros(5),
            "shared": np.array([-0.2, 0.05, 0.001, -0.002, 0.01]),
            "per_frame": np.array([rng.normal(0, 0.1), 0, 0, 0, 0]),
        }[lens]
        cam = Camera(K, R, -R @ (C + rng.normal(0, 0.2, 3)), size, dist=d)
        n = int(rng.integers(4, N + 1))
        Xw = np.c_[rng.uniform(-5, 5, n), rng.uniform(-11, 11, n), rng.uniform(0, 1, n)]
        uv = cam.project(Xw) + rng.normal(0, 0.5, (n, 2))
        X[f, :n], U[f, :n], W[f, :n], dists[f] = Xw, uv, 1, d
        R0 = cv2.Rodrigues(cv2.Rodrigues(R)[0] + rng.normal(0, 0.01, (3, 1)))[0]
        start = Camera(K, R0, -R0 @ C, size, dist=d)
        th0[f] = np.r_[start.rvec, fl]
        starts.append((Xw, uv, start))
    theta, rms = solve_fixed_centre_many(X, U, W, size, C, th0, dists)
    R_all = rodrigues_many(theta[:, :3])
    for f, (Xw, uv, start) in enumerate(starts):
        ref, ref_rms = solve_fixed_centre(Xw, uv, size, C, start)
        fl = theta[f, 3]
        K = np.array([[fl, 0, 639.5], [0, fl, 359.5], [0, 0, 1]])
        cam = Camera(K, R_all[f], -R_all[f] @ C, size, dist=dists[f])
        assert np.abs(cam.project(Xw) - ref.project(Xw)).max() < 1e-5, f
        assert abs(rms[f] - ref_rms) < 1e-8, f


def test_graphics_scan_slows_down_once_the_mask_is_stable_and_speeds_up_after_a_cut():
    """The scan feeds the graphics detector a pair every GRAPHICS_EVERY frames until its mask
    has stayed the same for GRAPHICS_STABLE updates, then every GRAPHICS_EVERY_STABLE; a cut
    returns it to the fast rate. The logo is found either way, and the scan yields every
    frame in order, with the mask as it stood after that frame."""
    from courtstudio.pipeline import propagation_scan as scan_mod
    from courtstudio.pipeline.propagation_scan import FrameScan

    base = corner_texture((1400, 900), seed=6)
    other = corner_texture((1400, 900), seed=9)

    class Frames:
        count, size = 160, (640, 360)

        def image(self, i):
            src, k = (base, i) if i < 120 else (other, i - 120)  # a cut at frame 120
            g = np.ascontiguousarray(src[2 * k : 2 * k + 360, 4 * k : 4 * k + 640])
            g[10:60, 20:140] = 255 - base[:50, :120]  # the logo stays put
            return g

    for threaded in (False, True):
        scan = FrameScan(Frames(), 0, 160, True, threaded=threaded)
        updates = []
        seen = []
        for sc in scan:
            if scan.detector is not None and not hasattr(scan.detector, "_counted"):
                real = scan.detector.update

                def counted(a, b, *textures, real=real, scan=scan, updates=updates):
                    updates.append(scan.observed)  # consecutive pairs seen (scan's thread)
                    real(a, b, *textures)

                scan.detector.update = counted
                scan.detector._counted = True
            seen.append((sc.index, sc.cut, sc.graphics is not None))
        assert [s[0] for s in seen] == list(range(160))
        assert [s[0] for s in seen if s[1]] == [120]
        gaps = np.diff(updates)
        before_cut = gaps[np.array(updates[1:]) < 119]  # frame 120 (the cut) is no pair
        assert before_cut[0] == scan_mod.GRAPHICS_EVERY
        assert before_cut.max() == scan_mod.GRAPHICS_EVERY_STABLE > scan_mod.GRAPHICS_EVERY
        after = [u for u in updates if u >= 119]
        # after the cut: the history refills (GRAPHICS_LAG frames), then the fast rate
        assert np.diff(after)[:3].tolist() == [scan_mod.GRAPHICS_EVERY] * 3
        boxes = scan.graphics_boxes()
        assert any(b[0] <= 25 and b[1] <= 15 and b[2] >= 135 and b[3] >= 55 for b in boxes)


def test_frame_scan_hands_errors_to_the_pass_and_stops_its_thread():
    """An unexpected error reading a frame is raised in the caller's thread at that frame;
    a pass that stops early (or fails) leaves no scan thread behind."""
    from courtstudio.pipeline.propagation_scan import FrameScan

    class Frames:
        count, size = 30, (320, 180)

        def image(self, i):
            if i == 5:
                raise RuntimeError("broken decoder")
            return np.full((180, 320, 3), 7 * i % 255, np.uint8)

    seen = []
    with pytest.raises(RuntimeError, match="broken decoder"):
        for sc in FrameScan(Frames(), 0, 30, True):
            seen.append(sc.index)
    assert seen == [0, 1, 2, 3, 4]
    for sc in FrameScan(Frames(), 10, 30, True):  # starts after the broken frame
        if sc.index == 12:
            break
    assert not any(t.name == "propagation-scan" and t.is_alive() for t in threading.enumerate())


def test_a_pass_decodes_on_the_threads_the_machine_leaves_it(tmp_path, monkeypatch):
    """FFmpeg's decoder threads follow propagation_cpus.decoder_threads (one on 2 CPUs, its own
    choice with a core for each of the pass's threads), in every reopened capture too, and
    one thread decodes the same pixels as FFmpeg's default (an MPEG-4 clip, which FFmpeg
    decodes on a thread per CPU)."""
    import os

    from courtstudio.io.frames import VideoReader
    from courtstudio.pipeline.propagate_sources import VideoFrames, VideoSource

    path = tmp_path / "noise.mp4"
    rng = np.random.default_rng(3)
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, (320, 240))
    for _ in range(12):
        wr.write(rng.integers(0, 255, (240, 320, 3), np.uint8))
    wr.release()
    default = VideoReader(path)
    truth = [default.read(i) for i in range(12)]
    one = VideoReader(path, decoder_threads=1)
    assert one._cap.get(cv2.CAP_PROP_N_THREADS) == 1
    assert all(np.array_equal(one.read(i), truth[i]) for i in range(12))
    one._read_up_to(5)  # a reopened capture keeps the setting
    assert one._cap.get(cv2.CAP_PROP_N_THREADS) == 1
    assert np.array_equal(one.read(5), truth[5])
    for r in (default, one):
        r.close()
    for cpus, workers, want in [(2, 1, 1), (4, 1, None), (4, 2, 1)]:
        monkeypatch.setattr(os, "sched_getaffinity", lambda _, n=cpus: set(range(n)))
        for vf in (VideoFrames(path, workers=workers), VideoSource(str(path), workers)()):
            assert vf.reader.decoder_threads == want
            if want == 1:
                assert vf.reader._cap.get(cv2.CAP_PROP_N_THREADS) == 1
            vf.close()


def test_unique_sorted_is_numpys_unique():
    from geometry.arrays import unique_sorted

    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        a = rng.integers(-5, 6, n) if rng.random() < 0.5 else np.round(rng.normal(size=n), 1)
        got, want = unique_sorted(a), np.unique(a)
        assert got.dtype == want.dtype and np.array_equal(got, want)

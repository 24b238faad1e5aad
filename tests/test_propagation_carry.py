"""A weak frame's line refinement started from its neighbour's refined camera, carried to it
by the registration's homographies (courtstudio/pipeline/propagation_carry.py): exact on
synthetic cameras, None where no camera motion explains the homography, and in a propagation
run the frames after a refined one are refined from it (one search) to the accuracy a
refinement from their point fit reaches."""

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.line_refinement import painted_ground_lines
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.pipeline.propagation_carry import (
    CARRY_SAMPLES_PER_LINE,
    LinedFrame,
    carried_camera,
    ground_samples,
)
from courtstudio.synth.synthetic import sample_broadcast_camera
from courtstudio.synth.synthetic_clip import NEAR_HALF_TENNIS, ClipFrames, make_clip
from geometry.camera import Camera
from geometry.pixel_lens import PixelLens

SPEC = load_spec("tennis")
SIZE = (1280, 720)
SAMPLES = ground_samples(painted_ground_lines(SPEC)[1])
GROUND = np.array([v for v in SPEC.keypoints.values() if abs(v[2] - SPEC.plane_z()) < 1e-9])


def _ground_homography(cam: Camera) -> np.ndarray:
    """(3, 3) world ground plane (x, y, 1) -> the pinhole image of cam."""
    z0 = SPEC.plane_z()
    M = np.column_stack([cam.R[:, 0], cam.R[:, 1], cam.R[:, 2] * z0 + cam.t])
    return cam.K @ M


def _moved(cam: Camera, pan_deg=3.0, zoom=1.05, shift_m=(0.0, 0.0, 0.0), dist=None):
    """cam panned about the vertical by pan_deg, its focal length times zoom, its centre
    moved by shift_m (world metres)."""
    R_pan = cv2.Rodrigues(np.array([0.0, 0.0, np.radians(pan_deg)]))[0]
    R = cam.R @ R_pan
    C = cam.camera_centre_world + np.asarray(shift_m)
    K = cam.K.copy()
    K[0, 0] *= zoom
    K[1, 1] *= zoom
    return Camera(K, R, -R @ C, cam.image_size, dist=cam.dist if dist is None else dist)


def _worst_px(a: Camera, b: Camera) -> float:
    return float(np.max(np.linalg.norm(a.project(GROUND) - b.project(GROUND), axis=1)))


@pytest.mark.parametrize(
    "pan_deg, zoom, shift_m",
    [(3.0, 1.05, (0, 0, 0)), (-2.0, 0.9, (0, 0, 0)), (1.0, 1.0, (0.4, -0.3, 0.1))],
)
def test_a_camera_is_carried_exactly_by_the_ground_homography(pan_deg, zoom, shift_m):
    """Pan, zoom, and a moved centre (the ground homography still maps the court exactly)."""
    a = sample_broadcast_camera(SPEC, SIZE, np.random.default_rng(3), zoom=(0.8, 0.85))
    b = _moved(a, pan_deg, zoom, shift_m)
    H0 = np.diag([1.0, 1.0, 1.0])  # a is the reference
    H = _ground_homography(b) @ np.linalg.inv(_ground_homography(a))
    got = carried_camera(LinedFrame(7, H0, a), H, None, SAMPLES)
    assert got is not None
    assert _worst_px(got, b) < 1e-4
    # through another reference: H0 and H both from that reference's image
    r = _moved(a, 5.0, 1.2)
    to_r = np.linalg.inv(_ground_homography(r))
    got2 = carried_camera(
        LinedFrame(7, _ground_homography(a) @ to_r, a), _ground_homography(b) @ to_r, None, SAMPLES
    )
    assert got2 is not None and _worst_px(got2, b) < 1e-4


def test_a_lens_is_carried_through_its_ideal_pixels():
    """Registration's homographies map the reference lens's ideal pixels: the carried camera
    keeps the lens and lands on the frame's distorted image."""
    a0 = sample_broadcast_camera(SPEC, SIZE, np.random.default_rng(4), zoom=(0.8, 0.85))
    dist = np.array([-0.12, 0.0, 0.0, 0.0, 0.0])
    a = Camera(a0.K, a0.R, a0.t, SIZE, dist=dist)
    b = _moved(a, 2.5, 1.0)
    lens = PixelLens(a.K, a.dist, SIZE)
    H = _ground_homography(b) @ np.linalg.inv(_ground_homography(a))
    got = carried_camera(LinedFrame(0, np.eye(3), a), H, lens, SAMPLES)
    assert got is not None
    assert got.dist[0] == pytest.approx(dist[0], abs=1e-6)
    assert _worst_px(got, b) < 1e-3
    # ignoring the lens (raw pixels moved by the ideal homography) is not what b sees
    raw = carried_camera(LinedFrame(0, np.eye(3), a), H, None, SAMPLES)
    assert raw is None or _worst_px(raw, b) > 0.05


def test_no_camera_comes_from_a_homography_no_camera_motion_explains():
    a = sample_broadcast_camera(SPEC, SIZE, np.random.default_rng(3), zoom=(0.8, 0.85))
    last = LinedFrame(0, np.eye(3), a)
    assert carried_camera(last, np.zeros((3, 3)), None, SAMPLES) is None  # singular
    assert carried_camera(last, np.full((3, 3), np.nan), None, SAMPLES) is None
    away = np.array([[1.0, 0, 1e5], [0, 1, 0], [0, 0, 1]])  # the court leaves the image
    assert carried_camera(last, away, None, SAMPLES) is None
    c = np.array([SIZE[0] / 2, SIZE[1] / 2])
    T = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
    mirror = np.linalg.inv(T) @ np.diag([-1.0, 1.0, 1.0]) @ T  # no camera's motion mirrors
    assert carried_camera(last, mirror, None, SAMPLES) is None
    assert carried_camera(last, np.eye(3), None, SAMPLES[:5]) is None  # too few samples
    assert carried_camera(last, np.eye(3), None, np.zeros((0, 3))) is None


def test_ground_samples_lie_on_the_painted_lines_evenly():
    lines = painted_ground_lines(SPEC)[1]
    total = sum(float(np.sum(np.linalg.norm(np.diff(p, axis=0), axis=1))) for p in lines)
    longest = max(float(np.sum(np.linalg.norm(np.diff(p, axis=0), axis=1))) for p in lines)
    step = longest / CARRY_SAMPLES_PER_LINE
    assert SAMPLES.shape[1] == 3
    assert np.allclose(SAMPLES[:, 2], SPEC.plane_z())
    assert 0.8 * total / step <= len(SAMPLES) <= total / step + 2 * sum(len(p) for p in lines)
    assert len(ground_samples([])) == 0


def _weak_clip(n_frames: int):
    """A synthetic pan and its reference at frame 0 clicked (0.5 px noise) on the near
    baseline and the service T only: every frame is weak, refined on its lines."""
    clip = make_clip(SPEC, n_frames, SIZE, seed=2, pan_deg=5.0, zoom=0.1)
    cam = clip.cameras[0]
    rng = np.random.default_rng(1)
    ref = {
        k: tuple(cam.project(SPEC.keypoints[k][None])[0] + rng.normal(0, 0.5, 2))
        for k in NEAR_HALF_TENNIS
    }
    return clip, ref


def test_weak_frames_are_refined_from_their_refined_neighbour(tmp_path):
    """A reference clicked on the near baseline and the service T only: every frame is weak
    and refined on its lines; after the first, each is started from the frame before it."""
    clip, ref = _weak_clip(12)
    records = propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path)
    carried, worst = [], []
    for r in records:
        if r["status"] != "ok":
            continue
        assert r["refined"] == "lines"
        if "refined_from" in r:
            carried.append(r["frame"])
            assert 0 < abs(r["frame"] - r["refined_from"]) <= 2
        est = Camera(
            np.array(r["K"]), np.array(r["R"]), np.array(r["t"]), SIZE, dist=np.array(r["dist"])
        )
        worst.append(_worst_px(est, clip.cameras[r["frame"]]))
    assert len(worst) >= 9 and len(carried) >= 6
    assert np.median(worst) < 1.5 and max(worst) < 5.0


def test_a_refused_carried_start_falls_back_to_the_point_fit_and_a_cut_forgets_it(monkeypatch):
    """The tracker's order: a carried start first (one radius, tests against the point fit),
    the point fit's own refinement when that is refused; a cut clears the refined frames."""
    import courtstudio.pipeline.propagate_frame as pf
    from courtstudio.pipeline.propagation_uncertainty import WeakRefinement
    from geometry.line_refine import LineRefinement

    a = sample_broadcast_camera(SPEC, SIZE, np.random.default_rng(3), zoom=(0.8, 0.85))
    b = _moved(a, 1.0, 1.02)
    H = _ground_homography(b) @ np.linalg.inv(_ground_homography(a))
    refined = Camera(b.K * [[1.001], [1.001], [1]], b.R, b.t, SIZE)
    calls = []

    def fake(camera, spec, image, pts, noise, prior, rms, start=None, gray=None, mask=None):
        calls.append((camera, start))
        accepted = start is None  # the carried start's refinement is refused
        rep = LineRefinement(accepted, "x", "simple", 0.6, 0.7, 1, 1, 1.0, 1.0, 100, 5)
        return WeakRefinement(refined if accepted else camera, 2.0, "k", rep, None, 1.0)

    monkeypatch.setattr(pf, "refine_weak_frame", fake)
    monkeypatch.setattr(pf, "line_evidence", lambda *a, **k: {"support": 0.7})
    tracker = pf.Tracker(SPEC, SIZE, {}, pf.Options())
    st = type("St", (), {"sigma_px": 1.0, "lens_prior": None, "rms_px": 1.0, "lens": None})()
    tracker._lined[id(st)] = LinedFrame(4, np.eye(3), a)
    ev = {"support": 0.6}
    point_fit = _moved(a, 1.2, 1.0)
    frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    got = tracker._weak_refined(frame, st, point_fit, 1.0, ev, {}, 20.0, "k", 5, H)
    assert len(calls) == 2 and all(c[0] is point_fit for c in calls)
    assert _worst_px(calls[0][1], b) < 1e-4  # carried: b
    assert calls[1][1] is None
    assert got[0] is refined and got[5] is True and got[6] is None  # not carried from 4
    calls.clear()
    got = tracker._weak_refined(frame, st, point_fit, 1.0, ev, {}, 20.0, "k", 9, H)
    assert [c[1] for c in calls] == [None]  # frame 4 is too far: no carried start
    tracker.reset_motion()
    assert tracker._lined == {}


def test_a_carried_start_is_searched_at_the_last_radius_against_the_point_fit(monkeypatch):
    """refine_weak_frame: from a carried start one radius, SEARCH_PX[-1:], with the point fit
    as the baseline every test compares with; without one, every radius from the point fit."""
    import courtstudio.pipeline.line_refinement as lr
    from courtstudio.pipeline.propagation_uncertainty import refine_weak_frame
    from geometry.line_refine import SEARCH_PX, LineRefinement

    a = sample_broadcast_camera(SPEC, SIZE, np.random.default_rng(3), zoom=(0.8, 0.85))
    start = _moved(a, 0.5, 1.0)
    pts = {k: tuple(a.project(SPEC.keypoints[k][None])[0]) for k in NEAR_HALF_TENNIS}
    seen = []

    def fake(camera, spec, image, clicks=None, **kw):
        seen.append((camera, kw["search_px"], kw["baseline"]))
        return camera, LineRefinement(False, "x", "simple", 0.6, 0.6, 1, 1, 1.0, 1.0, 0, 0)

    monkeypatch.setattr(lr, "refine_on_lines", fake)
    frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    refine_weak_frame(a, SPEC, frame, pts, 1.0, None, 0.5, start)
    assert seen and all(c is start and r == SEARCH_PX[-1:] and b is a for c, r, b in seen)
    seen.clear()
    refine_weak_frame(a, SPEC, frame, pts, 1.0, None, 0.5)
    assert seen and all(c is a and r == SEARCH_PX and b is None for c, r, b in seen)


def test_the_scan_threads_line_grey_changes_no_record(tmp_path, monkeypatch):
    """While frames are refined on their lines, the scan thread makes each next frame's
    line-search grey (propagation_scan, want_line_gray) and the tracker uses it instead of
    making its own: the records are those of a run that makes every grey on the pass's
    thread, and a frame refined twice (a carried start refused) makes it once."""
    from courtstudio.pipeline import propagate as propagate_mod
    from courtstudio.pipeline import propagate_frame, propagation_scan

    clip, ref = _weak_clip(10)
    made = {"scan": 0, "pass": 0}

    def counting(where, real):
        def to_gray(image):
            made[where] += 1
            return real(image)

        return to_gray

    monkeypatch.setattr(propagation_scan, "to_gray", counting("scan", propagation_scan.to_gray))
    monkeypatch.setattr(propagate_frame, "to_gray", counting("pass", propagate_frame.to_gray))
    with_scan = propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path / "a")
    # the scan runs up to AHEAD + 1 frames ahead of the frame the pass looks at next (one
    # after the one it processes: propagation_ahead): the first refined frames make their own
    assert made["scan"] >= 3 and made["pass"] <= 3 + propagation_scan.AHEAD

    real_scan = propagate_mod.FrameScan

    def no_grey(*args, **kwargs):
        kwargs["want_line_gray"] = None
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(propagate_mod, "FrameScan", no_grey)
    made.update(scan=0, **{"pass": 0})
    without = propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path / "b")
    assert made["scan"] == 0
    refined = sum(r.get("refined") == "lines" for r in without)
    # at most one grey a frame (refined, or refused and tried again), every refined one
    assert refined >= 6 and refined <= made["pass"] <= len(without) - 1
    assert with_scan == without

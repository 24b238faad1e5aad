"""Propagation on synthetic pan/tilt/zoom clips with known cameras."""

import ast
import json

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from court_specs.model import PAPER_SIX
from courtstudio.cli import main
from courtstudio.pipeline.propagate import Reference, propagate, summary
from courtstudio.pipeline.propagation_status import WITH_CAMERA
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip, write_video
from geometry.camera import Camera
from geometry.plane_motion import is_cut, is_identity
from tests.propagation_clips import reference_clicks


@pytest.fixture(scope="module")
def tennis():
    return load_spec("tennis")


def clicks(spec, cam):
    return reference_clicks(spec, cam)


def errors(spec, clip, records):
    """Median keypoint error (px) and focal error (%) of usable frames."""
    P = np.array([spec.keypoints[n] for n in PAPER_SIX])
    kp, f = [], []
    for r in records:
        cam = clip.cameras[r["frame"]]
        if r["status"] in WITH_CAMERA and cam is not None:
            est = Camera.from_dict(r, f"frame {r['frame']}")
            kp.append(np.median(np.linalg.norm(est.project(P) - cam.project(P), axis=1)))
            f.append(abs(est.K[0, 0] / cam.K[0, 0] - 1) * 100)
    return np.array(kp), np.array(f)


def test_pan_tilt_zoom_from_one_reference(tennis, tmp_path):
    clip = make_clip(tennis, 50, (960, 540), seed=2)
    recs = propagate(
        ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path
    )
    s = summary(recs)
    assert s["counts"].get("flagged", 0) == 0 and s["cuts"] == []
    kp, f = errors(tennis, clip, recs)
    assert len(kp) == 50 and np.median(kp) < 1.0 and kp.max() < 3.0
    assert np.median(f) < 1.0


def test_cuts_and_blur_are_flagged_never_bridged(tennis, tmp_path):
    clip = make_clip(tennis, 40, (960, 540), seed=3, cut_at=(25,), cut_length=6, blur_frames=(12,))
    recs = propagate(
        ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path
    )
    s = summary(recs)
    assert s["cuts"] == [25, 31]
    flagged = {f["frame"] for f in s["flagged"]}
    assert 12 in flagged  # heavy blur
    # another camera: no reference in that shot; a frame is kept only when registered to a
    # reference (the court plane maps between any two views) and its own lines agree
    ref_support = recs[0]["line_support"]
    for r in recs[25:31]:
        assert r["frame"] in flagged or (
            r["line_support"] > 0.7 * ref_support and r["line_residual_px"] <= 1.0
        )
    back = [r for r in recs if r["frame"] >= 31]  # back on the main camera (after a replay):
    assert all(r["status"] in ("ok", "static") for r in back)  # registered to the reference
    kp, _ = errors(tennis, clip, back)
    assert len(kp) == 9 and kp.max() < 2.0


def test_two_references_and_resume(tennis, tmp_path):
    clip = make_clip(tennis, 40, (960, 540), seed=4)
    refs = [
        Reference(0, clicks(tennis, clip.cameras[0])),
        Reference(39, clicks(tennis, clip.cameras[39])),
    ]
    recs = propagate(ClipFrames(clip), tennis, refs, tmp_path)
    by = {r["frame"]: r for r in recs}
    assert by[10]["reference"] == 0 and by[30]["reference"] == 39  # nearest reference
    lines = (tmp_path / "cameras.jsonl").read_text().splitlines()
    (tmp_path / "cameras.jsonl").write_text("\n".join(lines[:15]) + '\n{"frame": 9')  # killed
    again = propagate(ClipFrames(clip), tennis, refs, tmp_path)
    assert [r["frame"] for r in again] == list(range(40))
    kp, _ = errors(tennis, clip, again)
    assert np.median(kp) < 1.0


def test_static_camera_reuses_the_reference(tennis, tmp_path):
    clip = make_clip(tennis, 8, (960, 540), seed=5, pan_deg=0, tilt_deg=0, zoom=0, occluders=0)
    recs = propagate(
        ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path
    )
    assert [r["status"] for r in recs] == ["reference"] + ["static"] * 7
    assert is_identity(np.eye(3), (960, 540))
    assert not is_cut(clip.frames[0], clip.frames[1])


def test_batch_propagate_cli(tennis, tmp_path, capsys):
    clip = make_clip(tennis, 20, (640, 360), seed=6)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    pts, pts19 = tmp_path / "ref.json", tmp_path / "ref19.json"
    for path, cam in ((pts, clip.cameras[0]), (pts19, clip.cameras[19])):
        path.write_text(
            json.dumps(
                {
                    "image_size": [640, 360],
                    "points": {k: [float(c) for c in v] for k, v in clicks(tennis, cam).items()},
                }
            )
        )
    out = tmp_path / "out"
    code = main(
        [
            "batch-propagate",
            str(video),
            "--sport",
            "tennis",
            "--reference",
            f"0:{pts}",
            "--reference",
            f"19:{pts19}",
            "--out",
            str(out),
            "--quiet",
            "--workers",
            "2",
        ]
    )
    assert code == 0
    lines = [json.loads(x) for x in (out / "cameras.jsonl").read_text().splitlines()]
    assert [r["frame"] for r in lines] == list(range(20)) and lines[0]["status"] == "reference"
    for r in lines:
        assert {"frame", "K", "R", "t", "status", "rms_px"} <= set(r)
    assert json.loads((out / "summary.json").read_text())["frames"] == 20
    code = main(
        [
            "batch-propagate",
            str(video),
            "--sport",
            "tennis",
            "--reference",
            "x:y",
            "--out",
            str(out),
        ]
    )
    assert code == 2 and "expected FRAME:POINTS.json" in capsys.readouterr().err


def test_project_propagation_in_the_app(tmp_path, qtbot):
    """A video project with one annotated frame: Frame > Propagate calibrates the others, the
    timeline shows them, and a cancelled run resumes."""
    from annotation_ui.main_window import MainWindow
    from courtstudio.io.project_new import new_project_from_video

    spec = load_spec("tennis")
    clip = make_clip(spec, 24, (640, 360), seed=7)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    p = new_project_from_video(tmp_path / "vp", video, "tennis")
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    qtbot.addWidget(win)
    win.open_project(p.root, recover=False)
    fid0 = p.frames[0].id
    for n, uv in clicks(spec, clip.cameras[0]).items():
        win.doc.set_keypoint(fid0, n, uv)
    assert win.propagate_dialog(cancel_after=5) == []  # cancelled part-way
    from PySide6.QtWidgets import QProgressDialog

    labels = []
    real_set_label = QProgressDialog.setLabelText
    QProgressDialog.setLabelText = lambda self, t: labels.append(t) or real_set_label(self, t)
    try:
        recs = win.propagate_dialog()  # resumed: the dialog says so, then propagates
    finally:
        QProgressDialog.setLabelText = real_set_label
    assert labels[0].startswith("Resuming: reading past the frames already done (5 of 5)")
    assert labels[-1] == "Propagating court keypoints..."
    assert len(recs) == 24 and all(r["status"] in ("reference", "ok", "static") for r in recs)
    assert all(st["court"] for st in win.timeline.statuses)
    win.go_to(20)
    state = win.doc.camera_state(p.frames[20].id)
    assert state.propagated is not None and "propagated from frame 0" in state.message
    assert "camera propagated" in win.court_panel.summary.text()
    # the ball tool works with a propagated camera (click noise only in its sigma)
    from courtstudio.pipeline.live_calibration import lift_frame_ball

    cam20 = clip.cameras[20]
    b, g = np.array([[10.0, 4.0, 1.2]]), np.array([[10.0, 4.0, 0.0]])
    win.doc.set_ball_pixel(p.frames[20].id, cam20.project(b)[0])
    win.doc.set_ball_ground(p.frames[20].id, cam20.project(g)[0])
    res, msg = lift_frame_ball(
        win.doc.camera_state(p.frames[20].id), spec, win.doc.annotation(p.frames[20].id)
    )
    assert res is not None, msg
    assert np.linalg.norm(res.world - b[0]) < 0.1 and np.all(np.isfinite(res.sigma_world_m))
    # and File > Export writes the propagated frames too
    out = win.export_to(tmp_path / "out", all_frames=True)
    assert [x.status for x in out] == ["ok"] * 24
    cam_json = json.loads((tmp_path / "out" / p.frames[20].id / "camera.json").read_text())
    assert cam_json["propagation"]["reference"] == 0 and "K" in cam_json
    err = np.linalg.norm(
        state.camera.project(np.array([spec.keypoints["far_left_corner"]]))
        - clip.cameras[20].project(np.array([spec.keypoints["far_left_corner"]]))
    )
    assert err < 2.0


def test_line_support_separates_right_and_wrong_cameras(tennis):
    from courtstudio.synth.synthetic_clip import rotate_camera
    from geometry.line_support import line_support

    clip = make_clip(tennis, 1, (960, 540), seed=8)
    cam = clip.cameras[0]
    ground = [pl for pl in tennis.lines.values() if np.all(np.abs(pl[:, 2]) < 1e-9)]
    assert line_support(clip.frames[0], cam, ground) > 0.7
    assert line_support(clip.frames[0], rotate_camera(cam, np.deg2rad(0.5), 0, 1.0), ground) < 0.35
    far = rotate_camera(cam, np.deg2rad(170), 0, 1.0)  # looking away: no line in view
    assert np.isnan(line_support(clip.frames[0], far, ground))


def test_player_boxes_are_masked(tmp_path):
    from courtstudio.io.project import FrameAnnotation, PlayerAnnotation, load_project
    from courtstudio.io.project_new import new_project_from_images
    from courtstudio.pipeline.propagate import ProjectFrames

    d = tmp_path / "img"
    d.mkdir()
    cv2.imwrite(str(d / "a.png"), np.zeros((100, 200, 3), np.uint8))
    p = new_project_from_images(tmp_path / "p", d, "tennis")
    p.save_annotation(
        FrameAnnotation("a", (200, 100), players=[PlayerAnnotation(1, (50, 20, 70, 80))])
    )
    m = ProjectFrames(load_project(p.root)).mask(0)
    assert m[50, 60] == 0 and m[50, 48] == 0 and m[50, 46] == 255  # padded by 10 % (2 px)


def test_snapping_moves_keypoints_onto_line_crossings(tennis):
    from geometry.line_snap import snap_keypoints

    clip = make_clip(tennis, 1, (1280, 720), seed=1, occluders=0)
    cam = clip.cameras[0]
    ground = [pl for pl in tennis.lines.values() if np.all(np.abs(pl[:, 2]) < 1e-9)]
    true = {n: cam.project(p[None])[0] for n, p in tennis.keypoints.items() if abs(p[2]) < 1e-9}
    true = {n: v for n, v in true.items() if 10 < v[0] < 1270 and 10 < v[1] < 710}
    rng = np.random.default_rng(0)
    noisy = {n: tuple(v + rng.normal(0, 1.5, 2)) for n, v in true.items()}
    snapped, k = snap_keypoints(clip.frames[0], cam, noisy, tennis.keypoints, ground)
    before = np.median([np.linalg.norm(np.subtract(noisy[n], true[n])) for n in true])
    after = np.median([np.linalg.norm(np.subtract(snapped[n], true[n])) for n in true])
    assert k >= len(true) * 0.6 and after < 0.6 * before


def test_propagation_with_snapping(tennis, tmp_path):
    clip = make_clip(tennis, 20, (960, 540), seed=2)
    recs = propagate(
        ClipFrames(clip),
        tennis,
        [Reference(0, clicks(tennis, clip.cameras[0]))],
        tmp_path,
        snap=True,
    )
    kp, f = errors(tennis, clip, recs)
    assert len(kp) == 20 and np.median(kp) < 1.0


# ------------------------------------------------------------------ issue 11
def _all_ground_clicks(spec, cam, size):
    w, h = size
    uv = {n: cam.project(p[None])[0] for n, p in spec.keypoints.items() if abs(p[2]) < 1e-9}
    return {n: tuple(v) for n, v in uv.items() if 2 <= v[0] < w - 2 and 2 <= v[1] < h - 2}


def test_degenerate_frames_are_flagged_and_the_run_recovers(tennis, tmp_path):
    """Black, blurred, pure-graphics and flat frames: no crash, each flagged, and the frames
    after them are registered correctly again (a bad homography never becomes the
    prediction)."""
    from courtstudio.synth.synthetic_clip import draw_graphics

    clip = make_clip(tennis, 30, (640, 360), seed=21, pan_deg=2, tilt_deg=1, zoom=0.05)
    clip.frames[10] = np.zeros_like(clip.frames[10])
    clip.frames[11] = cv2.GaussianBlur(clip.frames[11], (0, 0), 12)
    g = np.full_like(clip.frames[12], 20)
    draw_graphics(g, 12)
    clip.frames[12] = g
    clip.frames[13] = np.full_like(clip.frames[13], 128)
    recs = propagate(
        ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path
    )
    by = {r["frame"]: r for r in recs}
    assert [by[i]["status"] for i in (10, 11, 12, 13)] == ["flagged"] * 4
    later = [r for r in recs if r["frame"] >= 14]
    assert all(r["status"] in ("ok", "static") for r in later)
    kp, _ = errors(tennis, clip, later)
    assert len(kp) == 16 and kp.max() < 2.0


def test_homography_checks_reject_degenerate_motion():
    from geometry.plane_motion import homography_problem, register_to_reference

    size = (640, 360)
    assert (
        homography_problem(np.array([[1.01, 0.002, 3], [0.001, 1.0, -2], [1e-6, 0, 1]]), size) == ""
    )
    singular = np.array([[1.0, 2.0, 0], [0.5, 1.0, 0], [0, 0, 1.0]]) + 1e-13
    assert "singular" in homography_problem(singular, size)
    assert homography_problem(
        np.diag([-1.0, 1, 1]) @ np.array([[1, 0, -640], [0, 1, 0], [0, 0, 1.0]]), size
    )
    assert homography_problem(np.full((3, 3), np.nan), size)
    assert "zoom" in homography_problem(np.diag([10.0, 10, 1]), size)
    img = make_clip(load_spec("tennis"), 1, size, seed=3).frames[0]
    black = np.zeros_like(img)
    for a, b in ((img, black), (black, img), (black, black)):  # zero features or inliers
        reg = register_to_reference(a, b, np.eye(3))
        assert not reg.ok and reg.reason


def test_screen_fixed_graphics_are_found_and_kept_out(tennis, tmp_path):
    from courtstudio.pipeline.propagate import propagate as prop
    from courtstudio.synth.synthetic_clip import Hazards, graphics_boxes

    clip = make_clip(
        tennis,
        60,
        (640, 360),
        seed=22,
        hazards=Hazards(graphics=True),
        pan_deg=4,
        tilt_deg=1.5,
        zoom=0.2,
    )
    recs = prop(ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path)
    found = prop.last_extras["graphics_boxes"]

    def overlap(a, b):
        return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))

    for box in graphics_boxes((640, 360)):
        area = (box[2] - box[0]) * (box[3] - box[1])
        assert sum(overlap(box, f) for f in found) > 0.7 * area, (box, found)
    kp, _ = errors(tennis, clip, recs)
    assert len(kp) >= 57 and np.median(kp) < 1.0 and kp.max() < 3.0


def test_a_correct_table_tennis_camera_is_not_flagged(tmp_path):
    spec = load_spec("table_tennis")
    clip = make_clip(spec, 20, (960, 540), seed=1, pan_deg=1, tilt_deg=0.5, zoom=0.03)
    refs = [Reference(0, _all_ground_clicks(spec, clip.cameras[0], (960, 540)))]
    recs = propagate(ClipFrames(clip), spec, refs, tmp_path)
    assert [r for r in recs if r["status"] == "flagged"] == []
    assert all(r["line_support"] is not None for r in recs)


def test_user_masks_keep_features_out(tennis, tmp_path):
    clip = make_clip(tennis, 6, (640, 360), seed=23, pan_deg=0.5, tilt_deg=0.2, zoom=0.01)
    recs = propagate(
        ClipFrames(clip),
        tennis,
        [Reference(0, clicks(tennis, clip.cameras[0]))],
        tmp_path,
        masks=[(0, 0, 640, 360)],
    )
    assert [r["status"] for r in recs] == ["reference"] + ["flagged"] * 5
    assert all("registration failed" in r["reason"] for r in recs[1:])


def test_a_bad_reference_is_reported_not_every_frame(tennis, tmp_path):
    """Flags reflect the frame: noisy reference clicks are reported once, as the reference's
    quality, and frames whose registration is right are not flagged for them."""
    from courtstudio.pipeline.propagate import propagate as prop

    clip = make_clip(tennis, 12, (960, 540), seed=24, pan_deg=1, tilt_deg=0.5, zoom=0.03)
    rng = np.random.default_rng(0)
    noisy = {
        n: (u + rng.normal(0, 6), v + rng.normal(0, 6))
        for n, (u, v) in _all_ground_clicks(tennis, clip.cameras[0], (960, 540)).items()
    }
    recs = prop(ClipFrames(clip), tennis, [Reference(0, noisy)], tmp_path, flag_rms_px=3.0)
    q = prop.last_extras["reference_quality"][0]
    assert q["rms_px"] > 3.0
    assert sum(r["status"] == "flagged" for r in recs) <= 1


def test_batch_propagate_on_a_project_is_the_apps_propagation(tennis, tmp_path, capsys):
    """`batch-propagate PROJECT` calls propagate_project: summary.json with the reference
    fingerprint, results reset when the references change, user masks checked."""
    from courtstudio.io.project import FrameAnnotation, load_project
    from courtstudio.io.project_new import new_project_from_video

    clip = make_clip(tennis, 12, (640, 360), seed=25, pan_deg=1, tilt_deg=0.5, zoom=0.03)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    p = new_project_from_video(tmp_path / "vp", video, "tennis")
    p.save_annotation(
        FrameAnnotation(p.frames[0].id, (640, 360), points=clicks(tennis, clip.cameras[0]))
    )
    assert (
        main(
            ["batch-propagate", str(p.root), "--sport", "tennis", "--quiet", "--mask", "0,0,60,40"]
        )
        == 0
    )
    out = p.root / "propagation"
    rep = json.loads((out / "summary.json").read_text())
    assert rep["frames"] == 12 and rep["references"][0][0] == 0
    assert rep["references"][-1] == ["masks", [[0.0, 0.0, 60.0, 40.0]]]
    assert len((out / "cameras.jsonl").read_text().splitlines()) == 12
    # --out elsewhere: the same run (the project's results and fingerprint), and a copy of
    # both files in the folder asked for
    elsewhere = tmp_path / "elsewhere"
    assert (
        main(
            [
                "batch-propagate",
                str(p.root),
                "--sport",
                "tennis",
                "--quiet",
                "--mask",
                "0,0,60,40",
                "--out",
                str(elsewhere),
            ]
        )
        == 0
    )
    assert json.loads((elsewhere / "summary.json").read_text()) == json.loads(
        (out / "summary.json").read_text()
    )
    assert (elsewhere / "cameras.jsonl").read_text() == (out / "cameras.jsonl").read_text()
    # other references: the stale results are not reused
    p.save_annotation(
        FrameAnnotation(
            p.frames[0].id,
            (640, 360),
            points={k: (u + 0.5, v) for k, (u, v) in clicks(tennis, clip.cameras[0]).items()},
        )
    )
    from courtstudio.pipeline.propagate import propagate_project

    recs = propagate_project(load_project(p.root), masks=[[0, 0, 60, 40]])
    assert recs[0]["points"]["far_left_corner"][0] == pytest.approx(
        clicks(tennis, clip.cameras[0])["far_left_corner"][0] + 0.5, abs=1e-3
    )
    capsys.readouterr()
    assert main(["batch-propagate", str(p.root), "--sport", "tennis", "--mask", "1,2,3"]) == 2
    assert "expected x0,y0,x1,y1" in capsys.readouterr().err


def test_batch_propagate_runs_numpys_blas_on_one_thread(tennis, tmp_path):
    """In a fresh process (numpy not yet loaded) the command sets OPENBLAS_NUM_THREADS before
    numpy loads, so numpy's OpenBLAS has one thread during the pass; a user's own setting
    is kept."""
    from tests.fresh_python import run_fresh

    clip = make_clip(tennis, 3, (320, 180), seed=6)
    video, pts = tmp_path / "clip.avi", tmp_path / "ref.json"
    write_video(video, clip.frames)
    points = {k: [float(c) for c in v] for k, v in clicks(tennis, clip.cameras[0]).items()}
    pts.write_text(json.dumps({"image_size": [320, 180], "points": points}))
    code = f"""
import ctypes, os, re, sys
from courtstudio.cli import main
assert "numpy" not in sys.modules
rc = main(["batch-propagate", {str(video)!r}, "--sport", "tennis", "--reference",
           "0:{pts}", "--out", {str(tmp_path / "out")!r}, "--quiet"])
maps = open("/proc/self/maps").read()
counts = []
for lib in sorted(set(re.findall(r"\\S*openblas\\S*[.]so\\S*", maps))):
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
        fn = getattr(ctypes.CDLL(lib), name, None)
        if fn is not None:
            counts.append(fn())
print(rc, os.environ["OPENBLAS_NUM_THREADS"], counts)
"""
    out = run_fresh(code)
    assert out.returncode == 0, out.stderr
    rc, env, counts = out.stdout.splitlines()[-1].split(" ", 2)
    assert rc == "0" and env == "1" and counts.strip() not in ("", "[]")
    assert set(ast.literal_eval(counts)) == {1}  # every OpenBLAS loaded: one thread
    out = run_fresh("import os; os.environ['OPENBLAS_NUM_THREADS'] = '2'\n" + code)
    assert out.returncode == 0 and out.stdout.splitlines()[-1].split(" ")[1] == "2", out.stderr


def test_a_reference_showing_too_few_keypoints_is_not_retried(tennis, tmp_path, monkeypatch):
    """A frame soundly registered to its reference but showing fewer than 4 of its clicked
    keypoints is not evaluated against that reference again in the same attempt sequence
    (directly, or through its recent good frames): the same keypoints would come back (on a
    real badminton clip 270 such frames each cost up to five more registrations)."""
    import courtstudio.pipeline.propagate_frame as pf

    clip = make_clip(tennis, 30, (640, 360), seed=3, pan_deg=40, tilt_deg=1, zoom=0.6)
    process, evaluate = pf.Tracker.process, pf.Tracker._evaluate
    seen: list = []  # per process() call: the references evaluated, in order, and the result
    repeats = []

    def tracked(self, i, *a, **k):
        seen.append([])
        return process(self, i, *a, **k)

    def evaluated(self, i, image, st, H, **kw):
        rec = evaluate(self, i, image, st, H, **kw)
        if any(t is st and out for t, out in seen[-1]):
            repeats.append(i)
        seen[-1].append((st, rec.reason.endswith(pf.OUT_OF_VIEW)))
        return rec

    monkeypatch.setattr(pf.Tracker, "process", tracked)
    monkeypatch.setattr(pf.Tracker, "_evaluate", evaluated)
    recs = propagate(
        ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path
    )
    out = [r["frame"] for r in recs if r.get("reason", "").endswith(pf.OUT_OF_VIEW)]
    assert len(out) >= 3 and repeats == []


def test_a_sound_registration_out_of_view_predicts_the_next_frame(tennis, tmp_path, monkeypatch):
    """A pan off the court and back: a frame soundly registered but showing too few
    keypoints predicts the next frame (tracked from it, not matched afresh against the
    reference: on a real badminton clip those matches cost 15.6 of 34.8 CPU s) and is not
    kept for a retry when the graphics mask changes (the same keypoints would come back);
    the frames back in view are ok."""
    import courtstudio.pipeline.propagate_frame as pf

    clip = make_clip(tennis, 30, (640, 360), seed=3, pan_deg=40, tilt_deg=1, zoom=0.6)
    process = pf.Tracker.process
    kept = []

    def tracked(self, i, *a, **k):
        rec = process(self, i, *a, **k)
        if rec.reason.endswith(pf.OUT_OF_VIEW) and any(f == i for f, *_ in self.pending):
            kept.append(i)
        return rec

    monkeypatch.setattr(pf.Tracker, "process", tracked)
    recs = propagate(
        ClipFrames(clip), tennis, [Reference(0, clicks(tennis, clip.cameras[0]))], tmp_path
    )
    away = {r["frame"] for r in recs if r.get("reason", "").endswith(pf.OUT_OF_VIEW)}
    followers = [r for r in recs if r["frame"] - 1 in away and "registration" in r]
    assert len(away) >= 3 and len(followers) >= 3 and kept == []
    assert all(r["registration"]["attempt"] == "predicted" for r in followers)
    back = [r for r in followers if r["frame"] not in away]
    assert back and all(r["status"] == "ok" for r in back)
    for r in back:
        cam = clip.cameras[r["frame"]]
        X = np.array([tennis.keypoints[n] for n in r["points"]])
        got = Camera.from_dict(r).project(X)
        assert np.max(np.linalg.norm(got - cam.project(X), axis=1)) < 2.0

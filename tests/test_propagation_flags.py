"""The flag rules of a propagated frame (issue 11 §2; courtstudio/pipeline/
propagation_flags.py): a keypoint residual beyond the reference's, line support against the
reference's, weak geometry on the frame's own prediction; and, end to end, a wrong keypoint transfer
is flagged, and a weakly determined frame is flagged but keeps its camera and its place in
the tracking."""

import pytest

import courtstudio.pipeline.propagate_frame as propagate_frame
from court_specs import load_spec
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.pipeline.propagation_flags import frame_problem, weak_geometry
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip

SPEC = load_spec("tennis")
GOOD_LINES = {"support": 0.8, "samples": 200, "residual_px": 1.0}


def _pan_clip_and_reference():
    """A 10-frame 720p pan-and-zoom clip and its frame 0's exact court-plane clicks (no net
    keypoints)."""
    clip = make_clip(SPEC, 10, (1280, 720), seed=2, pan_deg=6.0, zoom=0.15)
    cam = clip.cameras[0]
    ref = {
        k: tuple(cam.project(v[None])[0])
        for k, v in SPEC.keypoints.items()
        if abs(v[2]) < 1e-9 and "net" not in k
    }
    return clip, ref


def test_frame_problem_rules():
    kw = dict(flag_px=3.0, support_ratio=0.7, min_line_samples=10)
    assert frame_problem(1.0, 0.5, GOOD_LINES, GOOD_LINES, **kw) == ""
    assert "residual 4.0 px (3.5 px above" in frame_problem(4.0, 0.5, GOOD_LINES, GOOD_LINES, **kw)
    # a bad reference (6 px clicks) does not flag frames that fit as well as it does
    assert frame_problem(6.5, 6.0, GOOD_LINES, GOOD_LINES, **kw) == ""
    weak = {"support": 0.3, "samples": 200, "residual_px": 3.0}
    assert "do not match" in frame_problem(1.0, 0.5, weak, GOOD_LINES, **kw)
    few = {"support": float("nan"), "samples": 3, "residual_px": float("nan")}
    assert frame_problem(1.0, 0.5, few, GOOD_LINES, **kw) == "court lines out of view"
    # the reference's lines unmeasurable: no line test
    assert frame_problem(1.0, 0.5, weak, few, **kw) == ""


def test_weak_geometry_rule():
    """Flagged when the frame's own predicted 1-sigma (from all its camera was fitted to) is
    above the off distance, whatever its reference's: the reference no longer excuses it."""
    # IND-NYK frame 4 from reference 250 (8.1 px off): 4 nearly collinear keypoints left
    assert weak_geometry(61.0, 6.7, "far_left_corner") == (
        "weak geometry: keypoints in view uncertain by 61 px (1 sigma, at far_left_corner)"
    )
    # just above and just below the off distance (720p: 6.7 px)
    assert weak_geometry(6.8, 6.7) != ""
    assert weak_geometry(6.6, 6.7) == ""
    assert weak_geometry(6.7, 6.7) == ""
    # not determined at all (a singular fit): flagged, and said so
    assert "not determined" in weak_geometry(float("inf"), 6.7)
    # not measured: no test
    assert weak_geometry(float("nan"), 6.7) == ""
    # no off distance given: never weak
    assert weak_geometry(1e6, float("inf")) == ""
    # the other rules come first; with nothing else wrong the weak-geometry reason is given
    rules = dict(flag_px=3.0, support_ratio=0.7, min_line_samples=10)
    weak_args = dict(predicted_px=61.0, predicted_at="far_left_corner", weak_px=6.7)
    assert frame_problem(1.0, 0.5, GOOD_LINES, GOOD_LINES, **rules, **weak_args).startswith(
        "weak geometry"
    )
    assert "residual" in frame_problem(4.0, 0.5, GOOD_LINES, GOOD_LINES, **rules, **weak_args)
    # a frame of a reference as weak as it (the old exemption) is flagged all the same
    assert frame_problem(6.5, 6.0, GOOD_LINES, GOOD_LINES, **rules, **weak_args) != ""


def test_inconsistent_transferred_keypoints_are_flagged(tmp_path, monkeypatch):
    """A wrong transfer (one keypoint 25 px off from frame 4 on) does not fit one camera: its
    residual flags it."""
    real = propagate_frame.transfer_points
    calls = {"n": 0}

    def one_point_off(H, uv):
        out = real(H, uv)
        calls["n"] += 1
        if calls["n"] > 4:
            out = out.copy()
            out[0] += (25.0, -5.0)
        return out

    monkeypatch.setattr(propagate_frame, "transfer_points", one_point_off)
    clip, ref = _pan_clip_and_reference()
    records = propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path)
    late = [r for r in records if r["frame"] >= 6 and r["status"] != "static"]
    assert len(late) >= 3 and all(r["status"] == "flagged" for r in late)
    assert all("residual" in r["reason"] for r in late)


def test_weakly_determined_frames_are_flagged_and_still_tracked(tmp_path, monkeypatch):
    """Frames 4-6 whose cameras are predicted 60 px uncertain, and whose painted lines do not
    pin them (their refinement fails), are flagged for weak geometry, keep their cameras
    (refitted about the shot's shared centre) and predict the next frames; the others are
    not flagged."""
    real = propagate_frame.predicted_error
    calls = {"n": 0}

    def weak_from_frame_4(camera, spec, points, *args, **kw):
        calls["n"] += 1  # call k: frame k
        px, at = real(camera, spec, points, *args, **kw)
        return (60.0, "far_left_corner") if 4 <= calls["n"] <= 6 else (px, at)

    def lines_do_not_help(*args, **kw):
        raise ValueError("no painted lines")

    monkeypatch.setattr(propagate_frame, "predicted_error", weak_from_frame_4)
    monkeypatch.setattr(propagate_frame, "refine_weak_frame", lines_do_not_help)
    clip, ref = _pan_clip_and_reference()
    records = propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path)
    by_frame = {r["frame"]: r for r in records}
    q = propagate.last_extras["reference_quality"][0]
    # make_clip's motion returns to the reference's view on the last frame (s = 1): frame 9
    # is static (the reference's camera, exact) when its homography is found within 0.5 px of
    # identity, as it is with the line-centre spec's texture
    static = [r["frame"] for r in records if r["status"] == "static"]
    assert static in ([], [9])
    assert calls["n"] == 9 - len(static)  # one fit per frame: a weak one is not re-registered
    for i in (4, 5, 6):
        r = by_frame[i]
        assert r["status"] == "flagged" and r["reason"].startswith("weak geometry"), r
        assert "at far_left_corner" in r["reason"]
        assert "K" in r and r["predicted_px"] == 60.0 and r["predicted_at"] == "far_left_corner"
        assert r["centre"] == "shared"  # refitted about the shot's centre like the others
    fitted = [i for i in (1, 2, 3, 7, 8, 9) if i not in static]
    assert all(by_frame[i]["status"] == "ok" for i in fitted)
    assert by_frame[7]["registration"]["attempt"] == "predicted"  # from frame 6
    # every keypoint clicked and exact: the frames' own predictions are small, the reference's too
    assert all(by_frame[i]["predicted_px"] < 2 for i in fitted)
    assert q["predicted_px"] < 2 and q["to_click"] == []


def test_a_reference_clicked_along_one_line_is_reported(tmp_path):
    """Four clicks on the near baseline and one on the service line leave the far court to
    extrapolation: the reference's quality says so (its predicted 1-sigma far above the off
    distance), and its frames are not all flagged for it."""
    clip = make_clip(SPEC, 12, (960, 540), seed=24, pan_deg=1, tilt_deg=0.5, zoom=0.03)
    cam = clip.cameras[0]
    names = [
        "near_left_corner",
        "near_baseline_left_singles",
        "near_baseline_centre",
        "near_baseline_right_singles",
        "near_service_centre",
    ]
    clicks = {n: tuple(cam.project(SPEC.keypoints[n][None])[0]) for n in names}
    records = propagate(ClipFrames(clip), SPEC, [Reference(0, clicks)], tmp_path)
    q = propagate.last_extras["reference_quality"][0]
    assert q["weak_px"] == pytest.approx(10.0 * 540 / 1080)
    assert q["predicted_px"] is None or q["predicted_px"] > 10 * q["weak_px"]
    # the product answer: which keypoints would pin it (the far court, not clicked)
    assert q["to_click"] and all(n.startswith("far_") for n in q["to_click"]), q["to_click"]
    # its frames' painted lines pin what its clicks do not: they are not flagged for it
    weak = [r for r in records if r.get("reason", "").startswith("weak geometry")]
    assert len(weak) <= len(records) // 2
    refined = [r for r in records if r["status"] == "ok" and r.get("predicted_px") is not None]
    assert refined and all(r["predicted_px"] <= q["weak_px"] for r in refined)


def test_a_pending_frame_retried_into_weak_geometry_is_kept(monkeypatch):
    """A frame whose registration failed is retried when the graphics mask changes; a retry
    that registers it but finds its geometry weak replaces the record (it has a camera), a
    retry that fails again does not."""
    from courtstudio.pipeline.propagation_result import FrameCamera

    tracker = propagate_frame.Tracker(SPEC, (1280, 720), {}, propagate_frame.Options())
    results = {
        1: FrameCamera(1, "flagged", reason="weak geometry: keypoints in view uncertain by 60 px"),
        2: FrameCamera(2, "flagged", reason="registration failed (too few matches)"),
        3: FrameCamera(3, "ok"),
    }
    monkeypatch.setattr(tracker, "process", lambda i, *a: results[i])
    for i in (1, 2, 3):
        tracker.pending.append((i, None, None, None, None))
    assert [r.frame for r in tracker.retry_pending()] == [1, 3]


def test_batch_propagate_warns_of_a_reference_clicked_along_one_line(tmp_path, capsys):
    """The CLI reports a reference whose clicks leave its own picture uncertain (once, as the
    reference's quality) and summary.json keeps the numbers."""
    import json

    from courtstudio.cli import main
    from courtstudio.synth.synthetic_clip import write_video

    clip = make_clip(SPEC, 8, (640, 360), seed=24, pan_deg=1, tilt_deg=0.5, zoom=0.03)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    cam = clip.cameras[0]
    names = ["near_left_corner", "near_baseline_left_singles", "near_baseline_centre",
             "near_baseline_right_singles", "near_service_centre"]  # fmt: skip
    pts = tmp_path / "ref.json"
    pts.write_text(
        json.dumps(
            {
                "image_size": [640, 360],
                "points": {n: [float(c) for c in cam.project(SPEC.keypoints[n][None])[0]]
                           for n in names},
            }
        )
    )  # fmt: skip
    out = tmp_path / "out"
    args = ["batch-propagate", str(video), "--sport", "tennis", "--reference", f"0:{pts}"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "reference frame 0: its clicks leave keypoints of its picture uncertain" in printed
    assert "; click far_" in printed  # what to click to pin it
    # five clicks cannot test a lens, and this pinhole clip's lines give none
    assert "reference frame 0: too few clicks to test a lens (6 needed)" in printed
    q = json.loads((out / "summary.json").read_text())["reference_quality"][0]
    assert q["weak_px"] == pytest.approx(10.0 * 360 / 1080, abs=1e-3)
    assert q["predicted_px"] is None or q["predicted_px"] > q["weak_px"]
    assert q["to_click"] and q["lens"] == "untested"


def test_plane_keypoints_are_the_specs_plane_points_per_spec_object():
    import dataclasses

    import numpy as np

    from court_specs import load_spec
    from courtstudio.pipeline.propagation_flags import plane_keypoint_names, plane_keypoints

    for sport in ("tennis", "table_tennis", "basketball_nba"):
        spec = load_spec(sport)
        z = spec.plane_z()
        names = [n for n, X in spec.keypoints.items() if abs(X[2] - z) < 1e-9]
        assert plane_keypoint_names(spec) == tuple(names)
        P = plane_keypoints(spec)
        assert np.array_equal(P, np.array([spec.keypoints[n] for n in names]))
        assert plane_keypoints(spec) is P and not P.flags.writeable
        # another spec object (a copy with other keypoints) gets its own answer
        fewer = dataclasses.replace(spec, keypoints={n: spec.keypoints[n] for n in names[:4]})
        assert plane_keypoint_names(fewer) == tuple(names[:4])
        assert plane_keypoints(fewer).shape == (4, 3)

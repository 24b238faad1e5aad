"""The doctor tuned to real clicks: click noise estimated from the frame (or given), suspects
only beyond it, and a 'poor' quality for frames whose residuals the noise does not explain."""

from __future__ import annotations

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.calibration import calibrate_court
from courtstudio.synth.synthetic import sample_broadcast_camera, visible_keypoints
from geometry.doctor import NOISE_CAP_PX, NOISE_FLOOR_PX

SIZE = (1920, 1080)


def frame(seed, sigma, sport="tennis"):
    spec = load_spec(sport)
    rng = np.random.default_rng(seed)
    cam = sample_broadcast_camera(spec, SIZE, rng)
    kp = visible_keypoints(spec, cam)
    clicks = {n: uv + rng.normal(0, sigma, 2) for n, uv in kp.items()}
    return spec, clicks


def test_noise_estimate_tracks_the_true_noise_within_its_bounds():
    est = {}
    for sigma in (0.3, 2.0, 8.0):
        vals = []
        for seed in range(6):
            spec, clicks = frame(seed, sigma)
            cal = calibrate_court(spec, SIZE, clicks)
            assert cal.click_sigma_source == "estimated"
            vals.append(cal.click_sigma_px)
        est[sigma] = float(np.median(vals))
    assert est[0.3] == NOISE_FLOOR_PX  # the floor
    assert est[2.0] == pytest.approx(2.0, rel=0.25)
    assert est[8.0] == NOISE_CAP_PX  # the cap: a badly clicked frame cannot explain itself


def test_clean_frames_at_real_click_noise_have_no_suspects():
    """At 2.5 px noise the old fixed 1 px assumption flagged clean frames; the estimate
    does not."""
    flagged_estimated = flagged_fixed = 0
    for seed in range(10):
        spec, clicks = frame(seed, 2.5)
        flagged_estimated += bool(calibrate_court(spec, SIZE, clicks).suspects)
        flagged_fixed += bool(calibrate_court(spec, SIZE, clicks, click_sigma_px=1.0).suspects)
    assert flagged_estimated <= 1
    assert flagged_fixed >= 5


def test_a_click_moved_by_12_px_is_the_first_suspect():
    hits = trials = 0
    for seed in range(10):
        spec, clicks = frame(seed, 2.0)
        names = sorted(clicks)
        name = names[seed % len(names)]
        ang = np.random.default_rng(seed).uniform(0, 2 * np.pi)
        clicks[name] = clicks[name] + 12.0 * np.array([np.cos(ang), np.sin(ang)])
        cal = calibrate_court(spec, SIZE, clicks)
        trials += 1
        hits += bool(cal.suspects) and cal.suspects[0] == name
    assert hits >= 8, f"{hits} of {trials}"


def test_poor_frames_are_called_poor_and_clean_ones_ok(tmp_path):
    spec, clicks = frame(3, 1.5)
    cal = calibrate_court(spec, SIZE, clicks)
    assert cal.quality == "ok" and cal.to_json()["quality"] == "ok"
    rng = np.random.default_rng(0)
    bad = {n: uv + rng.normal(0, 18.0, 2) for n, uv in clicks.items()}
    cal = calibrate_court(spec, SIZE, bad)
    doc = cal.to_json()
    assert cal.quality == "poor" and doc["quality"] == "poor"
    assert "click noise explains" in doc["quality_reason"]
    assert any("explains" in w for w in cal.warnings)


def test_user_click_sigma_is_used_as_given():
    spec, clicks = frame(1, 1.0)
    cal = calibrate_court(spec, SIZE, clicks, click_sigma_px=4.0)
    assert cal.click_sigma_px == 4.0 and cal.click_sigma_source == "user"


def test_export_marks_a_badly_clicked_frame_poor(tmp_path):
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.export.export_scenes import export_frame
    from courtstudio.io.project import load_project
    from courtstudio.synth.synthetic_project import write_synthetic_project

    write_synthetic_project(tmp_path / "p", ["tennis"], per_sport=2, seed=1, all_points=True)
    doc = AnnotationDocument(load_project(tmp_path / "p"))
    good, bad = doc.project.frames
    rng = np.random.default_rng(3)
    for name, uv in dict(doc.annotation(bad.id).points).items():
        doc.set_keypoint(bad.id, name, tuple(np.asarray(uv) + rng.normal(0, 15.0, 2)))
    assert export_frame(doc, good, tmp_path / "out", overlay=False, glb=False).status == "ok"
    s = export_frame(doc, bad, tmp_path / "out", overlay=False, glb=False)
    assert s.status == "poor" and "click noise explains" in s.message

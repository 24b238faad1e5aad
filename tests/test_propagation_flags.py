"""The flag rules of a propagated frame (issue 11 §2; courtstudio/pipeline/
propagation_flags.py): a keypoint residual beyond the reference's, line support against the
reference's; and, end to end, a wrong keypoint transfer is flagged."""

import courtstudio.pipeline.propagate_frame as propagate_frame
from court_specs import load_spec
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.pipeline.propagation_flags import frame_problem
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip

SPEC = load_spec("tennis")
GOOD_LINES = {"support": 0.8, "samples": 200, "residual_px": 1.0}


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
    clip = make_clip(SPEC, 10, (1280, 720), seed=2, pan_deg=6.0, zoom=0.15)
    cam = clip.cameras[0]
    ref = {
        k: tuple(cam.project(v[None])[0])
        for k, v in SPEC.keypoints.items()
        if abs(v[2]) < 1e-9 and "net" not in k
    }
    records = propagate(ClipFrames(clip), SPEC, [Reference(0, ref)], tmp_path)
    late = [r for r in records if r["frame"] >= 6 and r["status"] != "static"]
    assert len(late) >= 3 and all(r["status"] == "flagged" for r in late)
    assert all("residual" in r["reason"] for r in late)

"""Reviewing a propagation run in the app: the dialog after Frame > Propagate says what was
flagged and why, Frame > Next / Previous flagged frame step through the flagged frames, and
the Court panel of a propagated frame shows its status, residual, line support and reason."""

from __future__ import annotations

import numpy as np

from court_specs import load_spec
from court_specs.model import PAPER_SIX
from courtstudio.io.project_new import new_project_from_video
from courtstudio.pipeline.propagation_report import frame_note, reference_warnings
from courtstudio.synth.synthetic_clip import make_clip, write_video


def _project_with_bad_frames(tmp_path):
    """A 24-frame tennis pan whose frames 8, 9 (black) and 15 (flat gray) cannot be
    registered, frame 0 clicked."""
    spec = load_spec("tennis")
    clip = make_clip(spec, 24, (640, 360), seed=7)
    for i, value in ((8, 0), (9, 0), (15, 128)):
        clip.frames[i] = np.full_like(clip.frames[i], value)
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames)
    p = new_project_from_video(tmp_path / "vp", video, "tennis")
    uv = {n: clip.cameras[0].project(spec.keypoints[n][None])[0] for n in PAPER_SIX}
    return p, uv


def test_flagged_frames_are_reported_and_reachable(tmp_path, qtbot):
    from annotation_ui.main_window import MainWindow

    p, uv = _project_with_bad_frames(tmp_path)
    win = MainWindow()
    asked = []
    win.ask = lambda title, text, buttons: asked.append((title, text, buttons)) or buttons[0]
    qtbot.addWidget(win)
    win.open_project(p.root, recover=False)
    for n, xy in uv.items():
        win.doc.set_keypoint(p.frames[0].id, n, xy)
    records = win.propagate_dialog()
    flagged = [r["frame"] for r in records if r["status"] == "flagged"]
    assert flagged == [8, 9, 15]
    # one dialog, naming the flagged frames and their reasons; its first button went there
    [(title, text, buttons)] = asked
    assert title == "Propagation finished" and "3 flagged for review" in text
    assert (
        "Frames 8-9, 15: no reference in this shot" in text
        and "Ctrl+Right" in text
        and buttons[0].startswith("Go to")
    )
    assert win.doc.current_index == 8
    # the Court panel says why this frame is flagged, as the record does
    by = {r["frame"]: r for r in records}
    state = win.doc.camera_state(p.frames[8].id)
    assert by[8]["reason"] and by[8]["reason"] in state.message
    win.refresh(panels_now=True)
    assert "flagged" in win.court_panel.summary.text()
    # Next / Previous flagged frame step through them, and stop at the ends
    win.actions_by_name["Next flagged frame"].trigger()
    assert win.doc.current_index == 9
    win.actions_by_name["Next flagged frame"].trigger()
    assert win.doc.current_index == 15
    win.actions_by_name["Next flagged frame"].trigger()
    assert win.doc.current_index == 15 and "No flagged frame after" in (
        win.statusBar().currentMessage()
    )
    win.actions_by_name["Previous flagged frame"].trigger()
    assert win.doc.current_index == 9
    win.go_to(3)
    win.actions_by_name["Previous flagged frame"].trigger()
    assert win.doc.current_index == 3
    # an ok frame's note: its reference, residual and line support, no reason
    ok = next(r for r in records if r["status"] == "ok")
    note = win.doc.camera_state(p.frames[ok["frame"]].id).message
    assert note.startswith("propagated from frame 0 (ok, RMS") and "line support" in note


def test_a_clean_run_asks_nothing(tmp_path, qtbot):
    from annotation_ui.main_window import MainWindow

    spec = load_spec("tennis")
    clip = make_clip(spec, 12, (640, 360), seed=7)
    write_video(tmp_path / "clip.avi", clip.frames)
    p = new_project_from_video(tmp_path / "vp", tmp_path / "clip.avi", "tennis")
    win = MainWindow()
    asked = []
    win.ask = lambda *a: asked.append(a) or "Close"
    qtbot.addWidget(win)
    win.open_project(p.root, recover=False)
    for n in PAPER_SIX:
        win.doc.set_keypoint(p.frames[0].id, n, clip.cameras[0].project(spec.keypoints[n][None])[0])
    records = win.propagate_dialog()
    assert len(records) == 12 and not any(r["status"] == "flagged" for r in records)
    assert asked == [] and "0 flagged" in win.statusBar().currentMessage()


def test_reference_warnings_and_frame_notes():
    q = [
        {"frame": 4, "rms_px": 0.9, "predicted_px": 2.9e6, "weak_px": 10.0, "lens": "untested"},
        {"frame": 9, "rms_px": float("nan"), "predicted_px": None, "weak_px": 10.0},
        {"frame": 12, "rms_px": 5.5, "predicted_px": 3.0, "weak_px": 10.0, "lens": "clicks"},
    ]
    w = reference_warnings(q, flag_px=3.0)
    assert len(w) == 3
    assert w[0].startswith("reference frame 4: its clicks leave keypoints") and "2900000 px" in w[0]
    assert w[1].startswith("reference frame 4: too few clicks to test a lens")
    assert w[2] == "reference frame 12: its clicks fit to 5.5 px (check them)"
    assert reference_warnings(q, flag_px=6.0) == w[:2]
    note = frame_note(
        {
            "status": "flagged",
            "reference": 4,
            "rms_px": 7.25,
            "line_support": float("nan"),
            "reason": "residual 7.2 px (6.0 px above the reference's)",
        }
    )
    assert note == (
        "propagated from frame 4 (flagged: residual 7.2 px (6.0 px above the reference's), "
        "RMS 7.25 px)"
    )


def test_a_reference_the_clicks_cannot_pin_names_the_keypoints_to_click():
    """A reference whose clicks do not determine its camera at all (no finite prediction)
    is reported with the keypoints whose clicks would pin it, and where its prediction is
    worst when it has one."""
    q = [
        {
            "frame": 4,
            "rms_px": 0.5,
            "predicted_px": None,
            "weak_px": 10.0,
            "to_click": ["far_left_corner", "near_left_corner"],
        },
        {
            "frame": 9,
            "rms_px": 0.5,
            "predicted_px": 25.0,
            "weak_px": 10.0,
            "predicted_at": "far_right_corner",
        },
        {"frame": 12, "rms_px": 0.5, "predicted_px": None, "weak_px": 10.0},
    ]
    w = reference_warnings(q, flag_px=3.0)
    assert len(w) == 2
    assert "uncertain beyond measure" in w[0]
    assert w[0].endswith("click far_left_corner, near_left_corner to pin it")
    assert "by 25 px (1 sigma at far_right_corner;" in w[1] and "to pin it" not in w[1]
    note = frame_note(
        {
            "status": "ok",
            "reference": 9,
            "rms_px": 0.5,
            "predicted_px": 3.2,
            "predicted_at": "near_left_corner",
        }
    )
    assert note.endswith("keypoints in view within 3 px, 1 sigma (worst at near_left_corner))")

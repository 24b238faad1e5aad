"""The app's lens choice, click-noise preference and "Refine on lines" (pytest-qt, offscreen)."""

import pytest
from PySide6.QtCore import Qt

from courtstudio.io.project import load_project
from courtstudio.synth.synthetic_project import write_synthetic_project


@pytest.fixture
def lens_project(tmp_path):
    """A pickleball frame shot through a barrel lens (k1 = -0.2), the paper's six clicked."""
    p = write_synthetic_project(
        tmp_path / "lens", ["pickleball"], per_sport=1, seed=5, click_sigma_px=2.0, k1=-0.2
    )
    return load_project(p.root)


def test_refine_on_lines_button_shows_the_result(window, qtbot, lens_project):
    assert window.open_project(lens_project.root, recover=False)
    panel = window.court_panel
    assert panel.refine_button.isEnabled()
    assert panel.refine_result.text() == ""
    qtbot.mouseClick(panel.refine_button, Qt.MouseButton.LeftButton)
    state = window.doc.camera_state(window._fid)
    rep = state.calibration.refinement
    assert rep is not None and rep["accepted"], rep
    assert "Refined on lines" in panel.refine_result.text()
    assert "line support" in panel.refine_result.text()
    assert state.camera.dist[0] < 0  # the lens came from the lines
    # an edit of the clicks drops the refinement (it was for the old clicks)
    name, uv = next(iter(window.doc.annotation(window._fid).points.items()))
    window.doc.set_keypoint(window._fid, name, (uv[0] + 1.0, uv[1]))
    assert window.doc.camera_state(window._fid).calibration.refinement is None


def test_lens_choice_and_click_noise_reach_the_solver(window, lens_project):
    assert window.open_project(lens_project.root, recover=False)
    panel = window.court_panel
    panel.lens.setCurrentIndex(panel.lens.findData("simple"))
    assert window.doc.calibrations.model == "simple"
    assert window.doc.camera_state(window._fid).calibration.fit.model.name == "simple"
    assert window.settings.value("calibration/model") == "simple"
    window.settings.setValue("calibration/click_sigma_px", 3.5)
    window._lens_model_changed("auto")
    cal = window.doc.camera_state(window._fid).calibration
    assert cal.click_sigma_px == 3.5 and cal.click_sigma_source == "user"


def test_the_refinement_text_says_how_many_masks_the_lines_were_not_looked_for_under():
    from annotation_ui.court_panel import refinement_text

    rep = {
        "accepted": True,
        "reason": "refined on the painted lines",
        "support_before": 0.6,
        "support_after": 0.8,
        "line_rms_before_px": 1.0,
        "line_rms_after_px": 0.4,
        "click_rms_before_px": 1.2,
        "click_rms_after_px": 1.3,
        "samples": 300,
        "lines_used": 7,
        "model": "simple",
    }
    assert "mask" not in refinement_text(rep)
    assert "none looked for under 1 mask)" in refinement_text({**rep, "masks": [[0, 0, 9, 9]]})
    two = refinement_text({**rep, "masks": [[0, 0, 9, 9], [1, 1, 5, 5]]})
    assert "under 2 masks)" in two

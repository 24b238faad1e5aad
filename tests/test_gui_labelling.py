"""The app offers the doctor's relabelling of a mirrored (left/right swapped) labelling with
Apply, and the side-view diagram puts the near sideline at the bottom."""

import json
import shutil

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from annotation_ui.coords import uv_to_scene
from court_specs import load_spec
from court_specs.model import PAPER_SIX
from courtstudio.io.project import load_project
from courtstudio.synth.synthetic_project import write_synthetic_project


def test_mirrored_clicks_are_refused_and_the_fix_applies(window, tmp_path, qtbot):
    p = write_synthetic_project(tmp_path / "blank", ["badminton"], per_sport=1, seed=3)
    shutil.rmtree(p.root / "annotations")
    project = load_project(p.root)
    window.open_project(project.root, recover=False)
    fid = window.doc.current_frame.id
    truth = json.loads(project.truth_path(fid).read_text())
    lr = load_spec("badminton").symmetry_maps()["left_right"]
    for name in PAPER_SIX:  # every keypoint clicked where its mirror image is
        window.tools.set_keypoint(name)
        u, v = truth["keypoints_uv"][lr[name]]
        QTest.mouseClick(
            window.view.viewport(),
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            window.view.mapFromScene(uv_to_scene(u, v)),
        )
    # a click's release shows the click at once; the doctor (and its fix) follow the repaint
    qtbot.waitUntil(lambda: not window._diagnosis_pending, timeout=5000)
    assert window.doc.camera_state(fid).calibration is None  # no camera under the court
    panel = window.court_panel
    assert "left and right look swapped" in panel.suggestion.text()
    assert panel.apply_button.isVisibleTo(window)
    QTest.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    window.refresh()
    cal = window.doc.camera_state(fid).calibration
    assert cal is not None and cal.camera.camera_centre_world[2] > 0
    assert (
        np.linalg.norm(cal.camera.camera_centre_world - truth["camera"]["camera_centre_world"])
        < 0.5
    )


def test_side_view_diagram_has_the_near_sideline_at_the_bottom(window, tmp_path):
    p = write_synthetic_project(tmp_path / "side", ["basketball_nba"], per_sport=1, seed=2)
    window.open_project(p.root, recover=False)
    diagram = window.court_panel.diagram
    pos = diagram._keypoint_positions()
    # near sideline (y = 0, 'left') below the far one; the far end (x = 0) on the left
    assert pos["far_left_corner"].y() > pos["far_right_corner"].y()
    assert pos["far_left_corner"].x() < pos["near_left_corner"].x()
    assert abs(pos["far_left_corner"].y() - pos["near_left_corner"].y()) < 1e-6
    assert window.court_panel.view_hint.isVisibleTo(window)
    tennis = load_spec("tennis")  # end view unchanged: far baseline at the top
    diagram.set_state(tennis, {}, None)
    pos = diagram._keypoint_positions()
    assert pos["far_left_corner"].y() < pos["near_left_corner"].y()
    assert pos["far_left_corner"].x() < pos["far_right_corner"].x()

"""The desktop app's players, offscreen (pytest-qt): a player's mesh drawn, rescaled and
exported; PromptHMR results, box proposals and template bodies filling in players; the
Preferences paths reaching the player workflow. Moved from test_gui.py (issue 9)."""

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from annotation_ui.coords import uv_to_scene
from courtstudio.export.reconstruct import SAMPLE_PROJECT

IGNORE = shutil.ignore_patterns(".courtstudio")  # a session's lock/journal, if any


def view_point(win, u, v):
    return win.view.mapFromScene(uv_to_scene(u, v))


def click(win, u, v, modifier=Qt.KeyboardModifier.NoModifier):
    QTest.mouseClick(
        win.view.viewport(), Qt.MouseButton.LeftButton, modifier, view_point(win, u, v)
    )


def test_player_mesh_is_drawn_rescaled_and_exported(window, tmp_path):
    """A player with a mesh (depth wrong by 1.6x, as HMR returns it): drawn over the frame,
    rescaled by a typed height and by Alt+clicking its ground point, exported with joints."""
    from tests.stand_ins import stand_in_player

    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p", ignore=IGNORE)
    window.open_project(tmp_path / "p", recover=False)
    fid = window.doc.current_frame.id
    cam = window.doc.camera_state(fid).camera
    mesh, Vw, Jw = stand_in_player(cam, (18.0, 6.0), lift_m=0.2, depth_scale=1.6)
    uv = cam.project(Vw)
    box = (uv[:, 0].min() - 3, uv[:, 1].min() - 3, uv[:, 0].max() + 3, uv[:, 1].max() + 3)
    pid = window.doc.next_player_id()  # the sample's players keep theirs
    window.doc.set_player_box(fid, pid, box)
    window.tools.set_player(pid)
    mesh.save_npz(tmp_path / "player.npz")
    window.load_mesh(pid, tmp_path / "player.npz")
    rel = window.doc.annotation(fid).player(pid).mesh
    assert rel.startswith(f"meshes/{fid}/player_{pid}_") and (tmp_path / "p" / rel).exists()
    assert any(type(it).__name__ == "QGraphicsPixmapItem" for it in window.overlay.items)
    row = [p.id for p in window.doc.annotation(fid).players].index(pid)
    assert window.players_panel.table.item(row, 3).text() == "1.000"  # not corrected yet
    window.players_panel.height.setValue(0.2)
    window.players_panel.set_height.click()
    assert window.players_panel.table.item(row, 3).text() == f"{1 / 1.6:.3f}"
    window.doc.undo()
    window.set_tool("players")
    low = Vw[np.argmin(Vw[:, 2])]
    click(
        window, *cam.project(np.array([[low[0], low[1], 0.0]]))[0], Qt.KeyboardModifier.AltModifier
    )
    h = window.doc.annotation(fid).player(pid).lowest_vertex_height_m
    assert abs(h - 0.2) < 0.03  # one screen pixel of click error
    window.doc.set_player_height(fid, pid, 0.2)
    out = window.export_to(tmp_path / "out", all_frames=False)
    assert out[0].status == "ok"
    from exporters.scene import load_scene

    scene = load_scene(tmp_path / "out" / fid / "scene.json")
    p = next(pl for pl in scene.players if pl.id == pid)
    assert np.allclose(p.vertices_world, Vw, atol=2e-4)  # float32 in HDF5
    assert np.allclose(p.joints_world["pelvis"], Jw["pelvis"], atol=1e-6)
    # meshes are stored as float32: the scale is exact to ~1e-8
    assert abs(p.scale - 1 / 1.6) < 1e-6 and abs(p.lowest_vertex_height_m - 0.2) < 1e-6


def test_import_prompthmr_result_matches_players(window, tmp_path):
    from courtstudio.pipeline.players import projected_box
    from tests.stand_ins import stand_in_player
    from tests.test_prompthmr import write_output_pt

    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p", ignore=IGNORE)
    window.open_project(tmp_path / "p", recover=False)
    fid = window.doc.current_frame.id
    cam = window.doc.camera_state(fid).camera
    a, _, _ = stand_in_player(cam, (16.0, 2.0), depth_scale=1.3)
    b, _, _ = stand_in_player(cam, (21.0, 9.0), depth_scale=0.8)
    pid = window.doc.next_player_id()
    x0, y0, x1, y1 = projected_box(cam, a)
    window.doc.set_player_box(fid, pid, (x0 - 3, y0 - 2, x1 + 2, y1 + 3))  # annotator's box
    before = len(window.doc.annotation(fid).players)
    ids = window.import_hmr(write_output_pt(tmp_path / "output.pt", cam, [a, b]))
    assert ids == [pid, pid + 1]
    ann = window.doc.annotation(fid)
    assert len(ann.players) == before + 1
    assert ann.player(pid).mesh and ann.player(pid + 1).mesh
    window.undo()  # one step
    assert window.doc.annotation(fid).player(pid).mesh is None
    assert window.doc.annotation(fid).player(pid + 1) is None


def test_box_proposer_fills_in_new_players(window, tmp_path):
    """Any proposer with the SAM3 adapter's interface (name, propose(image) -> proposals)."""
    from hmr.sam3_boxes import Proposal

    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p", ignore=IGNORE)
    window.open_project(tmp_path / "p", recover=False)
    fid = window.doc.current_frame.id
    existing = window.doc.annotation(fid).players[0].box_xyxy

    class Proposer:
        name = "stand-in"

        def propose(self, image):
            assert image.shape == (1080, 1920, 3)
            return [Proposal(existing, 0.95), Proposal((100.0, 100, 160, 260), 0.8)]

    before = len(window.doc.annotation(fid).players)
    ids = window.propose_boxes(Proposer())
    assert len(ids) == 1 and len(window.doc.annotation(fid).players) == before + 1
    window.undo()
    assert len(window.doc.annotation(fid).players) == before
    assert window.propose_boxes() == []  # none configured: a message, no change


def test_template_body_and_preferences(window, tmp_path, monkeypatch):
    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p", ignore=IGNORE)
    window.open_project(tmp_path / "p", recover=False)
    fid = window.doc.current_frame.id
    pid = window.doc.next_player_id()
    window.doc.set_player_box(fid, pid, (900.0, 600, 960, 760))
    window.template_body(pid, 1.85)
    p = window.doc.annotation(fid).player(pid)
    assert p.mesh and p.lowest_vertex_height_m == 0.0
    mesh = window.doc.player_mesh(p.mesh)
    Vw = mesh.vertices_world(window.doc.camera_state(fid).camera)
    assert abs(Vw[:, 2].max() - Vw[:, 2].min() - 1.85) < 1e-6 and abs(Vw[:, 2].min()) < 1e-6
    # preferences: a stored path reaches the player workflow in the one Settings object
    # (not through the environment); a set environment variable wins over the file
    import os

    for env in ("COURTSTUDIO_SMPLX_DIR", "COURTSTUDIO_PROMPTHMR_DIR"):
        monkeypatch.delenv(env, raising=False)
    window.settings.setValue("paths/smplx_dir", str(tmp_path / "models"))
    window.settings.setValue("paths/prompthmr_dir", str(tmp_path / "phmr"))
    window.reload_settings()
    assert window.player_workflow.settings.smplx_dir == str(tmp_path / "models")
    assert "COURTSTUDIO_SMPLX_DIR" not in os.environ
    monkeypatch.setenv("COURTSTUDIO_SMPLX_DIR", str(tmp_path / "env_models"))
    settings = window._load_settings()
    assert settings.smplx_dir == str(tmp_path / "env_models")
    assert settings.from_environment == {"smplx_dir"}
    assert settings.prompthmr_dir == str(tmp_path / "phmr")
    window.settings.sync()
    from courtstudio.io.settings import Settings  # the same file read without Qt

    assert Settings.load(stored=None).prompthmr_dir == str(tmp_path / "phmr")
    with pytest.raises(ValueError, match="PromptHMR is not installed"):
        window.run_prompthmr()  # not installed here: a clear message


@pytest.mark.parametrize("size", [(1600, 940), (1366, 768)])
def test_players_table_headers_and_cells_are_shown_whole(window, sample_root, size):
    """Every column of the Players table is at least as wide as its header needs (the
    'lowest vertex' header was cut to 'owest vertex m' at the default panel width), and the
    court position column as wide as its cells, on a laptop screen too."""
    window.resize(*size)
    window.show()
    window.open_project(sample_root, recover=False)
    window.go_to(2)  # the table tennis frame: two players
    window.tabs.setCurrentWidget(window.players_panel)
    QApplication.processEvents()
    table = window.players_panel.table
    assert table.rowCount() == 2
    header = table.horizontalHeader()
    for col in range(table.columnCount()):  # the hint: the text with the style's margins
        text = table.horizontalHeaderItem(col).text()
        assert header.sectionSize(col) >= header.sectionSizeHint(col), text
        assert header.sectionSize(col) >= table.sizeHintForColumn(col), text

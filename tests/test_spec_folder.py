"""Adding a sport is adding one file: a padel spec dropped into a user folder is listed by
`courtstudio specs`, calibrated, synthesised and opened by the app; a sport without drawing
data gets documented defaults scaled from its own court, never tennis values."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from court_specs import (
    SPECS_DIR_ENV,
    SpecError,
    available_specs,
    load_spec,
    load_spec_file,
    spec_dirs,
)
from court_specs.synthesis import (
    DEFAULT_COLOURS_BGR,
    DEFAULT_LINE_WIDTH_M,
    DERIVED_BALL_HEIGHT_D,
    DERIVED_DISTANCE_D,
    DERIVED_HEIGHT_D,
    DERIVED_LATERAL_W,
)
from courtstudio.cli import main

# Padel (FIP rules): 20 x 10 m inside the walls, net 0.88 m at the centre and 0.92 m at the
# posts (on the side walls), service lines 6.95 m from the net, centre service line between them.
L, W, NET_C, NET_P, SERVICE = 20.0, 10.0, 0.88, 0.92, 6.95


def padel_spec() -> dict:
    xn, xs = L / 2, L / 2 - SERVICE
    kp = {
        "far_left_corner": [0, 0, 0],
        "far_right_corner": [0, W, 0],
        "near_left_corner": [L, 0, 0],
        "near_right_corner": [L, W, 0],
        "net_post_left_top": [xn, 0, NET_P],
        "net_post_right_top": [xn, W, NET_P],
        "net_centre_top": [xn, W / 2, NET_C],
        "net_line_left": [xn, 0, 0],
        "net_line_right": [xn, W, 0],
        "net_line_centre": [xn, W / 2, 0],
    }
    lines = {
        "far_back_line": [[0, 0, 0], [0, W, 0]],
        "near_back_line": [[L, 0, 0], [L, W, 0]],
        "left_side_line": [[0, 0, 0], [L, 0, 0]],
        "right_side_line": [[0, W, 0], [L, W, 0]],
        "net_line": [[xn, 0, 0], [xn, W, 0]],
    }
    for half, x in (("far", xs), ("near", L - xs)):
        for side, y in (("left", 0.0), ("centre", W / 2), ("right", W)):
            kp[f"{half}_service_{side}"] = [x, y, 0]
        lines[f"{half}_service_line"] = [[x, 0, 0], [x, W, 0]]
    lines["centre_service_line"] = [[xs, W / 2, 0], [L - xs, W / 2, 0]]
    zones = [
        {
            "name": f"{h}_service_box",
            "label": "service box",
            "half": h,
            "polygon": [[a, 0], [b, 0], [b, W], [a, W]],
        }
        for h, a, b in (("far", xs, xn), ("near", xn, L - xs))
    ]
    return {
        "format_version": 1,
        "id": "padel",
        "name": "Padel",
        "length_m": L,
        "width_m": W,
        "planes": {"court": 0.0},
        "default_plane": "court",
        "keypoints": kp,
        "lines": lines,
        "zones": zones,
        "net": {
            "x_m": xn,
            "post_left_top": kp["net_post_left_top"],
            "post_right_top": kp["net_post_right_top"],
            "height_at_posts_m": NET_P,
            "height_at_centre_m": NET_C,
            "tape_model": "strap",
        },
        "ball_radius_m": 0.033,
    }


@pytest.fixture
def specs_dir(tmp_path):
    d = tmp_path / "my_specs"
    d.mkdir()
    (d / "padel.json").write_text(json.dumps(padel_spec()))
    return d


@pytest.fixture
def on_path(specs_dir, monkeypatch):
    monkeypatch.setenv(SPECS_DIR_ENV, str(specs_dir))
    return specs_dir


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_spec_folder_adds_a_sport_to_the_listing(specs_dir, capsys, monkeypatch):
    monkeypatch.delenv(SPECS_DIR_ENV, raising=False)
    assert "padel" not in available_specs()
    code, out, err = run(capsys, "specs", "padel")
    assert code == 2 and "unknown sport 'padel'" in err
    code, out, _ = run(capsys, "--specs-dir", specs_dir, "specs")
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("padel"))
    assert "20 x 10 m" in row and str(specs_dir / "padel.json") in row
    assert any(ln.startswith("tennis") for ln in out.splitlines())  # the bundled ones stay
    code, out, _ = run(capsys, "--specs-dir", specs_dir, "specs", "padel", "--json")
    assert code == 0 and json.loads(out)["net"]["height_at_centre_m"] == NET_C
    code, out, _ = run(capsys, "--specs-dir", specs_dir, "specs", "padel")
    assert "(derived)" in out  # the synthesis presets were not in the file
    assert os.environ.get(SPECS_DIR_ENV) is None  # --specs-dir lasts one run


def test_missing_spec_folder_is_one_clear_line(tmp_path, capsys):
    code, _, err = run(capsys, "--specs-dir", tmp_path / "nope", "specs")
    assert code == 2 and err.count("\n") == 1 and "spec folder not found" in err


def test_synth_and_calibrate_a_new_sport(specs_dir, tmp_path, capsys):
    proj = tmp_path / "padel_project"
    code, _, err = run(
        capsys,
        "--specs-dir",
        specs_dir,
        "synth",
        "--sports",
        "padel",
        "--per-sport",
        "2",
        "--seed",
        "4",
        "--image-size",
        "960",
        "540",
        "-o",
        proj,
    )
    assert code == 0, err
    for k in (1, 2):
        fid = f"padel_{k:04d}"
        truth = json.loads((proj / "truth" / f"{fid}.json").read_text())
        assert truth["sport"] == "padel"
        assert (proj / "frames" / f"{fid}.jpg").stat().st_size > 10_000
        code, out, err = run(
            capsys,
            "--specs-dir",
            specs_dir,
            "calibrate",
            "--sport",
            "padel",
            "--points",
            proj / "annotations" / f"{fid}.json",
            "--json",
        )
        assert code == 0, err
        cal = json.loads(out)
        f_true = truth["camera"]["K"][0][0]
        assert cal["sport"] == "padel"
        assert abs(cal["K"][0][0] / f_true - 1) < 0.05
        C_true = -np.array(truth["camera"]["R"]).T @ np.array(truth["camera"]["t"])
        C = np.array(cal["camera_centre_world"])
        assert np.linalg.norm(C - C_true) < 0.05 * np.linalg.norm(C_true)
        # the camera stands where the derived padel preset puts it, beyond the near wall
        assert L + DERIVED_DISTANCE_D[0] * L - 0.01 < C_true[0] < L + DERIVED_DISTANCE_D[1] * L


def test_missing_drawing_data_gets_defaults_from_its_own_court(on_path):
    padel, tennis = load_spec("padel"), load_spec("tennis")
    syn = padel.synthesis
    assert syn.camera_distance_m == pytest.approx(np.multiply(DERIVED_DISTANCE_D, L))
    assert syn.camera_height_m == pytest.approx(np.multiply(DERIVED_HEIGHT_D, L))
    assert syn.camera_lateral_m == pytest.approx(DERIVED_LATERAL_W * W)
    assert syn.ball_height_m == pytest.approx(np.multiply(DERIVED_BALL_HEIGHT_D, L))
    assert set(syn.derived) == {
        "camera_distance_m",
        "camera_height_m",
        "camera_lateral_m",
        "ball_height_m",
    }
    assert syn.colours_bgr == DEFAULT_COLOURS_BGR
    assert padel.line_width("centre_service_line") == DEFAULT_LINE_WIDTH_M
    assert padel.raised_surface is None and padel.net_post_radius_m == 0.04
    # not tennis's values
    assert syn.camera_distance_m != tennis.synthesis.camera_distance_m
    assert tennis.synthesis.derived == ()  # every bundled spec carries its own presets


def test_bundled_specs_carry_the_table_tennis_specifics():
    tt = load_spec("table_tennis")
    assert tt.raised_surface.floor_plane == "floor" and tt.raised_surface.thickness_m == 0.025
    assert tt.line_width("centre_line") == 0.003 and tt.line_width("far_end_line") == 0.02
    assert tt.net_post_radius_m == 0.01
    assert tt.synthesis.camera_height_m == (1.2, 3.0)
    for sid in available_specs():
        assert load_spec(sid).synthesis.derived == ()


@pytest.mark.parametrize(
    "patch,field",
    [
        ({"line_widths_m": {"no_such_line": 0.01}}, "line_widths_m.no_such_line"),
        (
            {"raised_surface": {"floor_plane": "floor", "thickness_m": 0.02}},
            "raised_surface.floor_plane",
        ),
        (
            {
                "planes": {"court": 0.0, "floor": 0.5},
                "raised_surface": {"floor_plane": "floor", "thickness_m": 0.02},
            },
            "raised_surface.floor_plane",
        ),
        ({"synthesis": {"camera_height_m": [9.0, 3.0]}}, "synthesis.camera_height_m"),
        ({"synthesis": {"camera_height": [3.0, 9.0]}}, "camera_height"),
        ({"synthesis": {"colours_bgr": {"surface": [0, 0, 300]}}}, "synthesis.colours_bgr"),
        ({"line_width_m": -0.05}, "line_width_m"),
    ],
)
def test_bad_drawing_fields_name_the_field(tmp_path, patch, field):
    path = tmp_path / "padel.json"
    path.write_text(json.dumps({**padel_spec(), **patch}))
    with pytest.raises(SpecError, match=field.replace(".", r"\.")):
        load_spec_file(path)


def test_a_file_found_by_id_must_hold_that_id(tmp_path, monkeypatch):
    (tmp_path / "padle.json").write_text(json.dumps(padel_spec()))
    monkeypatch.setenv(SPECS_DIR_ENV, str(tmp_path))
    with pytest.raises(SpecError, match="differs from the file name"):
        load_spec("padle")
    with pytest.raises(SpecError, match="unknown sport"):
        load_spec("../padle")


def test_a_user_folder_comes_first(tmp_path, monkeypatch):
    tennis = json.loads(Path(load_spec("tennis").source).read_text())
    tennis["name"] = "Tennis (club rules)"
    (tmp_path / "tennis.json").write_text(json.dumps(tennis))
    monkeypatch.setenv(SPECS_DIR_ENV, str(tmp_path))
    assert load_spec("tennis").name == "Tennis (club rules)"
    monkeypatch.delenv(SPECS_DIR_ENV)
    assert load_spec("tennis").name == "Tennis"


def test_the_app_lists_and_opens_the_new_sport(qtbot, specs_dir, tmp_path, monkeypatch):
    from annotation_ui.dialogs import NewProjectDialog
    from courtstudio.synth.synthetic_project import write_synthetic_project
    from tests.conftest import open_main_window

    (specs_dir / "broken.json").write_text("{}")
    win = open_main_window(qtbot)
    monkeypatch.delenv(SPECS_DIR_ENV, raising=False)
    monkeypatch.setattr("court_specs.loader._configured_dirs", ())  # restored after the test
    win.settings.setValue("paths/specs_dir", str(specs_dir))  # File > Preferences
    win.reload_settings()
    assert win.app_settings.specs_dir == str(specs_dir)
    assert spec_dirs()[0] == specs_dir and SPECS_DIR_ENV not in os.environ
    dlg = NewProjectDialog(win)
    sports = {dlg.sport.itemData(i): dlg.sport.itemText(i) for i in range(dlg.sport.count())}
    assert sports["padel"] == "Padel" and "tennis" in sports
    assert sports[None] == "broken (invalid spec)"  # listed, not selectable
    proj = write_synthetic_project(tmp_path / "p", ["padel"], seed=2, image_size=(960, 540))
    assert win.open_project(proj.root, recover=False)
    assert win.doc.current_frame.sport == "padel"
    assert "f = " in win.court_panel.summary.text()  # calibrated from the six clicks
    assert win.court_panel.table.rowCount() == 6
    assert win.grab().save(str(tmp_path / "padel.png"))


def test_qa_wording_travels_in_the_spec(tmp_path):
    from qa.scenes import wording_for

    plain = tmp_path / "plain" / "padel.json"
    plain.parent.mkdir()
    plain.write_text(json.dumps(padel_spec()))
    w = wording_for(load_spec_file(plain))
    assert (w.ball, w.surface, w.sport) == ("ball", "court", "padel")  # generic, not tennis
    assert w.line("far_service_line") == "the far service line"
    spec = {
        **padel_spec(),
        "qa_wording": {
            "ball_noun": "padel ball",
            "line_names": {"centre_service_line": "the centre line"},
            "ambiguity_margins": {"zone_m": 0.2},
        },
    }
    path = tmp_path / "padel.json"
    path.write_text(json.dumps(spec))
    w = wording_for(load_spec_file(path))
    assert w.ball == "padel ball" and w.line("centre_service_line") == "the centre line"
    assert w.margins["zone_m"] == 0.2 and w.margins["nearest_m"] == 0.30
    spec["qa_wording"]["zone_names"] = {"far_kitchen": "the kitchen"}
    bad = tmp_path / "bad.json"  # a new file: the loader caches by path and mtime
    bad.write_text(json.dumps(spec))
    with pytest.raises(SpecError, match=r"qa_wording\.zone_names\.far_kitchen"):
        load_spec_file(bad)


def test_new_project_dialog_survives_a_missing_spec_folder(qtbot, tmp_path, monkeypatch):
    from annotation_ui.dialogs import NewProjectDialog

    monkeypatch.setenv(SPECS_DIR_ENV, str(tmp_path / "gone"))
    dlg = NewProjectDialog()
    qtbot.addWidget(dlg)
    assert dlg.sport.count() == 1 and dlg.sport.itemData(0) is None
    assert "not found" in dlg.sport.itemText(0)
    assert "spec folder not found" in dlg.sport.model().item(0).toolTip()


def test_derived_presets_follow_the_broadcast_view(tmp_path):
    path = tmp_path / "padel_side.json"
    path.write_text(
        json.dumps(
            {**padel_spec(), "broadcast_view": "side", "synthesis": {"camera_height_m": [4.0, 6.0]}}
        )
    )
    syn = load_spec_file(path).synthesis
    assert syn.camera_distance_m == pytest.approx(np.multiply(DERIVED_DISTANCE_D, W))
    assert syn.camera_height_m == (4.0, 6.0)  # given, not derived
    assert "camera_height_m" not in syn.derived and "camera_distance_m" in syn.derived


def test_the_cli_reads_the_preferences_spec_folder(specs_dir, tmp_path, capsys, monkeypatch):
    """The Court specs folder set in File > Preferences (HOME/settings.ini) serves the CLI too,
    for that run only; a folder that is gone is one error line naming Preferences."""
    monkeypatch.delenv(SPECS_DIR_ENV, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("COURTSTUDIO_HOME", str(home))
    (home / "settings.ini").write_text(f"[paths]\nspecs_dir={specs_dir}\n")
    code, out, _ = run(capsys, "specs")
    assert code == 0 and "padel" in out
    assert spec_dirs()[0] != specs_dir  # not left configured after the run
    (home / "settings.ini").write_text(f"[paths]\nspecs_dir={tmp_path / 'gone'}\n")
    code, _, err = run(capsys, "specs", "padel")
    assert code == 2 and "from Preferences" in err and err.count("\n") == 1

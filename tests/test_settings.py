"""The one Settings object (courtstudio/io/settings.py): the user's settings file under the
environment; the panel ids the CLI offers without Qt; the players workflow without a window."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from courtstudio.io.settings import Settings, user_home

ROOT = Path(__file__).resolve().parents[1]


def test_environment_wins_over_the_settings_file(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.ini").write_text(
        "[General]\nrecent=/a, /b\n\n[paths]\nsmplx_dir=/models/smplx\n"
        'sam3_checkpoint="/ck/with, comma.pt"\nprompthmr_dir=\n\n'
        "[calibration]\nmodel=auto\n"
    )
    env = {"COURTSTUDIO_HOME": str(home), "COURTSTUDIO_PROMPTHMR_DIR": "/env/phmr"}
    s = Settings.load(env)
    assert s.home == home and s.settings_file == home / "settings.ini"
    assert s.anny_cache_dir == home / "anny_cache"
    assert s.smplx_dir == "/models/smplx" and s.sam3_checkpoint == "/ck/with, comma.pt"
    assert s.prompthmr_dir == "/env/phmr" and s.from_environment == {"prompthmr_dir"}
    assert s.sam3_bpe is None
    env["COURTSTUDIO_SMPLX_DIR"] = "/env/smplx"
    assert Settings.load(env).smplx_dir == "/env/smplx"


def test_a_missing_or_broken_settings_file_reads_as_empty(tmp_path):
    s = Settings.load({"COURTSTUDIO_HOME": str(tmp_path / "nowhere")})
    assert (s.smplx_dir, s.sam3_checkpoint, s.prompthmr_dir) == (None, None, None)
    (tmp_path / "settings.ini").write_bytes(b"\xff\xfe not an ini [[[\n= =\n")
    s = Settings.load({"COURTSTUDIO_HOME": str(tmp_path)})
    assert s.smplx_dir is None


def test_home_default_is_computed_in_one_place(monkeypatch):
    assert user_home({}) == Path.home() / ".courtstudio"
    assert user_home({"COURTSTUDIO_HOME": "/x"}) == Path("/x")
    from courtstudio.export import sample

    assert sample.user_home is user_home


def test_gui_panel_choices_come_without_qt():
    code = (
        "import sys, argparse\n"
        "from courtstudio.cli import gui\n"
        "p = argparse.ArgumentParser(); gui.register(p.add_subparsers(), "
        "argparse.HelpFormatter)\n"
        "a = [x for x in p._subparsers._group_actions[0].choices['gui']._actions "
        "if '--panel' in x.option_strings][0]\n"
        "print(','.join(a.choices))\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt loaded'\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "court,ball,players,masks"


def test_player_workflow_proposes_boxes_without_a_window(tmp_path):
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.editing.player_workflow import PlayerWorkflow
    from courtstudio.export.reconstruct import SAMPLE_PROJECT
    from courtstudio.io.project import load_project
    from hmr.sam3_boxes import Proposal

    shutil.copytree(SAMPLE_PROJECT, tmp_path / "p")
    doc = AnnotationDocument(load_project(tmp_path / "p"))
    flow = PlayerWorkflow(Settings(tmp_path))
    assert flow.proposer() is None  # nothing configured
    fid = doc.current_frame.id
    existing = doc.annotation(fid).players[0].box_xyxy

    class Proposer:
        name = "stand-in"

        def propose(self, image):
            return [Proposal(existing, 0.9), Proposal((100.0, 100, 160, 260), 0.8)]

    before = len(doc.annotation(fid).players)
    ids, message = flow.propose_boxes(doc, Proposer())
    assert len(ids) == 1 and message == "stand-in proposed 1 new player box(es)"
    assert len(doc.annotation(fid).players) == before + 1
    doc.undo()
    assert len(doc.annotation(fid).players) == before

"""Exports that do not surprise (issue 8 §7): a manifest, each frame's outputs replaced as a unit
with stale files removed and reported, non-export folders refused unless forced, files that
follow the umask, and killed exports' temporary folders cleaned."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys

import pytest

from courtstudio.cli import main
from courtstudio.editing.document import AnnotationDocument
from courtstudio.export.export_scenes import (
    MANIFEST_NAME,
    ExportFolderError,
    export_frames,
    read_previous_export,
)
from courtstudio.io.project import load_project


def _uncalibrate(doc, fid):
    for name in list(doc.annotation(fid).points):
        doc.remove_keypoint(fid, name)


def test_manifest_lists_every_file_with_size_and_digest(project, tmp_path):
    old = os.umask(0o027)
    try:
        doc = AnnotationDocument(project)
        frames = project.frames[:2]
        out = export_frames(doc, frames, tmp_path / "out")
    finally:
        os.umask(old)
    assert [s.status for s in out] == ["ok", "ok"]
    man = json.loads((tmp_path / "out" / MANIFEST_NAME).read_text())
    assert man["format"] == "courtstudio.export" and man["tool_version"]
    assert list(man["frames"]) == [f.id for f in frames]
    for f in frames:
        files = man["frames"][f.id]["files"]
        assert {"camera.json", "camera.yaml", "scene.json", "scene.glb", "overlay.png"} <= set(
            files
        )
        assert sorted(files) == sorted(p.name for p in (tmp_path / "out" / f.id).iterdir())
        for name, rec in files.items():
            data = (tmp_path / "out" / f.id / name).read_bytes()
            assert rec == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            assert stat.S_IMODE(os.stat(tmp_path / "out" / f.id / name).st_mode) == 0o640
    assert {"summary.json"} <= set(man["files"])
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_a_frame_that_is_now_skipped_loses_its_stale_outputs(project, tmp_path):
    doc = AnnotationDocument(project)
    frame = project.frames[0]
    out_dir = tmp_path / "out"
    export_frames(doc, project.frames[:2], out_dir)
    (out_dir / frame.id / "notes.txt").write_text("mine")  # not an export's file
    _uncalibrate(doc, frame.id)
    (s,) = export_frames(doc, [frame], out_dir)
    assert s.status == "skipped"
    assert {"scene.json", "scene.glb", "overlay.png", "camera.json"} <= set(s.removed)
    assert sorted(p.name for p in (out_dir / frame.id).iterdir()) == ["notes.txt"]
    man = json.loads((out_dir / MANIFEST_NAME).read_text())
    assert man["frames"][frame.id]["status"] == "skipped"
    assert man["frames"][frame.id]["files"] == {}
    other = project.frames[1].id  # not exported this time: untouched, still listed
    assert man["frames"][other]["status"] == "ok"
    assert (out_dir / other / "scene.json").exists()
    summary = json.loads((out_dir / "summary.json").read_text())
    assert "overlay.png" in summary["frames"][0]["removed"]


def test_overlay_format_change_removes_the_other_overlay(project, tmp_path):
    doc = AnnotationDocument(project)
    frame = project.frames[0]
    export_frames(doc, [frame], tmp_path / "out")
    (s,) = export_frames(doc, [frame], tmp_path / "out", overlay_format="jpg")
    names = {p.name for p in (tmp_path / "out" / frame.id).iterdir()}
    assert "overlay.jpg" in names and "overlay.png" not in names
    assert s.removed == ["overlay.png"]
    with open(tmp_path / "out" / frame.id / "overlay.jpg", "rb") as fh:
        assert fh.read(2) == b"\xff\xd8"


def _one_frame_copy(root):
    """The sample copy at ``root`` cut down to its first frame (a folder test needs no more)."""
    path = root / "courtstudio_project.json"
    data = json.loads(path.read_text())
    data["frames"] = data["frames"][:1]
    path.write_text(json.dumps(data))
    return load_project(root)


def test_non_empty_folder_that_is_not_an_export_is_refused(sample_root, tmp_path, capsys):
    project = _one_frame_copy(sample_root)
    out_dir = tmp_path / "mine"
    out_dir.mkdir()
    (out_dir / "summary.json").write_text("my own file")
    rc = main(["export", str(project.root), "--format", "scenes", "-o", str(out_dir)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "--force" in err and "Traceback" not in err
    assert [p.name for p in out_dir.iterdir()] == ["summary.json"]
    assert (out_dir / "summary.json").read_text() == "my own file"
    with pytest.raises(ExportFolderError):
        read_previous_export(out_dir)
    rc = main(["reconstruct", str(project.root), "-o", str(out_dir), "--force"])
    assert rc == 0 and (out_dir / MANIFEST_NAME).exists()
    # now a previous export: accepted without --force
    assert main(["reconstruct", str(project.root), "-o", str(out_dir)]) == 0


def test_killed_exports_leave_nothing_behind_at_the_next_export(project, tmp_path):
    doc = AnnotationDocument(project)
    frame = project.frames[0]
    out_dir = tmp_path / "out"
    export_frames(doc, [frame], out_dir)
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    half = out_dir / f".{frame.id}.courtstudio-tmp-{p.pid}-0badc0de"
    half.mkdir()
    (half / "scene.json").write_text("{")
    # a kill between the two renames of a swap: the previous outputs are put back
    other = project.frames[1].id
    os.replace(out_dir / frame.id, out_dir / f".{frame.id}.courtstudio-old-{p.pid}-0badc0de")
    export_frames(doc, [project.frames[1]], out_dir)
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(
        [MANIFEST_NAME, "summary.json", frame.id, other]
        + [p.name for p in out_dir.glob("court_keypoints_*")]
    )
    assert (out_dir / frame.id / "scene.json").exists()


def test_the_app_asks_before_writing_into_a_foreign_folder(qtbot, tmp_path, project):
    from annotation_ui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    asked = []
    win.ask = lambda title, text, buttons: asked.append(title) or "Cancel"
    win.open_project(project.root, recover=False)  # a copy: the app locks what it opens
    out_dir = tmp_path / "foreign"
    out_dir.mkdir()
    (out_dir / "x.txt").write_text("x")
    assert win.export_to(out_dir, all_frames=False) == []
    assert asked == ["Export into this folder?"]
    assert [p.name for p in out_dir.iterdir()] == ["x.txt"]
    win.ask = lambda title, text, buttons: "Export anyway"
    (s,) = win.export_to(out_dir, all_frames=False)
    assert s.status == "ok" and (out_dir / "x.txt").exists()
    win.ask = lambda title, text, buttons: "Discard"


def test_a_killed_first_export_is_still_an_export(project, tmp_path, monkeypatch):
    import courtstudio.export.export_scenes as ex

    doc = AnnotationDocument(project)
    frames = project.frames[:2]
    real = ex.export_frame
    calls = []

    def killed_on_the_second_frame(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the run dies here: no summary, no final manifest
        return real(*a, **k)

    monkeypatch.setattr(ex, "export_frame", killed_on_the_second_frame)
    with pytest.raises(KeyboardInterrupt):
        export_frames(doc, frames, tmp_path / "out")
    monkeypatch.setattr(ex, "export_frame", real)
    _uncalibrate(doc, frames[0].id)
    out = export_frames(doc, frames, tmp_path / "out")  # no --force needed
    assert [s.status for s in out] == ["skipped", "ok"]
    assert "scene.json" in out[0].removed and not (tmp_path / "out" / frames[0].id).exists()

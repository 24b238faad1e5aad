"""A project folder is untrusted input (issue 8 §1): every crafted project below is refused
with a ProjectError naming the file and the field, and nothing is written anywhere."""

import json
import os
import shutil
from pathlib import Path

import pytest

from courtstudio.cli import main
from courtstudio.editing.document import AnnotationDocument
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project import (
    FrameAnnotation,
    ProjectError,
    check_recovered_state,
    load_project,
)
from courtstudio.io.project_paths import frame_id_problem, safe_frame_id

IGNORE = shutil.ignore_patterns(".courtstudio")  # a session's lock/journal, if any


def snapshot(*roots: Path) -> dict:
    """Every file and link under the roots: (bytes or link target, mtime_ns)."""
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                st = p.lstat()
                if p.is_symlink():
                    out[str(p)] = ("link", os.readlink(p), st.st_mtime_ns)
                elif p.is_file():
                    out[str(p)] = (p.read_bytes(), st.st_mtime_ns)
                else:
                    out[str(p)] = ("dir", st.st_mtime_ns)
    return out


@pytest.fixture
def proj(tmp_path):
    """A writable copy of the sample, and an 'outside' folder beside it."""
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE_PROJECT, root, ignore=IGNORE)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.json").write_text('{"precious": true}\n')
    return root


def edit_json(path: Path, fn) -> None:
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))


def ann_file(root, fid="tennis_0001"):
    return root / "annotations" / f"{fid}.json"


def set_key(key, value):
    def fn(d):
        d[key] = value

    return fn


def set_frame(i, key, value):
    def fn(d):
        d["frames"][i][key] = value

    return fn


def set_player(key, value):
    def fn(d):
        d["players"] = [{"id": 1, "box_xyxy": [10, 10, 50, 90], key: value}]

    return fn


PROJECT_FILE_CASES = [
    (set_frame(0, "id", "../evil"), r"frames\[0\]\.id"),
    (set_frame(0, "id", "/tmp/evil"), r"frames\[0\]\.id"),
    (set_frame(0, "id", ".hidden"), r"frames\[0\]\.id"),
    (set_frame(0, "id", "a" * 129), r"frames\[0\]\.id: longer than 128"),
    (set_frame(0, "image", "/etc/hostname"), r"frames\[0\]\.image: .*absolute"),
    (set_frame(0, "image", "../outside/x.json"), r"frames\[0\]\.image: .*leaves the project"),
    (set_frame(0, "image", "frames\\..\\..\\x.jpg"), r"frames\[0\]\.image: .*backslash"),
    (set_key("sport", "court_specs/tennis.json"), "field sport: unknown sport"),
    (set_key("sport", "/tmp/spec.json"), "field sport: unknown sport"),
    (set_frame(1, "sport", "../badminton.json"), r"frames\[1\]\.sport: unknown sport"),
    (set_frame(1, "id", "TENNIS_0001"), r"frames\[1\]\.id: duplicate frame id .*letter case"),
    (set_key("frames", []), "field frames: the project has no frames"),
    (set_key("fps", float("inf")), "field fps"),
    (set_key("fps", True), "field fps"),
    (set_key("name", ["x"]), "field name"),
]


@pytest.mark.parametrize("mutate,msg", PROJECT_FILE_CASES)
def test_crafted_project_file_is_refused(proj, mutate, msg):
    pf = proj / "courtstudio_project.json"
    edit_json(pf, mutate)
    before = snapshot(proj.parent)
    with pytest.raises(ProjectError, match=msg) as err:
        load_project(proj)
    assert str(pf) in str(err.value)
    assert snapshot(proj.parent) == before


ANNOTATION_CASES = [
    (set_key("frame_id", "/tmp/x"), "field frame_id"),
    (set_key("frame_id", "../../x"), "field frame_id"),
    (set_key("frame_id", "badminton_0001"), "field frame_id: 'badminton_0001' is not this file"),
    (set_player("mesh", "../../x.npz"), r"players\[0\]\.mesh: .*leaves the project"),
    (set_player("mesh", "/tmp/x.npz"), r"players\[0\]\.mesh: .*absolute"),
    (set_player("lowest_vertex_height_m", 1e300), r"players\[0\]\.lowest_vertex_height_m"),
    (set_player("lowest_vertex_height_m", float("inf")), r"players\[0\]\.lowest_vertex_height_m"),
    (set_player("lowest_vertex_height_m", True), r"players\[0\]\.lowest_vertex_height_m"),
    (
        lambda d: d.update(players=[{"id": 1, "box_xyxy": [0, 0, 1e30, 5]}]),
        r"players\[0\]\.box_xyxy",
    ),
    (lambda d: d.update(players=[{"id": True, "box_xyxy": [0, 0, 4, 5]}]), r"players\[0\]\.id"),
    (lambda d: d.update(image_size=[10**7, 10]), "field image_size"),
    (lambda d: d["points"].update(far_left_corner=[1e12, 3]), "field points.far_left_corner"),
    (lambda d: d.update(players={"id": 1}), "field players: .* is not of type 'array'"),
]


@pytest.mark.parametrize("mutate,msg", ANNOTATION_CASES)
def test_crafted_annotation_is_refused_at_load(proj, mutate, msg):
    edit_json(ann_file(proj), mutate)
    before = snapshot(proj.parent)
    with pytest.raises(ProjectError, match=msg) as err:
        load_project(proj)
    assert str(ann_file(proj)) in str(err.value)
    assert snapshot(proj.parent) == before


def test_mesh_link_leaving_the_project_is_refused(proj, tmp_path):
    (tmp_path / "outside" / "m.npz").write_bytes(b"x")
    (proj / "meshes" / "evil.npz").symlink_to(tmp_path / "outside" / "m.npz")
    edit_json(ann_file(proj), set_player("mesh", "meshes/evil.npz"))
    with pytest.raises(ProjectError, match=r"players\[0\]\.mesh: .*outside the project"):
        load_project(proj)


def test_image_link_leaving_the_project_is_refused(proj, tmp_path):
    (proj / "frames" / "tennis_0001.jpg").unlink()
    (proj / "frames" / "tennis_0001.jpg").symlink_to(tmp_path / "outside" / "x.json")
    with pytest.raises(ProjectError, match=r"frames\[0\]\.image: .*outside the project"):
        load_project(proj)


@pytest.mark.parametrize("folder", ["annotations", ".courtstudio", "meshes"])
def test_linked_project_folder_leaving_the_project_is_refused(proj, tmp_path, folder):
    target = tmp_path / "outside" / folder
    if (proj / folder).exists():
        shutil.move(proj / folder, target)
    else:
        target.mkdir()
    (target / "autosave.json").write_text("{}")
    (proj / folder).symlink_to(target)
    before = snapshot(proj.parent)
    with pytest.raises(ProjectError, match=f"{folder}: links to .*outside the project"):
        load_project(proj)
    assert snapshot(proj.parent) == before


def test_link_inside_the_project_is_fine(proj):
    shutil.move(proj / "frames", proj / "images")
    (proj / "frames").symlink_to("images")
    assert len(load_project(proj).frames) == 4


def test_save_never_writes_outside_even_with_a_bad_in_memory_id(proj, tmp_path):
    p = load_project(proj)
    before = snapshot(tmp_path)
    for fid in ("../../outside/x", "/tmp/x", "badminton_0001/../../x", "no_such_frame"):
        with pytest.raises(ProjectError):
            p.save_annotation(FrameAnnotation(fid, (100, 100)))
    doc = AnnotationDocument(p)
    ann = doc.annotation("tennis_0001")
    ann.frame_id = "../../outside/x"  # a bug elsewhere must not become a write outside
    doc._dirty.add("tennis_0001")
    with pytest.raises(ProjectError):
        doc.save()
    assert snapshot(tmp_path) == before


def good_journal(p):
    ann = load_project(p.root).load_annotation("tennis_0001").to_json()
    return {"annotations": {"tennis_0001": ann}, "camera_ranges": None, "ball_flights": None}


@pytest.mark.parametrize(
    "mutate,msg",
    [
        (lambda j: j["annotations"]["tennis_0001"].update(frame_id="../../outside/x"), "frame_id"),
        (
            lambda j: j["annotations"]["tennis_0001"].update(frame_id="badminton_0001"),
            "is not this file's frame",
        ),
        (
            lambda j: j["annotations"].update({"../../x": j["annotations"]["tennis_0001"]}),
            "not a frame of this project",
        ),
        (
            lambda j: j["annotations"]["tennis_0001"].update(
                players=[{"id": 1, "box_xyxy": [1, 1, 9, 9], "mesh": "../../outside/m.npz"}]
            ),
            "mesh",
        ),
        (
            lambda j: j.update(camera_ranges=[{"first": 0, "last": 99, "source": "tennis_0001"}]),
            r"camera_ranges\[0\]\.last",
        ),
        (
            lambda j: j.update(ball_flights=[["tennis_0001", "x", "y"]]),
            r"ball_flights\[0\]: no frame 'x'",
        ),
        (
            lambda j: j.update(camera_ranges=[{"first": 0, "last": 1, "source": "../x"}]),
            r"camera_ranges\[0\]\.source: no frame",
        ),
    ],
)
def test_crafted_recovery_journal_is_refused(proj, tmp_path, mutate, msg):
    p = load_project(proj)
    journal = good_journal(p)
    check_recovered_state(p, journal, "autosave")
    mutate(journal)
    doc = AnnotationDocument(p)
    before = snapshot(tmp_path)
    with pytest.raises(ProjectError, match=msg):
        doc.restore_unsaved_state(journal)
    assert not doc.is_dirty
    doc.save()
    assert snapshot(tmp_path) == before


def test_cli_refuses_a_crafted_project_with_one_line(proj, tmp_path, capsys):
    edit_json(ann_file(proj), set_key("frame_id", "../../outside/x"))
    before = snapshot(tmp_path)
    assert main(["reconstruct", str(proj), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tennis_0001.json" in err[0] and "frame_id" in err[0]
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "fid,ok",
    [
        ("tennis_0001", True),
        ("a.b-c_D9", True),
        ("a..b", False),
        ("", False),
        ("a/b", False),
        ("a\\b", False),
        ("-a", False),
        ("a b", False),
        ("é", False),
        ("x" * 128, True),
        ("x" * 129, False),
    ],
)
def test_frame_id_rule(fid, ok):
    assert (frame_id_problem(fid) is None) == ok
    assert frame_id_problem(safe_frame_id(fid or "x")) is None


def test_new_project_brings_outside_media_inside(tmp_path):
    import cv2
    import numpy as np

    from courtstudio.io.project_new import new_project_from_images

    src = tmp_path / "My Photos"
    src.mkdir()
    for name in ("a shot.png", "..b.png"):
        cv2.imwrite(str(src / name), np.zeros((20, 30, 3), np.uint8))
    p = load_project(new_project_from_images(tmp_path / "proj", src, "tennis").root)
    assert all(frame_id_problem(f.id) is None for f in p.frames)
    assert all(
        p.image_path(f).resolve().is_relative_to((tmp_path / "proj").resolve()) for f in p.frames
    )


def test_journal_guard_reverts_to_the_journaled_state(proj, monkeypatch):
    """Without a window: an edit, an undo or a merged drag that cannot be journaled is
    reverted to what the journal holds, and reported once."""
    from courtstudio.editing.autosave import Autosave
    from courtstudio.editing.journal_guard import GuardedAutosave

    doc = AnnotationDocument(load_project(proj))
    errors = []
    guard = GuardedAutosave(doc, errors.append)
    fid = "tennis_0001"
    pts = dict(doc.annotation(fid).points)
    name = next(iter(pts))
    doc.set_keypoint(fid, name, (100, 100), drag=True)  # journaled
    real_write = Autosave.write

    def broken(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Autosave, "write", broken)
    doc.set_keypoint(fid, name, (120, 120), drag=True)  # merges into the journaled command
    assert len(errors) == 1 and doc.annotation(fid).points[name] == pts[name]
    monkeypatch.setattr(Autosave, "write", real_write)
    doc.toggle_flag(fid)
    monkeypatch.setattr(Autosave, "write", broken)
    doc.undo()  # an undo that cannot be journaled is redone
    assert len(errors) == 2 and doc.annotation(fid).flags == ["review"]
    guard.close()

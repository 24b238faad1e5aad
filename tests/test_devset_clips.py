"""The real moving-camera clips (bench/devset_clips, issue 11): every committed annotation
validates against its spec and its clip's manifest entry, and tools/devset_clips_extract.py
rebuilds a clip from a git mirror exactly (or refuses clearly)."""

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from court_specs import load_spec

ROOT = Path(__file__).resolve().parents[1]
CLIPS = ROOT / "bench" / "devset_clips"
MANIFEST = json.loads((CLIPS / "manifest.json").read_text())
ANNOTATIONS = sorted((CLIPS / "annotations").glob("*/*.json"))
sys.path.insert(0, str(ROOT / "tools"))
import devset_clips_extract  # noqa: E402


def test_every_clip_has_annotated_frames_and_the_folders_match_the_manifest():
    ids = {c["id"] for c in MANIFEST["clips"]}
    assert len(ids) >= 4
    assert {p.parent.name for p in ANNOTATIONS} == ids
    for cid in ids:
        assert len(list((CLIPS / "annotations" / cid).glob("*.json"))) >= 2


@pytest.mark.parametrize(
    "path", ANNOTATIONS, ids=[f"{p.parent.name}/{p.stem}" for p in ANNOTATIONS]
)
def test_annotation_validates_against_its_spec_and_clip(path):
    clip = {c["id"]: c for c in MANIFEST["clips"]}[path.parent.name]
    ann = json.loads(path.read_text())
    assert ann["sport"] == clip["sport"] and ann["view"] == clip["view"]
    assert ann["image_size"] == clip["image_size"]
    spec = load_spec(ann["sport"])
    w, h = ann["image_size"]
    assert len(ann["points"]) >= 3
    for name, uv in ann["points"].items():
        assert name in spec.keypoints and not name.startswith("net_line")
        assert all(isinstance(c, (int, float)) and math.isfinite(c) for c in uv)
        assert -0.5 <= uv[0] <= w - 0.5 and -0.5 <= uv[1] <= h - 0.5
        if "picture_box" in clip:  # a broadcast picture inside a larger frame
            bx, by, bw, bh = clip["picture_box"]
            assert bx - 0.5 <= uv[0] <= bx + bw - 0.5 and by - 0.5 <= uv[1] <= by + bh - 0.5
    src = ann["source"]
    assert src["frame_index"] == int(path.stem) < clip["frame_count"]
    for key in ("repo", "commit", "path"):
        assert src[key] == clip[key]


@pytest.fixture(params=["bare", "checkout"])
def mirror(tmp_path, request):
    """A mirror `someone+clips/repo` holding one 6-frame MJPG video: a bare git dir, or a
    checkout whose git dir is `repo/.git` (both layouts occur under /work/.mirror)."""
    work = tmp_path / "work"
    work.mkdir()
    writer = cv2.VideoWriter(str(work / "clip.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
    for k in range(6):
        writer.write(np.full((24, 32, 3), 30 * k, np.uint8))
    writer.release()
    repo = tmp_path / "mirrors" / "someone+clips" / "repo"
    if request.param == "bare":
        subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
        git_dir = repo
    else:
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        git_dir = repo / ".git"
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", f"--git-dir={git_dir}", f"--work-tree={work}", "add", "."], check=True)
    subprocess.run(
        ["git", *env, f"--git-dir={git_dir}", f"--work-tree={work}", "commit", "-qm", "clips"],
        check=True,
    )
    commit = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return repo, commit, work


def _manifest(tmp_path, entry):
    p = tmp_path / "manifest.json"
    p.write_text(json.dumps({"clips": [entry]}))
    return p


def test_extract_rebuilds_a_clip_and_refuses_a_changed_one(mirror, tmp_path, capsys):
    git_dir, commit, work = mirror
    entry = {
        "id": "c",
        "repo": "someone/clips",
        "commit": commit,
        "path": "clip.avi",
        "file": "c.avi",
        "frame_count": 6,
        "image_size": [32, 24],
        "source_sha256": hashlib.sha256((work / "clip.avi").read_bytes()).hexdigest(),
    }
    out = tmp_path / "out"
    assert (
        devset_clips_extract.main(
            ["--manifest", str(_manifest(tmp_path, entry)), "--out", str(out), str(git_dir)]
        )
        == 0
    )
    assert (out / "c.avi").read_bytes() == (work / "clip.avi").read_bytes()
    for bad in (
        {"source_sha256": "0" * 64},
        {"frame_count": 7},
        {"repo": "other/clips"},
        {"path": "missing.avi"},
    ):
        capsys.readouterr()
        assert (
            devset_clips_extract.main(
                [
                    "--manifest",
                    str(_manifest(tmp_path, entry | bad)),
                    "--out",
                    str(out),
                    str(git_dir),
                ]
            )
            == 2
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("devset_clips_extract: c:")


@pytest.fixture
def folder_mirror(tmp_path):
    """A bare mirror `someone+frames/repo` holding a folder of five numbered JPEG frames (and a
    text file the pattern must skip), as the Volleyball dataset samples are committed."""
    work = tmp_path / "work"
    (work / "seq").mkdir(parents=True)
    rng = np.random.default_rng(3)
    for k in range(5):
        img = rng.integers(0, 255, (24, 32, 3), dtype=np.uint8)
        assert cv2.imwrite(str(work / "seq" / f"{1040 + k}.jpg"), img)
    (work / "seq" / "notes.txt").write_text("not a frame")
    repo = tmp_path / "mirrors" / "someone+frames" / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", f"--git-dir={repo}"]
    subprocess.run([*git, f"--work-tree={work}", "add", "."], check=True)
    subprocess.run([*git, f"--work-tree={work}", "commit", "-qm", "frames"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return repo, commit, work


def test_extract_writes_a_frame_folder_as_a_lossless_video(folder_mirror, tmp_path, capsys):
    repo, commit, work = folder_mirror
    files = sorted((work / "seq").glob("*.jpg"))
    entry = {
        "id": "f",
        "repo": "someone/frames",
        "commit": commit,
        "path": "seq",
        "frame_files": "*.jpg",
        "fps": 25,
        "file": "f.mkv",
        "frame_count": 5,
        "image_size": [32, 24],
        "source_sha256": hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest(),
    }
    out = tmp_path / "out"
    args = ["--manifest", str(_manifest(tmp_path, entry)), "--out", str(out), str(repo)]
    assert devset_clips_extract.main(args) == 0
    cap = cv2.VideoCapture(str(out / "f.mkv"))
    for f in files:  # frames in name order, pixel for pixel what OpenCV decodes from each file
        ok, frame = cap.read()
        assert ok and np.array_equal(frame, cv2.imread(str(f)))
    assert not cap.read()[0]
    cap.release()
    for bad in ({"source_sha256": "0" * 64}, {"frame_count": 6}, {"path": "other"}):
        capsys.readouterr()
        args[1] = str(_manifest(tmp_path, entry | bad))
        assert devset_clips_extract.main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("devset_clips_extract: f:")

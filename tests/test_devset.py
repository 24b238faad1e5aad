"""The real-frames dev set: every committed annotation validates against its court spec, and
tools/devset_extract.py rebuilds frames from a git mirror exactly (or refuses clearly)."""

import hashlib
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from court_specs import available_specs, load_spec

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "bench" / "devset"
ANNOTATIONS = sorted((DEVSET / "annotations").glob("*.json"))
sys.path.insert(0, str(ROOT / "tools"))
import devset_extract  # noqa: E402


def test_dev_set_is_not_empty():
    assert len(ANNOTATIONS) >= 10


@pytest.mark.parametrize("path", ANNOTATIONS, ids=[p.stem for p in ANNOTATIONS])
def test_annotation_validates_against_its_spec(path):
    ann = json.loads(path.read_text())
    assert ann["sport"] in available_specs()
    spec = load_spec(ann["sport"])
    w, h = ann["image_size"]
    assert isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0
    assert ann["view"] in ("end", "side")
    assert isinstance(ann["distorted"], bool)
    assert len(ann["points"]) >= 5, "too few clicks to calibrate and hold one out"
    for name, uv in ann["points"].items():
        assert name in spec.keypoints, f"{name} is not a {ann['sport']} keypoint"
        assert len(uv) == 2 and all(isinstance(c, (int, float)) and math.isfinite(c) for c in uv)
        u, v = uv
        assert -0.5 <= u <= w - 0.5 and -0.5 <= v <= h - 0.5, f"{name} {uv} outside {w}x{h}"
    src = ann["source"]
    assert re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", src["repo"])
    assert re.fullmatch(r"[0-9a-f]{40}", src["commit"])
    assert src["path"] and src["licence"]
    assert src["frame_index"] is None or (
        isinstance(src["frame_index"], int) and src["frame_index"] >= 0
    )


def test_manifest_lists_exactly_the_annotated_frames():
    manifest = json.loads((DEVSET / "manifest.json").read_text())
    ids = [e["id"] for e in manifest["frames"]]
    assert sorted(ids) == sorted(p.stem for p in ANNOTATIONS)
    for entry in manifest["frames"]:
        ann = json.loads((DEVSET / "annotations" / f"{entry['id']}.json").read_text())
        assert ann["image_size"] == entry["image_size"]
        for key in ("repo", "commit", "path", "frame_index", "licence"):
            assert ann["source"][key] == entry[key]


def _git(git_dir, *args, cwd=None):
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True, cwd=cwd
    ).stdout.strip()


@pytest.fixture()
def mirror(tmp_path):
    """A bare-like mirror `owner+name/repo` holding one PNG and one 5-frame MJPG video."""
    work = tmp_path / "work"
    work.mkdir()
    rng = np.random.default_rng(3)
    still = rng.integers(0, 255, (24, 32, 3), dtype=np.uint8)
    cv2.imwrite(str(work / "still.png"), still)
    writer = cv2.VideoWriter(str(work / "clip.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
    for k in range(5):
        writer.write(np.full((24, 32, 3), 40 * k, np.uint8))
    writer.release()
    git_dir = tmp_path / "mirrors" / "someone+clips" / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(git_dir)], check=True)
    env_args = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", f"--git-dir={git_dir}", f"--work-tree={work}", "add", "."], check=True)
    subprocess.run(
        ["git", *env_args, f"--git-dir={git_dir}", f"--work-tree={work}", "commit", "-qm", "clips"],
        check=True,
    )
    commit = _git(git_dir, "rev-parse", "HEAD")
    return git_dir, commit, work


def _entry(id_, commit, path, frame_index, work, image):
    return {
        "id": id_,
        "repo": "someone/clips",
        "commit": commit,
        "path": path,
        "frame_index": frame_index,
        "file": id_ + (".png" if frame_index is not None else ".png"),
        "image_size": [image.shape[1], image.shape[0]],
        "source_sha256": hashlib.sha256((work / path).read_bytes()).hexdigest(),
        "frame_sha256": devset_extract.pixels_sha256(image),
    }


def test_extract_rebuilds_images_and_video_frames(mirror, tmp_path):
    git_dir, commit, work = mirror
    still = cv2.imread(str(work / "still.png"))
    capture = cv2.VideoCapture(str(work / "clip.avi"))
    frames = [capture.read()[1] for _ in range(5)]
    manifest = {
        "frames": [
            _entry("a_still", commit, "still.png", None, work, still),
            _entry("b_clip3", commit, "clip.avi", 3, work, frames[3]),
        ]
    }
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    out = tmp_path / "out"
    code = devset_extract.main(
        ["--manifest", str(tmp_path / "m.json"), "--out", str(out), str(git_dir)]
    )
    assert code == 0
    assert (out / "a_still.png").read_bytes() == (work / "still.png").read_bytes()
    rebuilt = cv2.imread(str(out / "b_clip3.png"))
    assert np.array_equal(rebuilt, frames[3])
    assert not np.array_equal(rebuilt, frames[2])


def test_extract_refuses_a_changed_blob_a_missing_mirror_and_a_missing_frame(
    mirror, tmp_path, capsys
):
    git_dir, commit, work = mirror
    still = cv2.imread(str(work / "still.png"))
    bad_digest = dict(
        _entry("digest", commit, "still.png", None, work, still), source_sha256="0" * 64
    )
    other_repo = dict(_entry("norepo", commit, "still.png", None, work, still), repo="nobody/else")
    past_end = dict(_entry("late", commit, "clip.avi", None, work, still), frame_index=99)
    (tmp_path / "m.json").write_text(json.dumps({"frames": [bad_digest, other_repo, past_end]}))
    code = devset_extract.main(
        ["--manifest", str(tmp_path / "m.json"), "--out", str(tmp_path / "out"), str(git_dir)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "digest differs" in err and "no mirror given for nobody/else" in err
    assert "has no frame 99" in err
    assert not any((tmp_path / "out").iterdir())

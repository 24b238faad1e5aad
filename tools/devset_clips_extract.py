"""Rebuild the real moving-camera clips of bench/devset_clips from fetched git mirrors (no network).

Each clip of the manifest (bench/devset_clips/manifest.json) names ``repo`` (owner/name),
``commit`` and ``path`` of a video in a public repository; the video is written unchanged (its
git blob bytes, checked against ``source_sha256``) as ``OUT/<file>``. Clips use the whole video
(frames are counted by decoding sequentially with OpenCV; ``frame_count`` is checked).
A clip stored as a folder of numbered images (``path`` a folder, ``frame_files`` a pattern such
as ``"*.jpg"``: its files in name order are frames 0, 1, ...; ``source_sha256`` is of their
bytes concatenated in that order) is written as a lossless FFV1 video at the nominal ``fps``,
checked to decode to exactly the pixels OpenCV decodes from each image:

    python tools/devset_clips_extract.py --manifest bench/devset_clips/manifest.json \
        --out /work/devset_clips /work/.mirror/*/repo

Exit code 0 when every clip was written, 2 otherwise (one line per problem on stderr).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from devset_extract import checked_blob, mirror_for, read_blob  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from courtstudio.synth.synthetic_clip import write_video  # noqa: E402


def count_frames(path: Path) -> tuple[int, tuple[int, int]]:
    """(frames decodable in order, (w, h)) of a video file."""
    cap = cv2.VideoCapture(str(path))
    n, size = 0, (0, 0)
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            size = (frame.shape[1], frame.shape[0])
            n += 1
    finally:
        cap.release()
    return n, size


def folder_frames(entry: dict, git_dirs: list[Path]) -> list[bytes]:
    """The image files of a frame-folder clip (``commit:path/<frame_files>``), in name order,
    checked against ``source_sha256`` (of their bytes concatenated). Raises ValueError."""
    git_dir = mirror_for(entry["repo"], git_dirs)
    if git_dir is None:
        raise ValueError(f"{entry['id']}: no mirror given for {entry['repo']}")
    if (Path(git_dir) / ".git").is_dir():
        git_dir = Path(git_dir) / ".git"
    listing = subprocess.run(
        [
            "git",
            f"--git-dir={git_dir}",
            "ls-tree",
            "--name-only",
            f"{entry['commit']}:{entry['path']}",
        ],
        capture_output=True,
        text=True,
    )
    names = sorted(
        n for n in listing.stdout.splitlines() if fnmatch.fnmatch(n, entry["frame_files"])
    )
    if listing.returncode or not names:
        raise ValueError(
            f"{entry['id']}: no {entry['frame_files']} in {entry['commit'][:10]}:{entry['path']}"
        )
    blobs = [read_blob(git_dir, entry["commit"], f"{entry['path']}/{n}") for n in names]
    if hashlib.sha256(b"".join(blobs)).hexdigest() != entry["source_sha256"]:
        raise ValueError(f"{entry['id']}: source frames' digest differs from the manifest")
    return blobs


def write_lossless(blobs: list[bytes], target: Path, fps: float, clip_id: str) -> None:
    """Decode each image and write them in order as an FFV1 video; raises ValueError unless the
    video decodes back to exactly those pixels (an OpenCV build without a lossless FFV1 writer)."""
    images = [cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR) for b in blobs]
    if any(im is None or im.shape != images[0].shape for im in images):
        raise ValueError(f"{clip_id}: a frame does not decode as an image of the first's size")
    try:
        write_video(target, images, fps, fourcc="FFV1")
    except ValueError as exc:
        raise ValueError(f"{clip_id}: {exc}") from None
    cap = cv2.VideoCapture(str(target))
    try:
        for k, im in enumerate(images):
            ok, frame = cap.read()
            if not ok or frame.shape != im.shape or not np.array_equal(frame, im):
                raise ValueError(f"{clip_id}: frame {k} of {target} is not lossless")
    finally:
        cap.release()


def extract_clip(entry: dict, git_dirs: list[Path], out_dir: Path) -> Path:
    """Write one manifest clip into out_dir; raises ValueError with a one-line reason."""
    target = out_dir / entry["file"]
    if "frame_files" in entry:
        write_lossless(folder_frames(entry, git_dirs), target, entry["fps"], entry["id"])
    else:
        target.write_bytes(checked_blob(entry, git_dirs, require_digest=True))
    n, size = count_frames(target)
    if n != entry["frame_count"] or list(size) != list(entry["image_size"]):
        raise ValueError(
            f"{entry['id']}: decoded {n} frames of {size[0]}x{size[1]}, the "
            f"manifest says {entry['frame_count']} of {entry['image_size']}"
        )
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path, help="folder for the clips")
    parser.add_argument("git_dirs", nargs="+", type=Path, help="fetched mirror git dirs")
    args = parser.parse_args(argv)
    try:
        clips = json.loads(args.manifest.read_text())["clips"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"devset_clips_extract: cannot read manifest {args.manifest}: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for entry in clips:
        try:
            print(f"wrote {extract_clip(entry, args.git_dirs, args.out)}")
        except (ValueError, KeyError, TypeError) as exc:
            failures += 1
            print(f"devset_clips_extract: {exc}", file=sys.stderr)
    print(f"{len(clips) - failures} of {len(clips)} clips written to {args.out}")
    return 2 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

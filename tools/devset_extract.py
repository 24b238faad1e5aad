"""Rebuild the real-frames dev set's images from fetched git mirrors (no network).

The dev set (see bench/devset/SOURCES.md) is a list of still frames taken from public GitHub
repositories; the footage itself is never committed here. Given the mirror git directories that
the `fetch` tool brings (``/work/.mirror/<owner>+<name>/repo``), this script re-extracts exactly
the frames of a manifest:

    python tools/devset_extract.py --manifest /work/devset/manifest.json \
        --out /work/devset/frames /work/.mirror/*/repo

Each manifest frame names ``repo`` (owner/name), ``commit``, ``path`` and, for videos,
``frame_index`` (0-based, counted by decoding the video sequentially with OpenCV). Images are
written as stored (their bytes); video frames as lossless PNG. ``source_sha256`` (of the blob) is
checked; ``frame_sha256`` (of the decoded BGR pixels, shape-prefixed) is checked too but a
mismatch only warns, because another FFmpeg build may decode a lossy video slightly differently.
Exit code 0 when every frame was written, 2 otherwise (one line per problem on stderr).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np


def pixels_sha256(image_bgr: np.ndarray) -> str:
    """SHA-256 of an image's pixels, prefixed by its shape so equal bytes of other shapes differ.

    image_bgr: (H, W, 3) uint8, OpenCV channel order.
    """
    digest = hashlib.sha256(repr(tuple(image_bgr.shape)).encode())
    digest.update(np.ascontiguousarray(image_bgr).tobytes())
    return digest.hexdigest()


def mirror_for(repo: str, git_dirs: list[Path]) -> Path | None:
    """The mirror git dir of ``owner/name``: a path containing ``owner+name`` (the fetch layout)."""
    key = repo.replace("/", "+").lower()
    for git_dir in git_dirs:
        if key in str(git_dir).lower():
            return git_dir
    return None


def read_blob(git_dir: Path, commit: str, path: str) -> bytes:
    """Bytes of ``commit:path`` in a bare git dir, or in a checkout's ``.git`` when given the
    checkout (some mirrors are fetched with a work tree); raises CalledProcessError when absent."""
    if (Path(git_dir) / ".git").is_dir():
        git_dir = Path(git_dir) / ".git"
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout


def decode_video_frame(video_bytes: bytes, frame_index: int, suffix: str) -> np.ndarray | None:
    """Frame ``frame_index`` (0-based) of a video, decoded sequentially (no seeking)."""
    with tempfile.TemporaryDirectory() as tmp:
        video_path = os.path.join(tmp, "clip" + suffix)
        with open(video_path, "wb") as f:
            f.write(video_bytes)
        capture = cv2.VideoCapture(video_path)
        try:
            frame = None
            for _ in range(frame_index + 1):
                ok, frame = capture.read()
                if not ok:
                    return None
            return frame
        finally:
            capture.release()


def checked_blob(entry: dict, git_dirs: list[Path], require_digest: bool) -> bytes:
    """The bytes of a manifest entry's ``commit:path`` from its repository's mirror, checked
    against the entry's ``source_sha256`` (when it has one, or always with require_digest).
    Raises ValueError with a one-line reason."""
    git_dir = mirror_for(entry["repo"], git_dirs)
    if git_dir is None:
        raise ValueError(f"{entry['id']}: no mirror given for {entry['repo']}")
    try:
        blob = read_blob(git_dir, entry["commit"], entry["path"])
    except subprocess.CalledProcessError as err:
        raise ValueError(
            f"{entry['id']}: {entry['commit'][:10]}:{entry['path']} is not in {git_dir}"
        ) from err
    digest = entry.get("source_sha256")
    if (require_digest or digest) and hashlib.sha256(blob).hexdigest() != digest:
        raise ValueError(f"{entry['id']}: source blob digest differs from the manifest")
    return blob


def extract_frame(entry: dict, git_dirs: list[Path], out_dir: Path) -> tuple[Path, list[str]]:
    """Write one manifest frame into ``out_dir``; returns its path and warnings.

    Raises ValueError with a one-line reason when the frame cannot be produced.
    """
    blob = checked_blob(entry, git_dirs, require_digest=False)
    warnings = []
    target = out_dir / entry["file"]
    if entry.get("frame_index") is None:
        image = cv2.imdecode(np.frombuffer(blob, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{entry['id']}: {entry['path']} does not decode as an image")
        target.write_bytes(blob)
    else:
        image = decode_video_frame(blob, int(entry["frame_index"]), Path(entry["path"]).suffix)
        if image is None:
            raise ValueError(f"{entry['id']}: {entry['path']} has no frame {entry['frame_index']}")
        if not cv2.imwrite(str(target), image):
            raise ValueError(f"{entry['id']}: cannot write {target}")
    if list(image.shape[1::-1]) != list(entry["image_size"]):
        raise ValueError(
            f"{entry['id']}: decoded size {image.shape[1::-1]} != {entry['image_size']}"
        )
    if entry.get("frame_sha256") and pixels_sha256(image) != entry["frame_sha256"]:
        warnings.append(
            f"{entry['id']}: decoded pixels differ from the manifest's (another decoder?)"
        )
    return target, warnings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path, help="folder for the frames")
    parser.add_argument("git_dirs", nargs="+", type=Path, help="fetched mirror git dirs")
    args = parser.parse_args(argv)
    try:
        manifest = json.loads(args.manifest.read_text())
        frames = manifest["frames"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"devset_extract: cannot read manifest {args.manifest}: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for entry in frames:
        try:
            target, warnings = extract_frame(entry, args.git_dirs, args.out)
        except (ValueError, KeyError, TypeError) as exc:
            failures += 1
            print(f"devset_extract: {exc}", file=sys.stderr)
            continue
        for warning in warnings:
            print(f"devset_extract: warning: {warning}", file=sys.stderr)
        print(f"wrote {target}")
    print(f"{len(frames) - failures} of {len(frames)} frames written to {args.out}")
    return 2 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

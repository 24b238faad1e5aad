"""Rebuild the real moving-camera clips of bench/devset_clips from fetched git mirrors (no network).

Each clip of the manifest (bench/devset_clips/manifest.json) names ``repo`` (owner/name),
``commit`` and ``path`` of a video in a public repository; the video is written unchanged (its
git blob bytes, checked against ``source_sha256``) as ``OUT/<file>``. Clips use the whole video
(frames are counted by decoding sequentially with OpenCV; ``frame_count`` is checked):

    python tools/devset_clips_extract.py --manifest bench/devset_clips/manifest.json \
        --out /work/devset_clips /work/.mirror/*/repo

Exit code 0 when every clip was written, 2 otherwise (one line per problem on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from devset_extract import checked_blob  # noqa: E402


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


def extract_clip(entry: dict, git_dirs: list[Path], out_dir: Path) -> Path:
    """Write one manifest clip into out_dir; raises ValueError with a one-line reason."""
    blob = checked_blob(entry, git_dirs, require_digest=True)
    target = out_dir / entry["file"]
    target.write_bytes(blob)
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

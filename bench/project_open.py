"""How long opening a large project takes (issue 9 §2: project and annotation files checked
against JSON schemas must not slow an open down).

Two projects, written fresh into a temporary folder: 10,000 image frames of which every tenth
has the sample's tennis annotation (1,000 annotation files, as in bench/gui_latency.py), and a
20,000-frame video project. Prints the median of 5 opens (``load_project``: the project file,
every annotation file, every path) and of 200 parses of one annotation record. No randomness.

Run: ``PYTHONPATH=. python bench/project_open.py``. To compare with another tree, run it
there with the same command (the script only uses load_project and parse_annotation).
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from courtstudio.io.package_data import sample_project_dir  # noqa: E402
from courtstudio.io.project import load_project, parse_annotation  # noqa: E402


def image_project(root: Path, n: int, annotated_every: int) -> Path:
    shutil.copytree(sample_project_dir(), root, ignore=shutil.ignore_patterns(".courtstudio"))
    shutil.rmtree(root / "annotations")
    (root / "annotations").mkdir()
    data = json.loads((root / "courtstudio_project.json").read_text())
    data["frames"] = [{"id": f"f{i:05d}", "image": "frames/tennis_0001.jpg"} for i in range(n)]
    (root / "courtstudio_project.json").write_text(json.dumps(data))
    ann = sample_annotation()
    for i in range(0, n, annotated_every):
        ann["frame_id"] = f"f{i:05d}"
        (root / "annotations" / f"f{i:05d}.json").write_text(json.dumps(ann))
    return root


def video_project(root: Path, n: int) -> Path:
    root.mkdir()
    (root / "clip.mp4").write_bytes(b"not decoded by an open")
    (root / "courtstudio_project.json").write_text(
        json.dumps(
            {
                "format": "courtstudio.project",
                "format_version": 1,
                "name": "video",
                "sport": "tennis",
                "frames": [{"id": f"f{i:06d}", "video": "clip.mp4", "index": i} for i in range(n)],
            }
        )
    )
    return root


def sample_annotation() -> dict:
    return json.loads((sample_project_dir() / "annotations" / "tennis_0001.json").read_text())


def median_s(fn, repeats: int) -> float:
    fn()  # warm: compiled schemas, imports
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        images = image_project(tmp / "images", 10_000, 10)
        video = video_project(tmp / "video", 20_000)
        ann = sample_annotation()
        rows = [
            (
                "open: 10,000 image frames, 1,000 annotation files",
                median_s(lambda: load_project(images), 5),
            ),
            ("open: 20,000 video frames", median_s(lambda: load_project(video), 5)),
            (
                "parse one annotation record (6 points, 2 players)",
                median_s(lambda: parse_annotation(ann, "a.json", "tennis_0001"), 200),
            ),
        ]
    print("| project open | median |\n|---|---|")
    for name, s in rows:
        print(f"| {name} | {s * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()

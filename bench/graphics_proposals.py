"""The app's Detect graphics (Masks tool) on synthetic broadcast clips (issue 11 §1).

Clips: courtstudio.synth.synthetic_clip with screen-fixed graphics (clock, score bug, channel logo,
ticker; Hazards(graphics=True)) over a pan/tilt/zoom tennis camera, written as MJPG videos
and opened as video projects, exactly what the app's Masks > Detect graphics reads (frames
decoded through the project's FrameStore). Per clip:

- seconds and ms per frame of courtstudio.pipeline.graphics_proposals.detect_graphics
  (decode included);
- coverage: the fraction of each true graphic's box inside the proposals (1.0 = all masked);
- over-masking: the proposals' area outside every true graphic's box, as a fraction of the
  frame (court the proposals would hide from registration);
- the proposals, as boxes.

Run: ``python bench/graphics_proposals.py`` (fixed seeds; about a minute).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from courtstudio.io.project_new import new_project_from_video  # noqa: E402
from courtstudio.pipeline.graphics_proposals import detect_graphics  # noqa: E402
from courtstudio.pipeline.propagate_sources import ProjectFrames  # noqa: E402
from courtstudio.synth.synthetic_clip import Hazards, graphics_boxes, iter_clip, write_clip  # noqa: E402

CLIPS = [  # (sport, frames, size, seed, surface)
    ("tennis", 300, (1280, 720), 7, "grass"),
    ("tennis", 300, (1280, 720), 8, "clay"),
    ("badminton", 150, (1920, 1080), 9, "hard"),
]


def _raster(size, boxes) -> np.ndarray:
    w, h = size
    m = np.zeros((h, w), bool)
    for x0, y0, x1, y1 in boxes:
        m[max(0, int(y0)) : int(np.ceil(y1)), max(0, int(x0)) : int(np.ceil(x1))] = True
    return m


def run_clip(tmp: Path, sport, n, size, seed, surface) -> dict:
    name = f"{sport}_{size[1]}p_{surface}_{seed}"
    write_clip(
        tmp / f"{name}.avi",
        iter_clip(
            load_spec(sport), n, size, seed=seed, hazards=Hazards(graphics=True, surface=surface)
        ),
    )
    project = new_project_from_video(tmp / name, tmp / f"{name}.avi", sport)
    t = time.perf_counter()
    res = detect_graphics(ProjectFrames(project))
    dt = time.perf_counter() - t
    truth = graphics_boxes(size)
    proposed = _raster(size, res.boxes)
    cover = [float(proposed[_raster(size, [b])].mean()) for b in truth]
    over = float((proposed & ~_raster(size, truth)).mean())
    return {
        "clip": name,
        "frames": res.frames_read,
        "seconds": dt,
        "ms_per_frame": 1000 * dt / max(1, res.frames_read),
        "coverage": cover,
        "over_masking": over,
        "boxes": res.boxes,
        "message": res.message,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        rows = [run_clip(Path(d), *c) for c in CLIPS]
    print(
        "| clip | frames | s | ms/frame | coverage of clock, score bug, logo, ticker | "
        "over-masking (frame fraction) | proposals |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['clip']} | {r['frames']} | {r['seconds']:.1f} | {r['ms_per_frame']:.1f} | "
            + ", ".join(f"{c:.2f}" for c in r["coverage"])
            + f" | {r['over_masking']:.3f} | {len(r['boxes'])} |"
        )


if __name__ == "__main__":
    main()

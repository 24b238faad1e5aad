"""GUI latency, offscreen (issue 3): click-to-overlay and frame stepping.

- click-to-overlay: move one keypoint by a small step the way a mouse drag does
  (AnnotationDocument.set_keypoint(drag=True)), which re-solves the camera and redraws every
  overlay and panel, then force a repaint of the canvas. Also the mouse release, which adds the
  calibration doctor. Target: median under 16 ms.
- frame step: a 1920x1080 video project (synthetic broadcast frames, MJPG), stepping to the
  next frame (decode, pixmap, overlays, panels, repaint), and seeking +-10 frames. Target:
  median under 50 ms.

Run: ``QT_QPA_PLATFORM=offscreen python bench/gui_latency.py``. Fixed seeds.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from annotation_ui.main_window import MainWindow  # noqa: E402
from court_specs import load_spec  # noqa: E402
from courtstudio.project_new import new_project_from_video  # noqa: E402
from courtstudio.reconstruct import SAMPLE_PROJECT  # noqa: E402
from courtstudio.synthetic import make_synthetic_frame  # noqa: E402


def stats(ts):
    ts = np.array(ts) * 1e3
    return f"{np.median(ts):.1f} | {np.percentile(ts, 90):.1f}"


def make_video(path: Path, frames: int = 120):
    spec = load_spec("tennis")
    fr = make_synthetic_frame(spec, np.random.default_rng(0))
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (1920, 1080))
    rng = np.random.default_rng(1)
    for i in range(frames):
        shift = np.roll(fr.image, i % 7, axis=1)
        wr.write(np.clip(shift.astype(int) + rng.integers(-3, 4), 0, 255).astype(np.uint8))
    wr.release()


def main():
    app = QApplication.instance() or QApplication([])
    tmp = Path(tempfile.mkdtemp())
    os.environ["COURTSTUDIO_HOME"] = str(tmp / "home")
    import shutil
    shutil.copytree(SAMPLE_PROJECT, tmp / "sample")
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1600, 960)
    win.show()
    app.processEvents()
    win.open_project(tmp / "sample", recover=False)
    doc = win.doc
    fid = doc.current_frame.id
    u0, v0 = doc.annotation(fid).points["near_left_corner"]
    drag, release = [], []
    win._dragging = True
    for i in range(200):
        t0 = time.perf_counter()
        doc.set_keypoint(fid, "near_left_corner", (u0 + 0.5 * np.sin(i / 5), v0 + 0.1 * i % 3),
                         drag=True)
        win.view.viewport().repaint()
        app.processEvents()
        drag.append(time.perf_counter() - t0)
    win._dragging = False
    for i in range(50):
        doc.set_keypoint(fid, "near_left_corner", (u0 + 0.3 * (i % 4), v0), drag=True)
        t0 = time.perf_counter()
        doc.end_drag()
        win.refresh()  # what releasing the mouse triggers: the doctor runs
        win.view.viewport().repaint()
        app.processEvents()
        release.append(time.perf_counter() - t0)
    win.close_project()

    video = tmp / "clip.avi"
    make_video(video)
    project = new_project_from_video(tmp / "video_project", video, "tennis")
    win.open_project(project.root, recover=False)
    step, seek = [], []
    for i in range(100):
        t0 = time.perf_counter()
        win.step(1)
        win.view.viewport().repaint()
        app.processEvents()
        step.append(time.perf_counter() - t0)
    rng = np.random.default_rng(2)
    for i in range(60):
        t0 = time.perf_counter()
        win.go_to(int(rng.integers(0, 110)))
        win.step(10)
        win.view.viewport().repaint()
        app.processEvents()
        seek.append(time.perf_counter() - t0)
    print("| operation | median ms | p90 ms | target |")
    print("|---|---|---|---|")
    print(f"| drag a keypoint: re-solve + redraw overlays and panels + repaint | {stats(drag)} "
          "| < 16 ms median |")
    print(f"| release the drag: + calibration doctor | {stats(release)} | - |")
    print(f"| next frame, 1920x1080 MJPG video (decode, overlays, repaint) | {stats(step)} | "
          "< 50 ms median |")
    print(f"| seek: jump to a random frame, then +10 | {stats(seek)} | - |")
    win.close_project()


if __name__ == "__main__":
    main()

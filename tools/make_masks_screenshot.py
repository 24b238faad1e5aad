"""Regenerate docs/app_masks.png (offscreen): the Masks tool on a synthetic broadcast clip.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/make_masks_screenshot.py``. Builds a
60-frame 1280x720 tennis pan/tilt/zoom clip with screen-fixed graphics (seed 5) as a video
project in a temporary folder, runs Masks > Detect graphics, accepts two proposals and
selects one, so the picture shows masks (hatched), proposals (dashed) and the resize handles.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402

from annotation_ui.main_window import MainWindow  # noqa: E402
from court_specs import load_spec  # noqa: E402
from courtstudio.io.project_new import new_project_from_video  # noqa: E402
from courtstudio.synth.synthetic_clip import Hazards, iter_clip, write_clip  # noqa: E402


def broadcast_window() -> tuple[QApplication, MainWindow, list]:
    """(app, window, the clip's true cameras): the window (1600x940) open on a video project
    in a temporary folder, a 60-frame 1280x720 tennis pan/tilt/zoom clip with screen-fixed
    graphics (seed 5), in the Masks tool after Detect graphics."""
    tmp = Path(tempfile.mkdtemp())
    os.environ["COURTSTUDIO_HOME"] = str(tmp / "home")
    clip = iter_clip(load_spec("tennis"), 60, (1280, 720), seed=5, hazards=Hazards(graphics=True))
    cams, _ = write_clip(tmp / "clip.avi", clip)
    project = new_project_from_video(tmp / "broadcast", tmp / "clip.avi", "tennis")
    app = QApplication.instance() or QApplication([])
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1600, 940)
    win.show()
    win.open_project(project.root, recover=False)
    win.set_tool("masks")
    print(f"detect graphics: {win.masks_tool.detect_graphics()} proposed")
    return app, win, cams


def main(out: Path = ROOT / "docs" / "app_masks.png") -> None:
    app, win, _ = broadcast_window()
    for _ in range(2):
        win.tools.set_mask(("proposal", 0))
        win.masks_tool.accept_selected()
    win.tools.set_mask(("mask", 1))
    app.processEvents()
    win.refresh()
    app.processEvents()
    win.grab().save(str(out))
    print(f"wrote {out}")
    win.doc.save()
    win.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "app_masks.png")

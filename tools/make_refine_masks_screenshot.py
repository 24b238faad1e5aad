"""Regenerate docs/app_refine_masks.png (offscreen): Refine on lines under the project's masks.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/make_refine_masks_screenshot.py``.
Builds a 60-frame 1280x720 tennis clip with screen-fixed graphics (seed 5) as a video project
in a temporary folder, accepts the Masks tool's four graphics proposals, clicks the paper's six
keypoints on frame 0 (their true positions, 1 px noise) and presses Refine on lines: the Court
panel says how many masks no line was looked for under.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from annotation_ui.main_window import MainWindow  # noqa: E402
from court_specs import load_spec  # noqa: E402
from court_specs.model import PAPER_SIX  # noqa: E402
from courtstudio.io.project_new import new_project_from_video  # noqa: E402
from courtstudio.synth.synthetic_clip import Hazards, iter_clip, write_clip  # noqa: E402


def main(out: Path = ROOT / "docs" / "app_refine_masks.png") -> None:
    tmp = Path(tempfile.mkdtemp())
    os.environ["COURTSTUDIO_HOME"] = str(tmp / "home")
    spec = load_spec("tennis")
    clip = iter_clip(spec, 60, (1280, 720), seed=5, hazards=Hazards(graphics=True))
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
    while win.doc.masks.proposals:
        win.tools.set_mask(("proposal", 0))
        win.masks_tool.accept_selected()
    fid = win._fid
    rng = np.random.default_rng(0)
    for n in PAPER_SIX:
        uv = cams[0].project(spec.keypoints[n][None])[0] + rng.normal(0, 1.0, 2)
        win.doc.set_keypoint(fid, n, (float(uv[0]), float(uv[1])))
    win.set_tool("court")
    app.processEvents()
    win.refine_on_lines()
    app.processEvents()
    win.refresh()
    app.processEvents()
    print(win.court_panel.refine_result.text())
    win.grab().save(str(out))
    print(f"wrote {out}")
    win.doc.save()
    win.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "app_refine_masks.png")

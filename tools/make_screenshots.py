"""Regenerate the app screenshots in docs/ (offscreen): one per panel, plus the 3D view.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/make_screenshots.py``. Works on a
temporary copy of the sample project; two player boxes are drawn on the tennis frame, one with
the test suite's stand-in mesh (depth off by 1.4x, as HMR returns it) corrected to a height of
0, so the Players panel has something to show.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402

from annotation_ui.main_window import MainWindow  # noqa: E402
from courtstudio.reconstruct import SAMPLE_PROJECT  # noqa: E402


def main():
    tmp = Path(tempfile.mkdtemp())
    os.environ["COURTSTUDIO_HOME"] = str(tmp / "home")
    shutil.copytree(SAMPLE_PROJECT, tmp / "sample")
    app = QApplication.instance() or QApplication([])
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1600, 940)
    win.show()
    win.open_project(tmp / "sample", recover=False)
    fid = win.doc.current_frame.id
    from tests.stand_ins import stand_in_player
    cam = win.doc.camera_state(fid).camera
    mesh, Vw, _ = stand_in_player(cam, (19.5, 7.6), depth_scale=1.4)
    uv = cam.project(Vw)
    win.doc.set_player_box(fid, 1, (uv[:, 0].min() - 4, uv[:, 1].min() - 4,
                                    uv[:, 0].max() + 4, uv[:, 1].max() + 4))
    win.doc.set_player_mesh(fid, 1, mesh)
    win.doc.set_player_height(fid, 1, 0.0)
    win.doc.set_player_box(fid, 2, (905, 300, 935, 370))
    shots = [("court", 1, "topdown"), ("ball", 2, "3d"), ("players", 0, "3d")]
    for panel, frame, view in shots:
        win.go_to(frame)
        win.set_tool(panel)
        win.result_tabs.setCurrentIndex(0 if view == "topdown" else 1)
        win.tools.set_player(1 if panel == "players" else None)
        app.processEvents()
        win.refresh()
        app.processEvents()
        out = ROOT / "docs" / f"app_{panel}.png"
        win.grab().save(str(out))
        print(f"wrote {out}")
    win.close()


if __name__ == "__main__":
    main()

"""Regenerate the app screenshots in docs/ (offscreen): one per panel, plus the 3D view.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/make_screenshots.py``. Works on a
temporary copy of the sample project (whose players carry simulated PromptHMR meshes).
"""

from __future__ import annotations

import argparse
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
from courtstudio.export.reconstruct import SAMPLE_PROJECT  # noqa: E402


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
    shots = [("court", 1, "topdown"), ("ball", 3, "3d"), ("players", 2, "3d")]
    for panel, frame, view in shots:
        win.go_to(frame)
        win.set_tool(panel)
        win.result_tabs.setCurrentIndex(0 if view == "topdown" else 1)
        win.tools.set_player(1 if panel == "players" else None)
        app.processEvents()
        win.finish_deferred()  # the doctor, ball 1-sigma and silhouettes of the frame shown
        win.refresh()
        app.processEvents()
        out = ROOT / "docs" / f"app_{panel}.png"
        win.grab().save(str(out))
        print(f"wrote {out}")
    win.close()


if __name__ == "__main__":
    # no options: --help prints what the script writes, instead of writing it
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()

"""Starting the app: ``courtstudio gui [PROJECT | --sample] [--screenshot FILE.png]``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PANELS = {"court": 0, "ball": 1, "players": 2}
VIEWS = {"topdown": 0, "3d": 1}


def run(project: str | None = None, sample: bool = False, screenshot: str | None = None,
        panel: str = "court", view: str = "topdown", frame: int = 0,
        size: tuple[int, int] = (1600, 960), recover: bool | None = None) -> int:
    """Open the window; with ``screenshot``, render it offscreen to a PNG and exit."""
    if screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if (sys.platform.startswith("linux") and not screenshot
            and "QT_QPA_PLATFORM" not in os.environ
            and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))):
        print("courtstudio: error: no display to open the app on (DISPLAY and WAYLAND_DISPLAY "
              "are unset). Headless: `courtstudio gui --sample --screenshot app.png` renders "
              "the window to a PNG, `courtstudio reconstruct --sample -o out/sample` runs the "
              "reconstruction", file=sys.stderr)
        return 2
    from PySide6.QtWidgets import QApplication

    from annotation_ui.main_window import MainWindow
    from courtstudio.sample import sample_project_copy

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("CourtStudio")
    win = MainWindow()
    win.resize(*size)
    path = sample_project_copy() if sample else project
    if screenshot and recover is None:
        recover = False  # never block on a question when rendering headless
    if path is not None and not win.open_project(path, recover=recover):
        return 2
    win.tabs.setCurrentIndex(PANELS[panel])
    win.result_tabs.setCurrentIndex(VIEWS[view])
    if win.doc is not None:
        win.go_to(frame)
    win.show()
    if screenshot:
        app.processEvents()
        win.refresh()
        app.processEvents()
        ok = win.grab().save(str(Path(screenshot)))
        win.ask = lambda *a: "Discard"  # a screenshot run changes nothing; never ask
        win.close()
        return 0 if ok else 2
    return app.exec()

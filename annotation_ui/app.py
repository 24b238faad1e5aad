"""Starting the app: ``courtstudio gui [PROJECT | --sample] [--screenshot FILE.png]``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

VIEWS = {"topdown": 0, "3d": 1}
HEADLESS_PLATFORMS = ("offscreen", "minimal")


class HeadlessQuestion(Exception):
    """The app would ask a question (or report an error in a dialog) with no one to see it."""


def _no_questions(title: str, text: str, buttons: list[str]) -> str:
    raise HeadlessQuestion(f"{title}: {' '.join(text.split())}")


def run(
    project: str | None = None,
    sample: bool = False,
    screenshot: str | None = None,
    panel: str = "court",
    view: str = "topdown",
    frame: int = 0,
    size: tuple[int, int] = (1600, 960),
    recover: bool | None = None,
) -> int:
    """Open the window; with ``screenshot``, render it offscreen to a PNG and exit."""
    if screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0]
    if (
        sys.platform.startswith("linux")
        and not screenshot
        and platform in ("", "xcb", "wayland")  # the ones that need a display server
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        print(
            "courtstudio: error: no display to open the app on (DISPLAY and WAYLAND_DISPLAY "
            "are unset). Headless: `courtstudio gui --sample --screenshot app.png` renders "
            "the window to a PNG, `courtstudio reconstruct --sample -o out/sample` runs the "
            "reconstruction",
            file=sys.stderr,
        )
        return 2
    from PySide6.QtWidgets import QApplication

    from annotation_ui.main_window import MainWindow
    from annotation_ui.panels import panel_index
    from courtstudio.export.sample import sample_project_copy

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("CourtStudio")
    win = MainWindow()
    win.resize(*size)
    if screenshot:
        win.view_only = True  # a screenshot changes no file: no lock, no journal, no question
    if screenshot or app.platformName() in HEADLESS_PLATFORMS:
        win.ask = _no_questions  # nobody could answer a modal dialog
    path = sample_project_copy() if sample else project
    try:
        if path is not None and not win.open_project(path, recover=recover):
            return 2
    except HeadlessQuestion as q:
        if win.project_lock is not None:
            win.project_lock.release()
        print(f"courtstudio: error: {q}", file=sys.stderr)
        return 2
    win.tabs.setCurrentIndex(panel_index(panel))
    win.result_tabs.setCurrentIndex(VIEWS[view])
    if win.doc is not None:
        win.go_to(frame)
    win.show()
    if screenshot:
        app.processEvents()
        win.finish_deferred()  # the doctor, ball 1-sigma and silhouettes of the frame shown
        win.refresh()
        app.processEvents()
        ok = win.grab().save(str(Path(screenshot)))
        win.close()
        return 0 if ok else 2
    return app.exec()

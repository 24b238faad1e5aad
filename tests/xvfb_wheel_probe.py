"""Run by tests/test_gui_xvfb.py on a real X server (Xvfb): for each pointer position, open the
project in a fresh main window, move the real pointer over a frame pixel with xdotool, turn the
wheel NOTCHES times there (xdotool button 4 = wheel up), and print one JSON line
{"before": [u, v], "after": [u, v], "scale_before": s, "scale_after": s, "platform": ...}: the
image pixel under the pointer before and after, read from the pointer's global position.

    DISPLAY=:99 QT_QPA_PLATFORM=xcb python tests/xvfb_wheel_probe.py NOTCHES PROJECT FX FY \
        [PROJECT FX FY ...]

FX, FY: the pointer's position as fractions of the canvas width and height. Every step waits
for its event (window exposed, pointer motion seen by the canvas, every notch applied) rather
than for a fixed time; a step that never happens ends the probe with exit code 2.
"""

import json
import subprocess
import sys
import time

from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication

from annotation_ui.coords import scene_to_uv
from annotation_ui.main_window import MainWindow

STEP_TIMEOUT_S = 20.0
SETTLE_S = 0.3  # after the last expected notch: time for a stray extra one to show up


class _MotionSeen(QObject):
    """Remembers the last pointer motion the canvas received (viewport pixels)."""

    def __init__(self):
        super().__init__()
        self.at: QPoint | None = None

    def eventFilter(self, obj, event):
        if event.type() in (QEvent.Type.MouseMove, QEvent.Type.HoverMove, QEvent.Type.Enter):
            pos = getattr(event, "position", None)
            if pos is not None:
                self.at = pos().toPoint()
        return False


def _wait_until(app: QApplication, condition, timeout_s: float = STEP_TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def _probe(app: QApplication, project: str, fx: float, fy: float, notches: int) -> dict | None:
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1400, 860)
    win.move(0, 0)
    win.show()
    try:
        if not win.open_project(project, recover=False):
            return None
        handle = win.windowHandle()
        if not _wait_until(app, lambda: handle is not None and handle.isExposed()):
            return None
        view = win.view
        vp = view.viewport()
        seen = _MotionSeen()
        vp.installEventFilter(seen)

        def uv_at_pointer():
            p = vp.mapFromGlobal(QCursor.pos())
            return list(scene_to_uv(view.mapToScene(p)))

        local = QPoint(int(fx * vp.width()), int(fy * vp.height()))
        g = vp.mapToGlobal(local)
        subprocess.run(["xdotool", "mousemove", "--sync", str(g.x()), str(g.y())], check=True)
        if not _wait_until(
            app, lambda: QCursor.pos() == g and seen.at is not None and seen.at == local
        ):
            return None
        out = {"before": uv_at_pointer(), "scale_before": view.transform().m11()}
        button = "4" if notches > 0 else "5"
        subprocess.run(
            ["xdotool", "click", "--repeat", str(abs(notches)), "--delay", "80", button], check=True
        )
        target = out["scale_before"] * 1.25**notches
        _wait_until(app, lambda: abs(view.transform().m11() / target - 1) < 1e-9)
        _wait_until(app, lambda: False, SETTLE_S)  # a notch too many would show up here
        out["after"] = uv_at_pointer()
        out["scale_after"] = view.transform().m11()
        out["platform"] = app.platformName()
        return out
    finally:
        win.close()
        app.processEvents()


def main() -> int:
    notches, rest = int(sys.argv[1]), sys.argv[2:]
    app = QApplication(sys.argv[:1])
    for i in range(0, len(rest), 3):
        project, fx, fy = rest[i], float(rest[i + 1]), float(rest[i + 2])
        out = _probe(app, project, fx, fy, notches)
        if out is None:
            return 2
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

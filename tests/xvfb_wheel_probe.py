"""Run by tests/test_gui_xvfb.py on a real X server (Xvfb): open the sample project, move the
real pointer over a frame pixel with xdotool, turn the wheel NOTCHES times there (xdotool
button 4 = wheel up), and print JSON {"before": [u, v], "after": [u, v], "zoom": ...}: the
image pixel under the pointer before and after, read from the pointer's global position.

    DISPLAY=:99 QT_QPA_PLATFORM=xcb python tests/xvfb_wheel_probe.py PROJECT FX FY NOTCHES

FX, FY: the pointer's position as fractions of the canvas width and height.
"""

import json
import subprocess
import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QApplication

from annotation_ui.coords import scene_to_uv
from annotation_ui.main_window import MainWindow


def main() -> int:
    project, fx, fy, notches = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    app = QApplication(sys.argv[:1])
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1400, 860)
    win.move(0, 0)
    win.show()
    if not win.open_project(project, recover=False):
        return 2
    view = win.view
    out = {}

    def uv_at_pointer():
        p = view.viewport().mapFromGlobal(QCursor.pos())
        return list(scene_to_uv(view.mapToScene(p)))

    def point():
        vp = view.viewport()
        g = vp.mapToGlobal(vp.rect().topLeft())
        x, y = g.x() + int(fx * vp.width()), g.y() + int(fy * vp.height())
        subprocess.run(["xdotool", "mousemove", "--sync", str(x), str(y)], check=True)
        QTimer.singleShot(500, turn)

    def turn():
        out["before"] = uv_at_pointer()
        out["scale_before"] = view.transform().m11()
        button = "4" if notches > 0 else "5"
        subprocess.run(
            ["xdotool", "click", "--repeat", str(abs(notches)), "--delay", "80", button], check=True
        )
        QTimer.singleShot(1500, done)

    def done():
        out["after"] = uv_at_pointer()
        out["scale_after"] = view.transform().m11()
        out["platform"] = app.platformName()
        print(json.dumps(out), flush=True)
        win.close()
        app.quit()

    QTimer.singleShot(800, point)
    app.exec()
    return 0 if "after" in out else 2


if __name__ == "__main__":
    sys.exit(main())

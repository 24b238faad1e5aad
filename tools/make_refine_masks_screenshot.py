"""Regenerate docs/app_refine_masks.png (offscreen): Refine on lines under the project's masks.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/make_refine_masks_screenshot.py``.
Builds a 60-frame 1280x720 tennis clip with screen-fixed graphics (seed 5) as a video project
in a temporary folder, accepts the Masks tool's four graphics proposals, clicks the paper's six
keypoints on frame 0 (their true positions, 1 px noise) and presses Refine on lines: the Court
panel says how many masks no line was looked for under.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# tools/ is on the path when this runs as a script; importing it puts the repository there
# too (and the offscreen platform), before the project's modules below
from make_masks_screenshot import ROOT, broadcast_window

from court_specs import load_spec
from court_specs.model import PAPER_SIX


def main(out: Path = ROOT / "docs" / "app_refine_masks.png") -> None:
    app, win, cams = broadcast_window()
    spec = load_spec("tennis")
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

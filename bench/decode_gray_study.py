"""What a gray (Y-plane) decode would give the propagation pass, per video (issue 11 §5).

    PYTHONPATH=$PWD python bench/decode_gray_study.py VIDEO [VIDEO ...] [--frames N]

For each video, every frame up to N is decoded twice: as BGR (what the pass reads today) and
with OpenCV's conversion off (`CAP_PROP_CONVERT_RGB` 0, the decoder's Y plane where it has
one). The study prints:
- the shape of the unconverted frame;
- its mean absolute difference from cv2's gray of the BGR frame, as it is and after the
  limited-range expansion (Y - 16) * 255 / 219;
- every consecutive pair that the cut test calls a cut, or whose hue-saturation or
  luminance histogram change exceeds 0.3, with the three changes.

The cut test needs the colour that a gray decode drops (BENCHMARKS.md "Twentieth
session").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geometry.plane_motion import (  # noqa: E402
    CUT_HIST,
    CUT_LAYOUT,
    _hist_change,
    _layout_change,
    cut_features,
    prepare_frame,
)

LIMITED_RANGE = np.clip(np.round((np.arange(256) - 16) * 255.0 / 219.0), 0, 255).astype(np.uint8)


def gray_histogram(signature_bgr: np.ndarray) -> np.ndarray:
    """(64,) float32 normalised luminance histogram of the cut test's thumbnail."""
    g = cv2.cvtColor(signature_bgr, cv2.COLOR_BGR2GRAY)
    h = cv2.calcHist([g], [0], None, [64], [0, 256])
    return cv2.normalize(h, h).flatten()


def study(path: Path, frames: int) -> None:
    bgr_cap, raw_cap = cv2.VideoCapture(str(path)), cv2.VideoCapture(str(path))
    raw_cap.set(cv2.CAP_PROP_CONVERT_RGB, 0)
    as_is, expanded, shape, changes, events = [], [], None, [], []
    prev = None
    n = 0
    while n < frames:
        ok_bgr, bgr = bgr_cap.read()
        ok_raw, raw = raw_cap.read()
        if not (ok_bgr and ok_raw):
            break
        shape = raw.shape
        g = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        if raw.ndim == 2 and raw.shape == g.shape:
            as_is.append(np.abs(raw.astype(int) - g).mean())
            expanded.append(np.abs(LIMITED_RANGE[raw].astype(int) - g).mean())
        _, sig = prepare_frame(bgr)
        feats, lum = cut_features(sig), gray_histogram(sig)
        if prev is not None:
            hs = _hist_change(prev[0].hist, feats.hist)
            layout = _layout_change(prev[0].thumb, feats.thumb)
            luminance = _hist_change(prev[1], lum)
            cut = hs > CUT_HIST or layout > CUT_LAYOUT
            changes.append((hs, layout, luminance, cut))
            if cut or hs > 0.3 or luminance > 0.3:
                events.append((n, hs, layout, luminance, cut))
        prev = (feats, lum)
        n += 1
    bgr_cap.release()
    raw_cap.release()
    calm = [c for c in changes if not c[3]]

    def worst(k):
        return max((c[k] for c in calm), default=0.0)

    diff = (
        f"{np.mean(as_is):.2f} as is, {np.mean(expanded):.2f} limited-range expanded"
        if as_is
        else "no single-channel frame"
    )
    print(
        f"{path.name}: {n} frames, unconverted {shape}; from cv2 gray: {diff}; largest change "
        f"between frames that are not cuts: hue-saturation {worst(0):.2f}, layout "
        f"{worst(1):.2f}, luminance {worst(2):.2f}"
    )
    for i, hs, layout, luminance, cut in events:
        print(
            f"    frame {i}: hue-saturation {hs:.2f}, layout {layout:.2f}, luminance "
            f"{luminance:.2f}{', a cut' if cut else ''}"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("videos", type=Path, nargs="+")
    ap.add_argument("--frames", type=int, default=700, help="at most this many frames a video")
    args = ap.parse_args(argv)
    for v in args.videos:
        study(v, args.frames)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

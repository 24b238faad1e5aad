"""bench/decode_gray_study.py reads what a gray decode would give and finds the cuts that only
colour shows (BENCHMARKS.md "Twentieth session")."""

import cv2
import numpy as np

from bench.decode_gray_study import main


def test_the_study_names_a_cut_that_only_colour_shows(tmp_path, capsys):
    path = tmp_path / "c.avi"
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, (320, 180))
    rng = np.random.default_rng(0)
    base = (rng.random((180, 320)) * 120 + 60).astype(np.uint8)
    for i in range(12):
        img = np.dstack([base, base, base]).astype(np.int16)
        if i >= 6:  # the same layout and brightness, other colours
            img[..., 0] += 40
            img[..., 2] -= 40
        wr.write(np.clip(img, 0, 255).astype(np.uint8))
    wr.release()
    assert main([str(path), "--frames", "12"]) == 0
    out = capsys.readouterr().out
    assert "c.avi: 12 frames, unconverted (180, 320)" in out
    first = out.splitlines()[0]
    as_is = float(first.split("from cv2 gray: ")[1].split(" as is")[0])
    assert as_is < 2.0  # MJPG's Y plane is full-range gray
    events = [ln for ln in out.splitlines() if ln.startswith("    frame")]
    assert len(events) == 1 and events[0].startswith("    frame 6:") and "a cut" in events[0]
    hs = float(events[0].split("hue-saturation ")[1].split(",")[0])
    layout = float(events[0].split("layout ")[1].split(",")[0])
    assert hs > 0.5 and layout < 0.25

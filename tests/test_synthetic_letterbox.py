"""The synthetic letterbox hazard: a broadcast picture centred in a portrait canvas (phone
re-uploads), its camera moved to the canvas."""

from __future__ import annotations

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.synth.synthetic_clip import Hazards, letterboxed, make_clip

SPEC = load_spec("tennis")


def test_the_canvas_camera_projects_where_the_picture_camera_did_shifted_by_the_bars():
    plain = make_clip(SPEC, 2, (720, 406), seed=1)
    boxed = make_clip(SPEC, 2, (720, 406), seed=1, hazards=Hazards(letterbox=(720, 1280)))
    f, c, c0 = boxed.frames[0], boxed.cameras[0], plain.cameras[0]
    assert f.shape == (1280, 720, 3) and c.image_size == (720, 1280)
    np.testing.assert_array_equal(f[437 : 437 + 406], plain.frames[0])  # the picture, centred
    assert f[:437].max() > 200 and f[437 + 406 :].max() > 200  # the captions in the bars
    X = np.array([v for v in SPEC.keypoints.values() if abs(v[2]) < 1e-9])
    np.testing.assert_allclose(c.project(X), c0.project(X) + [0.0, 437.0], atol=1e-9)
    np.testing.assert_allclose(c.K[:2, 2], [359.5, 639.5])  # the canvas's centre


def test_a_picture_that_cannot_be_centred_is_refused():
    img = np.zeros((405, 720, 3), np.uint8)
    with pytest.raises(ValueError, match="cannot centre"):
        letterboxed(img, None, (720, 1280))  # 875 rows of bars: not even
    with pytest.raises(ValueError, match="cannot centre"):
        letterboxed(img, None, (640, 1280))  # narrower than the picture
    out, cam = letterboxed(np.zeros((406, 720, 3), np.uint8), None, (720, 1280))
    assert out.shape == (1280, 720, 3) and cam is None


def test_synth_clip_letterbox_writes_the_canvas_and_its_true_keypoints(tmp_path, capsys):
    import json

    import cv2

    from courtstudio.cli import main

    args = ["synth-clip", "--sport", "tennis", "--frames", "3", "--size", "720", "406"]
    out = ["-o", str(tmp_path / "c.avi"), "--points", str(tmp_path / "p.json")]
    assert main([*args, "--letterbox", "720", "1280", *out]) == 0
    cap = cv2.VideoCapture(str(tmp_path / "c.avi"))
    ok, frame = cap.read()
    cap.release()
    assert ok and frame.shape == (1280, 720, 3)
    pts = json.loads((tmp_path / "p.json").read_text())
    assert pts["image_size"] == [720, 1280]
    assert all(437 <= v < 437 + 406 for _, v in pts["points"].values())  # in the picture
    capsys.readouterr()
    assert main([*args, "--letterbox", "720", "1279", *out]) != 0  # 873 rows of bars
    assert "cannot centre" in capsys.readouterr().err


@pytest.mark.parametrize("canvas", [(720, 1280), (1280, 800), (1600, 720)])
def test_the_captions_stay_in_the_bars(canvas):
    h, w = (406, 720) if canvas == (720, 1280) else (720, 1280)
    img = np.full((h, w, 3), 90, np.uint8)
    out, _ = letterboxed(img, None, canvas)
    W, H = canvas
    x0, y0 = (W - w) // 2, (H - h) // 2
    np.testing.assert_array_equal(out[y0 : y0 + h, x0 : x0 + w], img)  # the picture untouched

"""The doctor's image evidence: a click off its painted crossing is found, a clean click on an
unpainted (or repainted) crossing is not flagged, and odd inputs are not evidence."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.cli import main
from courtstudio.io.project import FrameAnnotation
from courtstudio.pipeline.calibration import calibrate_court
from courtstudio.pipeline.click_paint import painted_lines_with_widths
from courtstudio.pipeline.live_calibration import CalibrationCache
from courtstudio.synth.synthetic import render_frame, sample_broadcast_camera, visible_keypoints
from geometry.click_paint import check_clicks_on_paint, lines_through
from geometry.line_ridges import to_gray

SIZE = (960, 540)
# few clicks: the leave-one-out residuals alone cannot always tell which one moved
FEW = [
    "far_left_corner",
    "far_right_corner",
    "near_left_corner",
    "near_right_corner",
    "far_service_centre",
    "near_service_centre",
]


def scene(seed: int, sport: str = "tennis"):
    """(spec, true camera, rendered BGR frame, {name: true (2,) px} of the visible keypoints)."""
    spec = load_spec(sport)
    rng = np.random.default_rng(seed)
    cam = sample_broadcast_camera(spec, SIZE, rng)
    return spec, cam, render_frame(spec, cam, rng=rng), visible_keypoints(spec, cam)


def noisy(kp, names, seed=0, sigma=0.5):
    rng = np.random.default_rng(seed)
    return {n: tuple(kp[n] + rng.normal(0, sigma, 2)) for n in names}


def paint_check(spec, cam, img, clicks):
    lines, widths = painted_lines_with_widths(spec)
    X = np.array([spec.keypoints[n] for n in clicks])
    uv = np.array(list(clicks.values()), float)
    return check_clicks_on_paint(to_gray(img), cam, X, uv, lines, widths)


def test_lines_through_corners_tees_and_arcs():
    tennis = load_spec("tennis")
    lines, _ = painted_lines_with_widths(tennis)
    corner = lines_through(tennis.keypoints["far_left_corner"], lines)
    assert len(corner) == 2 and all(len(arms) == 1 for _, arms in corner)
    tee = lines_through(tennis.keypoints["far_service_centre"], lines)
    assert sorted(len(arms) for _, arms in tee) == [1, 2]  # service line runs through
    nba = load_spec("basketball_nba")
    lines, _ = painted_lines_with_widths(nba)
    # the key's polyline turns at the free-throw corner: two straight lines, not one
    ft = lines_through(nba.keypoints["far_free_throw_left"], lines)
    assert len(ft) == 2 and abs(np.dot(ft[0][1][0][0], ft[1][1][0][0])) < 1e-9
    # an arc runs straight for a few centimetres only
    arc = lines_through(nba.keypoints["centre_circle_left"], lines)
    assert max(length for _, arms in arc for _, length in arms) > 5.0  # the centre line
    assert min(length for _, arms in arc for _, length in arms) < 0.2  # the circle


def test_painted_crossing_round_trip():
    spec, cam, img, kp = scene(3)
    exact = {n: tuple(kp[n]) for n in FEW}
    pc = paint_check(spec, cam, img, exact)
    assert np.all(pc.lines >= 1)
    two = pc.lines == 2
    assert two.sum() >= 4
    assert np.nanmax(pc.distance_px()) < 0.6  # the rendered crossings, sub-pixel
    shift = np.array([5.0, -3.0])
    moved = {n: tuple(np.asarray(v) + shift) for n, v in exact.items()}
    pc2 = paint_check(spec, cam, img, moved)
    assert np.all(pc2.lines[two] == 2)
    np.testing.assert_allclose(pc2.offset_uv[two], np.tile(-shift, (two.sum(), 1)), atol=0.7)


@pytest.mark.parametrize("seed", [3, 5])
def test_moved_click_is_the_first_suspect_with_the_frame(seed):
    spec, cam, img, kp = scene(seed)
    clicks = noisy(kp, FEW, seed)
    assert calibrate_court(spec, SIZE, clicks, image=img).suspects == []
    hits = hits_blind = trials = 0
    for name in FEW:
        for a in np.radians([20.0, 110.0, 200.0, 290.0]):
            moved = dict(clicks)
            moved[name] = tuple(np.asarray(clicks[name]) + 12.0 * np.array([np.cos(a), np.sin(a)]))
            cal = calibrate_court(spec, SIZE, moved, image=img)
            blind = calibrate_court(spec, SIZE, moved)
            trials += 1
            hits += cal.suspects[:1] == [name]
            hits_blind += blind.suspects[:1] == [name]
            assert "off its painted lines" in " ".join(cal.warnings) or not cal.suspects
    # (a far corner moved along the baseline can land between the doubles and the singles
    # sideline: both ridges in reach, ambiguous, no evidence; the clicks alone miss it too)
    assert hits >= trials - 1, f"{hits}/{trials} (clicks only: {hits_blind})"
    assert hits >= hits_blind + 5  # the frame adds evidence the clicks alone lack


def paint_over(img, cam, uv, radius, colour):
    out = img.copy()
    cv2.circle(out, tuple(int(round(v)) for v in uv), radius, colour, -1)
    return out


def surface_bgr(img, uv, offset):
    """The court surface's colour a little way off a click (between the lines)."""
    u, v = (int(round(c)) for c in np.asarray(uv) + offset)
    return tuple(int(c) for c in img[v, u])


def test_clean_click_on_an_unpainted_crossing_is_no_evidence_and_no_suspect():
    spec, cam, img, kp = scene(3)
    clicks = noisy(kp, FEW, 3)
    name = "near_left_corner"
    inside = kp["near_service_centre"] - kp[name]
    colour = surface_bgr(img, kp[name], 0.15 * inside)
    hidden = paint_over(img, cam, kp[name], 70, colour)
    pc = paint_check(spec, cam, hidden, clicks)
    assert pc.lines[list(clicks).index(name)] == 0  # no ridge found = no evidence
    assert calibrate_court(spec, SIZE, clicks, image=hidden).suspects == []


def test_a_ridge_of_another_line_is_not_taken_for_the_keypoint():
    """The keypoint's own lines unpainted near the click and a parallel stripe 14 px away
    (a painted key's edge, a service-box mark): the paint evidence points 14 px off, but the
    camera of the other clicks puts the keypoint at the click, so it is no suspect."""
    spec, cam, img, kp = scene(3)
    names = [n for n in kp if spec.keypoints[n][2] == 0 and not n.startswith("net_line")]
    clicks = noisy(kp, names, 4)
    name = "near_left_corner"
    inside = kp["near_service_centre"] - kp[name]
    colour = surface_bgr(img, kp[name], 0.15 * inside)
    fake = paint_over(img, cam, kp[name], 70, colour)
    lines, widths = painted_lines_with_widths(spec)
    X = spec.keypoints[name]
    for _, arms in lines_through(X, lines):  # each line redrawn 14 px to one side
        d = arms[0][0]
        a, b = cam.project(np.array([X, X + 3.0 * d]))
        t = (b - a) / np.linalg.norm(b - a)
        n = np.array([-t[1], t[0]])
        p0, p1 = a + 14 * n - 5 * t, a + 14 * n + 70 * t
        cv2.line(
            fake,
            tuple(np.round(p0 * 16).astype(int)),
            tuple(np.round(p1 * 16).astype(int)),
            (250, 250, 250),
            2,
            cv2.LINE_AA,
            4,
        )
    pc = paint_check(spec, cam, fake, clicks)
    i = list(clicks).index(name)
    assert pc.lines[i] >= 1 and pc.distance_px()[i] > 8  # the evidence is there, and wrong
    cal = calibrate_court(spec, SIZE, clicks, image=fake)
    assert name not in cal.suspects


def test_degenerate_inputs():
    spec, cam, img, kp = scene(3)
    clicks = noisy(kp, FEW, 3)
    blind = calibrate_court(spec, SIZE, clicks)
    assert "paint_offsets_px" not in blind.to_json()
    # an image of another size is not evidence: a warning, the same suspects
    small = cv2.resize(img, (480, 270))
    cal = calibrate_court(spec, SIZE, clicks, image=small)
    assert cal.suspects == blind.suspects and "paint_offsets_px" not in cal.to_json()
    assert any("480x270" in w and "not checked" in w for w in cal.warnings)
    odd = calibrate_court(spec, SIZE, clicks, image=img.astype(np.float32))
    assert any("8-bit" in w for w in odd.warnings)
    # grey is fine, and the offsets are reported per click
    grey = calibrate_court(spec, SIZE, clicks, image=cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    doc = grey.to_json()
    assert set(doc["paint_offsets_px"]) == set(clicks) and doc["suspects"] == []
    # a click outside the image, a non-finite one: no evidence (geometry level: calibrate
    # refuses such clicks before the doctor runs)
    X = np.array([spec.keypoints[n] for n in FEW[:3]])
    uv = np.array([kp[FEW[0]], [-40.0, 30.0], [np.nan, 5.0]])
    lines, widths = painted_lines_with_widths(spec)
    pc = check_clicks_on_paint(to_gray(img), cam, X, uv, lines, widths)
    assert pc.lines.tolist()[1:] == [0, 0] and np.all(np.isnan(pc.offset_uv[1:]))
    with pytest.raises(ValueError, match="image is"):
        check_clicks_on_paint(to_gray(small), cam, X, uv, lines, widths)
    # a keypoint on no painted line (a net post's top): never evidence
    post = check_clicks_on_paint(
        to_gray(img),
        cam,
        np.array([spec.keypoints["net_post_left_top"]]),
        cam.project(np.array([spec.keypoints["net_post_left_top"]])),
        lines,
        widths,
    )
    assert post.lines.tolist() == [0]


def test_cli_calibrate_with_the_frame_names_the_moved_click(tmp_path, capsys):
    spec, cam, img, kp = scene(5)
    clicks = noisy(kp, FEW, 5)
    name = "far_service_centre"
    clicks[name] = tuple(np.asarray(clicks[name]) + [12.0, 0.0])
    pts = tmp_path / "p.json"
    pts.write_text(json.dumps({"image_size": list(SIZE), "points": clicks}))
    frame = tmp_path / "f.png"
    cv2.imwrite(str(frame), img)
    out = tmp_path / "cam.json"
    assert (
        main(
            [
                "calibrate",
                "--sport",
                "tennis",
                "--points",
                str(pts),
                "--image",
                str(frame),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    assert doc["suspects"][:1] == [name]
    assert abs(doc["paint_offsets_px"][name][0] + 12.0) < 1.5
    assert "off its painted lines" in capsys.readouterr().err
    cv2.imwrite(str(frame), cv2.resize(img, (480, 270)))
    assert (
        main(["calibrate", "--sport", "tennis", "--points", str(pts), "--image", str(frame)]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "480x270" in err[0]


def test_the_app_cache_gives_the_doctor_the_frame_only_when_diagnosing():
    spec, cam, img, kp = scene(5)
    clicks = noisy(kp, FEW, 5)
    name = "far_service_centre"
    clicks[name] = tuple(np.asarray(clicks[name]) + [0.0, 12.0])
    ann = FrameAnnotation("f", SIZE, clicks)
    cache = CalibrationCache()
    seen = cache.solve("f", spec, ann, diagnose=True, image=img).calibration
    assert seen.paint_offsets_px is not None and seen.suspects[:1] == [name]
    blind = cache.solve("f", spec, ann, diagnose=True).calibration
    assert blind.paint_offsets_px is None  # cached apart from the solve with the frame
    dragging = cache.solve("f", spec, ann, diagnose=False, image=img).calibration
    assert dragging.paint_offsets_px is None and dragging.suspects == []

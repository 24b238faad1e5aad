"""Painted lines are not looked for under screen-fixed graphics or user masks: a letter or a
box's bright rule there is not court paint (geometry.line_ridges.find_ridges's mask)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.line_refinement import painted_ground_lines, refine_on_lines
from courtstudio.pipeline.propagate_frame import Options, Tracker
from courtstudio.synth.synthetic import render_frame, sample_broadcast_camera
from geometry.camera import Camera
from geometry.line_ridges import find_ridges, mask_allows, to_gray
from geometry.line_support import line_evidence
from geometry.projection import densify_all

SIZE = (1280, 720)
SPEC = load_spec("tennis")
PLANE = np.array([v for v in SPEC.keypoints.values() if abs(v[2]) < 1e-9], float)


def _worst_px(est: Camera, truth: Camera) -> float:
    """The largest error (px) of est at the court's plane keypoints truth shows."""
    uv = truth.project(PLANE)
    seen = truth.in_image(uv)
    return float(np.max(np.linalg.norm(est.project(PLANE[seen]) - uv[seen], axis=1)))


def ticker_scene(seed: int):
    """(true camera, image, full-size mask, start camera): a broadcast frame whose ticker
    (a dark band 60 px high) hides the near baseline and carries a bright rule 7 px below
    where the baseline runs, as a ticker's underline or a score box's border does; the start
    is the truth turned by ~0.1 degrees and zoomed 1 %."""
    rng = np.random.default_rng(seed)
    cam = sample_broadcast_camera(SPEC, SIZE, rng, zoom=(0.8, 0.95))
    img = render_frame(SPEC, cam, rng=rng)
    near = [SPEC.keypoints["near_left_corner"], SPEC.keypoints["near_right_corner"]]
    a, b = cam.project(np.array(near))
    y = int(round(max(a[1], b[1])))
    box = (0, y - 30, SIZE[0], min(SIZE[1], y + 30))
    cv2.rectangle(img, box[:2], box[2:], (90, 40, 20), -1)
    rule = [tuple(np.round(p + (0.0, 7.0)).astype(int)) for p in (a, b)]
    cv2.line(img, rule[0], rule[1], (235, 235, 235), 3, cv2.LINE_AA)
    mask = np.full((SIZE[1], SIZE[0]), 255, np.uint8)
    mask[box[1] : box[3], box[0] : box[2]] = 0
    R = cv2.Rodrigues(cv2.Rodrigues(cam.R)[0].ravel() + rng.normal(0, 0.002, 3))[0]
    K = cam.K.copy()
    K[0, 0] *= 1.01
    K[1, 1] *= 1.01
    return cam, img, mask, Camera(K, R, cam.t, SIZE)


def ticker_clicks(cam: Camera, seed: int = 103) -> dict:
    """Six clicks above the ticker, 1.5 px noise: {name: [u, v]}."""
    names = ["far_left_corner", "far_right_corner", "net_line_left_doubles"]
    names += ["net_line_right_doubles", "near_service_left", "near_service_right"]
    uv = cam.project(np.array([SPEC.keypoints[n] for n in names]))
    uv += np.random.default_rng(seed).normal(0, 1.5, uv.shape)
    return dict(zip(names, uv.tolist()))


@pytest.mark.parametrize("seed", [0, 3, 5])
def test_a_graphic_rule_by_a_hidden_line_pulls_the_fit_unless_it_is_masked(seed):
    cam, img, mask, start = ticker_scene(seed)
    unmasked, rep0 = refine_on_lines(start, SPEC, img, model="simple")
    assert rep0.accepted  # the rule looks like the baseline: the fit follows it
    assert _worst_px(unmasked, cam) > 5.0
    half = cv2.resize(mask, (SIZE[0] // 2, SIZE[1] // 2), interpolation=cv2.INTER_NEAREST)
    for m in (mask, half):  # the propagation's graphics mask is at its reduced size
        new, rep = refine_on_lines(start, SPEC, img, model="simple", mask=m)
        assert rep.accepted, rep.reason
        assert _worst_px(new, cam) < 1.0


def test_no_ridge_is_searched_or_found_under_the_mask():
    cam, img, mask, _ = ticker_scene(0)
    _, lines = painted_ground_lines(SPEC)
    gray = to_gray(img)
    free = find_ridges(gray, cam, lines, 8.0, 0.25)
    held = find_ridges(gray, cam, lines, 8.0, 0.25, mask=mask)
    assert not mask_allows(mask, free.uv, SIZE).all()  # the rule is found without the mask
    assert mask_allows(mask, held.uv, SIZE).all()
    assert held.tried.sum() < free.tried.sum()  # masked samples are not counted as tried
    everything = np.full_like(mask, 255)
    same = find_ridges(gray, cam, lines, 8.0, 0.25, mask=everything)
    np.testing.assert_array_equal(same.uv, free.uv)
    nothing = find_ridges(gray, cam, lines, 8.0, 0.25, mask=np.zeros_like(mask))
    assert len(nothing) == 0 and nothing.tried.sum() == 0


def test_line_evidence_leaves_masked_samples_out():
    cam, img, mask, _ = ticker_scene(3)
    dense = densify_all(painted_ground_lines(SPEC)[1], 0.5)
    free = line_evidence(img, cam, [], dense=dense)
    held = line_evidence(img, cam, [], dense=dense, mask=mask)
    assert 0 < held["samples"] < free["samples"]
    assert held["support"] > free["support"]  # the hidden baseline's samples found nothing
    nothing = line_evidence(img, cam, [], dense=dense, mask=np.zeros_like(mask))
    assert nothing["samples"] == 0 and np.isnan(nothing["support"])


def test_mask_allows_maps_points_to_a_mask_of_any_scale():
    mask = np.full((5, 8), 255, np.uint8)  # a 160x100 image at 1/20
    mask[1, 2] = 0  # image pixels x 40-59, y 20-39: [39.5, 59.5) x [19.5, 39.5)
    uv = np.array(
        [[45.0, 30.0], [39.4, 30.0], [39.5, 30.0], [59.4, 39.4], [59.5, 30], [45, 19.4]]
        + [[-5, -5], [500, 500], [np.inf, 30.0], [np.nan, 30.0]]
    )
    np.testing.assert_array_equal(
        mask_allows(mask, uv, (160, 100)),
        [False, True, False, False, True, True, True, True, False, False],
    )
    assert mask_allows(mask, np.zeros((0, 2)), (160, 100)).shape == (0,)
    full = np.full((100, 160), 255, np.uint8)
    full[20:40, 40:60] = 0  # the same box at full size: the same answers
    np.testing.assert_array_equal(
        mask_allows(full, uv, (160, 100)), mask_allows(mask, uv, (160, 100))
    )
    with pytest.raises(ValueError, match="mask"):
        mask_allows(np.zeros((0, 0), np.uint8), uv, (160, 100))
    with pytest.raises(ValueError, match="not a scaled copy"):
        mask_allows(np.full((160, 100), 255, np.uint8), uv, (160, 100))  # transposed


def test_the_tracker_looks_for_lines_outside_the_user_masks_and_the_graphics():
    def tracker(masks=()):
        return Tracker(SPEC, SIZE, {}, Options(masks=masks))

    assert tracker()._line_mask() is None
    user = tracker(masks=([0, 0, 100, 50],))
    m = user._line_mask()
    assert m.shape == (SIZE[1], SIZE[0]) and m[10, 10] == 0 and m[60, 10] == 255
    graphics = np.full((SIZE[1] // 2, SIZE[0] // 2), 255, np.uint8)
    graphics[300:, :] = 0  # a ticker at the bottom, at the reduced size
    user.graphics = graphics
    both = user._line_mask()
    assert user._line_mask() is both  # made once per graphics mask
    assert both.shape == graphics.shape
    assert both[5, 5] == 0 and both[310, 5] == 0 and both[100, 300] == 255
    again = graphics.copy()
    user.graphics = again  # a new graphics mask: made again
    assert user._line_mask() is not both
    np.testing.assert_array_equal(user._line_mask(), both)
    only = tracker()
    only.graphics = graphics
    assert only._line_mask() is graphics


def test_boxes_mask_zeroes_the_boxes_inside_the_image():
    from geometry.mask_rectangles import boxes_mask

    assert boxes_mask([], (8, 4)) is None
    m = boxes_mask([[1.7, 0, 3.2, 2.9], [-5, 3, 100, 9]], (8, 4))
    assert m.shape == (4, 8) and m.dtype == np.uint8
    expected = np.full((4, 8), 255, np.uint8)
    expected[0:2, 1:3] = 0  # edges truncated to whole pixels
    expected[3, :] = 0  # clipped to the image
    np.testing.assert_array_equal(m, expected)


def test_calibrate_refine_lines_looks_for_no_line_under_its_masks(tmp_path, capsys):
    import json

    from courtstudio.cli import main

    cam, img, mask, _ = ticker_scene(3)
    clicks = ticker_clicks(cam)
    pts = tmp_path / "points.json"
    pts.write_text(json.dumps({"image_size": list(SIZE), "points": clicks}))
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), img)
    rows = np.flatnonzero(mask[:, 0] == 0)
    box = f"0,{rows[0]},{SIZE[0]},{rows[-1] + 1}"
    args = ["calibrate", "--sport", "tennis", "--points", str(pts), "--image", str(frame)]
    errs = []
    for extra in ([], ["--mask", box]):
        out = tmp_path / "camera.json"
        assert main([*args, "--refine-lines", "-o", str(out), *extra]) == 0
        doc = json.loads(out.read_text())
        assert doc["line_refinement"]["accepted"], doc["line_refinement"]["reason"]
        assert doc["line_refinement"].get("masks", []) == [
            [float(v) for v in m.split(",")] for m in extra[1:]
        ]
        errs.append(_worst_px(Camera.from_dict(doc, "camera.json"), cam))
    assert errs[0] > 5.0 and errs[1] < 1.0, errs  # the ticker's rule, then the court's lines
    capsys.readouterr()
    assert main([*args, "--mask", box, "-o", str(tmp_path / "doctor.json")]) == 0  # the doctor
    no_image = ["calibrate", "--sport", "tennis", "--points", str(pts), "--mask", box]
    assert main(no_image) != 0
    assert "--mask needs --image" in capsys.readouterr().err
    assert main([*args, "--refine-lines", "--mask", "0,10,5"]) != 0
    assert "expected x0,y0,x1,y1" in capsys.readouterr().err
    assert main([*args, "--refine-lines", "--mask", "0,600,1400,720"]) != 0
    assert "outside the 1280x720 image" in capsys.readouterr().err


def test_the_live_calibration_refines_without_the_lines_under_the_masks_until_they_change():
    from courtstudio.io.annotation_file import FrameAnnotation
    from courtstudio.pipeline.live_calibration import CalibrationCache

    cam, img, mask, _ = ticker_scene(3)
    rows = np.flatnonzero(mask[:, 0] == 0)
    box = [0.0, float(rows[0]), float(SIZE[0]), float(rows[-1] + 1)]
    ann = FrameAnnotation("f", SIZE, {k: tuple(v) for k, v in ticker_clicks(cam).items()})
    cache = CalibrationCache()
    plain = cache.refine_on_lines("f", SPEC, ann, img)
    masked = cache.refine_on_lines("f", SPEC, ann, img, [box])
    assert plain.calibration.refinement["accepted"] and masked.calibration.refinement["accepted"]
    assert _worst_px(plain.camera, cam) > 5.0 and _worst_px(masked.camera, cam) < 1.0
    assert "masks" not in plain.calibration.refinement
    assert masked.calibration.refinement["masks"] == [box]
    assert cache.solve("f", SPEC, ann) is masked  # kept while the clicks and masks stand
    cache.forget_refined()  # the masks changed: the refinement was made under the old ones
    assert cache.solve("f", SPEC, ann).calibration.refinement is None


def test_the_documents_masks_reach_refine_on_lines_and_a_mask_edit_drops_a_refinement(
    project, monkeypatch
):
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.io.masks_file import masks_path, write_masks_file

    fid = project.frames[0].id
    seen = []

    def refine(frame_id, spec, ann, image, masks=()):
        seen.append((image.shape[:2], list(masks)))
        return None

    doc = AnnotationDocument(project)
    monkeypatch.setattr(doc.calibrations, "refine_on_lines", refine)
    doc.refine_on_lines(fid)
    assert seen[-1][1] == []
    h, w = seen[-1][0]
    write_masks_file(masks_path(project.root), [[0, h - 80, w, h]], (w, h))
    doc = AnnotationDocument(project)
    doc.refine_on_lines(fid)  # the real refinement, under the project's mask
    assert doc.camera_state(fid).calibration.refinement is not None
    monkeypatch.setattr(doc.calibrations, "refine_on_lines", refine)
    doc.refine_on_lines(fid)
    assert [list(b) for b in seen[-1][1]] == [[0, h - 80, w, h]]
    monkeypatch.undo()  # the real refinement again
    doc.refine_on_lines(fid)
    doc.masks.propose([(300.0, 10.0, 500.0, 60.0)])  # a proposal, no mask: it stays
    assert doc.camera_state(fid).calibration.refinement is not None
    doc.masks.add((10.0, 10.0, 200.0, 100.0))  # an edit of the masks drops the refinement
    assert doc.camera_state(fid).calibration.refinement is None


def test_a_user_box_narrower_than_the_reduction_stays_masked():
    t = Tracker(SPEC, (1920, 1080), {}, Options(masks=([100, 50, 102, 60],)))
    t.graphics = np.full((360, 640), 255, np.uint8)  # the reduced size, 1/3
    m = t._line_mask()
    assert m.shape == (360, 640)
    inside = np.array([[100.0, 50.0], [101.0, 59.0]])
    assert not mask_allows(m, inside, (1920, 1080)).any()
    assert mask_allows(m, np.array([[110.0, 55.0], [101.0, 70.0]]), (1920, 1080)).all()


def test_the_references_own_refinements_look_for_no_line_under_the_user_masks(monkeypatch):
    import courtstudio.pipeline.line_refinement as lr
    import courtstudio.pipeline.propagate as prop
    from courtstudio.pipeline.propagation_reference import Reference
    from courtstudio.synth.synthetic_clip import ClipFrames, make_clip

    clip = make_clip(SPEC, 2, (640, 360), seed=3)
    cam = clip.cameras[0]
    five = ["far_left_corner", "far_right_corner", "near_left_corner", "near_right_corner"]
    five.append("net_line_centre")  # too few clicks to test a lens: the lines decide
    ref = Reference(0, {k: tuple(cam.project(SPEC.keypoints[k][None])[0]) for k in five})
    seen = []
    real = lr.refine_calibration

    def spy(cal, spec, image, model="auto", masks=()):
        seen.append(list(masks))
        out = real(cal, spec, image, model, masks)
        assert out.refinement.get("masks", []) == [list(map(float, b)) for b in masks]
        return out

    monkeypatch.setattr(lr, "refine_calibration", spy)
    prop._references(ClipFrames(clip), SPEC, [ref], None, ([0, 300, 640, 360],))
    assert seen and seen[-1] == [[0, 300, 640, 360]]
    prop._references(ClipFrames(clip), SPEC, [ref], None)
    assert seen[-1] == []


def test_the_doctor_reads_no_paint_under_the_masks():
    from courtstudio.io.annotation_file import FrameAnnotation
    from courtstudio.pipeline.click_paint import check_paint
    from courtstudio.pipeline.live_calibration import CalibrationCache

    cam, img, mask, _ = ticker_scene(3)
    rows = np.flatnonzero(mask[:, 0] == 0)
    box = [0.0, float(rows[0]), float(SIZE[0]), float(rows[-1] + 1)]
    names = ["near_left_corner", "near_baseline_centre", "far_left_corner"]
    uv = cam.project(np.array([SPEC.keypoints[n] for n in names]))  # the true crossings
    free = check_paint(SPEC, cam, img, names, uv)
    held = check_paint(SPEC, cam, img, names, uv, [box])
    assert free.offset_uv[1, 1] > 5.0  # the ticker's rule, read as the hidden baseline
    assert free.lines[0] == 2 and held.lines[0] == 1  # only the sideline above the ticker
    assert np.all(np.abs(held.offset_uv[0]) < 1.0)
    assert held.lines[1] == 0 and np.isnan(held.offset_uv[1]).all()  # no evidence there
    np.testing.assert_allclose(held.offset_uv[2], free.offset_uv[2])  # far from the ticker
    # the app's doctor: the same, cached apart for each set of masks
    clicks = {**ticker_clicks(cam), **{n: tuple(map(float, q)) for n, q in zip(names, uv)}}
    ann = FrameAnnotation("f", SIZE, {k: tuple(v) for k, v in clicks.items()})
    cache = CalibrationCache()
    plain = cache.solve("f", SPEC, ann, True, img)
    masked = cache.solve("f", SPEC, ann, True, img, [box])
    assert plain.calibration.paint_offsets_px.get("near_baseline_centre") is not None
    assert masked.calibration.paint_offsets_px.get("near_baseline_centre") is None
    assert cache.solve("f", SPEC, ann, True, img, [box]) is masked

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
    mask = np.full((4, 8), 255, np.uint8)
    mask[1, 2] = 0  # image pixels x 40-59, y 25-49 of a 160x100 image
    uv = np.array([[45.0, 30.0], [39.9, 30.0], [60.0, 30.0], [45, 24.9], [-5, -5], [500, 500]])
    np.testing.assert_array_equal(
        mask_allows(mask, uv, (160, 100)), [False, True, True, True, True, True]
    )
    assert not mask_allows(mask, np.array([[np.nan, 1.0]]), (160, 100))[0]
    assert mask_allows(mask, np.zeros((0, 2)), (160, 100)).shape == (0,)
    with pytest.raises(ValueError, match="mask"):
        mask_allows(np.zeros((0, 0), np.uint8), uv, (160, 100))


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
    assert both.shape == graphics.shape
    assert both[5, 5] == 0 and both[310, 5] == 0 and both[100, 300] == 255
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
    rng = np.random.default_rng(103)
    names = ["far_left_corner", "far_right_corner", "net_line_left_doubles"]
    names += ["net_line_right_doubles", "near_service_left", "near_service_right"]
    uv = cam.project(np.array([SPEC.keypoints[n] for n in names])) + rng.normal(0, 1.5, (6, 2))
    pts = tmp_path / "points.json"
    pts.write_text(json.dumps({"image_size": list(SIZE), "points": dict(zip(names, uv.tolist()))}))
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
        errs.append(_worst_px(Camera.from_dict(doc, "camera.json"), cam))
    assert errs[0] > 5.0 and errs[1] < 1.0, errs  # the ticker's rule, then the court's lines
    capsys.readouterr()
    assert main([*args, "--mask", box]) != 0
    assert "--mask applies to --refine-lines" in capsys.readouterr().err
    assert main([*args, "--refine-lines", "--mask", "0,10,5"]) != 0
    assert "expected x0,y0,x1,y1" in capsys.readouterr().err


def test_the_app_refines_a_frame_without_the_lines_under_the_project_masks(project, monkeypatch):
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
    monkeypatch.setattr(doc.calibrations, "refine_on_lines", refine)
    doc.refine_on_lines(fid)
    assert [list(b) for b in seen[-1][1]] == [[0, h - 80, w, h]]

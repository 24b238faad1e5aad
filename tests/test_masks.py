"""Registration masks without a window (issue 11 §1): the masks.json reader shared by the CLI
and the app, the editable mask layer on the document's undo stack (journal, recovery, save,
read-only), the box geometry of the Masks tool, and graphics proposals from the detector."""

import json
import math

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.cli import main
from courtstudio.editing.autosave import Autosave, autosave_path, pending_recovery, read_journal
from courtstudio.editing.document import AnnotationDocument
from courtstudio.editing.mask_layer import clamp_box, drag_box, hit_box, move_inside
from courtstudio.editing.undo import ReadOnlyError
from courtstudio.io.masks_file import MAX_MASKS, masks_path, read_masks_file, write_masks_file
from courtstudio.io.project import ProjectError, load_project
from courtstudio.pipeline.graphics_proposals import detect_graphics
from courtstudio.synth.synthetic_clip import ClipFrames, Hazards, graphics_boxes, make_clip

SIZE = (1920, 1080)  # the sample project's frames


def video_project(root, n=12, size=(640, 360), graphics=False, reference=True, seed=25):
    """A one-video tennis project from a synthetic pan/tilt/zoom clip (screen-fixed graphics
    when asked), frame 0 annotated with the paper's six keypoints where they truly are."""
    from court_specs.model import PAPER_SIX
    from courtstudio.io.project import FrameAnnotation
    from courtstudio.io.project_new import new_project_from_video
    from courtstudio.synth.synthetic_clip import write_video

    spec = load_spec("tennis")
    clip = make_clip(
        spec,
        n,
        size,
        seed=seed,
        pan_deg=1,
        tilt_deg=0.5,
        zoom=0.03,
        hazards=Hazards(graphics=graphics),
    )
    root.mkdir(parents=True, exist_ok=True)
    write_video(root / "clip.avi", clip.frames)
    p = new_project_from_video(root / "project", root / "clip.avi", "tennis")
    if reference:
        cam = clip.cameras[0]
        p.save_annotation(
            FrameAnnotation(
                p.frames[0].id,
                size,
                points={k: tuple(cam.project(spec.keypoints[k][None])[0]) for k in PAPER_SIX},
            )
        )
    return p


def write(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return path


# ------------------------------------------------------------------------------ the file
def test_hand_written_file_is_read_and_rewritten_with_its_unknown_keys(tmp_path):
    p = write(
        tmp_path / "masks.json",
        {"masks": [[0, 0, 60, 40], [10.5, 20, 1920, 1080]], "note": "score bug"},
    )
    boxes, raw = read_masks_file(p, SIZE)
    assert boxes == [[0.0, 0.0, 60.0, 40.0], [10.5, 20.0, 1920.0, 1080.0]]
    write_masks_file(p, boxes[:1], SIZE, raw)
    data = json.loads(p.read_text())
    assert data["note"] == "score bug" and data["format"] == "courtstudio.masks"
    assert data["image_size"] == [1920, 1080] and data["masks"] == [[0.0, 0.0, 60.0, 40.0]]
    assert read_masks_file(p, SIZE)[0] == [[0.0, 0.0, 60.0, 40.0]]
    assert read_masks_file(tmp_path / "missing.json", SIZE) == ([], {})


@pytest.mark.parametrize(
    "content, field",
    [
        ('{"masks": [[0, 0, NaN, 40]]}', "masks[0][2]"),
        ('{"masks": [[0, 0, 1e400, 40]]}', "masks[0][2]"),
        ({"masks": [[0, 0, 60]]}, "masks[0]"),
        ({"masks": [[0, 0, 60, "40"]]}, "masks[0][3]"),
        ({"masks": [[0, 0, 60, 40], [50, 10, 40, 20]]}, "masks[1]"),
        ({"masks": [[0, 0, 60, 40], [0, 0, 2500, 40]]}, "masks[1][2]"),
        ({"masks": [[-3, 0, 60, 40]]}, "masks[0][0]"),
        ({"masks": [[0, 0, 1, 1]] * (MAX_MASKS + 1)}, "masks"),
        ({"masks": {"a": 1}}, "masks"),
        ({"boxes": []}, "masks"),
        ([1, 2], "expected an object"),
        ({"format": "courtstudio.masks", "format_version": 9, "masks": []}, "format_version"),
        ({"image_size": [1280, 720], "masks": []}, "image_size"),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_file_is_refused_naming_the_file_and_field(tmp_path, content, field):
    p = write(tmp_path / "propagation" / "masks.json", content)
    with pytest.raises(ProjectError) as err:
        read_masks_file(p, SIZE)
    assert str(p) in str(err.value) and field in str(err.value)


def test_batch_propagate_refuses_a_bad_project_masks_file_in_one_line(tmp_path, capsys):
    project = video_project(tmp_path, n=3)
    write(masks_path(project.root), {"masks": [[0, 0, 60, 40], [0, 0, 641, 40]]})
    assert main(["batch-propagate", str(project.root), "--sport", "tennis", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "masks.json" in err[0] and "masks[1][2]" in err[0]


@pytest.mark.parametrize("text", ["nan,0,10,10", "0,0,inf,10", "1,2,3", "5,5,1,1"])
def test_cli_mask_option_uses_the_same_rules(tmp_path, capsys, text):
    project = video_project(tmp_path, n=3)
    assert (
        main(["batch-propagate", str(project.root), "--sport", "tennis", "--quiet", "--mask", text])
        == 2
    )
    assert "--mask" in capsys.readouterr().err


# ----------------------------------------------------------------------- box geometry
def test_drag_handles_and_clamping():
    box = (100.0, 50.0, 200.0, 150.0)
    assert drag_box(box, "move", 5, -5) == (105, 45, 205, 145)
    assert drag_box(box, "br", 10, 20) == (100, 50, 210, 170)
    assert drag_box(box, "tl", -10, -20) == (90, 30, 200, 150)
    assert drag_box(box, "tr", 10, 20) == (100, 70, 210, 150)
    assert drag_box(box, "l", 30, 99) == (130, 50, 200, 150)
    assert drag_box(box, "b", 99, -30) == (100, 50, 200, 120)
    # dragging a corner past the opposite one flips the box, clamp_box normalises it
    assert clamp_box(drag_box(box, "br", -150, 0), SIZE) == (50, 50, 100, 150)
    assert clamp_box((-50, -50, 5000, 20), SIZE) == (-0.5, -0.5, 1919.5, 20)
    with pytest.raises(ProjectError, match="at least"):
        clamp_box((10, 10, 11, 50), SIZE)
    with pytest.raises(ProjectError):
        clamp_box((3000, 10, 4000, 50), SIZE)  # wholly outside: nothing left
    # a move stops at the border and keeps the size
    assert move_inside(box, -500, 2000, SIZE) == (-0.5, 979.5, 99.5, 1079.5)
    with pytest.raises(ValueError):
        drag_box(box, "middle", 1, 1)


def test_hit_prefers_corners_then_edges_then_inside():
    box = (100.0, 100.0, 300.0, 200.0)
    assert hit_box(box, (102, 198), 5) == "bl"
    assert hit_box(box, (298, 103), 5) == "tr"
    assert hit_box(box, (200, 101), 5) == "t"
    assert hit_box(box, (303, 150), 5) == "r"
    assert hit_box(box, (200, 150), 5) == "move"
    assert hit_box(box, (200, 210), 5) is None
    assert hit_box(box, (310, 150), 5) is None


# ------------------------------------------------------------------------ the layer
@pytest.fixture
def doc(project):
    return AnnotationDocument(project)


def test_edits_are_undoable_and_a_drag_is_one_step(doc):
    m = doc.masks
    assert m.boxes == [] and not doc.is_dirty
    key = ("drag", 1)
    i = m.add((10, 10, 50, 40), merge_key=key)
    for x in (60, 80, 120):  # the same drag goes on: one undo step
        m.set_box(i, (10, 10, x, 40), merge_key=key)
    doc.end_drag()
    m.set_box(0, (20, 10, 130, 40))
    assert m.boxes == [(20, 10, 130, 40)] and doc.is_dirty
    assert doc.undo_stack.undo_text == "Move mask 1"
    doc.undo()
    assert m.boxes == [(10, 10, 120, 40)]
    doc.undo()
    assert m.boxes == [] and not doc.is_dirty
    doc.redo()
    assert m.boxes == [(10, 10, 120, 40)]
    m.remove(0)
    assert m.boxes == []
    doc.undo()
    assert m.boxes == [(10, 10, 120, 40)]


def test_proposals_accept_reject_and_undo_brings_them_back(doc):
    m = doc.masks
    m.add((0, 0, 100, 100))
    n = m.propose([[10, 10, 90, 90], [500, 500, 700, 600], [1000, 0, 1920, 80]])
    assert n == 2  # the first lies inside a mask already
    assert m.proposals == [(500, 500, 700, 600), (1000, 0, 1919.5, 80)]
    assert m.accept(1) == 1 and m.boxes[1] == (1000, 0, 1919.5, 80)
    assert m.proposals == [(500, 500, 700, 600)]
    m.reject(0)
    assert m.proposals == []
    doc.undo()
    doc.undo()
    assert m.proposals == [(500, 500, 700, 600), (1000, 0, 1919.5, 80)]
    assert len(m.boxes) == 1
    assert m.accept_all() == 2 and len(m.boxes) == 3 and m.proposals == []
    with pytest.raises(ProjectError, match="no proposal 1"):
        m.accept(0)


def test_save_writes_what_the_cli_reads(doc, project):
    from courtstudio.pipeline.propagate import project_masks

    doc.masks.add((10, 20, 300, 90))
    doc.masks.add((1500.25, 900, 1919.5, 1079.5))
    written = doc.save()
    assert masks_path(project.root) in written and not doc.is_dirty
    assert project_masks(load_project(project.root), SIZE) == [
        [10, 20, 300, 90],
        [1500.25, 900, 1919.5, 1079.5],
    ]
    # a fresh document reads them back; an unchanged layer writes nothing
    again = AnnotationDocument(load_project(project.root))
    assert again.masks.boxes == doc.masks.boxes
    assert again.save() == []


def test_masks_are_journaled_and_recovered(doc, project):
    auto = Autosave(doc)
    doc.masks.add((10, 20, 300, 90))
    lines = autosave_path(project).read_text().splitlines()
    assert json.loads(lines[-1]) == {"propagation_masks": [[10, 20, 300, 90]]}
    doc.masks.propose([[600, 600, 700, 700]])  # proposals are not journaled
    assert len(autosave_path(project).read_text().splitlines()) == len(lines)
    auto.compact()
    assert read_journal(autosave_path(project))["propagation_masks"] == [[10, 20, 300, 90]]
    auto._close_fd()  # a crash: nothing saved
    journal = pending_recovery(load_project(project.root))
    assert journal["propagation_masks"] == [[10, 20, 300, 90]]
    fresh = AnnotationDocument(load_project(project.root))
    fresh.restore_unsaved_state(journal)
    assert fresh.masks.boxes == [(10, 20, 300, 90)] and fresh.is_dirty
    fresh.save()
    assert (
        pending_recovery(load_project(project.root)) is None
        or pending_recovery(load_project(project.root))["propagation_masks"] is None
    )


def test_unsaved_masks_are_journal_state_beside_a_flight_draft(doc, project):
    """The journal holds unsaved masks as it holds a ball-flight draft (has_journal_state):
    a save writes the masks and keeps the draft's journal without them; undoing the saved
    mask edit makes the masks unsaved, and journaled, again."""
    auto = Autosave(doc)
    doc.masks.add((10, 20, 300, 90))
    assert doc.has_journal_state and doc.is_dirty
    f1 = project.frames[1].id
    doc.mark_ball_flight("start", f1)
    auto.compact()
    rec = read_journal(autosave_path(project))
    assert rec["propagation_masks"] == [[10, 20, 300, 90]]
    assert rec["flight_draft"] == {"start": f1}
    doc.save()
    rec = read_journal(autosave_path(project))  # the draft alone is left to journal
    assert rec["propagation_masks"] is None and rec["flight_draft"] == {"start": f1}
    doc.undo()  # the mark: nothing unsaved is left
    assert not doc.has_journal_state and not autosave_path(project).exists()
    doc.undo()  # the saved mask: the masks differ from masks.json again
    assert doc.has_journal_state and doc.masks.boxes == []
    assert read_journal(autosave_path(project))["propagation_masks"] == []
    assert pending_recovery(load_project(project.root))["propagation_masks"] == []
    auto.close()


def test_a_recovered_journal_is_checked_and_clipped_to_the_frame(doc, project):
    from courtstudio.io.project import check_recovered_state

    for bad in ([[0, 0, float("nan"), 10]], [[0, 0, 10]], [[5, 5, 1, 1]], "x"):
        with pytest.raises(ProjectError, match="propagation_masks"):
            check_recovered_state(project, {"propagation_masks": bad}, "journal")
        with pytest.raises(ProjectError, match="propagation_masks"):
            doc.restore_unsaved_state({"propagation_masks": bad})
    assert doc.masks.boxes == [] and not doc.is_dirty
    doc.restore_unsaved_state({"propagation_masks": [[0, 0, 5000, 10], [3000, 0, 4000, 10]]})
    assert doc.masks.boxes == [(0, 0, 1919.5, 10)]


def test_read_only_and_unreadable_file_refuse_edits(doc, project):
    doc.undo_stack.read_only = "another window has it open"
    with pytest.raises(ReadOnlyError, match="another window"):
        doc.masks.add((10, 10, 50, 50))
    doc.undo_stack.read_only = None
    write(masks_path(project.root), {"masks": [[0, 0, math.pi, 1e9]]})
    bad = AnnotationDocument(load_project(project.root))
    assert "masks.json" in bad.masks.error and "masks[0][3]" in bad.masks.error
    assert bad.masks.boxes == []
    with pytest.raises(ProjectError, match="fix or remove"):
        bad.masks.add((10, 10, 50, 50))
    assert not bad.is_dirty and bad.save() == []  # the bad file is left as it is
    assert json.loads(masks_path(project.root).read_text())["masks"][0][3] == 1e9


# ---------------------------------------------------------------------- proposals
def _covered(truth, boxes) -> float:
    """The fraction of the truth box covered by the union of boxes (pixels)."""
    x0, y0, x1, y1 = truth
    m = np.zeros((y1 - y0, x1 - x0), bool)
    for b in boxes:
        bx0, by0 = max(int(b[0]) - x0, 0), max(int(b[1]) - y0, 0)
        bx1, by1 = int(math.ceil(b[2])) - x0, int(math.ceil(b[3])) - y0
        if bx1 > 0 and by1 > 0:
            m[by0:by1, bx0:bx1] = True
    return float(m.mean())


def test_detector_proposes_the_synthetic_graphics():
    spec = load_spec("tennis")
    clip = make_clip(spec, 40, (640, 360), seed=3, hazards=Hazards(graphics=True))
    res = detect_graphics(ClipFrames(clip))
    assert res.moving_pairs >= 4 and res.frames_read == 40
    for truth in graphics_boxes((640, 360)):
        assert _covered(truth, res.boxes) > 0.95, truth
    # no box reaches into the middle of the court
    assert all(not (b[0] < 320 < b[2] and b[1] < 180 < b[3]) for b in res.boxes)


def test_detector_says_when_it_cannot_tell():
    spec = load_spec("tennis")
    few = make_clip(spec, 6, (320, 180), seed=3, hazards=Hazards(graphics=True))
    res = detect_graphics(ClipFrames(few))
    assert res.boxes == [] and "too few frames" in res.message
    still = make_clip(
        spec,
        20,
        (320, 180),
        seed=3,
        pan_deg=0,
        tilt_deg=0,
        zoom=0,
        occluders=0,
        hazards=Hazards(graphics=True),
    )
    res = detect_graphics(ClipFrames(still))
    assert res.boxes == [] and "camera moved in 0" in res.message


# ------------------------------------------------------------- boxes from a detector mask
def _paint(shape, rects):
    m = np.zeros(shape, bool)
    for x0, y0, x1, y1 in rects:
        m[y0:y1, x0:x1] = True
    return m


def test_tiles_cover_random_unions_of_rectangles_exactly():
    from geometry.mask_rectangles import tile_rectangles

    rng = np.random.default_rng(0)
    for _ in range(50):
        rects = []
        for _ in range(rng.integers(1, 6)):
            x0, y0 = rng.integers(0, 60), rng.integers(0, 40)
            rects.append((x0, y0, x0 + rng.integers(1, 30), y0 + rng.integers(1, 20)))
        m = _paint((50, 80), rects)
        tiles = tile_rectangles(m)
        count = np.zeros(m.shape, int)
        for x0, y0, x1, y1 in tiles:
            assert x1 > x0 and y1 > y0
            count[y0:y1, x0:x1] += 1
        assert np.array_equal(count, m.astype(int))  # every masked pixel exactly once
    assert tile_rectangles(np.zeros((5, 5), bool)) == []
    assert tile_rectangles(np.ones((3, 4), bool)) == [(0, 0, 4, 3)]
    assert tile_rectangles(_paint((5, 5), [(2, 3, 3, 4)])) == [(2, 3, 3, 4)]
    with pytest.raises(ValueError, match="masked"):
        tile_rectangles(np.zeros(5, bool))


def test_a_score_bug_touching_the_ticker_stays_two_boxes():
    """The grown boxes of a score bug and a ticker touch: their bounding box would also mask
    the court beside the score bug; the proposals are the two boxes."""
    from geometry.mask_rectangles import box_rectangles

    bug, ticker, logo = (10, 242, 220, 315), (0, 315, 640, 360), (522, 5, 630, 74)
    m = _paint((360, 640), [bug, ticker, logo])
    assert box_rectangles(m) == [logo, bug, ticker]
    # a region that nearly fills its box (a ticker whose plain end did not vote) is one box
    ragged = _paint((360, 640), [(45, 326, 640, 342), (2, 337, 374, 360)])
    assert box_rectangles(ragged) == [(2, 326, 640, 360)]
    assert box_rectangles(np.zeros((4, 4), bool)) == []

"""A weak frame refined on its lines where its neighbours' refinements all failed is flagged
(issue 11 section 6): on the real IND-NYK clip from reference 250 the 7 frames such a run left
ok were all 7-10 px off at 720p."""

from courtstudio.pipeline.propagation_flags import WEAK_GEOMETRY
from courtstudio.pipeline.propagation_isolated import (
    ISOLATION_SPAN,
    flag_isolated_refinements,
)

WEAK = {"status": "flagged", "reason": f"{WEAK_GEOMETRY}: keypoints in view uncertain by 9 px"}
REFINED = {"status": "ok", "refined": "lines"}
OK = {"status": "ok"}


def _run(pattern, reference=0, cuts=()):
    """Records from a string: W weak-flagged, L ok refined on lines, o ok, F flagged other."""
    kinds = {"W": WEAK, "L": REFINED, "o": OK, "F": {"status": "flagged", "reason": "x"}}
    return [
        {"frame": i, "reference": reference, **kinds[c], **({"cut": True} if i in cuts else {})}
        for i, c in enumerate(pattern)
    ]


def test_a_lone_refinement_among_weak_frames_is_flagged_and_keeps_its_camera():
    recs = _run("WWWWWWWWLWWWWWWWW")
    recs[8]["K"] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert flag_isolated_refinements(recs) == [8]
    assert recs[8]["status"] == "flagged" and recs[8]["reason"].startswith(WEAK_GEOMETRY)
    assert "12 nearest" in recs[8]["reason"] and recs[8]["K"][0][0] == 1


def test_two_refinements_side_by_side_are_both_isolated_three_are_not():
    assert flag_isolated_refinements(_run("WWWWWWWWLLWWWWWWWW")) == [8, 9]
    assert flag_isolated_refinements(_run("WWWWWWWWLLLWWWWWWWW")) == []


def test_refinements_inside_a_run_of_good_frames_are_left_alone():
    assert flag_isolated_refinements(_run("ooooooooLoooooooo")) == []
    assert flag_isolated_refinements(_run("LLLLLLLLLLLLLLLLL")) == []
    # neighbours flagged for another reason: no evidence about the view's lines
    assert flag_isolated_refinements(_run("FFFFFFFFLFFFFFFFF")) == []


def test_neighbours_across_a_cut_or_of_another_reference_do_not_count():
    recs = _run("WWWWWWWWLooooooo", cuts=(9,))  # the weak frames before, too few after
    assert flag_isolated_refinements(recs) == [8]
    recs = _run("WWWLoooooooooooo", cuts=(3,))  # its shot is the good frames after
    assert flag_isolated_refinements(recs) == []
    recs = _run("WWWWWWWWLWWWWWWWW")
    for r in recs[: 8 - 2]:  # most of its neighbours belong to another reference's frames
        r["reference"] = 40
    for r in recs[9 + 2 :]:
        r["reference"] = 40
    assert flag_isolated_refinements(recs) == []  # 4 neighbours: too few to judge


def test_a_short_shot_is_not_judged():
    assert flag_isolated_refinements(_run("WWWLW")) == []
    assert ISOLATION_SPAN == 6


def test_applied_again_as_a_resumed_run_does_it_flags_nothing_more():
    """Frames it flagged still count as left ok for their neighbours: random runs of weak and
    refined frames, flagged twice, the second time nothing."""
    import random

    rng = random.Random(4)
    flagged_any = 0
    for _ in range(300):
        recs = _run("".join(rng.choice("WWWWL") for _ in range(40)))
        first = flag_isolated_refinements(recs)
        flagged_any += bool(first)
        assert flag_isolated_refinements(recs) == []
    assert flagged_any > 100

"""The one rule for new player ids (courtstudio.io.player_ids), and the document's use of it."""

import pytest

from courtstudio.io.player_ids import new_player_ids
from courtstudio.io.project_paths import PLAYER_ID_LIMIT


def test_new_ids_go_above_every_id_in_the_frame():
    assert new_player_ids([]) == [1]
    assert new_player_ids([], 3) == [1, 2, 3]
    # a gap (player 2 lives in another frame) is never reused
    assert new_player_ids([1, 3]) == [4]
    assert new_player_ids(iter([5, 1]), 2) == [6, 7]
    assert new_player_ids([1, 2], 0) == []


def test_new_ids_stay_within_what_the_annotation_file_accepts():
    # ids above the limit would make a file the loader refuses: fall back to the free ids
    assert new_player_ids([1, PLAYER_ID_LIMIT]) == [2]
    assert new_player_ids([PLAYER_ID_LIMIT - 1], 2) == [1, 2]
    assert new_player_ids([PLAYER_ID_LIMIT - 2], 2) == [PLAYER_ID_LIMIT - 1, PLAYER_ID_LIMIT]
    with pytest.raises(ValueError, match="no room"):
        new_player_ids(range(2, PLAYER_ID_LIMIT + 1), 2)
    with pytest.raises(ValueError, match="count"):
        new_player_ids([], -1)


def test_the_canvas_and_the_bulk_paths_share_the_rule(project):
    from courtstudio.editing.document import AnnotationDocument

    doc = AnnotationDocument(project)
    fid = doc.current_frame.id
    for p in list(doc.annotation(fid).players):
        doc.remove_player(fid, p.id)
    doc.set_player_box(fid, 1, (10, 10, 40, 90))
    doc.set_player_box(fid, 3, (50, 10, 80, 90))
    assert doc.next_player_id() == 4  # the canvas's new box: not the gap at 2
    assert doc.add_players(fid, [(100, 10, 130, 90), (140, 10, 170, 90)]) == [4, 5]
    assert doc.next_player_id() == 6

"""The court panel shows the doctor's painted-line check: each click's distance to the
crossing of the painted lines found near it, and why a click is a suspect."""

import numpy as np


def paint_column(window) -> dict[str, str]:
    table = window.court_panel.table
    assert table.horizontalHeaderItem(3).text() == "paint px"
    return {table.item(r, 0).text(): table.item(r, 3).text() for r in range(table.rowCount())}


def test_a_click_off_its_painted_crossing_is_shown_with_its_distance(window, sample_root):
    window.open_project(sample_root, recover=False)
    window.finish_deferred()
    fid = window.doc.current_frame.id
    assert window.doc.current_frame.sport == "tennis"
    clean = paint_column(window)
    # the sample's clicks lie on the rendered lines: within a pixel where a line was found
    found = {n: float(t) for n, t in clean.items() if t != "-"}
    assert len(found) >= 3 and max(found.values()) < 1.5
    assert clean["net_post_left_top"] == "-"  # a net post is on no painted line
    u, v = window.doc.annotation(fid).points["near_right_corner"]
    window.doc.set_keypoint(fid, "near_right_corner", (u + 10.0, v - 7.0))
    window.finish_deferred()
    moved = paint_column(window)
    assert abs(float(moved["near_right_corner"]) - np.hypot(10.0, 7.0)) < 1.5
    text = window.court_panel.suggestion.text()
    assert text.startswith("Suspect click: near_right_corner (")
    assert "px off its painted lines" in text

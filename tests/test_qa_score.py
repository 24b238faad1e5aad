"""The CourtSI-Bench scorer: the published example figures, parsing rules and edge cases."""

import json
from pathlib import Path

import pytest

from courtstudio.cli import main
from qa.score import extract_answer, mra, parse_answer, score_item, score_items

EXAMPLE = Path(__file__).parent / "data" / "courtsi_example"


def test_published_example_figures_exactly():
    items = json.loads((EXAMPLE / "example_output.json").read_text())
    published = json.loads((EXAMPLE / "example_evaluation.json").read_text())
    report = score_items(items)
    assert set(report.to_dict()) == set(published)
    for key, value in published.items():
        assert report.to_dict()[key] == pytest.approx(value, abs=1e-9), key
    assert round(report.overall, 2) == 61.22
    per_item = json.loads((EXAMPLE / "example_pred_qa.json").read_text())
    assert [float(x["score"]) for x in per_item] == pytest.approx(report.item_scores, abs=1e-12)


def test_cli_prints_published_figures(capsys):
    assert main(["qa", "score", str(EXAMPLE / "example_output.json")]) == 0
    out = capsys.readouterr().out
    assert "overall" in out and "61.22" in out
    assert "7.88" in out and "100.00" in out  # localization, spatial_counting_player
    assert main(["qa", "score", str(EXAMPLE / "example_output.json"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert round(d["relational_reasoning_player_line"], 2) == 68.48
    assert d["n_items"] == 3686


def test_parsing_rules():
    assert parse_answer("3.25") == 3.25
    assert parse_answer(" 2 ") == 2.0
    assert parse_answer("(B)") == "B" and parse_answer(" C") == "C"
    assert parse_answer("(1.0, -2.5, 0.3)") == (1.0, -2.5, 0.3)
    with pytest.raises(ValueError):
        parse_answer("(1.0,-2.5,0.3)")  # the protocol wants ", " separators
    with pytest.raises(ValueError):
        parse_answer("E")
    with pytest.raises(ValueError):
        parse_answer("(1, 2)")


def test_mra_thresholds_and_allowance():
    assert mra(10.0, 10.0) == 1.0
    assert mra(10.15, 10.0) == 1.0  # inside the 0.15 m allowance
    # |e| - 0.15 = 1.25 -> rel 0.125 < 1 - theta for theta in 0.50..0.85 (8 of 10)
    assert mra(11.40, 10.0) == pytest.approx(0.8)
    assert mra(20.0, 10.0) == 0.0  # rel 0.985 passes no threshold
    assert mra(0.03, 0.04) == 1.0  # small heights: the allowance dominates


def test_type_mismatch_counting_and_localization():
    assert score_item("A", "1.0", "relational_reasoning_player_line") == 0.0
    assert score_item("3", "3.0", "spatial_counting_player") == 1.0
    assert score_item("3", "4", "spatial_counting_player") == 0.0  # exact, not MRA
    assert score_item("3", "3.3", "distance_measurement_height") == 1.0  # MRA elsewhere
    assert score_item("(1.00, 2.00, 0.50)", "(1.20, 2.10, 0.55)", "localization") == 1.0
    assert score_item("(1.00, 2.00, 0.50)", "(1.30, 2.00, 0.50)", "localization") == 0.0
    assert score_item("B", None, "x") == 0.0
    assert score_item("B", "I think (B)", "x") == 0.0  # free text: only with --extract


def test_extract_free_form():
    assert extract_answer("The answer is (B).", "A") == "B"
    assert extract_answer("About 3.4 metres, maybe 3.5 m", "3.10") == "3.5"
    assert extract_answer("Position: (1.2,3.4, 0.0)", "(1.00, 2.00, 0.50)") == "(1.2, 3.4, 0.0)"


def test_cli_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"answer": "zz", "vlm_answer": "A", "category": "x"}]')
    assert main(["qa", "score", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "item 0" in err
    bad.write_text("{not json")
    assert main(["qa", "score", str(bad)]) == 2
    assert main(["qa", "score", str(tmp_path / "missing.json")]) == 2
    bad.write_text('[{"answer": "A", "category": "x"}]')
    assert main(["qa", "score", str(bad)]) == 2

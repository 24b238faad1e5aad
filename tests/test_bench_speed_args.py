"""The speed bench's command line (bench/propagation.py speed [LENGTHS [HEIGHTS]])."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import propagation as bench  # noqa: E402


def test_speed_arguments_default_to_the_three_lengths_at_both_sizes():
    assert bench.speed_arguments([]) == ((150, 300, 600), ((1280, 720), (1920, 1080)))


def test_speed_arguments_pick_lengths_and_sizes():
    assert bench.speed_arguments(["2400"]) == ((2400,), ((1280, 720), (1920, 1080)))
    assert bench.speed_arguments(["300,2400", "720"]) == ((300, 2400), ((1280, 720),))
    assert bench.speed_arguments(["600", "1080,720"]) == ((600,), ((1920, 1080), (1280, 720)))


@pytest.mark.parametrize("argv", [["1"], ["600", "480"], ["600", "tall"], ["many"]])
def test_speed_arguments_refuse_what_the_bench_cannot_run(argv):
    with pytest.raises(SystemExit, match="speed:"):
        bench.speed_arguments(argv)


def test_a_speed_row_is_divided_by_the_median_of_its_plain_decodes(monkeypatch):
    times = iter([(0.81, 0.80), (0.64, 0.66), (0.70, 0.71)])
    monkeypatch.setattr(bench, "_decode_seconds", lambda path: next(times))
    assert bench.decode_median("clip.avi", 3) == (0.70, 0.71, 0.64, 0.81)
    monkeypatch.setattr(bench, "_decode_seconds", lambda path: (0.5, 0.4))
    assert bench.decode_median("clip.avi", 1) == (0.5, 0.4, 0.5, 0.5)

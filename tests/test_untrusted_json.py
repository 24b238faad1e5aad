"""The strict JSON reader: regular files only, size, depth and number limits, field paths."""

from __future__ import annotations

import os
import threading

import pytest

from safe_io.validation import (
    MAX_JSON_DEPTH,
    check_finite_array,
    iter_file_lines,
    read_file_bytes,
    read_json_file,
)


class Bad(ValueError):
    pass


def _write(tmp_path, text, name="x.json"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_valid_json_round_trips(tmp_path):
    p = _write(tmp_path, '{"a": [1, 2.5, -3e2, {"b": null}], "s": "[[[[{{"}')
    assert read_json_file(p, Bad) == {"a": [1, 2.5, -300.0, {"b": None}], "s": "[[[[{{"}


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_are_refused_with_the_field_path(tmp_path, literal):
    p = _write(tmp_path, '{"players": [{"id": 1}, {"box_xyxy": [0, 1, %s, 3]}]}' % literal)
    with pytest.raises(Bad, match=r"x\.json: field players\[1\]\.box_xyxy\[2\]"):
        read_json_file(p, Bad)


def test_huge_integers_are_refused(tmp_path):
    p = _write(tmp_path, '{"image_size": [%s, 5]}' % ("9" * 400))
    with pytest.raises(Bad, match=r"field image_size\[0\]: integer of 400 digits"):
        read_json_file(p, Bad)
    p = _write(tmp_path, '{"v": 1e300}')
    with pytest.raises(Bad, match=r"field v: magnitude"):
        read_json_file(p, Bad)


def test_deep_nesting_is_refused_without_recursion(tmp_path):
    for depth in (MAX_JSON_DEPTH + 1, 100_000):
        p = _write(tmp_path, "[" * depth + "]" * depth)
        with pytest.raises(Bad, match="nested deeper"):
            read_json_file(p, Bad)
    ok = _write(tmp_path, "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    assert read_json_file(ok, Bad) is not None


def test_size_limit(tmp_path):
    p = _write(tmp_path, '{"a": "' + "x" * 2000 + '"}')
    with pytest.raises(Bad, match="larger than the 1000 bytes limit"):
        read_json_file(p, Bad, max_bytes=1000)
    assert read_json_file(p, Bad, max_bytes=3000)["a"] == "x" * 2000


def test_devices_fifos_and_folders_are_refused_without_reading(tmp_path):
    with pytest.raises(Bad, match="not a regular file"):
        read_json_file("/dev/zero", Bad)
    with pytest.raises(Bad, match="is a folder"):
        read_json_file(tmp_path, Bad)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = {}

    def run():
        try:
            read_json_file(fifo, Bad)
        except Bad as exc:
            result["err"] = str(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(5)
    if t.is_alive():  # unblock the hung reader so the test process can exit
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("reading a FIFO blocked")
    assert "not a regular file" in result["err"]


def test_not_utf8_and_not_json(tmp_path):
    p = tmp_path / "b.json"
    p.write_bytes(b'{"a": "\xff\xfe"}')
    with pytest.raises(Bad, match="not UTF-8"):
        read_json_file(p, Bad)
    with pytest.raises(Bad, match=r"not valid JSON \(line 2"):
        read_json_file(_write(tmp_path, '{\n"a": }'), Bad)
    with pytest.raises(Bad, match="no such"):
        read_json_file(tmp_path / "missing.json", Bad)


def test_read_file_bytes_limit(tmp_path):
    p = tmp_path / "b.bin"
    p.write_bytes(b"x" * 10)
    assert read_file_bytes(p, 10, Bad) == b"x" * 10
    with pytest.raises(Bad, match="larger than"):
        read_file_bytes(p, 9, Bad)


def test_iter_file_lines_streams_what_read_file_bytes_reads(tmp_path):
    p = tmp_path / "l.jsonl"
    long = b"y" * (3 << 20)  # a line over three of the reader's 1 MiB chunks
    data = b"a\n\n" + long + b"\nlast without newline"
    p.write_bytes(data)
    lines = list(iter_file_lines(p, len(data), Bad))
    assert lines == [b"a\n", b"\n", long + b"\n", b"last without newline"]
    assert b"".join(lines) == read_file_bytes(p, len(data), Bad)
    with pytest.raises(Bad, match="larger than"):
        list(iter_file_lines(p, len(data) - 1, Bad))
    p.write_bytes(b"")
    assert list(iter_file_lines(p, 10, Bad)) == []
    with pytest.raises(Bad, match="no such|not"):
        list(iter_file_lines(tmp_path / "missing", 10, Bad))
    with pytest.raises(Bad):
        list(iter_file_lines(tmp_path, 10, Bad))  # a folder is not a regular file


def test_check_finite_array():
    assert check_finite_array([[1, 2, 3]], "w", Bad, (None, 3)).shape == (1, 3)
    with pytest.raises(Bad, match=r"w: expected shape \(N, 3\)"):
        check_finite_array([1, 2, 3], "w", Bad, (None, 3))
    with pytest.raises(Bad, match="w: non-finite"):
        check_finite_array([float("nan")], "w", Bad)
    with pytest.raises(Bad, match="w: magnitude above the 10000 limit"):
        check_finite_array([2e4], "w", Bad, max_abs=1e4)
    with pytest.raises(Bad, match="w: expected numbers"):
        check_finite_array(["a"], "w", Bad)

"""A run's records kept in cameras.jsonl with frame -> line offsets (courtstudio/pipeline/
propagation_store.py): what propagate reads back is what it wrote, a kill's cut line does not
swallow the next record, and keep_records=False gives the same file with one shot in memory."""

import json
import pickle

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.propagate import Reference, iter_records, propagate, summary
from courtstudio.pipeline.propagation_store import (
    LightView,
    RecordIndex,
    RecordWriter,
    open_index,
)
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip
from tests.propagation_clips import reference_clicks

MAX = 1 << 20


def _rec(i, status="ok", **kw):
    return {"frame": i, "status": status, "rms_px": 0.25 + i / 8, "reference": 0, **kw}


def test_what_is_appended_is_read_back_and_a_later_line_wins(tmp_path):
    path = tmp_path / "cameras.jsonl"
    index = RecordIndex(path, 5)
    with RecordWriter(index) as w:
        w.append(_rec(0, "reference"))
        w.append(_rec(1, cut=True))
        w.append(_rec(2, "flagged", reason="no reference in this shot", reference=None))
        w.append(_rec(1, "flagged", reason="registration failed (x)"))  # a retry's record
        w.append(_rec(9))  # not a frame of this clip: not indexed
    assert len(index) == 3 and 1 in index and 3 not in index and 9 not in index
    assert list(index.frames()) == [0, 1, 2]
    assert index[1] == _rec(1, "flagged", reason="registration failed (x)")
    assert index.get(3) is None and index.get(3, {}) == {}
    with pytest.raises(KeyError):
        index[4]
    assert index.light(2) == {
        "status": "flagged",
        "reference": None,
        "cut": False,
        "reason": "no reference",
    }
    assert index.light(1)["cut"] is False and index.light(1)["reason"] == ""
    assert LightView(index).get(4, {}) == {} and LightView(index)[0]["status"] == "reference"
    # the same file read as a resumed run reads it
    again = open_index(path, 5, MAX)
    assert [again[i] for i in again.frames()] == [index[i] for i in index.frames()]
    index.close()
    again.close()


def test_a_line_cut_by_a_kill_is_ended_so_the_next_record_is_kept(tmp_path):
    path = tmp_path / "cameras.jsonl"
    path.write_text(json.dumps(_rec(0)) + "\n" + json.dumps(_rec(1))[:17])  # killed mid-line
    problems: list = []
    index = open_index(path, 4, MAX, problems)
    assert list(index.frames()) == [0] and len(problems) == 1
    with RecordWriter(index) as w:
        w.append(_rec(1))
        w.append(_rec(2))
    assert index[1] == _rec(1) and index[2] == _rec(2)
    reread = open_index(path, 4, MAX)
    assert list(reread.frames()) == [0, 1, 2]
    index.close()
    reread.close()


def test_invalid_records_are_skipped_and_named(tmp_path):
    path = tmp_path / "cameras.jsonl"
    lines = [json.dumps(_rec(0)), '{"frame": -3, "status": "ok"}', "[1, 2]", json.dumps(_rec(1))]
    path.write_text("\n".join(lines) + "\n")
    problems: list = []
    index = open_index(path, 3, MAX, problems)
    assert list(index.frames()) == [0, 1] and len(problems) == 2
    assert "frame" in problems[0]
    index.close()


def test_copies_restrict_frames_and_survive_pickling_into_a_worker(tmp_path):
    path = tmp_path / "cameras.jsonl"
    index = RecordIndex(path, 6)
    with RecordWriter(index) as w:
        for i in range(6):
            w.append(_rec(i))
    assert list(index.without(2, 4).frames()) == [0, 1, 4, 5]
    assert list(index.within(1, 3).frames()) == [1, 2]
    assert list(index.within(-1, 2).frames()) == [0, 1]
    index[0]  # opens the reader
    sent = pickle.loads(pickle.dumps(index.within(2, 5)))
    assert sent[3] == _rec(3) and 1 not in sent
    sent.close()
    index.close()


def test_a_record_changed_under_the_run_is_an_error_not_a_wrong_record(tmp_path):
    path = tmp_path / "cameras.jsonl"
    index = RecordIndex(path, 3)
    with RecordWriter(index) as w:
        w.append(_rec(0))
        w.append(_rec(1))
    path.write_text(json.dumps(_rec(1)) + "\n" + json.dumps(_rec(0)) + "\n")  # same lengths
    with pytest.raises(ValueError, match="changed under the run"):
        index[0]
    index.close()


def test_keep_records_false_writes_the_same_file_and_the_summary_streams(tmp_path):
    spec = load_spec("tennis")
    clip = make_clip(spec, 30, (960, 540), seed=3, cut_at=(18,), cut_length=4)
    cam0 = clip.cameras[0]
    refs = [Reference(0, reference_clicks(spec, cam0))]
    kept = propagate(ClipFrames(clip), spec, refs, tmp_path / "a")
    assert propagate(ClipFrames(clip), spec, refs, tmp_path / "b", keep_records=False) is None
    a = (tmp_path / "a" / "cameras.jsonl").read_text()
    assert a == (tmp_path / "b" / "cameras.jsonl").read_text()
    assert [r["frame"] for r in kept] == list(range(30)) and len(a.splitlines()) == 30
    assert summary(iter_records(tmp_path / "b" / "cameras.jsonl")) == summary(kept)
    assert summary(kept)["cuts"] == [18, 22]
    assert np.all([json.loads(x) == r for x, r in zip(a.splitlines(), kept)])

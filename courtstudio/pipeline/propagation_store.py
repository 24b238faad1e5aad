"""A run's records kept where they are written: cameras.jsonl, with frame -> line offsets.

An hour of video is 108,000 records; held as dicts they took 4-8 KB each (a 1 GB process by
the end of an hour-long 720p run, BENCHMARKS.md "Tenth session"). The store keeps, per frame
of the clip, where its latest line starts and how long it is, and the few fields the run
decides with (status, reference, cut, a "no reference" reason): 22 bytes a frame. A record is
parsed from the file when it is asked for (the resumed frames, one shot at a time at the end).

Lines are appended and flushed one record at a time (a killed run keeps every record it
made); a later line for a frame replaces the earlier one, as in read_done. A file left by a
kill may end inside a line: the store ends that line first, so the next record starts a line
of its own (the cut line stays invalid and is skipped when read).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from courtstudio.pipeline.propagation_status import PropagationStatus as Status

_STATUS_CODES = {s.value: k for k, s in enumerate(Status)}
_STATUS_NAMES = [s.value for s in Status]
_NO_REFERENCE = "no reference"


class RecordIndex:
    """frame -> the latest record of that frame in a cameras.jsonl, for frames 0..n-1.

    offset, length (n,) int64 / int32: where the line is (-1: no record); status (n,) int8
    (PropagationStatus index), reference (n,) int64 (-1: none), cut (n,) bool, no_reference
    (n,) bool (its reason starts with "no reference"). Mapping-like reads: ``i in index``,
    ``index[i]`` / ``index.get(i)`` (the parsed record), ``len(index)``, ``index.frames()``.
    Picklable (a worker process reopens the file by path)."""

    def __init__(self, path: Path, n: int):
        self.path = Path(path)
        self.n = int(n)
        self.offset = np.full(self.n, -1, np.int64)
        self.length = np.zeros(self.n, np.int32)
        self.status = np.zeros(self.n, np.int8)
        self.reference = np.full(self.n, -1, np.int64)
        self.cut = np.zeros(self.n, bool)
        self.no_reference = np.zeros(self.n, bool)
        self._reader = None

    # -- building
    def note(self, d: dict, offset: int, length: int) -> None:
        """Record d (a valid record) is the line at offset (bytes, newline excluded)."""
        i = d["frame"]
        if not 0 <= i < self.n:
            return  # not a frame of this clip
        self.offset[i], self.length[i] = offset, length
        self.status[i] = _STATUS_CODES[d["status"]]
        ref = d.get("reference")
        self.reference[i] = -1 if ref is None else int(ref)
        self.cut[i] = bool(d.get("cut"))
        self.no_reference[i] = str(d.get("reason", "")).startswith(_NO_REFERENCE)

    def without(self, lo: int, hi: int) -> RecordIndex:
        """A copy that leaves frames lo..hi-1 out (the same file)."""
        out = self.copy()
        out.offset[lo:hi] = -1
        return out

    def within(self, lo: int, hi: int) -> RecordIndex:
        """A copy that keeps frames lo..hi-1 only (the same file)."""
        out = self.copy()
        out.offset[: max(0, lo)] = -1
        out.offset[hi:] = -1
        return out

    def copy(self) -> RecordIndex:
        out = RecordIndex(self.path, 0)
        out.n = self.n
        for k in ("offset", "length", "status", "reference", "cut", "no_reference"):
            setattr(out, k, getattr(self, k).copy())
        return out

    # -- reading
    def __contains__(self, i) -> bool:
        return isinstance(i, (int, np.integer)) and 0 <= i < self.n and self.offset[i] >= 0

    def __len__(self) -> int:
        return int(np.count_nonzero(self.offset >= 0))

    def frames(self) -> np.ndarray:
        """(M,) int64 frames that have a record, in order."""
        return np.flatnonzero(self.offset >= 0)

    def __getitem__(self, i: int) -> dict:
        if i not in self:
            raise KeyError(i)
        if self._reader is None:
            self._reader = open(self.path, "rb")
        self._reader.seek(int(self.offset[i]))
        try:
            d = json.loads(self._reader.read(int(self.length[i])))
        except ValueError:
            d = None
        if not isinstance(d, dict) or d.get("frame") != i:
            raise ValueError(f"{self.path}: the record of frame {i} changed under the run")
        return d

    def get(self, i: int, default=None):
        return self[i] if i in self else default

    def light(self, i: int) -> dict:
        """The fields the run decides with, without reading the file: {"status", "reference",
        "cut", "reason"} ({} when frame i has no record; reason "no reference" or "")."""
        if i not in self:
            return {}
        ref = int(self.reference[i])
        return {
            "status": _STATUS_NAMES[self.status[i]],
            "reference": None if ref < 0 else ref,
            "cut": bool(self.cut[i]),
            "reason": _NO_REFERENCE if self.no_reference[i] else "",
        }

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_reader"] = None
        return state


class LightView:
    """index.light as a read-only mapping (``.get(i, {})``, ``[i]``): what
    propagation_shots._shots and _misassigned read, for every frame, without parsing."""

    def __init__(self, index: RecordIndex):
        self.index = index

    def get(self, i, default=None):
        return self.index.light(i) if i in self.index else default

    def __getitem__(self, i):
        if i not in self.index:
            raise KeyError(i)
        return self.index.light(i)


def open_index(path: Path, n: int, max_bytes: int, problems: list | None = None) -> RecordIndex:
    """The index of an existing cameras.jsonl (every line checked as untrusted input, as
    propagation_records.read_done does; invalid lines skipped and, with ``problems``, listed);
    an empty one when there is no file. Ends a last line cut by a kill."""
    from courtstudio.pipeline.propagation_records import iter_jsonl_lines, valid_lines

    index = RecordIndex(path, n)
    if not path.exists() and not path.is_symlink():
        return index
    for d, start, length in valid_lines(path, iter_jsonl_lines(path, max_bytes), problems):
        index.note(d, start, length)
    with open(path, "r+b") as fh:  # a regular file: iter_jsonl_lines checked it
        size = fh.seek(0, 2)
        if size:
            fh.seek(size - 1)
            if fh.read(1) != b"\n":
                fh.write(b"\n")
    return index


class RecordWriter:
    """Appends records to cameras.jsonl (one line each, flushed) and keeps index up to date."""

    def __init__(self, index: RecordIndex):
        self.index = index
        self._fh = open(index.path, "ab")

    def append(self, d: dict) -> None:
        line = json.dumps(d).encode("utf-8")
        offset = self._fh.tell()
        self._fh.write(line + b"\n")
        self._fh.flush()
        self.index.note(d, offset, len(line))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

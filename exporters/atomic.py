"""Atomic file writes: write a temporary file beside the target, fsync, then os.replace.

A crash mid-save leaves the previous file intact; readers never see a half-written file.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def atomic_path(target, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; on success it replaces the target.

    For writers that want a file name (h5py, cv2.FileStorage, image encoders). ``suffix``
    defaults to the target's, since some writers choose the format by extension.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix or target.suffix,
                               dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_bytes_atomic(target, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(target, text: str) -> None:
    write_bytes_atomic(target, text.encode("utf-8"))


def write_json_atomic(target, obj) -> None:
    """JSON with 1-space indentation and a final newline, written atomically."""
    write_text_atomic(target, json.dumps(obj, indent=1, allow_nan=False) + "\n")

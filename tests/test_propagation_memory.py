"""A propagation pass's frames reuse heap memory (courtstudio.pipeline.propagation_memory): a
frame-sized block comes from malloc's heap rather than a fresh mapping, and freeing it keeps it
there for the next frame. Each case runs in a fresh interpreter (malloc's settings are the
process's)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from courtstudio.pipeline import propagation_memory

ROOT = Path(__file__).resolve().parents[1]
GLIBC = propagation_memory._glibc() is not None

_PROBE = textwrap.dedent(
    """
    import ctypes, json, os, sys
    sys.path.insert(0, {root!r})
    from courtstudio.pipeline.propagation_memory import reuse_frame_memory

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    applied = reuse_frame_memory() if {apply} else None
    frame = 6 * 1024 * 1024  # a 1080p BGR frame
    before = libc.mallinfo2()
    p = libc.malloc(frame)
    during = libc.mallinfo2()
    libc.free(p)
    after = libc.mallinfo2()
    print(json.dumps(dict(
        applied=applied,
        mapped=during.hblkhd - before.hblkhd,
        kept_free=after.fordblks,
        env={{k: os.environ.get(k) for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")}},
    )))
    """
)


def _probe(apply: bool, env=None) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in propagation_memory.ENVIRONMENT}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(root=str(ROOT), apply=apply)],
        check=True,
        capture_output=True,
        text=True,
        env={**clean, **(env or {})},
    ).stdout
    return json.loads(out)


@pytest.mark.skipif(not GLIBC, reason="malloc's thresholds are glibc's")
def test_a_frame_sized_block_comes_from_the_heap_and_stays_there():
    plain = _probe(False)
    assert plain["mapped"] >= 6 * 1024 * 1024  # glibc's default: a mapping of its own
    tuned = _probe(True)
    assert tuned["applied"] is True
    assert tuned["mapped"] == 0  # from the heap
    assert tuned["kept_free"] >= 6 * 1024 * 1024  # freed, and kept for the next frame
    want = str(propagation_memory.FRAME_HEAP_BYTES)
    assert tuned["env"] == {"MALLOC_MMAP_THRESHOLD_": want, "MALLOC_TRIM_THRESHOLD_": want}


@pytest.mark.skipif(not GLIBC, reason="malloc's thresholds are glibc's")
def test_a_users_own_malloc_settings_are_left_alone():
    own = _probe(True, {"MALLOC_TRIM_THRESHOLD_": "131072"})
    assert own["applied"] is False
    assert own["env"] == {"MALLOC_MMAP_THRESHOLD_": None, "MALLOC_TRIM_THRESHOLD_": "131072"}
    assert own["mapped"] >= 6 * 1024 * 1024


def test_the_propagation_and_app_commands_set_it_before_numpy_loads(tmp_path):
    """batch-propagate's and gui's process settings include it (and numpy is still
    unloaded when they run: one_blas_thread must come first)."""
    code = textwrap.dedent(
        f"""
        import json, os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from courtstudio.cli import build_parser
        seen = {{}}
        for argv in (["batch-propagate", "v.mp4", "--sport", "tennis", "--reference",
                      "0:r.json", "--out", "o"], ["gui", "--sample"]):
            args = build_parser().parse_args(argv)
            args.before_imports()
            seen[argv[0]] = [os.environ.get("MALLOC_TRIM_THRESHOLD_"), "numpy" in sys.modules]
            os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
            os.environ.pop("MALLOC_MMAP_THRESHOLD_", None)
        print(json.dumps(seen))
        """
    )
    clean = {k: v for k, v in os.environ.items() if k not in propagation_memory.ENVIRONMENT}
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=clean
    ).stdout
    seen = json.loads(out)
    want = str(propagation_memory.FRAME_HEAP_BYTES) if GLIBC else None
    assert seen == {"batch-propagate": [want, False], "gui": [want, False]}

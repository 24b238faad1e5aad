"""How a propagation pass's process takes memory for its frames (docs/propagation.md "Speed").

Every decoded frame is a new array of the same few megabytes (a 720p BGR frame is 2.7 MB), a
handful of them in flight. glibc's malloc serves blocks that large with mmap by default, or
from a heap whose free top it returns to the kernel once it exceeds a trim threshold. Its
thresholds adapt, yet in a pass (a decode thread and the pass allocating side by side) most
frames' pages were still mapped fresh and zeroed by the kernel, 660 page faults a 720p frame:
a 600-frame 720p run took 26-53 thousand minor page faults and 0.18-0.46 s of system time.

Below FRAME_HEAP_BYTES, reuse_frame_memory makes malloc take blocks from the heap and keep up
to that much free memory at its top, so the next frame reuses the last one's pages. On the
600-frame 720p run that leaves 20-22 thousand faults, about 0.1 s less system time and 3-6 MB
more peak memory. The wall was shorter in 16 of 20 alternating pairs, though by less than this
machine's noise in a single pair (BENCHMARKS.md "Twentieth session"). Records are unchanged:
only where the bytes live changes.
"""

from __future__ import annotations

import ctypes
import os
import sys

# below this, a block comes from the heap; this much freed memory stays at its top
FRAME_HEAP_BYTES = 64 * 1024 * 1024
_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
# the same settings for processes started from this one (glibc reads them at start-up)
ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def _glibc():
    """This process's C library when it is glibc (it has mallopt and says its version), else
    None (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the process's loaded symbols, the C library's among them
    except OSError:
        return None
    return libc if hasattr(libc, "gnu_get_libc_version") else None  # glibc's own


def reuse_frame_memory() -> bool:
    """Set malloc's mmap and trim thresholds to FRAME_HEAP_BYTES for this process (mallopt),
    and in the environment for the processes it starts (workers). A user's own
    MALLOC_MMAP_THRESHOLD_ or MALLOC_TRIM_THRESHOLD_ is left as it is, and so is malloc. True
    when this process's malloc was set; False elsewhere (not glibc, or the user's own
    settings)."""
    if any(name in os.environ for name in ENVIRONMENT):
        return False
    libc = _glibc()
    if libc is None:
        return False
    ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, FRAME_HEAP_BYTES)) and bool(
        libc.mallopt(_M_TRIM_THRESHOLD, FRAME_HEAP_BYTES)
    )
    if ok:
        for name in ENVIRONMENT:
            os.environ[name] = str(FRAME_HEAP_BYTES)
    return ok

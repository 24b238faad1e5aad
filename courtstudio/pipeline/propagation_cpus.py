"""How a propagation pass shares this machine's CPUs: whether it registers ahead on a thread of
its own, and how many threads FFmpeg's decoder gets (docs/propagation.md "Speed").

A pass runs its own threads: decoding, the scan (propagation_scan) and the pass itself, plus
registration ahead (propagation_ahead) where it has a core for it. Where those threads already
take turns on the same cores, anything more only adds hand-off work.
"""

from __future__ import annotations

import os

REGISTER_AHEAD_CPUS = 4  # a pass's threads: decoding, the scan, the pass, registration ahead


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def register_ahead_by_default(workers: int = 1) -> bool:
    """Whether a pass registers its next frames ahead unless told: when each of the workers
    passes has REGISTER_AHEAD_CPUS CPUs this process may run on. With fewer the threads take
    turns on the same cores, and on a 2-CPU machine running ahead measured no faster while
    the two Python threads' hand-offs of the GIL cost 5-10 % more CPU (BENCHMARKS.md "Ninth
    session")."""
    return usable_cpus() >= REGISTER_AHEAD_CPUS * max(1, workers)


def decoder_threads(workers: int = 1) -> int | None:
    """FFmpeg decoder threads for a pass's video (None: FFmpeg's own choice, a thread per
    CPU). One where each of the workers passes has fewer than REGISTER_AHEAD_CPUS CPUs: the
    pass decodes on a thread of its own beside its other work, so a decoder spread over
    more threads is not faster, only dearer. On a 2-CPU machine FFmpeg's two H.264 threads
    cost 4.1-7.0 CPU-ms a frame against one thread's 3.3-6.7 (720p-1080p), the same pixels
    (BENCHMARKS.md "Sixteenth session")."""
    return 1 if usable_cpus() < REGISTER_AHEAD_CPUS * max(1, workers) else None

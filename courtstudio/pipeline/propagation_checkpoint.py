"""The frame scan's state saved now and then (OUT/scan_state.npz), so that a resumed run need
not decode and scan every frame it has already done (docs/propagation.md, "Results").

A resumed run's scan must reach frame k in the state an unbroken run had there: the cut test
compares each frame with the one before, and the screen-fixed graphics detector has voted on
every pair so far. Without a saved state that means decoding frames 0..k-1 again: 2.4 ms a
720p frame, two minutes at the middle of an hour. The scan (propagation_scan.FrameScan) saves
its state every CHECKPOINT_EVERY frames of a run's single pass, or of each worker's range
(state_name): the detector's votes, its mask as it stands, the recent reduced frames it
compares, its counters, and frame k-1's reduced gray. A resumed run whose frames 0..k-1 (of
its pass) all have a record seeks to frame k-1, decodes it, and goes on from the saved state
only when that frame's reduced gray is the saved one bit for bit (a seek that lands
elsewhere, another video, or a changed file leaves the state unused, and the scan reads from
the pass's first frame as before). The cut flags of frames before k come from their records.

The file is untrusted input like every other in the output folder: a regular file of at most
MAX_STATE_BYTES, loaded without pickles, every array checked for dtype, shape and range; a
state that fails a check is not used (the run says why and reads from frame 0).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from safe_io.atomic import atomic_path
from safe_io.validation import read_file_bytes

CHECKPOINT_EVERY = 3000  # frames between two saves (at 720p about 4 MB, a few ms, each)
MAX_STATE_BYTES = 64 << 20  # a 1080p-wide reduced frame is 640 px wide: a state is ~4 MB
STATE_NAME = "scan_state.npz"  # a single pass's, or the first worker's


def state_name(lo: int) -> str:
    """The file name of the state of a pass that starts at frame lo (a worker's range)."""
    return STATE_NAME if lo == 0 else f"scan_state_from_{lo}.npz"


def remove_scan_states(out_dir: Path) -> None:
    """Remove every saved scan state of a run's output folder (the run has finished)."""
    for p in Path(out_dir).glob("scan_state*.npz"):
        p.unlink(missing_ok=True)


VERSION = 1


@dataclass
class ScanState:
    """The scan's state before frame ``frame`` (k): clip_frames (the clip's frame count);
    detect_graphics; prev_gray (h, w) uint8, frame k-1's reduced gray; history (L, h, w)
    uint8, the detector's recent frames, oldest first; observed, unchanged: its counters;
    frame_scale (reduced / full); and the detector (None before its first pair): votes,
    textured (h, w) float32, pairs, mask (h, w) uint8 or None, dirty."""

    frame: int
    clip_frames: int
    detect_graphics: bool
    prev_gray: np.ndarray
    history: np.ndarray
    observed: int
    unchanged: int
    frame_scale: float
    detector: dict | None


def save_scan_state(path: Path, state: ScanState) -> None:
    """Write state to path atomically (np.savez, no pickles)."""
    arrays = {
        "version": np.array(VERSION),
        "frame": np.array(state.frame),
        "clip_frames": np.array(state.clip_frames),
        "detect_graphics": np.array(state.detect_graphics),
        "prev_gray": state.prev_gray,
        "history": state.history,
        "observed": np.array(state.observed),
        "unchanged": np.array(state.unchanged),
        "frame_scale": np.array(state.frame_scale),
    }
    d = state.detector
    if d is not None:
        arrays |= {
            "votes": d["votes"],
            "textured": d["textured"],
            "pairs": np.array(d["pairs"]),
            "dirty": np.array(d["dirty"]),
        }
        if d["mask"] is not None:
            arrays["mask"] = d["mask"]
    with atomic_path(path, suffix=".npz") as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


class StateError(ValueError):
    """A saved scan state that cannot be used (the message says why)."""


def load_scan_state(path: Path, clip_frames: int, detect_graphics: bool) -> ScanState:
    """The state saved at path, checked as untrusted input and against this run (its clip's
    frame count, whether it detects graphics); StateError naming the problem otherwise."""
    raw = read_file_bytes(path, MAX_STATE_BYTES, StateError, "scan state")
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            if sum(i.file_size for i in z.infolist()) > MAX_STATE_BYTES:
                raise StateError(f"{path}: its arrays are larger than the limit")
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            a = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"{path}: not a scan state ({exc})") from None
    return _checked(path, a, clip_frames, detect_graphics)


def _int(path, a: dict, key: str, lo: int, hi: int) -> int:
    v = a.get(key)
    if v is None or v.shape != () or v.dtype.kind not in "iu" or not lo <= int(v) <= hi:
        raise StateError(f"{path}: '{key}' is missing or not an integer in {lo}..{hi}")
    return int(v)


def _image(path, a: dict, key: str, dtype, shape=None) -> np.ndarray:
    v = a.get(key)
    if v is None or v.dtype != dtype or (shape is not None and v.shape != shape):
        raise StateError(f"{path}: '{key}' is missing or not {np.dtype(dtype).name} {shape}")
    return v


def _checked(path, a: dict, clip_frames: int, detect_graphics: bool) -> ScanState:
    if _int(path, a, "version", 0, 1 << 30) != VERSION:
        raise StateError(f"{path}: another version of the scan state")
    n = _int(path, a, "clip_frames", 0, 1 << 40)
    if n != clip_frames:
        raise StateError(f"{path}: saved for a clip of {n} frames, this one has {clip_frames}")
    dg = a.get("detect_graphics")
    if dg is None or dg.shape != () or dg.dtype != bool or bool(dg) != detect_graphics:
        raise StateError(f"{path}: saved with other graphics detection")
    frame = _int(path, a, "frame", 1, clip_frames - 1)
    prev = a.get("prev_gray")
    if prev is None or prev.dtype != np.uint8 or prev.ndim != 2 or 0 in prev.shape:
        raise StateError(f"{path}: 'prev_gray' is missing or not a uint8 image")
    h, w = prev.shape
    hist = a.get("history")
    if hist is None or hist.dtype != np.uint8 or hist.ndim != 3 or hist.shape[1:] != (h, w):
        raise StateError(f"{path}: 'history' is missing or not uint8 (L, {h}, {w})")
    observed = _int(path, a, "observed", 0, frame)
    unchanged = _int(path, a, "unchanged", 0, frame)
    s = a.get("frame_scale")
    if s is None or s.shape != () or s.dtype.kind != "f" or not 0.0 < float(s) <= 1.0:
        raise StateError(f"{path}: 'frame_scale' is missing or not in (0, 1]")
    detector = None
    if "votes" in a:
        votes = _image(path, a, "votes", np.float32, (h, w))
        textured = _image(path, a, "textured", np.float32, (h, w))
        pairs = _int(path, a, "pairs", 0, frame)
        ok = np.isfinite(votes).all() and np.isfinite(textured).all()
        if not ok or votes.min() < 0 or (votes > textured).any() or textured.max() > pairs:
            raise StateError(f"{path}: the detector's votes are not counts of its pairs")
        dirty = a.get("dirty")
        if dirty is None or dirty.shape != () or dirty.dtype != bool:
            raise StateError(f"{path}: 'dirty' is missing or not a flag")
        mask = _image(path, a, "mask", np.uint8, (h, w)) if "mask" in a else None
        detector = {
            "votes": votes,
            "textured": textured,
            "pairs": pairs,
            "mask": mask,
            "dirty": bool(dirty),
        }
    return ScanState(frame, n, detect_graphics, prev, hist, observed, unchanged, float(s), detector)

"""What a propagation run tells its user, in words: the reference warnings and one frame's note.

The command line prints these after a run and the app shows them (the dialog after Frame >
Propagate, the Court panel of a propagated frame), so both say the same thing. Inputs are the
plain dicts of summary.json (``reference_quality``) and cameras.jsonl records.
"""

from __future__ import annotations

import math

from courtstudio.pipeline.propagation_status import PropagationStatus as Status


def _finite(v) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def reference_warnings(quality: list[dict], flag_px: float) -> list[str]:
    """One sentence per problem of each reference (summary.json ``reference_quality``): its
    clicks fit badly (RMS above flag_px), its clicks leave part of its picture uncertain
    (predicted 1-sigma above its weak_px), its lens could not be tested. [] when all are
    sound.

    >>> reference_warnings([{"frame": 3, "rms_px": 4.2}], flag_px=3.0)
    ['reference frame 3: its clicks fit to 4.2 px (check them)']
    >>> reference_warnings([{"frame": 3, "rms_px": 0.8, "lens": "clicks"}], flag_px=3.0)
    []
    """
    out = []
    for q in quality:
        frame = q.get("frame")
        rms = _finite(q.get("rms_px"))
        if rms is not None and rms > flag_px:
            out.append(f"reference frame {frame}: its clicks fit to {rms:.1f} px (check them)")
        weak = _weak_reference(q)
        if weak:
            out.append(weak)
        if q.get("lens") == "untested":
            out.append(
                f"reference frame {frame}: too few clicks to test a lens (6 needed) and its "
                "painted lines show none the clicks agree with: with a distorting lens, frames "
                "may be off where its clicks do not reach, unflagged; click 6 or more keypoints "
                "spread over the picture"
            )
    return out


def _weak_reference(q: dict) -> str:
    """The warning for a reference whose own clicks leave its picture uncertain (predicted_px
    above weak_px, or not determined at all: predicted_px null with keypoints to click), naming
    the keypoints whose clicks would pin it; "" when it is sound."""
    px, limit = _finite(q.get("predicted_px")), _finite(q.get("weak_px"))
    to_click = q.get("to_click") or []
    if not ((px is not None and limit is not None and px > limit) or (px is None and to_click)):
        return ""
    size = "beyond measure" if px is None else f"by {px:.0f} px"
    where = f" at {q['predicted_at']}" if q.get("predicted_at") else ""
    return (
        f"reference frame {q.get('frame')}: its clicks leave keypoints of its picture uncertain "
        f"{size} (1 sigma{where}; they nearly lie on one line or in one corner): its frames "
        "are flagged where their painted lines do not pin them"
        + (f"; click {', '.join(to_click)} to pin it" if to_click else "")
    )


def frame_note(record: dict) -> str:
    """One line on a propagated frame (a cameras.jsonl record) for the annotator reviewing
    it: its reference, status, keypoint RMS, line support, the predicted uncertainty of the
    keypoints in view, and why it is flagged.

    >>> print(frame_note({"frame": 7, "status": "ok", "reference": 0, "rms_px": 0.41,
    ...                   "line_support": 0.83, "predicted_px": 2.4}))
    propagated from frame 0 (ok, RMS 0.41 px, line support 0.83,
    keypoints in view within 2 px, 1 sigma)
    >>> frame_note({"frame": 8, "status": "flagged", "reference": 0, "rms_px": None,
    ...             "reason": "registration failed"})
    'propagated from frame 0 (flagged: registration failed)'
    """
    parts = [str(record.get("status", "?"))]
    rms = _finite(record.get("rms_px"))
    if rms is not None:
        parts.append(f"RMS {rms:.2f} px")
    support = _finite(record.get("line_support"))
    if support is not None:
        parts.append(f"line support {support:.2f}")
    predicted = _finite(record.get("predicted_px"))
    if predicted is not None:
        at = f" (worst at {record['predicted_at']})" if record.get("predicted_at") else ""
        parts.append(f"keypoints in view within {predicted:.0f} px, 1 sigma{at}")
    if record.get("status") == Status.FLAGGED and record.get("reason"):
        parts[0] += f": {record['reason']}"
    return f"propagated from frame {record.get('reference')} ({', '.join(parts)})"


def frame_ranges(frames: list[int]) -> str:
    """Frame numbers as runs: [3, 4, 5, 9] -> "3-5, 9".

    >>> frame_ranges([15, 8, 9, 10, 2])
    '2, 8-10, 15'
    """
    out: list[str] = []
    xs = sorted(set(frames))
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ", ".join(out)


def flagged_by_reason(records: list[dict]) -> list[tuple[str, list[int]]]:
    """The flagged frames of a run grouped by their reason, the most frequent reason first:
    [(reason, frames)]."""
    groups: dict[str, list[int]] = {}
    for r in records:
        if r.get("status") == Status.FLAGGED:
            groups.setdefault(str(r.get("reason", "")), []).append(int(r["frame"]))
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))

"""Whether a propagated frame's own evidence rejects its camera (docs/propagation.md, step 7).

Two tests, each on the frame's own evidence:

- Keypoint residual: the RMS of the reference's clicks, carried into the frame by its
  homography, about the frame's final camera (the line-refined one when the frame was refined
  on its painted lines), beyond the reference's own clicks' RMS, above ``flag_px``.
- Line support: below ``support_ratio`` of the reference's, when the reference's own lines
  are measurable (``min_line_samples``); too few line samples in view is flagged too.

The reference's own quality is reported once (summary.json ``reference_quality``), never as a
flag on the frames it reaches. What separates off frames from 1-5 px ones on the real clips'
hand-checked frames (and what does not) is measured by bench/flag_evidence.py (BENCHMARKS.md,
issue 11, "Flag evidence"): judging the residual on the point fit instead of the refined
camera removed four false alarms but also unflagged a frame about 9 px off, so it is not done.
"""

from __future__ import annotations

import math


def frame_problem(
    rms_px: float,
    ref_rms_px: float,
    evidence: dict,
    ref_evidence: dict,
    *,
    flag_px: float,
    support_ratio: float,
    min_line_samples: int,
) -> str:
    """Why this frame's own evidence rejects its camera ("" when it does not).

    rms_px: RMS px of the frame's transferred keypoints about its final camera; ref_rms_px:
    RMS px of the reference's clicks about its camera; evidence / ref_evidence:
    geometry.line_support.line_evidence of the frame's (final) camera and of the
    reference's ({"support": fraction 0..1, "samples": int, "residual_px": px}); flag_px:
    the residual margin (CLI --flag-px)."""
    excess = rms_px - ref_rms_px
    if excess > flag_px:
        return f"residual {rms_px:.1f} px ({excess:.1f} px above the reference's)"
    ref_support = ref_evidence["support"]
    if (
        ref_evidence["samples"] >= min_line_samples
        and math.isfinite(ref_support)
        and ref_support > 0
    ):
        if evidence["samples"] < min_line_samples:
            return "court lines out of view"
        if evidence["support"] < support_ratio * ref_support:
            return (
                f"court lines do not match the image (support {evidence['support']:.2f}, "
                f"reference {ref_support:.2f})"
            )
    return ""

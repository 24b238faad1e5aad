"""Whether a propagated frame's own evidence rejects its camera (docs/propagation.md, step 7).

Two tests, each on the frame's own evidence:

- Keypoint fit. The reference's clicks, carried into the frame by its homography, must fit one
  camera: their recalibration RMS beyond the reference's own clicks' RMS above ``flag_px``
  means the transfer (the registration) is inconsistent. The RMS judged is that of the
  *point fit*, before any refinement on the painted lines. A frame refined on its lines keeps
  the refined camera only when that raises its line support; the refined camera then departs
  from the transferred keypoints by design (they enter the refinement as clicks with 2 px or
  more of noise), so its distance from them measures how much the lines corrected the
  transfer, not how far the camera is off. On the real NYK-BOS clip every frame flagged for
  its residual (4.0-4.2 px, 3.2-3.5 px above the reference's) was a refined frame whose point
  fit was 1.1-1.4 px, and all four hand-checked ones were 1.2-3.5 px off at 720p (not off).
- Line support: below ``support_ratio`` of the reference's, when the reference's own lines
  are measurable (``min_line_samples``); too few line samples in view is flagged too.

The reference's own quality is reported once (summary.json ``reference_quality``), never as a
flag on the frames it reaches.
"""

from __future__ import annotations

import math


def frame_problem(
    fit_rms_px: float,
    ref_rms_px: float,
    evidence: dict,
    ref_evidence: dict,
    *,
    flag_px: float,
    support_ratio: float,
    min_line_samples: int,
) -> str:
    """Why this frame's own evidence rejects its camera ("" when it does not).

    fit_rms_px: RMS px of the frame's transferred keypoints about the camera fitted to them
    (before any line refinement); ref_rms_px: RMS px of the reference's clicks about its
    camera; evidence / ref_evidence: geometry.line_support.line_evidence of the frame's
    (final) camera and of the reference's ({"support": fraction 0..1, "samples": int,
    "residual_px": px}); flag_px: the keypoint-fit margin (CLI --flag-px)."""
    excess = fit_rms_px - ref_rms_px
    if excess > flag_px:
        return f"residual {fit_rms_px:.1f} px ({excess:.1f} px above the reference's)"
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

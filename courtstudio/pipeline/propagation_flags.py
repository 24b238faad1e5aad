"""Whether a propagated frame's own evidence rejects its camera (docs/propagation.md, step 7).

Three tests: two on the frame's own evidence, and one on how well its own keypoints
determine its camera, against its reference's:

- Keypoint residual: the RMS of the reference's clicks, carried into the frame by its
  homography, about the frame's final camera (the line-refined one when the frame was refined
  on its painted lines), beyond the reference's own clicks' RMS, above ``flag_px``.
- Line support: below ``support_ratio`` of the reference's, when the reference's own lines
  are measurable (``min_line_samples``); too few line samples in view is flagged too.
- Weak geometry: the camera its transferred keypoints fit is predicted (its covariance,
  geometry.fit_extrapolation) to be more than ``weak_px`` uncertain (1 sigma) at a court
  keypoint in the picture, and that prediction exceeds the reference's own (in the
  reference's picture) by more than ``flag_px``: the keypoints still in view nearly lie on
  one line, or the camera looks where the reference's clicks do not reach. Both predictions
  use the reference clicks' noise (the transferred keypoints carry it).

The reference's own quality is reported once (summary.json ``reference_quality``), never as a
flag on the frames it reaches (its own predicted uncertainty included: a reference whose
clicks leave part of its picture uncertain flags only the frames that are worse than it by
the residual margin). What separates off frames from 1-5 px ones on the real clips'
hand-checked frames (and what does not) is measured by bench/flag_evidence.py (BENCHMARKS.md,
issue 11, "Flag evidence"): judging the residual on the point fit instead of the refined
camera removed four false alarms but also unflagged a frame about 9 px off, so it is not done.
"""

from __future__ import annotations

import math

import numpy as np

from court_specs import CourtSpec

WEAK_GEOMETRY = "weak geometry"  # how weak_geometry's reasons begin


def plane_keypoints(spec: CourtSpec) -> np.ndarray:
    """(N, 3) float64, metres, world frame: the spec's keypoints on the court plane (the ones
    a camera's extrapolation is judged at)."""
    z = spec.plane_z()
    pts = [X for X in spec.keypoints.values() if abs(X[2] - z) < 1e-9]
    return np.array(pts, float).reshape(-1, 3)


def frame_problem(
    rms_px: float,
    ref_rms_px: float,
    evidence: dict,
    ref_evidence: dict,
    *,
    flag_px: float,
    support_ratio: float,
    min_line_samples: int,
    gain: float = math.nan,
    ref_gain: float = math.nan,
    noise_px: float = 0.0,
    weak_px: float = math.inf,
) -> str:
    """Why this frame's own evidence rejects its camera ("" when it does not).

    rms_px: RMS px of the frame's transferred keypoints about its final camera; ref_rms_px:
    RMS px of the reference's clicks about its camera; evidence / ref_evidence:
    geometry.line_support.line_evidence of the frame's (final) camera and of the
    reference's ({"support": fraction 0..1, "samples": int, "residual_px": px}); flag_px:
    the residual margin (CLI --flag-px). gain / ref_gain: geometry.fit_extrapolation's
    extrapolation gain (px per px) of the frame's point fit over the keypoints in its picture,
    and of the reference's calibration over those in the reference's picture (nan: not
    measured, no weak-geometry test); noise_px: the reference clicks' noise
    (geometry.fit_extrapolation.fit_noise_px of its calibration); weak_px: the predicted
    1-sigma above which a frame is flagged (the propagation passes the issue's "off"
    distance, 10 px at 1080p, scaled by the image height)."""
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
    return weak_geometry(gain, ref_gain, noise_px, flag_px=flag_px, weak_px=weak_px)


def weak_geometry(
    gain: float, ref_gain: float, noise_px: float, *, flag_px: float, weak_px: float
) -> str:
    """Why the frame's camera is too weakly determined by its transferred keypoints ("" when
    it is not, or when either gain is not finite). predicted = gain * noise_px (px, 1 sigma
    at the worst keypoint in view); flagged when above weak_px and above the reference's own
    prediction (ref_gain * noise_px) by more than flag_px and by more than the reference's
    prediction itself (twice as uncertain as the reference: the ratio does not depend on
    the noise estimate, which the 1 px floor overstates for precise clicks).

    >>> weak_geometry(61.0, 5.7, 1.0, flag_px=3.0, weak_px=6.7)
    'weak geometry: keypoints in view uncertain by 61 px (1 sigma; the reference 6 px)'
    >>> weak_geometry(7.0, 6.9, 2.0, flag_px=3.0, weak_px=6.7)  # as weak as the reference
    ''
    >>> weak_geometry(21.8, 16.3, 1.0, flag_px=3.0, weak_px=11.9)  # less than twice
    ''
    """
    if not (math.isfinite(gain) and math.isfinite(ref_gain)):
        return ""
    predicted, ref_predicted = gain * noise_px, ref_gain * noise_px
    if predicted > weak_px and predicted - ref_predicted > max(flag_px, ref_predicted):
        return (
            f"{WEAK_GEOMETRY}: keypoints in view uncertain by {predicted:.0f} px "
            f"(1 sigma; the reference {ref_predicted:.0f} px)"
        )
    return ""

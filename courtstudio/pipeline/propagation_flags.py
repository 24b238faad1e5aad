"""Whether a propagated frame's own evidence rejects its camera (docs/propagation.md, step 7).

Three tests: two on the frame's own evidence, and one on how well its own keypoints
determine its camera, against its reference's:

- Keypoint residual: the RMS of the reference's clicks, carried into the frame by its
  homography, about the frame's final camera (the line-refined one when the frame was refined
  on its painted lines), beyond the reference's own clicks' RMS, above ``flag_px``.
- Line support: below ``support_ratio`` of the reference's, when the reference's own lines
  are measurable (``min_line_samples``); too few line samples in view is flagged too.
- Weak geometry: the frame's final camera is predicted (the covariance of what it was fitted
  to: its transferred keypoints at the reference clicks' noise, its painted lines when it
  was refined on them, the reference's lens prior; courtstudio.pipeline.
  propagation_uncertainty) to be more than ``weak_px`` uncertain (1 sigma) at a court
  keypoint in the picture: the keypoints still in view nearly lie on one line, or the camera
  looks where neither they nor its painted lines reach.

The reference's own quality is reported once (summary.json ``reference_quality``: its
residual, line support and its own predicted uncertainty, with the keypoints that would pin
it), never as a flag on the frames it reaches; the weak-geometry test judges each frame on
its own prediction, not against its reference's. What separates off frames from 1-5 px
ones on the real clips' hand-checked frames (and what does not) is measured by
bench/flag_evidence.py (BENCHMARKS.md, issue 11, "Flag evidence"): judging the residual on
the point fit instead of the refined camera removed four false alarms but also unflagged a
frame about 9 px off, so it is not done.
"""

from __future__ import annotations

import math

import numpy as np

from court_specs import CourtSpec

WEAK_GEOMETRY = "weak geometry"  # how weak_geometry's reasons begin
RESIDUAL = "residual"  # how the keypoint residual test's reasons begin
LINES_OFF = "court lines do not match the image"  # ... and the line support test's
REGISTRATION_FAILED = "registration failed"  # ... and those of a frame no attempt registered


def plane_keypoints(spec: CourtSpec) -> np.ndarray:
    """(N, 3) float64, metres, world frame, read-only: the spec's keypoints on the court plane
    (the ones a camera's extrapolation is judged at), in the spec's order."""
    return _plane_of(spec)[1]


def plane_keypoint_names(spec: CourtSpec) -> tuple[str, ...]:
    """The names of plane_keypoints(spec), in its order."""
    return _plane_of(spec)[2]


_PLANE: dict[int, tuple[CourtSpec, np.ndarray, tuple[str, ...]]] = {}  # id(spec) -> ...


def _plane_of(spec: CourtSpec) -> tuple[CourtSpec, np.ndarray, tuple[str, ...]]:
    """(spec, its plane keypoints, their names), made once per spec object (a propagation asks
    for them on every frame; a spec's keypoints are not changed after loading)."""
    hit = _PLANE.get(id(spec))
    if hit is None or hit[0] is not spec:
        z = spec.plane_z()
        names = tuple(n for n, X in spec.keypoints.items() if abs(X[2] - z) < 1e-9)
        pts = np.array([spec.keypoints[n] for n in names], float).reshape(-1, 3)
        pts.flags.writeable = False
        if len(_PLANE) >= 32:  # a process sees a few specs; bounded all the same
            _PLANE.clear()
        hit = _PLANE[id(spec)] = (spec, pts, names)
    return hit


def frame_problem(
    rms_px: float,
    ref_rms_px: float,
    evidence: dict,
    ref_evidence: dict,
    *,
    flag_px: float,
    support_ratio: float,
    min_line_samples: int,
    predicted_px: float = math.nan,
    predicted_at: str | None = None,
    weak_px: float = math.inf,
) -> str:
    """Why this frame's own evidence rejects its camera ("" when it does not).

    rms_px: RMS px of the frame's transferred keypoints about its final camera; ref_rms_px:
    RMS px of the reference's clicks about its camera; evidence / ref_evidence:
    geometry.line_support.line_evidence of the frame's (final) camera and of the
    reference's ({"support": fraction 0..1, "samples": int, "residual_px": px}); flag_px:
    the residual margin (CLI --flag-px). predicted_px: the frame's camera's predicted 1-sigma
    px at its worst keypoint in view (courtstudio.pipeline.propagation_uncertainty.
    predicted_error; nan: not measured, no weak-geometry test), predicted_at: that keypoint;
    weak_px: the prediction above which a frame is flagged (the propagation passes the
    issue's "off" distance, 10 px at 1080p, scaled by the image height)."""
    excess = rms_px - ref_rms_px
    if excess > flag_px:
        return f"{RESIDUAL} {rms_px:.1f} px ({excess:.1f} px above the reference's)"
    ref_support = ref_evidence["support"]
    if (
        ref_evidence["samples"] >= min_line_samples
        and math.isfinite(ref_support)
        and ref_support > 0
    ):
        if evidence["samples"] < min_line_samples:
            return "court lines out of view"
        if evidence["support"] < support_ratio * ref_support:
            return f"{LINES_OFF} (support {evidence['support']:.2f}, reference {ref_support:.2f})"
    return weak_geometry(predicted_px, weak_px, predicted_at)


def weak_geometry(predicted_px: float, weak_px: float, at: str | None = None) -> str:
    """Why the frame's camera is too weakly determined by what it was fitted to ("" when it
    is not, or when predicted_px is nan): its predicted 1-sigma (px, at the worst keypoint
    in view, ``at``) above weak_px. The prediction is the frame's own (its keypoints, its
    painted lines when it was refined on them, the lens prior), so it is judged on its own:
    a reference no better than its frames does not excuse them (its quality is reported
    once, in summary.json ``reference_quality``).

    >>> weak_geometry(61.0, 6.7, "far_left_corner")
    'weak geometry: keypoints in view uncertain by 61 px (1 sigma, at far_left_corner)'
    >>> weak_geometry(float("inf"), 6.7)
    'weak geometry: keypoints in view not determined (1 sigma infinite)'
    >>> weak_geometry(5.0, 6.7)
    ''
    """
    if math.isnan(predicted_px) or not predicted_px > weak_px:
        return ""
    if math.isinf(predicted_px):
        return f"{WEAK_GEOMETRY}: keypoints in view not determined (1 sigma infinite)"
    where = f", at {at}" if at else ""
    return f"{WEAK_GEOMETRY}: keypoints in view uncertain by {predicted_px:.0f} px (1 sigma{where})"

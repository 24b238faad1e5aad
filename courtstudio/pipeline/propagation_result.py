"""One frame's propagation result (FrameCamera) and its JSON record (a cameras.jsonl line)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from geometry.camera import Camera


@dataclass
class FrameCamera:
    frame: int
    status: Status
    camera: Camera | None = None
    rms_px: float | None = None
    reason: str = ""
    reference: int | None = None
    H: np.ndarray | None = None  # reference -> frame
    cut: bool = False  # a shot cut just before this frame
    points: dict | None = None  # the keypoints it was calibrated from, px
    evidence: dict | None = None  # line_evidence of this frame's camera on this frame
    registration: dict | None = None
    # how well its camera is determined (propagation_flags.weak_geometry): {"extrapolation_gain":
    # px per px of its transferred keypoints alone, "predicted_px": 1-sigma px at the worst
    # keypoint in view from all it was fitted to (propagation_uncertainty), "predicted_at": it}
    uncertainty: dict | None = None
    lens: str | None = None  # "held": its reference's lens field held (geometry.held_lens)

    def to_json(self) -> dict:
        d = {
            "frame": self.frame,
            "status": self.status,
            "rms_px": None if self.rms_px is None else round(float(self.rms_px), 4),
        }
        if self.camera is not None:
            d.update(
                {
                    "K": self.camera.K.tolist(),
                    "R": self.camera.R.tolist(),
                    "t": self.camera.t.tolist(),
                    "image_size": list(self.camera.image_size),
                    "dist": self.camera.dist.tolist(),
                }
            )
        if self.reason:
            d["reason"] = self.reason
        if self.reference is not None:
            d["reference"] = self.reference
        if self.H is not None:
            d["H_from_reference"] = self.H.tolist()
        if self.cut:
            d["cut"] = True
        if self.points:
            d["points"] = {
                k: [round(float(v[0]), 3), round(float(v[1]), 3)] for k, v in self.points.items()
            }
        if self.evidence is not None:
            d["line_support"] = _num(self.evidence["support"])
            d["line_residual_px"] = _num(self.evidence["residual_px"])
        if self.registration:
            d["registration"] = self.registration
        if self.lens:
            d["lens"] = self.lens
        if self.uncertainty:
            d.update({k: v if isinstance(v, str) else _num(v) for k, v in self.uncertainty.items()})
        return d


def _num(x):
    return None if x is None or not np.isfinite(x) else round(float(x), 4)

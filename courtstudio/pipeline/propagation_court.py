"""Where the court lies in a propagation frame: its ground lines, the image region of the
court and its surround, and the zoom of a homography between views."""

from __future__ import annotations

import cv2
import numpy as np

from court_specs import CourtSpec
from geometry.camera import Camera
from geometry.plane_motion import Prepared, transfer_points
from geometry.projection import project_polygon


def zoom_of(H, size) -> float:
    """Linear magnification of the homography H (3, 3) over an image of size (w, h)."""
    w, h = size
    c = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    q = transfer_points(H, c)
    return float(np.sqrt(abs(cv2.contourArea(q.astype(np.float32))) / (w * h)))


def ground_lines(spec: CourtSpec) -> list:
    return [pl for pl in spec.lines.values() if np.all(np.abs(pl[:, 2] - spec.plane_z()) < 1e-9)]


def court_region(spec: CourtSpec, camera: Camera, p: Prepared, margin_m: float) -> np.ndarray:
    """Reduced uint8 mask: 255 inside the court rectangle grown by margin_m, as camera sees it."""
    z = spec.plane_z()
    L, W, m = spec.length_m, spec.width_m, margin_m
    quad = np.array([[-m, -m, z], [L + m, -m, z], [L + m, W + m, z], [-m, W + m, z]])
    uv = project_polygon(camera, quad)
    h, w = p.gray.shape[:2]
    out = np.zeros((h, w), np.uint8)
    if len(uv) >= 3:
        cv2.fillPoly(out, [np.round(uv * p.scale * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
    return out

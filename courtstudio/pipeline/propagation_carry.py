"""A weak frame's line refinement started from its neighbour's refined camera (docs/
propagation.md, step 7).

A weakly determined frame (its transferred keypoints leave it predicted beyond weak_px) is
refined on its painted lines from its point fit, which can lie 10-20 px off, so the search
shrinks over three radii (geometry.line_refine.SEARCH_PX): five ridge searches and three
robust fits, 60-100 ms a frame on a real NBA pan, where nearly every frame is weak. The
frame before it, refined on its own lines, is a better start: its camera, carried to this
frame by the two frames' registrations, lies within the registration's error (a fraction of
a pixel) of this frame's lines, and one search at the last radius finds them. The carried
camera only starts the refinement: the refined camera must pass every test a refinement
from the point fit passes, against the point fit (the keypoints within their noise, the line
support not lower and the inlier line RMS not higher than the point fit's), else the frame is
refined from its point fit as before. Measured against the carried start instead, the line
RMS test let a real NBA frame through 7.9 px off at a clicked keypoint: a start already on
the lines is no baseline (BENCHMARKS.md, seventh session).

Carrying: the painted lines' ground samples the neighbour's camera puts in its image are
moved by H inv(H_neighbour) (ground points: the homographies registration measured, in the
reference lens's ideal pixels when it has a lens) and the neighbour's camera model is
refitted to them (Levenberg-Marquardt from its own parameters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry.camera import Camera
from geometry.joint_covariance import lens_model
from geometry.levenberg_marquardt import refine
from geometry.line_ridges import line_samples
from geometry.pixel_lens import PixelLens
from geometry.plane_motion import transfer_points

CARRY_FRAMES = 2  # a camera refined this many frames away (or fewer) starts a refinement
CARRY_POINTS = 60  # ground samples the carried camera is fitted to (evenly thinned)
MIN_CARRY_POINTS = 12
CARRY_RMS_PX = 0.5  # a carry whose refit leaves more than this is not a camera's motion
CARRY_SAMPLES_PER_LINE = 30.0  # sample spacing: the longest line / this


@dataclass(frozen=True)
class LinedFrame:
    """A frame left ok with its camera refined on its own lines: frame index, H (3, 3) its
    reference -> frame homography (the reference lens's ideal pixels, raw pixels without a
    lens) and camera."""

    frame: int
    H: np.ndarray
    camera: Camera


def ground_samples(polylines) -> np.ndarray:
    """(S, 3) metres: samples along the painted ground polylines ((M, 3) metres each), the
    longest line / CARRY_SAMPLES_PER_LINE apart."""
    lines = [np.asarray(p, float) for p in polylines]
    if not lines:
        return np.zeros((0, 3))
    longest = max(float(np.sum(np.linalg.norm(np.diff(p, axis=0), axis=1))) for p in lines)
    return line_samples(lines, max(longest / CARRY_SAMPLES_PER_LINE, 0.05))[0]


def carried_camera(
    last: LinedFrame, H: np.ndarray, lens: PixelLens | None, samples_world: np.ndarray
) -> Camera | None:
    """last.camera carried to the frame whose reference -> frame homography is H (3, 3):
    fitted to the ground samples_world (S, 3) metres last.camera projects into its image,
    moved by H inv(last.H) (through lens's ideal pixels, or raw ones without a lens). None
    when fewer than MIN_CARRY_POINTS land in both images, the motion is singular, or the
    refit leaves more than CARRY_RMS_PX (a homography no camera motion explains)."""
    cam = last.camera
    w, h = cam.image_size
    try:
        G = np.asarray(H, float) @ np.linalg.inv(np.asarray(last.H, float))
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(G)) or abs(G[2, 2]) < 1e-12:
        return None
    uv0 = cam.project(samples_world)
    inside0 = np.all(np.isfinite(uv0), axis=1) & cam.in_image(uv0, 0.0)
    X, uv0 = samples_world[inside0], uv0[inside0]
    if len(X) < MIN_CARRY_POINTS:
        return None
    ideal = uv0 if lens is None else lens.undistort(uv0)
    moved = transfer_points(G / G[2, 2], ideal)
    uv1 = moved if lens is None else lens.distort(moved)
    inside1 = np.all(np.isfinite(uv1), axis=1) & cam.in_image(uv1, 0.0)
    X, uv1 = X[inside1], uv1[inside1]
    if len(X) < MIN_CARRY_POINTS:
        return None
    if len(X) > CARRY_POINTS:  # evenly thinned (the samples run along the lines in order)
        keep = np.linspace(0, len(X) - 1, CARRY_POINTS).astype(int)
        X, uv1 = X[keep], uv1[keep]
    model = lens_model(cam, None)  # the one-focal model of its own radial terms
    try:
        fit = refine(model, model.from_camera(cam), X, uv1, cam.image_size, max_iter=20)
        new = model.to_camera(fit.theta, cam.image_size)
    except (ValueError, np.linalg.LinAlgError):
        return None
    rms = float(np.sqrt(np.mean(np.sum(fit.residuals**2, axis=1))))
    if not rms <= CARRY_RMS_PX or not new.camera_centre_world[2] > 0:
        return None
    return new

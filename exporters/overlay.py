"""Calibration check overlays: the reprojected court and 3D net box drawn over the frame
(the CourtSI paper's calibration figure), clicks with residual vectors, and the ball tool."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from geometry.camera import Camera
from geometry.projection import project_polyline
from safe_io.atomic import atomic_path
from safe_io.images import read_image  # noqa: F401 - the overlay command's reader

SHIFT = 4  # cv2 fixed-point bits: sub-pixel accurate anti-aliased drawing
LINE_BGR = (60, 230, 255)
NET_BGR = (255, 120, 40)
CLICK_BGR = (0, 0, 255)
PROJ_BGR = (0, 255, 0)
BALL_BGR = (255, 0, 255)


MAX_DRAW_PX = 1e6  # coordinates are clipped here: far-off points still draw, int32 never wraps


def _pts(uv: np.ndarray) -> np.ndarray:
    uv = np.clip(np.nan_to_num(np.asarray(uv, float), nan=-MAX_DRAW_PX), -MAX_DRAW_PX, MAX_DRAW_PX)
    return np.round(uv * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)


def _thickness(image) -> int:
    return max(1, round(image.shape[1] / 960))


def draw_polyline_world(image, camera: Camera, points_world, bgr, thickness=None) -> None:
    for run in project_polyline(camera, points_world):
        cv2.polylines(
            image, [_pts(run)], False, bgr, thickness or _thickness(image), cv2.LINE_AA, SHIFT
        )


def draw_court(image: np.ndarray, camera: Camera, spec) -> np.ndarray:
    """Draw the spec's lines and the net box (posts, top through the centre height, bottom)."""
    for pl in spec.lines.values():
        draw_polyline_world(image, camera, pl, LINE_BGR)
    for pl in spec.net_box_world():
        draw_polyline_world(image, camera, pl, NET_BGR)
    return image


def draw_clicks(image: np.ndarray, camera: Camera, spec, clicks: dict, suspects=()) -> np.ndarray:
    """Each click (red cross) and its keypoint's reprojection (green dot); the residual is the
    gap between them. Suspect clicks are labelled."""
    th = _thickness(image)
    r = 6 * th
    for name, uv in clicks.items():
        uv = np.asarray(uv, float)
        proj = camera.project(np.asarray(spec.keypoints[name], float)[None])[0]
        c = _pts(uv)[0, 0]
        cv2.line(
            image,
            tuple(c - [r << SHIFT, 0]),
            tuple(c + [r << SHIFT, 0]),
            CLICK_BGR,
            th,
            cv2.LINE_AA,
            SHIFT,
        )
        cv2.line(
            image,
            tuple(c - [0, r << SHIFT]),
            tuple(c + [0, r << SHIFT]),
            CLICK_BGR,
            th,
            cv2.LINE_AA,
            SHIFT,
        )
        if np.all(np.isfinite(proj)):
            cv2.circle(
                image, tuple(_pts(proj)[0, 0]), 3 * th << SHIFT, PROJ_BGR, -1, cv2.LINE_AA, SHIFT
            )
        if name in suspects:
            cv2.putText(
                image,
                f"? {name}",
                tuple(int(v) for v in uv + [r + 4, -r]),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5 * th,
                CLICK_BGR,
                th,
                cv2.LINE_AA,
            )
    return image


def draw_ball(
    image: np.ndarray, projection_line_uv: np.ndarray, ball_uv, ground_uv=None
) -> np.ndarray:
    """The ball tool: its ground-projection line (M, 2) px, the ball and its ground point."""
    th = _thickness(image)
    if len(projection_line_uv) >= 2:
        cv2.polylines(image, [_pts(projection_line_uv)], False, BALL_BGR, th, cv2.LINE_AA, SHIFT)
    cv2.circle(
        image,
        tuple(_pts(np.asarray(ball_uv, float))[0, 0]),
        8 * th << SHIFT,
        BALL_BGR,
        th,
        cv2.LINE_AA,
        SHIFT,
    )
    if ground_uv is not None:
        g = _pts(np.asarray(ground_uv, float))[0, 0]
        b = _pts(np.asarray(ball_uv, float))[0, 0]
        cv2.circle(image, tuple(g), 4 * th << SHIFT, BALL_BGR, -1, cv2.LINE_AA, SHIFT)
        cv2.line(image, tuple(b), tuple(g), BALL_BGR, th, cv2.LINE_AA, SHIFT)
    return image


def write_image(path, image: np.ndarray) -> Path:
    path = Path(path)
    if not cv2.haveImageWriter(str(path)):
        raise ValueError(f"{path}: cannot write an image with this extension (use .png or .jpg)")
    with atomic_path(path) as tmp:
        if not cv2.imwrite(str(tmp), image):
            raise ValueError(f"{path}: cannot encode an image with this extension")
    return path

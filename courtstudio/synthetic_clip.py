"""Synthetic broadcast clips with known per-frame cameras (for propagation tests and bench).

The camera pans, tilts and zooms about a fixed centre, as broadcast cameras do. The ground
(a stable procedural texture, the court's colours and its painted lines at real widths) is
painted once in world coordinates and warped into every frame by the plane homography, so
features are real and stay put on the court. On top: the net, player-like occluders moving
on their own, and a static scoreboard graphic. Optional failures: cuts to another camera, and
heavily blurred frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.synthetic import sample_broadcast_camera
from geometry.camera import Camera
from geometry.projection import project_polygon

TEXTURE_M_PER_PX = 0.02


@dataclass
class Clip:
    frames: list  # (h, w, 3) uint8 BGR
    cameras: list  # Camera per frame (None inside an injected cut insert)
    cuts: list = field(default_factory=list)  # frames that start a new shot
    blurred: list = field(default_factory=list)


def ground_texture(spec: CourtSpec, rng, margin_m: float = 8.0):
    """(image, A) with A (3, 3) mapping world (x, y, 1) on the court plane to texture pixels."""
    L, W = spec.length_m, spec.width_m
    x0, y0 = -margin_m, -margin_m
    w = int((W + 2 * margin_m) / TEXTURE_M_PER_PX)
    h = int((L + 2 * margin_m) / TEXTURE_M_PER_PX)
    noise = rng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
    noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 1.2), (w, h))
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
    base = np.empty((h, w, 3), np.float32)
    base[:] = (80, 120, 70)
    # texture pixel (col, row) = (y - y0, x - x0) / s: far baseline at the top
    A = np.array([[0, 1 / TEXTURE_M_PER_PX, -y0 / TEXTURE_M_PER_PX],
                  [1 / TEXTURE_M_PER_PX, 0, -x0 / TEXTURE_M_PER_PX], [0, 0, 1.0]])

    def px(pts):
        P = np.c_[np.asarray(pts, float)[:, :2], np.ones(len(pts))] @ A.T
        return np.round(P[:, :2] * 4).astype(np.int32)
    cv2.fillPoly(base, [px([[0, 0], [L, 0], [L, W], [0, W]])], (130, 95, 60), cv2.LINE_AA, 2)
    img = base + 14 * noise[..., None] + 6 * fine[..., None]
    line_w = max(1, int(round(0.05 / TEXTURE_M_PER_PX)))
    for pl in spec.lines.values():
        if np.any(np.abs(pl[:, 2]) > 1e-9):
            continue
        cv2.polylines(img, [px(pl)], False, (235, 235, 235), line_w, cv2.LINE_AA, 2)
    return np.clip(img, 0, 255).astype(np.uint8), A


def rotate_camera(base: Camera, yaw: float, pitch: float, zoom: float) -> Camera:
    """The base camera panned by yaw, tilted by pitch (radians, about its own centre) and
    zoomed by the factor zoom."""
    cy, sy, cp, sp = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch)
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rx = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    R = Rx @ Ry @ base.R
    K = base.K.copy()
    K[0, 0] *= zoom
    K[1, 1] *= zoom
    C = base.camera_centre_world
    return Camera(K=K, R=R, t=-R @ C, image_size=base.image_size)


def render_view(spec, camera: Camera, texture, A, occluders, scoreboard: bool) -> np.ndarray:
    w, h = camera.image_size
    G = camera.K @ np.column_stack([camera.R[:, 0], camera.R[:, 1], camera.t])  # world plane
    img = cv2.warpPerspective(texture, G @ np.linalg.inv(A), (w, h), flags=cv2.INTER_LINEAR,
                              borderValue=(60, 60, 70))
    if spec.net is not None:
        left = np.asarray(spec.net["post_left_top"], float)
        right = np.asarray(spec.net["post_right_top"], float)
        quad = np.array([[left[0], left[1], 0], [right[0], right[1], 0], right, left])
        uv = project_polygon(camera, quad)
        if len(uv) >= 3:
            layer = img.copy()
            cv2.fillPoly(layer, [np.round(uv * 16).astype(np.int32)], (30, 30, 30),
                         cv2.LINE_AA, 4)
            img = cv2.addWeighted(layer, 0.45, img, 0.55, 0)
    for (u, v, a, b) in occluders:
        cv2.ellipse(img, (int(u), int(v)), (int(a), int(b)), 0, 0, 360, (40, 60, 200), -1,
                    cv2.LINE_AA)
    if scoreboard:
        cv2.rectangle(img, (20, 20), (20 + w // 5, 20 + h // 12), (20, 20, 20), -1)
        cv2.putText(img, "SET 1  4-3", (30, 20 + h // 16), cv2.FONT_HERSHEY_SIMPLEX,
                    h / 1000, (240, 240, 240), 2, cv2.LINE_AA)
    return img


def make_clip(spec: CourtSpec, n_frames: int = 300, size=(1280, 720), seed: int = 0,
              cut_at: tuple = (), cut_length: int = 20, blur_frames: tuple = (),
              occluders: int = 4, scoreboard: bool = True,
              pan_deg: float = 6.0, tilt_deg: float = 2.0, zoom: float = 0.15) -> Clip:
    """A clip of a pan/tilt/zoom path; ``cut_at`` frames start an insert of cut_length
    frames from another camera (so each insert makes two cuts)."""
    rng = np.random.default_rng(seed)
    base = sample_broadcast_camera(spec, size, rng, zoom=(0.75, 0.8))
    other = sample_broadcast_camera(spec, size, np.random.default_rng(seed + 99), zoom=(0.6, 0.7))
    texture, A = ground_texture(spec, rng)
    w, h = size
    occ = [[rng.uniform(0.2, 0.8) * w, rng.uniform(0.3, 0.9) * h, w / 60, h / 14,
            rng.normal(0, 3), rng.normal(0, 1)] for _ in range(occluders)]
    insert = set()
    cuts = []
    for c in cut_at:
        insert.update(range(c, min(n_frames, c + cut_length)))
        cuts += [c] + ([c + cut_length] if c + cut_length < n_frames else [])
    frames, cams = [], []
    for i in range(n_frames):
        s = i / max(1, n_frames - 1)
        cam = rotate_camera(base, np.deg2rad(pan_deg) * np.sin(2 * np.pi * s),
                            np.deg2rad(tilt_deg) * np.sin(np.pi * s),
                            1 + zoom * np.sin(3 * np.pi * s) ** 2)
        for o in occ:
            o[0] = (o[0] + o[4]) % w
            o[1] = float(np.clip(o[1] + o[5], 0.3 * h, 0.95 * h))
        view = other if i in insert else cam
        img = render_view(spec, view, texture, A, [o[:4] for o in occ], scoreboard)
        if i in blur_frames:
            k = np.zeros((41, 41), np.float32)
            k[20, :] = 1 / 41
            img = cv2.filter2D(img, -1, k)
        frames.append(img)
        cams.append(None if i in insert else cam)
    return Clip(frames, cams, sorted(cuts), sorted(blur_frames))


class ClipFrames:
    """A Clip as propagation input (the Frames protocol)."""

    def __init__(self, clip: Clip):
        self.clip = clip
        self.count = len(clip.frames)
        h, w = clip.frames[0].shape[:2]
        self.size = (w, h)

    def image(self, index: int) -> np.ndarray:
        return self.clip.frames[index]


def write_video(path, frames, fps: float = 25.0) -> None:
    """Write (h, w, 3) uint8 BGR frames as an MJPG .avi (readable by OpenCV everywhere)."""
    h, w = frames[0].shape[:2]
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    if not wr.isOpened():
        raise ValueError(f"{path}: cannot write a video here (use .avi)")
    for f in frames:
        wr.write(f)
    wr.release()

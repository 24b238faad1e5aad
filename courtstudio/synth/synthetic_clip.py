"""Synthetic broadcast clips with known per-frame cameras (for propagation tests and bench).

The camera pans, tilts and zooms about a fixed centre, as broadcast cameras do. The ground
(a stable procedural texture, the court's colours and its painted lines at real widths) is
painted once in world coordinates and warped into every frame by the plane homography, so
features are real and stay put on the court. On top: the net, player-like occluders moving
on their own, and a static scoreboard graphic. Optional failures: cuts to another camera, and
heavily blurred frames. Broadcast hazards (issue 11, Hazards): screen-fixed graphics (a channel
logo, a score bug, a running clock and a ticker: more than 8 % of the frame), low-texture
surfaces (clay, hard court), a textured crowd around the court, motion blur along the image
motion, JPEG compression, and zooms of 2x and more (zoom=1.0 doubles the focal length).

iter_clip yields one frame at a time and write_clip streams them to a video file, so a long
clip never sits in memory; make_clip collects a short one for tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.synth.synthetic import sample_broadcast_camera
from geometry.camera import Camera
from geometry.projection import project_polygon

TEXTURE_M_PER_PX = 0.02
# A tennis reference clicked on the near half only (the near baseline's five crossings and the
# near service line's centre): its clicks leave the far court to extrapolation, as real
# references clicked where the court is visible do, so its frames are weakly determined.
NEAR_HALF_TENNIS = (
    "near_left_corner",
    "near_baseline_left_singles",
    "near_baseline_centre",
    "near_baseline_right_singles",
    "near_right_corner",
    "near_service_centre",
)


@dataclass(frozen=True)
class Hazards:
    """graphics: screen-fixed logo, score bug, clock and ticker; surface: "grass" (the
    textured default), "clay" or "hard" (low texture); crowd: textured stands around the
    court; motion_blur: blur each frame along its image motion; jpeg_quality: 0 = none,
    else encode and decode every frame at this quality; lens_k1: radial distortion of the
    broadcast lens (OpenCV k1 at the first frame's focal length; < 0 barrel, > 0
    pincushion), a fixed field over the image, so a zoomed frame's camera has k1 scaled by
    its focal length squared. letterbox: (W, H) px, a canvas the picture (iter_clip's size)
    is centred in, black around it with static captions above and below, as phone re-uploads
    of broadcasts are (the real badminton clip: 720x1280); the frame's camera is the
    picture's, moved to the canvas (None: no canvas)."""

    graphics: bool = False
    surface: str = "grass"
    crowd: bool = False
    motion_blur: bool = False
    jpeg_quality: int = 0
    lens_k1: float = 0.0
    letterbox: tuple[int, int] | None = None


SURFACES = {  # (surround BGR, court BGR, coarse noise, fine noise)
    "grass": ((80, 120, 70), (130, 95, 60), 14.0, 6.0),
    "clay": ((60, 100, 170), (50, 90, 190), 3.0, 1.5),
    "hard": ((120, 100, 60), (150, 90, 40), 2.5, 1.5),
}


def graphics_boxes(size) -> list[tuple[int, int, int, int]]:
    """The screen-fixed graphics' boxes [x0, y0, x1, y1] (px) for an image size (w, h):
    clock, score bug, channel logo, ticker."""
    w, h = size
    return [
        (int(0.03 * w), int(0.04 * h), int(0.15 * w), int(0.11 * h)),
        (int(0.03 * w), int(0.72 * h), int(0.33 * w), int(0.86 * h)),
        (int(0.83 * w), int(0.04 * h), int(0.97 * w), int(0.18 * h)),
        (0, int(0.93 * h), w, h),
    ]


def draw_graphics(img: np.ndarray, frame: int, fps: float = 25.0) -> None:
    """Screen-fixed broadcast graphics, in place (the clock runs; the ticker is static)."""
    h, w = img.shape[:2]
    fs = h / 900
    (c0, c1, c2, c3) = graphics_boxes((w, h))
    cv2.rectangle(img, c0[:2], c0[2:], (25, 25, 25), -1)
    secs = 754 + int(frame / fps)
    cv2.putText(
        img,
        f"{secs // 60}:{secs % 60:02d}",
        (c0[0] + 8, c0[3] - 10),
        cv2.FONT_HERSHEY_SIMPLEX,
        1.3 * fs,
        (240, 240, 240),
        2,
        cv2.LINE_AA,
    )
    cv2.rectangle(img, c1[:2], c1[2:], (60, 30, 20), -1)
    for k, row in enumerate(("NADAL   6 4 15", "DJOKOVIC 3 4 30")):
        y = c1[1] + int((k + 0.7) * (c1[3] - c1[1]) / 2)
        cv2.putText(
            img,
            row,
            (c1[0] + 10, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            1.1 * fs,
            (255, 255, 255),
            2,
            cv2.LINE_AA,
        )
    cv2.rectangle(img, c2[:2], c2[2:], (200, 200, 200), -1)
    cx, cy = (c2[0] + c2[2]) // 2, (c2[1] + c2[3]) // 2
    for r in range(int(0.06 * h), 0, -int(0.012 * h) or -1):
        cv2.circle(
            img,
            (cx, cy),
            r,
            (30, 30, 160) if (r // max(1, int(0.012 * h))) % 2 else (230, 230, 230),
            -1,
            cv2.LINE_AA,
        )
    cv2.putText(
        img,
        "TV",
        (cx - int(0.02 * w), cy + int(0.015 * h)),
        cv2.FONT_HERSHEY_SIMPLEX,
        1.2 * fs,
        (10, 10, 10),
        3,
        cv2.LINE_AA,
    )
    cv2.rectangle(img, c3[:2], c3[2:], (120, 40, 20), -1)
    cv2.putText(
        img,
        "BREAKING: RAIN DELAY ON COURT 3  |  WEATHER 21C  |  NEXT MATCH 15:30",
        (10, c3[3] - int(0.015 * h)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.9 * fs,
        (255, 255, 255),
        2,
        cv2.LINE_AA,
    )


@dataclass
class Clip:
    frames: list  # (h, w, 3) uint8 BGR
    cameras: list  # Camera per frame (None inside an injected cut insert)
    cuts: list = field(default_factory=list)  # frames that start a new shot
    blurred: list = field(default_factory=list)


def ground_texture(
    spec: CourtSpec, rng, margin_m: float = 8.0, surface: str = "grass", crowd: bool = False
):
    """(image, A) with A (3, 3) mapping world (x, y, 1) on the court plane to texture pixels.
    surface: a SURFACES key; crowd: a high-contrast speckled band beyond 5 m of the court."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r} (one of {', '.join(SURFACES)})")
    surround, court, coarse, fine_amp = SURFACES[surface]
    L, W = spec.length_m, spec.width_m
    x0, y0 = -margin_m, -margin_m
    w = int((W + 2 * margin_m) / TEXTURE_M_PER_PX)
    h = int((L + 2 * margin_m) / TEXTURE_M_PER_PX)
    noise = rng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
    noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 1.2), (w, h))
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
    base = np.empty((h, w, 3), np.float32)
    base[:] = surround
    # texture pixel (col, row) = (y - y0, x - x0) / s: far baseline at the top
    A = np.array(
        [
            [0, 1 / TEXTURE_M_PER_PX, -y0 / TEXTURE_M_PER_PX],
            [1 / TEXTURE_M_PER_PX, 0, -x0 / TEXTURE_M_PER_PX],
            [0, 0, 1.0],
        ]
    )

    def px(pts):
        P = np.c_[np.asarray(pts, float)[:, :2], np.ones(len(pts))] @ A.T
        return np.round(P[:, :2] * 4).astype(np.int32)

    cv2.fillPoly(base, [px([[0, 0], [L, 0], [L, W], [0, W]])], court, cv2.LINE_AA, 2)
    # img = base + coarse * noise + fine_amp * fine, in place (the same float32 sums, in the
    # same order, without three full-size temporaries)
    img = base
    noise *= coarse
    img += noise[..., None]
    fine *= fine_amp
    img += fine[..., None]
    if crowd:
        inner = np.zeros((h, w), np.uint8)
        cv2.fillPoly(
            inner, [px([[-5, -5], [L + 5, -5], [L + 5, W + 5], [-5, W + 5]])], 1, cv2.LINE_8, 2
        )
        people = cv2.resize(
            rng.uniform(0, 255, (h // 6 + 1, w // 6 + 1, 3)).astype(np.float32),
            (w, h),
            interpolation=cv2.INTER_NEAREST,
        )
        img = np.where(inner[..., None] > 0, img, people)
    line_w = max(1, int(round(0.05 / TEXTURE_M_PER_PX)))
    for pl in spec.lines.values():
        if np.any(np.abs(pl[:, 2]) > 1e-9):
            continue
        cv2.polylines(img, [px(pl)], False, (235, 235, 235), line_w, cv2.LINE_AA, 2)
    np.clip(img, 0, 255, out=img)
    return img.astype(np.uint8), A


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


def render_view(
    spec, camera: Camera, texture, A, occluders, scoreboard: bool, graphics_frame: int | None = None
) -> np.ndarray:
    """One frame: the ground warped into the camera, the net, occluders; the old scoreboard
    box, or (graphics_frame, the frame number for the clock) the full broadcast graphics."""
    w, h = camera.image_size
    G = camera.K @ np.column_stack([camera.R[:, 0], camera.R[:, 1], camera.t])  # world plane
    img = cv2.warpPerspective(
        texture, G @ np.linalg.inv(A), (w, h), flags=cv2.INTER_LINEAR, borderValue=(60, 60, 70)
    )
    if spec.net is not None:
        left = np.asarray(spec.net["post_left_top"], float)
        right = np.asarray(spec.net["post_right_top"], float)
        quad = np.array([[left[0], left[1], 0], [right[0], right[1], 0], right, left])
        uv = project_polygon(camera, quad)
        if len(uv) >= 3:
            layer = img.copy()
            cv2.fillPoly(layer, [np.round(uv * 16).astype(np.int32)], (30, 30, 30), cv2.LINE_AA, 4)
            img = cv2.addWeighted(layer, 0.45, img, 0.55, 0)
    for u, v, a, b in occluders:
        cv2.ellipse(
            img, (int(u), int(v)), (int(a), int(b)), 0, 0, 360, (40, 60, 200), -1, cv2.LINE_AA
        )
    if graphics_frame is not None:
        draw_graphics(img, graphics_frame)
    elif scoreboard:
        draw_scoreboard(img)
    return img


def draw_scoreboard(img: np.ndarray) -> None:
    """The old static scoreboard box, drawn in place on a frame (h, w, 3)."""
    h, w = img.shape[:2]
    cv2.rectangle(img, (20, 20), (20 + w // 5, 20 + h // 12), (20, 20, 20), -1)
    cv2.putText(
        img,
        "SET 1  4-3",
        (30, 20 + h // 16),
        cv2.FONT_HERSHEY_SIMPLEX,
        h / 1000,
        (240, 240, 240),
        2,
        cv2.LINE_AA,
    )


def iter_clip(
    spec: CourtSpec,
    n_frames: int = 300,
    size=(1280, 720),
    seed: int = 0,
    cut_at: tuple = (),
    cut_length: int = 20,
    blur_frames: tuple = (),
    occluders: int = 4,
    scoreboard: bool = True,
    pan_deg: float = 6.0,
    tilt_deg: float = 2.0,
    zoom: float = 0.15,
    hazards: Hazards = Hazards(),
):
    """Yields (frame (h, w, 3) uint8 BGR, Camera or None inside a cut insert, cut: a shot cut
    just before this frame) one frame at a time. The camera follows a pan/tilt/zoom path
    (zoom: the focal length reaches 1 + zoom times its start); ``cut_at`` frames start an
    insert of cut_length frames from another camera (so each insert makes two cuts)."""
    rng = np.random.default_rng(seed)
    base = sample_broadcast_camera(spec, size, rng, zoom=(0.75, 0.8))
    other = sample_broadcast_camera(spec, size, np.random.default_rng(seed + 99), zoom=(0.6, 0.7))
    texture, A = ground_texture(spec, rng, surface=hazards.surface, crowd=hazards.crowd)
    w, h = size
    occ = [
        [
            rng.uniform(0.2, 0.8) * w,
            rng.uniform(0.3, 0.9) * h,
            w / 60,
            h / 14,
            rng.normal(0, 3),
            rng.normal(0, 1),
        ]
        for _ in range(occluders)
    ]
    insert, cuts = set(), set()
    for c in cut_at:
        insert.update(range(c, min(n_frames, c + cut_length)))
        cuts.update([c] + ([c + cut_length] if c + cut_length < n_frames else []))
    prev_view = None  # the last frame's pinhole view, for the motion blur
    lens = _LensField(base.K, hazards.lens_k1, size) if hazards.lens_k1 else None
    for i in range(n_frames):
        s = i / max(1, n_frames - 1)
        cam = rotate_camera(
            base,
            np.deg2rad(pan_deg) * np.sin(2 * np.pi * s),
            np.deg2rad(tilt_deg) * np.sin(np.pi * s),
            1 + zoom * np.sin(3 * np.pi * s) ** 2,
        )
        if lens is not None:
            cam = lens.camera(cam)
        for o in occ:
            o[0] = (o[0] + o[4]) % w
            o[1] = float(np.clip(o[1] + o[5], 0.3 * h, 0.95 * h))
        view = other if i in insert else cam
        ideal_view = (
            view
            if lens is None
            else Camera(K=view.K, R=view.R, t=view.t, image_size=view.image_size)
        )
        img = render_view(spec, ideal_view, texture, A, [o[:4] for o in occ], False)
        if hazards.motion_blur and prev_view is not None and i not in cuts:
            img = _motion_blur(img, prev_view, ideal_view)
        prev_view = ideal_view
        if scoreboard and not hazards.graphics:  # screen-fixed: not blurred
            draw_scoreboard(img)
        if lens is not None:
            img = lens.bend(img)
        if hazards.graphics:  # drawn on top of the filmed (and blurred) picture
            draw_graphics(img, i)
        if i in blur_frames:
            k = np.zeros((41, 41), np.float32)
            k[20, :] = 1 / 41
            img = cv2.filter2D(img, -1, k)
        if hazards.letterbox is not None:
            img, cam = letterboxed(img, cam, hazards.letterbox)
        if hazards.jpeg_quality:
            ok, buf = cv2.imencode(
                ".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(hazards.jpeg_quality)]
            )
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        yield img, (None if i in insert else cam), i in cuts


def letterboxed(img: np.ndarray, cam: Camera | None, canvas: tuple[int, int]):
    """(frame, camera): the picture img (h, w, 3) centred in a black canvas (W, H) with two
    static white captions in the bars above and below it, and cam (None stays None) with
    the canvas's size (its principal point stays the picture's centre, now the canvas's:
    W - w and H - h must be even)."""
    W, H = (int(v) for v in canvas)
    h, w = img.shape[:2]
    if W < w or H < h or (W - w) % 2 or (H - h) % 2:
        raise ValueError(
            f"letterbox: a {W}x{H} canvas cannot centre a {w}x{h} picture (it must be at "
            "least as large, and W - w and H - h even)"
        )
    x0, y0 = (W - w) // 2, (H - h) // 2
    out = np.zeros((H, W, 3), np.uint8)
    out[y0 : y0 + h, x0 : x0 + w] = img
    fs = W / 900
    font, scale, thick = cv2.FONT_HERSHEY_SIMPLEX, 2.0 * fs, 3
    for text, top in (("MATCH POINT!", 0), ("follow for more", y0 + h)):
        (tw, th), base = cv2.getTextSize(text, font, scale, thick)
        bar = y0  # both bars are y0 rows high
        if bar < th + base + 8 or tw > 0.9 * W:  # drawn only where it fits inside its bar
            continue
        y = top + (bar + th) // 2  # the baseline: the text centred in the bar
        cv2.putText(
            out, text, (int(0.05 * W), int(y)), font, scale, (235, 235, 235), thick, cv2.LINE_AA
        )
    if cam is None:
        return out, None
    K = cam.K.copy()
    K[0, 2], K[1, 2] = K[0, 2] + x0, K[1, 2] + y0
    return out, Camera(K=K, R=cam.R, t=cam.t, image_size=(W, H), dist=cam.dist)


class _LensField:
    """A fixed radial distortion field over the image (k1 at intrinsics K0): bends an ideal
    rendering, and gives each frame's camera the k1 that reproduces the field."""

    def __init__(self, K0: np.ndarray, k1: float, size):
        from geometry.pixel_lens import PixelLens

        self.K0, self.k1 = K0, float(k1)
        w, h = size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        ideal = PixelLens(K0, [k1], size).undistort(np.c_[u.ravel(), v.ravel()])
        self.map_x = ideal[:, 0].reshape(h, w).astype(np.float32)
        self.map_y = ideal[:, 1].reshape(h, w).astype(np.float32)

    def bend(self, img: np.ndarray) -> np.ndarray:
        """An ideal (pinhole) rendering as the lens shows it."""
        return cv2.remap(
            img, self.map_x, self.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )

    def camera(self, cam: Camera) -> Camera:
        """cam (pinhole, same principal point as K0) with the field's distortion."""
        k1 = self.k1 * (cam.K[0, 0] / self.K0[0, 0]) ** 2
        return Camera(
            K=cam.K,
            R=cam.R,
            t=cam.t,
            image_size=cam.image_size,
            dist=np.array([k1, 0.0, 0.0, 0.0, 0.0]),
        )


MOTION_BLUR_MIN_PX = 1.5  # an image motion below this leaves the frame sharp
MOTION_BLUR_SAMPLES = 32  # at most this many exposures averaged


def _motion_blur(img: np.ndarray, before: Camera, now: Camera) -> np.ndarray:
    """img (h, w, 3), the pinhole rendering of the view ``now``, blurred along the image
    motion of an exposure lasting one frame interval and centred on this frame (the frame's
    camera is the mid-exposure one, as for a real camera: a blur reaching back only would
    put the picture half a frame behind its camera). The motion: the homography G = K R R0^T
    K0^-1 taking the previous view ``before``'s pixels to this one's (both about the same
    centre), continued as far ahead. The mean of img sampled along G_s = I + s (G - I), s in
    [-1/2, 1/2], one sample a pixel of the largest motion (corners and centre; at most
    MOTION_BLUR_SAMPLES): a pan smears along the pan, a zoom radially, growing from the
    principal point, as a broadcast camera's picture does."""
    G = now.K @ now.R @ before.R.T @ np.linalg.inv(before.K)
    G = G / G[2, 2]
    h, w = img.shape[:2]
    probe = np.array(
        [[0, 0, 1], [w - 1, 0, 1], [0, h - 1, 1], [w - 1, h - 1, 1], [w / 2, h / 2, 1]]
    )
    moved = probe @ G.T
    n = float(np.max(np.linalg.norm(moved[:, :2] / moved[:, 2:] - probe[:, :2], axis=1)))
    if not n >= MOTION_BLUR_MIN_PX:
        return img
    acc = np.zeros(img.shape, np.float32)
    ts = np.linspace(-0.5, 0.5, int(min(MOTION_BLUR_SAMPLES, np.ceil(n))) + 1)
    for t in ts:
        warped = cv2.warpPerspective(
            img,
            np.eye(3) + t * (G - np.eye(3)),
            (w, h),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        acc += warped
    return np.clip(acc / len(ts) + 0.5, 0, 255).astype(np.uint8)


def make_clip(
    spec: CourtSpec,
    n_frames: int = 300,
    size=(1280, 720),
    seed: int = 0,
    cut_at: tuple = (),
    cut_length: int = 20,
    blur_frames: tuple = (),
    occluders: int = 4,
    scoreboard: bool = True,
    pan_deg: float = 6.0,
    tilt_deg: float = 2.0,
    zoom: float = 0.15,
    hazards: Hazards = Hazards(),
) -> Clip:
    """iter_clip collected in memory (short clips: tests)."""
    frames, cams, cuts = [], [], []
    for i, (img, cam, cut) in enumerate(
        iter_clip(
            spec,
            n_frames,
            size,
            seed,
            cut_at,
            cut_length,
            blur_frames,
            occluders,
            scoreboard,
            pan_deg,
            tilt_deg,
            zoom,
            hazards,
        )
    ):
        frames.append(img)
        cams.append(cam)
        if cut:
            cuts.append(i)
    return Clip(frames, cams, cuts, sorted(blur_frames))


def write_clip(path, frames_iter, fps: float = 25.0) -> tuple[list, list]:
    """Stream iter_clip's frames to an MJPG .avi; returns (cameras, cuts). Memory: one frame."""
    wr, cams, cuts = None, [], []
    for i, (img, cam, cut) in enumerate(frames_iter):
        if wr is None:
            h, w = img.shape[:2]
            wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
            if not wr.isOpened():
                raise ValueError(f"{path}: cannot write a video here (use .avi)")
        wr.write(img)
        cams.append(cam)
        if cut:
            cuts.append(i)
    if wr is not None:
        wr.release()
    return cams, cuts


class ClipFrames:
    """A Clip as propagation input (the Frames protocol)."""

    def __init__(self, clip: Clip):
        self.clip = clip
        self.count = len(clip.frames)
        h, w = clip.frames[0].shape[:2]
        self.size = (w, h)

    def image(self, index: int) -> np.ndarray:
        return self.clip.frames[index]


def write_video(path, frames, fps: float = 25.0, fourcc: str = "MJPG") -> None:
    """Write (h, w, 3) uint8 BGR frames as a video: by default an MJPG .avi (readable by OpenCV
    everywhere); fourcc "FFV1" (in .mkv or .avi) is lossless. Raises ValueError when OpenCV
    cannot write that codec to that path."""
    h, w = frames[0].shape[:2]
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, (w, h))
    if not wr.isOpened():
        raise ValueError(f"{path}: cannot write {fourcc} video here (MJPG: use .avi)")
    for f in frames:
        wr.write(f)
    wr.release()

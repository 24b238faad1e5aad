"""Image motion between broadcast frames as a homography (OpenCV features + RANSAC).

A broadcast camera pans, tilts and zooms about a nearly fixed point: then the image motion of
*every* point (on the court or not) is one homography, H = K_b R K_a^-1. Frames are registered
directly to a reference frame, never only to their predecessor: the reference is warped by the
predicted homography (the previous frame's), the small residual motion is measured, and the two
are composed. Errors therefore do not accumulate along the clip.

Masks exclude what must not drive the estimate (players, scoreboard graphics): 0 = ignore.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from geometry._homography_kernels import robust_homography
from geometry.arrays import as_array
from geometry.corner_tracking import TrackMemory, track, usable_corners
from geometry.orb_features import (
    FRAME_FEATURES,
    REFERENCE_FEATURES,
    Features,
    cached,
    match,
)

MIN_INLIERS = 40
RANSAC_PX = 2.0  # full-resolution pixels
GROSS_RESIDUAL = 3.0  # RANSAC thresholds off the fit: a track a TrackMemory leaves out next time
MIN_SPREAD = 0.04  # inlier convex hull / image area
STILL_PX = 1.5  # full-resolution px: a pair that moved less is screen-still (drop_still)
MAX_SCALE_CHANGE = 16.0  # image area ratio a homography may imply (4x zoom either way)
MAX_CONDITION = 1e6
WORK_WIDTH = 640  # registration runs on images scaled to at most this width
SIGNATURE_SIZE = (160, 90)  # the cut test's thumbnail of a frame, px
CORNER_SPACING = 7  # reduced pixels between a reference's trackable corners


@dataclass(frozen=True)
class Registration:
    """H (3, 3) maps reference pixels to frame pixels (full resolution); inliers: RANSAC
    inlier count; rms_px: inlier reprojection RMS (full-resolution px); spread: the inliers'
    convex hull area / image area; ok: H passed every check; reason: why not ("" when ok);
    method: "track" (KLT from the prediction) or "match" (ORB features); still: the inliers
    that did not move in the image (within STILL_PX of where the reference shows them: on a
    moving camera, screen-fixed graphics the fit followed)."""

    H: np.ndarray
    inliers: int
    rms_px: float
    ok: bool
    reason: str = ""
    spread: float = 0.0
    method: str = ""
    still: int = 0


@dataclass(frozen=True)
class Prepared:
    """A frame reduced for registration: gray (h', w') uint8, scale = w' / w, size (w, h) of
    the full image, and (for references) corners (N, 2) in reduced pixels. Its ORB features
    are computed at the first match that needs them and kept with it, one set per mask
    (orb_features.cached: the image must not change after it is prepared)."""

    gray: np.ndarray
    scale: float
    size: tuple
    corners: np.ndarray | None = None
    features: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def orb(self, mask: np.ndarray | None, n: int = FRAME_FEATURES) -> Features:
        """Its ORB features where mask (reduced, uint8, 0 = ignore; None: everywhere) is
        non-zero, at most n: computed once per mask."""
        return cached(self.features, self.gray, mask, n)


def gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def prepare(
    image: np.ndarray,
    work_width: int = WORK_WIDTH,
    corners: bool = False,
    scale: float | None = None,
    size=None,
) -> Prepared:
    """Reduce a frame (BGR or gray, (h, w[, 3]) uint8) for registration; corners=True also
    detects trackable corners (for a reference). With scale and size (w, h) given, image is
    already reduced (a Prepared's gray) and is used as it is."""
    if scale is not None:
        s, (w, h), small = float(scale), tuple(size), gray(image)
    else:
        h, w = image.shape[:2]
        s = min(1.0, work_width / float(w))
        # as prepare_frame: halve in colour, convert, finish in gray
        size = _reduced_size(w, h, s)
        small = _finish_reduction(gray(_halve(image, size) if s < 1.0 else image), size)
    pts = None
    if corners:
        # spacing in reduced pixels: the same corner density whatever the source size
        c = cv2.goodFeaturesToTrack(small, 3000, 0.0005, CORNER_SPACING, blockSize=5)
        pts = np.zeros((0, 2), np.float32) if c is None else c.reshape(-1, 2)
    return Prepared(small, s, (w, h), pts)


def to_reduced(scale: float) -> np.ndarray:
    """(3, 3) full-resolution pixels -> pixels of an image resized by ``scale`` (OpenCV's
    resize keeps pixel centres aligned: x' = s x + (s - 1) / 2)."""
    c = 0.5 * (scale - 1.0)
    return np.array([[scale, 0.0, c], [0.0, scale, c], [0.0, 0.0, 1.0]])


@functools.lru_cache(maxsize=16)
def _from_reduced(scale: float) -> np.ndarray:
    """np.linalg.inv(to_reduced(scale)), computed once per scale (a run has one or two):
    read-only."""
    out = np.linalg.inv(to_reduced(scale))
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=16)
def _from_unit_square(w: int, h: int) -> np.ndarray:
    """The inverse of diag(w, h, 1) (image pixels -> unit square), as np.linalg.inv gives it,
    once per image size: read-only."""
    out = np.linalg.inv(np.array([[w, 0, 0], [0, h, 0], [0, 0, 1.0]]))
    out.flags.writeable = False
    return out


def _halve(image: np.ndarray, size) -> np.ndarray:
    """image halved by area averaging (OpenCV's fast path) while still at least twice size
    (w, h) in both directions."""
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        hh, ww = image.shape[:2]
        image = cv2.resize(image, (ww // 2, hh // 2), interpolation=cv2.INTER_AREA)
    return image


def _finish_reduction(image: np.ndarray, size) -> np.ndarray:
    """The last step to size (w, h), less than 2x: bilinear (an area resize by a non-integer
    factor costs 4-5x a halving)."""
    if (image.shape[1], image.shape[0]) == tuple(size):
        return image
    return cv2.resize(image, tuple(size), interpolation=cv2.INTER_LINEAR)


def _reduced_size(w: int, h: int, s: float) -> tuple[int, int]:
    return max(1, round(w * s)), max(1, round(h * s))


def prepare_frame(image: np.ndarray, work_width: int = WORK_WIDTH):
    """(prepare(image), cut_signature(image)) of a frame (h, w, 3) BGR or (h, w) gray uint8
    from one reduction of the full-resolution image: halved (colour) while possible, the
    signature taken from that copy, the rest done in gray."""
    h, w = image.shape[:2]
    s = min(1.0, work_width / float(w))
    size = _reduced_size(w, h, s)
    half = _halve(image, size) if s < 1.0 else image
    sig = _signature(half)
    sig = sig if sig.ndim == 3 else cv2.cvtColor(sig, cv2.COLOR_GRAY2BGR)
    return Prepared(_finish_reduction(gray(half), size), s, (w, h), None), sig


def _signature(image: np.ndarray) -> np.ndarray:
    """image area-reduced to SIGNATURE_SIZE: halved (OpenCV's fast area path) while the
    remaining factor is an even integer, then one area step by the integer or fractional
    rest (640 px wide: 0.08 ms against 0.24 for one 4x step; 960: 0.34 against 0.56 ms for
    6x). Within one gray level of the direct area resize (the halvings round)."""
    sw, sh = SIGNATURE_SIZE
    while image.shape[1] % (2 * sw) == 0 and image.shape[0] % (2 * sh) == 0:
        hh, ww = image.shape[:2]
        image = cv2.resize(image, (ww // 2, hh // 2), interpolation=cv2.INTER_AREA)
    if (image.shape[1], image.shape[0]) != SIGNATURE_SIZE:
        image = cv2.resize(image, SIGNATURE_SIZE, interpolation=cv2.INTER_AREA)
    return image


def reduce_mask(mask, p: Prepared):
    """A full-resolution uint8 mask (0 = ignore) at p's reduced size (None stays None)."""
    if mask is None:
        return None
    hh, ww = p.gray.shape[:2]
    if mask.shape[:2] == (hh, ww):
        return mask
    return cv2.resize(mask, (ww, hh), interpolation=cv2.INTER_NEAREST)


def homography_problem(H, image_size) -> str:
    """Why the homography H (3, 3), mapping an image of image_size (w, h) into one of the same
    size, cannot be a camera's pan/tilt/zoom ("" when it can): not finite, singular or badly
    conditioned, mirroring or folding the image, or implying more than MAX_SCALE_CHANGE.
    (Checked on every registration: the image corners' part is plain float arithmetic, a
    fifth of the NumPy calls it replaced.)"""
    H = np.asarray(H, float)
    if H.shape != (3, 3) or not np.isfinite(H).all() or abs(H[2, 2]) < 1e-12:
        return "not a finite homography"
    w, h = image_size
    Hh = H / H[2, 2]
    Hn = _from_unit_square(w, h) @ Hh @ _to_unit_square_inverse(w, h)
    sv = np.linalg.svd(Hn, compute_uv=False)
    if sv[-1] < 1e-12 or sv[0] / sv[-1] > MAX_CONDITION:
        return f"singular homography (condition {sv[0] / max(sv[-1], 1e-300):.1e})"
    (a, b, c), (d, e, f), (g, k, _) = Hh.tolist()
    q = []
    for x, y in ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)):  # the image corners, mapped
        z = g * x + k * y + 1.0
        if z <= 1e-9:
            return "the image corners map behind the camera"
        q.append(((a * x + b * y + c) / z, (d * x + e * y + f) / z))
    area2 = 0.0
    for i in range(4):
        (x0, y0), (x1, y1), (x2, y2) = q[i], q[(i + 1) % 4], q[(i + 2) % 4]
        if (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1) <= 0:
            return "the homography folds or mirrors the image"
        area2 += x0 * y1 - x1 * y0
    area = abs(0.5 * area2) / float(w * h)
    if not 1 / MAX_SCALE_CHANGE <= area <= MAX_SCALE_CHANGE:
        return f"implausible zoom (image area ratio {area:.3g})"
    return ""


@functools.lru_cache(maxsize=16)
def _to_unit_square_inverse(w: int, h: int) -> np.ndarray:
    """diag(w, h, 1) (unit square -> image pixels), once per image size: read-only."""
    out = np.array([[w, 0, 0], [0, h, 0], [0, 0, 1.0]])
    out.flags.writeable = False
    return out


def _spread(pts: np.ndarray, size) -> float:
    if len(pts) < 3:
        return 0.0
    hull = cv2.convexHull(pts.astype(np.float32))
    return float(cv2.contourArea(hull)) / float(size[0] * size[1])


def _fit(pa: np.ndarray, pb: np.ndarray, ransac_px: float):
    """(H, inlier bool (N,)) or None: the pairs (pa -> pb, (N, 2) px) within ransac_px of the
    best homography RANSAC with local optimisation finds, and H the least squares of the
    forward error on them (geometry._homography_kernels, compiled: 0.18 ms for 150 tracks
    where cv2's USAC_DEFAULT and its least-squares refit took 1.05; the refit agrees with
    cv2.findHomography's to 1e-5 px). USAC_FAST (0.1 ms) had moved a held-out frame of the
    real badminton clip 0.7 -> 1.1 px and classic RANSAC raised the synthetic hard court's p90
    0.42 -> 0.69 px (BENCHMARKS.md "Propagation speed, second pass"): both stop at a minimal
    sample's inliers, which the local optimisation here does not."""
    if len(pa) < 8:
        return None
    H, inl = robust_homography(
        np.ascontiguousarray(pa, np.float64), np.ascontiguousarray(pb, np.float64), ransac_px
    )
    if H is None or inl.sum() < 8 or not np.all(np.isfinite(H)):
        return None  # zero or too few inliers: nothing to trust
    return H, inl


def register_to_reference(
    reference,
    frame,
    H_pred: np.ndarray,
    mask_reference=None,
    mask_frame=None,
    method: str = "auto",
    memory: TrackMemory | None = None,
    track_only: bool = False,
    drop_still: bool = False,
) -> Registration:
    """Homography reference -> frame (full-resolution pixels), starting from the prediction
    H_pred (3, 3).

    reference, frame: images (BGR or gray) of the same size, or Prepared (from prepare; a
    reference prepared with corners=True can be tracked); masks: full-resolution uint8,
    0 = ignore (players, graphics). The reference is warped by the prediction and the small
    residual motion is measured at reduced resolution: by KLT tracking of the reference's
    corners (method "track"), or by matching ORB features (method "match", any motion the
    features survive: each image's are computed once per mask and kept with its Prepared,
    the reference's unwarped, and only those the prediction puts in the shared part of the
    images take part; orb_features.match); "auto" tracks and matches when tracking fails.
    memory: the run's TrackMemory of the reference's corners (corner_tracking): tracking
    leaves out the corners recent frames' fits put GROSS_RESIDUAL thresholds off (all are
    tracked again when that leaves too few inliers or fails, and every RECHECK_EVERY-th
    time), and the memory learns this registration's. Every result is checked: enough
    inliers, spread over the image, a plausible homography. track_only: stop where "auto"
    would turn to matching (the result is then not ok; a registration run ahead on another
    thread keeps to tracking, which touches no state the images share). drop_still: leave
    out the pairs that did not move in the image (within STILL_PX of where the reference shows
    them): a registration of a moving camera locked onto screen-fixed graphics that the
    detector has not masked yet, retried without them (a camera that stands still is
    registered without it: its pairs are all still)."""
    H_pred = as_array("H_pred", H_pred, (3, 3))
    pa_ = reference if isinstance(reference, Prepared) else prepare(reference)
    pb_ = frame if isinstance(frame, Prepared) else prepare(frame)
    Sa = to_reduced(pa_.scale)  # reference may be kept at a finer scale
    S = to_reduced(pb_.scale)
    Hs = S @ H_pred @ _from_reduced(pa_.scale)  # reference (its scale) -> frame (reduced)
    h, w = pb_.gray.shape[:2]
    m_a = reduce_mask(mask_reference, pa_)
    m_b = reduce_mask(mask_frame, pb_)
    best = Registration(H_pred, 0, np.inf, False, "no features to register")
    methods = ["track", "match"] if method == "auto" else [method]
    if track_only:
        methods = [m for m in methods if m == "track"]
    if memory is not None and memory.skip() is not None and "track" in methods:
        methods.insert(0, "track recent")  # first without the corners recently rejected
    warped = None
    for meth in methods:
        if meth.startswith("track"):  # masks tested at the corners only (no warped mask)
            if pa_.corners is None or not len(pa_.corners):
                continue
            if warped is None:
                warped = cv2.warpPerspective(pa_.gray, Hs, (w, h), flags=cv2.INTER_LINEAR)
            c = cv2.perspectiveTransform(
                pa_.corners.reshape(-1, 1, 2).astype(np.float64), Hs
            ).reshape(-1, 2)
            keep = usable_corners(pa_.corners, m_a, memory)
            if meth == "track recent":
                keep = ~memory.skip() if keep is None else keep & ~memory.skip()
            tracked = track(warped, pb_.gray, c, keep, m_b)
            if tracked is not None and drop_still:
                tracked = _moving(tracked, H_pred, S, pb_.scale)
            pairs = None if tracked is None else tracked[:2]
        else:  # features of each image kept with it, matched where Hs says they overlap
            ha, wa = pa_.gray.shape[:2]
            n_ref = REFERENCE_FEATURES * max(1, round(ha * wa / float(h * w)))
            pairs = match(pa_.orb(m_a, n_ref), pb_.orb(m_b), Hs, (ha, wa), (h, w), m_a)
            if pairs is not None and drop_still:
                moving = _moving(pairs, H_pred, S, pb_.scale)
                pairs = None if moving is None else moving[:2]
        label = "track" if meth == "track recent" else meth
        reg, fair = _finish(pairs, Hs, Sa, S, pb_, H_pred, label)
        if meth == "track recent" and not (reg.ok and memory.enough(reg.inliers)):
            continue  # every corner tracked next
        if reg.ok and memory is not None and meth.startswith("track"):
            memory.update(tracked[2], fair, meth == "track", reg.inliers)
        if reg.ok and meth == "match" and pa_.corners is not None and len(pa_.corners):
            fine = register_to_reference(
                pa_, pb_, reg.H, mask_reference, mask_frame, "track", drop_still=drop_still
            )
            if fine.ok and fine.inliers >= reg.inliers:  # matched, then tracked precisely
                return Registration(
                    fine.H,
                    fine.inliers,
                    fine.rms_px,
                    True,
                    "",
                    fine.spread,
                    "match+track",
                    fine.still,
                )
        if reg.ok:
            return reg
        if reg.inliers >= best.inliers:
            best = reg
    return best


def _moved(pa: np.ndarray, pb: np.ndarray, H_pred: np.ndarray, S: np.ndarray, scale: float):
    """(M,) bool: the pairs (pa the reference's points mapped by the prediction, pb the
    frame's; (M, 2) frame-reduced px) that moved in the image: pb farther than STILL_PX (full
    resolution) from where the reference shows the point (pa mapped back by the prediction,
    S H_pred^-1 S^-1)."""
    back = S @ np.linalg.inv(H_pred) @ np.linalg.inv(S)
    raw = cv2.perspectiveTransform(pa.reshape(1, -1, 2).astype(np.float64), back)[0]
    return np.sum((raw - pb) ** 2, axis=1) > (STILL_PX * scale) ** 2


def _moving(pairs: tuple, H_pred: np.ndarray, S: np.ndarray, scale: float) -> tuple | None:
    """The pairs (pa, pb[, extra]) that moved in the image (_moved); None when fewer than 8
    are left."""
    moved = _moved(pairs[0], pairs[1], H_pred, S, scale)
    if moved.sum() < 8:
        return None
    return tuple(a[moved] for a in pairs)


def _finish(pairs, Hs, Sa, S, pb_: Prepared, H_pred, meth: str):
    """(Registration, (M,) bool of the pairs within GROSS_RESIDUAL RANSAC thresholds of the
    fit, or None without a fit)."""
    if pairs is None:
        return Registration(H_pred, 0, np.inf, False, "too few features", method=meth), None
    pa, pb = pairs
    fit = _fit(pa, pb, RANSAC_PX * pb_.scale)
    if fit is None:
        return Registration(H_pred, 0, np.inf, False, "no consistent motion", method=meth), None
    H_res, inl = fit
    proj = cv2.perspectiveTransform(pa[None].astype(np.float64), H_res)[0]
    err2 = np.sum((proj - pb) ** 2, axis=1)  # every pair's squared residual, reduced px
    rms = float(np.sqrt(np.mean(err2[inl]))) / pb_.scale
    H = _from_reduced(pb_.scale) @ H_res @ Hs @ Sa
    H = H / H[2, 2]
    n = int(inl.sum())
    small = (pb_.gray.shape[1], pb_.gray.shape[0])
    spread = _spread(pb[inl], small)
    reason = homography_problem(H, pb_.size)
    if not reason and n < MIN_INLIERS:
        reason = f"{n} inliers"
    if not reason and spread < MIN_SPREAD:
        reason = f"inliers bunched in {100 * spread:.1f} % of the image"
    still = int(np.sum(inl & ~_moved(pa, pb, H_pred, S, pb_.scale)))
    reg = Registration(H if not reason else H_pred, n, rms, not reason, reason, spread, meth, still)
    return reg, err2 <= (GROSS_RESIDUAL * RANSAC_PX * pb_.scale) ** 2


def transfer_points(H: np.ndarray, uv) -> np.ndarray:
    """(N, 2) pixels mapped by the homography H (3, 3)."""
    uv = as_array("uv", uv, (None, 2))
    if len(uv) == 0:
        return uv.copy()
    return cv2.perspectiveTransform(uv[None].astype(np.float64), H)[0]


def _hist(img: np.ndarray) -> np.ndarray:
    """(960,) float32 normalised hue-saturation histogram of a BGR image."""
    hsv = cv2.cvtColor(cv2.resize(img, (160, 90)), cv2.COLOR_BGR2HSV)
    hh = cv2.calcHist([hsv], [0, 1], None, [30, 32], [0, 180, 0, 256])
    return cv2.normalize(hh, hh).flatten()


def _hist_change(ha: np.ndarray, hb: np.ndarray) -> float:
    return float(1.0 - cv2.compareHist(ha, hb, cv2.HISTCMP_CORREL))


def histogram_change(a: np.ndarray, b: np.ndarray) -> float:
    """1 - correlation of the two frames' hue-saturation histograms: near 0 within a shot,
    large across a cut."""
    return _hist_change(_hist(a), _hist(b))


CUT_HIST = 0.5
CUT_LAYOUT = 0.25


def _thumb(img: np.ndarray) -> np.ndarray:
    g = cv2.resize(gray(img), (64, 36), interpolation=cv2.INTER_AREA).astype(np.float32)
    return (g - g.mean()) / (g.std() + 1e-6)


def layout_change(a: np.ndarray, b: np.ndarray) -> float:
    """1 - correlation of 64 x 36 thumbnails after aligning them by phase correlation (so a
    pan within a shot scores low; a different view of the same court scores high)."""
    return _layout_change(_thumb(a), _thumb(b))


def _layout_change(ta: np.ndarray, tb: np.ndarray) -> float:
    """layout_change of two _thumb results."""
    (dx, dy), _ = cv2.phaseCorrelate(ta, tb)
    shifted = cv2.warpAffine(tb, np.float32([[1, 0, -dx], [0, 1, -dy]]), (64, 36))
    mx, my = int(np.ceil(abs(dx))) + 1, int(np.ceil(abs(dy))) + 1
    if mx * 2 >= 64 or my * 2 >= 36:
        return 1.0
    A, B = ta[my:-my, mx:-mx], shifted[my:-my, mx:-mx]
    A, B = A - A.mean(), B - B.mean()
    return float(1.0 - (A * B).sum() / (np.sqrt((A * A).sum() * (B * B).sum()) + 1e-9))


def is_cut(a: np.ndarray, b: np.ndarray) -> bool:
    """A shot cut between consecutive frames a and b: the colours or the layout jump."""
    return histogram_change(a, b) > CUT_HIST or layout_change(a, b) > CUT_LAYOUT


def cut_signature(image: np.ndarray):
    """What the cut test needs of a frame (BGR (h, w, 3) uint8): a small image kept instead
    of the frame, so a single pass holds no full frame (prepare_frame makes it together with
    the registration copy)."""
    return cv2.resize(image, SIGNATURE_SIZE, interpolation=cv2.INTER_AREA)


def is_cut_between(sig_a, sig_b) -> bool:
    """is_cut on two cut_signature results."""
    return is_cut(sig_a, sig_b)


@dataclass(frozen=True)
class CutFeatures:
    """What is_cut computes of one frame, kept so each frame's are computed once in a pass:
    hist (960,) float32 hue-saturation histogram; thumb (36, 64) float32 standardised gray."""

    hist: np.ndarray
    thumb: np.ndarray


def cut_features(sig: np.ndarray) -> CutFeatures:
    """The cut test's features of a frame's cut_signature (BGR (90, 160, 3) uint8)."""
    return CutFeatures(_hist(sig), _thumb(sig))


def is_cut_features(fa: CutFeatures, fb: CutFeatures) -> bool:
    """is_cut of the two frames whose cut_features these are (the same decision)."""
    return (
        _hist_change(fa.hist, fb.hist) > CUT_HIST or _layout_change(fa.thumb, fb.thumb) > CUT_LAYOUT
    )


MAX_FRAME_MOTION = 0.1  # of the image width: the most one frame's camera motion moves a corner


def same_view(a: Prepared | None, b: Prepared | None) -> bool:
    """Two consecutive frames that is_cut separates but that one frame's camera motion maps
    onto each other (a fast zoom or pan, not a cut): a checked homography that moves the
    image corners by more than 2 px (an identity found across a cut is the screen-fixed
    graphics) and less than MAX_FRAME_MOTION (another camera seeing the same court)."""
    if a is None or b is None:
        return False
    reg = register_to_reference(a, b, np.eye(3), method="match")
    if not reg.ok:
        return False
    w, h = b.size
    c = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], float)
    move = np.max(np.linalg.norm(transfer_points(reg.H, c) - c, axis=1))
    return 2.0 < move < MAX_FRAME_MOTION * w


def is_identity(H: np.ndarray, image_size: tuple[int, int], tol_px: float = 0.5) -> bool:
    """True when H moves every image corner by less than tol_px (a static camera)."""
    w, h = image_size
    c = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], float)
    return bool(np.max(np.linalg.norm(transfer_points(H, c) - c, axis=1)) < tol_px)

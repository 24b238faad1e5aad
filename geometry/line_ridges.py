"""Painted-line centres near a camera's projected court lines (sub-pixel, outliers dropped).

A painted line is a bright band a few pixels wide. Along each projected ground line, at world
samples a fixed step apart, the image is read across the line (along its image normal, within
``search_px``); a sample finds the line where the profile has a *ridge*: brighter than both
sides at the expected line width. That rejects shadow edges (a step, darker on one side
only), wide bright things (a white shirt, a logo block: their measured width is too large),
and places where two bright candidates compete (an ambiguous profile is dropped rather than
guessed). The centre is the midpoint of the two half-maximum crossings, sub-pixel. Finally,
per line, the offsets found must vary smoothly along the line (they are a small camera error
seen along one line); samples far from a robust quadratic through them (a player crossing the
line, a logo painted next to it) are dropped.

Everything is in pixels of the image as it is (distorted): projection goes through
``Camera.project`` so a lens's curvature is followed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cv2
import numpy as np

from geometry._projection_kernels import line_sample_geometry
from geometry._ridge_kernels import profile_maps, ridge_centres, smooth_inliers_per_line
from geometry.arrays import as_array, unique_sorted
from geometry.camera import Camera

MIN_CONTRAST = 10.0  # grey levels the ridge must stand above both sides
AMBIGUOUS_RATIO = 0.7  # a second ridge this strong makes the sample ambiguous
EDGE_LINE_RATIO = 0.5  # ridge_offsets: a line between a dark and a bright area (see there)
PROFILE_STEP_PX = 0.5
LINE_WIDTH_M = 0.05
H_STEP_M = 0.05  # a sample's image tangent: its line's points this far either side


@dataclass(frozen=True)
class Ridges:
    """Line samples with a painted-line centre found. S samples.

    points_world: (S, 3) metres, world frame, on the court lines; uv: (S, 2) pixels, the
    painted-line centres found; normals: (S, 2) unit image normals at the samples (the
    residual of a camera is normals . (project(points_world) - uv)); line: (S,) int, index of
    the polyline each sample came from; tried: samples in view, per line (L,) int.
    """

    points_world: np.ndarray
    uv: np.ndarray
    normals: np.ndarray
    line: np.ndarray
    tried: np.ndarray

    def __len__(self) -> int:
        return len(self.points_world)

    def distances_px(self, camera: Camera) -> np.ndarray:
        """(S,) signed px: normal distance of each sample's projection from its ridge."""
        if len(self) == 0:
            return np.zeros(0)
        return np.sum((camera.project(self.points_world) - self.uv) * self.normals, axis=1)


def to_gray(image: np.ndarray) -> np.ndarray:
    """(h, w) float32 grey, lightly smoothed, from a (h, w) or (h, w, 3) BGR uint8 image."""
    g = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(g, (3, 3), 0).astype(np.float32)


def line_samples(polylines, step_m: float):
    """World samples along polylines: points (S, 3), unit directions (S, 3), line index (S,),
    arc length (S,) metres. Ends are kept half a step clear (corners are crossings).

    Each segment a -> b of length n gets m = max(1, floor(n / step_m)) samples at fractions
    (j + 0.5) / m; arc length runs along each polyline. All segments of all polylines at once
    (a densified court has thousands of one-sample segments: a loop over them cost 14 ms a
    call on a basketball court, called seven times per frame a line refinement)."""
    lines = [as_array("polyline", pl, (None, 3)) for pl in polylines]
    segs = [(P[1:] - P[:-1], P[:-1], np.full(len(P) - 1, k)) for k, P in enumerate(lines)]
    if not segs:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, int), np.zeros(0)
    d = np.concatenate([x[0] for x in segs])  # (G, 3) every segment's vector
    a = np.concatenate([x[1] for x in segs])
    line = np.concatenate([x[2] for x in segs]).astype(int)
    # each length as np.linalg.norm of the one segment sums it (a dot product), bit for bit
    n = np.sqrt(np.matmul(d[:, None, :], d[:, :, None])[:, 0, 0])
    real = n >= 1e-9  # zero-length segments give no samples
    d, a, line, n = d[real], a[real], line[real], n[real]
    if len(n) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, int), np.zeros(0)
    # arc length at each segment's start: its polyline's lengths before it, summed in order
    s0 = np.zeros(len(n))
    for k in unique_sorted(line):
        at = np.flatnonzero(line == k)
        s0[at[1:]] = np.cumsum(n[at[:-1]])
    m = np.maximum(1, np.floor(n / step_m).astype(int))
    seg = np.repeat(np.arange(len(n)), m)  # (S,) each sample's segment
    first = np.cumsum(m) - m
    s = (np.arange(len(seg)) - first[seg] + 0.5) / m[seg]  # (j + 0.5) / m
    unit = d / n[:, None]
    return a[seg] + s[:, None] * d[seg], unit[seg], line[seg], s0[seg] + s * n[seg]


_SAMPLES_CACHE: dict = {}
_SAMPLES_CACHE_SIZE = 8
_SAMPLES_LOCK = threading.Lock()


def cached_line_samples(polylines, step_m: float):
    """line_samples(polylines, step_m), kept for up to _SAMPLES_CACHE_SIZE (polylines, step)
    pairs (the oldest added is dropped first): a line refinement searches the same court's
    lines five times a frame, each of a clip's frames (0.55 ms a call on a basketball
    court). Keyed on the polylines' values, so a changed court is sampled anew; the arrays
    returned are read-only. Safe from several threads (one lock around the cache)."""
    lines = [np.ascontiguousarray(as_array("polyline", pl, (None, 3)), float) for pl in polylines]
    key = (float(step_m), tuple((pl.shape, pl.tobytes()) for pl in lines))
    with _SAMPLES_LOCK:
        hit = _SAMPLES_CACHE.get(key)
    if hit is None:
        hit = line_samples(lines, step_m)
        for v in hit:
            v.setflags(write=False)
        with _SAMPLES_LOCK:
            while len(_SAMPLES_CACHE) >= _SAMPLES_CACHE_SIZE:
                _SAMPLES_CACHE.pop(next(iter(_SAMPLES_CACHE)))
            _SAMPLES_CACHE[key] = hit
    return hit


def _profiles(gray, uv, normals, offsets):
    """(S, O) grey values at uv + offsets * normals (bilinear; the maps from
    geometry._ridge_kernels.profile_maps, the bits of (uv + offsets * normals) as float32)."""
    mx, my = profile_maps(
        np.ascontiguousarray(uv, float),
        np.ascontiguousarray(normals, float),
        np.ascontiguousarray(offsets, float),
    )
    return cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _smooth_inliers_per_line(line, arc, off, tol_px: float) -> np.ndarray:
    """(N,) bool: per line (line (N,) int), the samples whose offsets off (N,) px lie within
    max(tol_px, 3 robust sigma) of a robust quadratic of offset against arc length arc (N,)
    metres (a line from 8 samples, the median below 5; geometry._ridge_kernels, compiled: as
    whole-array NumPy this was 1.9 ms of a 7.3 ms find_ridges on a basketball court)."""
    return smooth_inliers_per_line(
        np.asarray(line, np.int64), np.asarray(arc, float), np.asarray(off, float), tol_px
    )


def robust_polyfit_inliers(
    x: np.ndarray, y: np.ndarray, deg: int, tol: float, min_keep: int
) -> np.ndarray:
    """(N,) bool: the samples within max(tol, 3 robust sigma) of a degree-deg polynomial
    y(x) refitted on the samples kept (at most 4 rounds; stops when the set is stable or
    would fall below min_keep). x, y: (N,) (y in the units of tol)."""
    keep = np.ones(len(x), bool)
    for _ in range(4):
        c = np.polyfit(x[keep], y[keep], deg)
        r = y - np.polyval(c, x)
        mad = 1.4826 * np.median(np.abs(r[keep]))
        new = np.abs(r) <= max(tol, 3.0 * mad)
        if np.array_equal(new, keep) or new.sum() < min_keep:
            break
        keep = new
    return keep


def find_ridges(
    gray: np.ndarray,
    camera: Camera,
    polylines,
    search_px: float,
    step_m: float = 0.25,
    line_width_m: float = LINE_WIDTH_M,
    smooth_tol_px: float = 1.5,
    margin_px: float = 4.0,
    samples=None,
    mask: np.ndarray | None = None,
) -> Ridges:
    """Painted-line centres near each projected polyline.

    gray: (h, w) float32 from to_gray; polylines: list of (M, 3) metres, world frame, lines
    painted on one plane; search_px: half-width of the search across each line, px; step_m:
    world spacing of samples. Samples outside the image (less margin_px) are skipped.
    samples: cached_line_samples(polylines, step_m), for a caller that searches the same
    lines several times (None: looked up here). mask: uint8 (hm, wm) over the whole image at
    any scale, 0 where the picture is not the court's (screen-fixed graphics, a user's
    masks): a sample whose projection lies there is not searched (nor counted in ``tried``),
    and a centre found there is dropped (mask_allows). None: every pixel is the court's.
    """
    P, D, idx, arc = cached_line_samples(polylines, step_m) if samples is None else samples
    n_lines = len(polylines)
    empty = Ridges(
        np.zeros((0, 3)),
        np.zeros((0, 2)),
        np.zeros((0, 2)),
        np.zeros(0, int),
        np.zeros(n_lines, int),
    )
    if len(P) == 0:
        return empty
    # the samples in view (by margin_px + search_px), their image normals (the tangent of the
    # pixels of the points 5 cm either side along the line) and the painted line's width (the
    # pixel of the point line_width_m across it), in one compiled pass: as NumPy this was
    # fifteen short operations and two projections a search (_sample_geometry_numpy, the
    # tests' oracle)
    w, h = camera.image_size
    keep, uv, normals, width_px = line_sample_geometry(
        *camera.projection_args(),
        np.ascontiguousarray(P),
        np.ascontiguousarray(D),
        w,
        h,
        margin_px + search_px,
        H_STEP_M,
        line_width_m,
    )
    if len(keep) == 0:
        return empty
    P, idx, arc = P[keep], idx[keep], arc[keep]
    if mask is not None:  # graphics hide the paint: a ridge there is a letter or a box edge
        ok = mask_allows(mask, uv, (w, h))
        P, idx, arc, uv, normals, width_px = (a[ok] for a in (P, idx, arc, uv, normals, width_px))
        if len(P) == 0:
            return empty
    reach = search_px + 0.5 * float(np.max(width_px)) + 4.0
    reach = min(reach, search_px + 30.0)
    offsets = np.arange(-reach, reach + 1e-9, PROFILE_STEP_PX)
    prof = _profiles(gray, uv, normals, offsets)
    found = _ridge_centres(prof, offsets, np.maximum(width_px, 1.0), search_px)
    tried = np.bincount(idx, minlength=n_lines)
    good = np.isfinite(found)
    if mask is not None and good.any():
        good[good] = mask_allows(mask, uv[good] + found[good, None] * normals[good], (w, h))
    good[good] = _smooth_inliers_per_line(idx[good], arc[good], found[good], smooth_tol_px)
    q = uv[good] + found[good, None] * normals[good]
    return Ridges(P[good], q, normals[good], idx[good], tried)


def mask_allows(mask: np.ndarray, uv: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """(S,) bool: whether each image point uv (S, 2) px of an image of image_size (w, h) falls
    where the uint8 mask (hm, wm) is not 0. The mask covers the whole image at any scale
    with the image's aspect ratio (a propagation's graphics mask is at its reduced
    registration size); pixel centres are at whole coordinates, so image pixel x covers
    [x - 0.5, x + 0.5) and a point maps to the mask pixel whose area holds it. Points outside
    the image map to the nearest edge pixel; a point that is not finite is not allowed.
    Raises ValueError for a mask that is not 2-D, is empty, or has another aspect ratio."""
    m = np.asarray(mask)
    pts = np.asarray(uv, float).reshape(-1, 2)
    if m.ndim != 2 or m.size == 0:
        raise ValueError(f"mask: expected a non-empty 2-D array, got shape {m.shape}")
    w, h = image_size
    hm, wm = m.shape
    if abs(wm * h - hm * w) > max(w, h):  # a whole-pixel rounding of a scaled size passes
        raise ValueError(f"mask: {wm}x{hm} is not a scaled copy of the {w}x{h} image")
    finite = np.isfinite(pts).all(axis=1)
    out = np.zeros(len(pts), bool)
    q = pts[finite]
    col = np.clip(np.floor((q[:, 0] + 0.5) * (wm / w)), 0, wm - 1).astype(np.intp)
    row = np.clip(np.floor((q[:, 1] + 0.5) * (hm / h)), 0, hm - 1).astype(np.intp)
    out[finite] = m[row, col] != 0
    return out


def ridge_offsets(
    gray: np.ndarray, uv: np.ndarray, normals: np.ndarray, width_px, search_px: float
) -> np.ndarray:
    """(S,) px: the painted-line centre across the line at each of S image points, as a signed
    offset along the normal (the centre is at uv + offset * normal), NaN where no single clear
    ridge lies within search_px. gray: (h, w) float32 from to_gray; uv: (S, 2) px; normals:
    (2,) or (S, 2) unit image normals; width_px: the painted line's expected width, px, one
    for all or (S,). All profiles are read in one remap.

    Stricter than find_ridges about rivals: a line at the edge of a painted area (the key's
    line between the dark key and the bright floor) stands little above its bright side, so
    a line inside the area, clear on both sides, would win by far; a rival ridge that stands
    as high above its darker side as the best does makes the sample ambiguous (NaN) too.
    The profile grid is fixed (offsets on multiples of the step around 0), so a point's
    result does not depend on the other points read with it."""
    pts = np.asarray(uv, float).reshape(-1, 2)
    nrm = np.broadcast_to(np.asarray(normals, float), pts.shape)
    if len(pts) == 0:
        return np.zeros(0)
    w = np.maximum(np.broadcast_to(np.asarray(width_px, float), (len(pts),)), 1.0)
    reach = min(search_px + 0.5 * float(w.max()) + 4.0, search_px + 30.0)
    reach = PROFILE_STEP_PX * np.ceil(reach / PROFILE_STEP_PX)
    offsets = np.arange(-reach, reach + 1e-9, PROFILE_STEP_PX)
    prof = _profiles(gray, pts, nrm, offsets)
    return _ridge_centres(prof, offsets, w, search_px, strict=True)


def _ridge_centres(prof, offsets, width_px, search_px, strict: bool = False) -> np.ndarray:
    """(S,) px: the sub-pixel centre offset of the one clear ridge in each row of prof (S, O)
    sampled at offsets (O,), NaN where there is none (too weak, a competing ridge farther than
    the band's width, the half-height band running off the profile, or a measured width
    outside 0.3-2.5x width_px (S,) + 2 px); compiled (geometry._ridge_kernels). strict (a
    click's evidence): a competing ridge (above MIN_CONTRAST on both sides) also counts when
    it stands AMBIGUOUS_RATIO as high above its darker side as the best ridge above its own,
    and where the ridge stands less than EDGE_LINE_RATIO as high above its brighter side as
    above its darker one (a line between a dark and a bright area) each edge is placed at half
    the ridge's height above its own side: one half-height level for both would put the
    bright side's edge out on its flank (the centre up to a pixel toward the bright side) or
    never reach it."""
    widths = np.ascontiguousarray(np.broadcast_to(np.asarray(width_px, float), (len(prof),)))
    half = np.round((0.5 * widths + 1.5) / PROFILE_STEP_PX).astype(np.int64)
    return ridge_centres(
        np.ascontiguousarray(prof, np.float32),
        np.ascontiguousarray(offsets, float),
        half,
        widths,
        float(search_px),
        PROFILE_STEP_PX,
        bool(strict),
        MIN_CONTRAST,
        AMBIGUOUS_RATIO,
        EDGE_LINE_RATIO,
    )

"""ORB features of a registration image, computed once and kept with it, and the matching of
a frame's features to a reference's (geometry/plane_motion.py's fallback when KLT tracking
fails; docs/propagation.md "Speed").

A frame is tried against several references and recent good frames when its registration or
its camera fails: each attempt used to detect ORB features twice (on the reference warped by
the attempt's prediction, and on the frame again). The features of an image now depend only
on the image and its mask, so they are computed once per (image, mask) and matched directly:
ORB is invariant to rotation and, over its pyramid's 1.2**5 = 2.5x, to scale, so the reference
needs no warping; the prediction only restricts both sides to the part of the image it says
they share, as the warped image's valid area did.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

MATCH_RNG_SEED = 20261130  # OpenCV's generator state for every LSH match (reproducible)
FRAME_FEATURES = 1500  # ORB features of a frame
REFERENCE_FEATURES = 3000  # of a reference at the frames' scale (more: it is seen in part)
MAX_QUERIES = 1500  # the strongest reference features in the shared part that are matched
RATIO = 0.8  # Lowe's ratio test
OVERLAP_MARGIN_PX = 2.0  # reduced px inside the other image (the old 5 x 5 erosion)
MAX_KEPT = 4  # feature sets kept per image (one per mask)
_ORB: dict[int, Any] = {}


@dataclass(frozen=True)
class Features:
    """ORB features of one image under one mask, strongest (ORB's Harris response) first:
    uv (N, 2) float32 keypoint centres in the image's pixels; descriptors (N, 32) uint8 (N
    may be 0)."""

    uv: np.ndarray
    descriptors: np.ndarray


def _orb(n: int) -> Any:
    if n not in _ORB:
        _ORB[n] = cv2.ORB.create(nfeatures=n, scaleFactor=1.2, nlevels=6, fastThreshold=10)
    return _ORB[n]


def detect(gray: np.ndarray, mask: np.ndarray | None, n: int) -> Features:
    """At most n ORB features of gray (h, w) uint8 where mask (h, w) uint8 is non-zero (None:
    everywhere). Deterministic (ORB draws nothing at random)."""
    kp, desc = _orb(n).detectAndCompute(gray, mask)
    if desc is None or not kp:
        return Features(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    order = np.argsort([-k.response for k in kp], kind="stable")
    uv = np.asarray(cv2.KeyPoint.convert(kp), np.float32).reshape(-1, 2)
    return Features(uv[order], desc[order])


def _mask_key(mask: np.ndarray | None) -> tuple[Any, ...]:
    """The mask by content (a mask rebuilt with the same pixels is the same mask): 0.1-0.2 ms
    for a 640 x 360 mask, against 6-12 ms for a detection."""
    if mask is None:
        return (None,)
    m = np.ascontiguousarray(mask)
    return (m.shape, hashlib.blake2b(m.data, digest_size=16).digest())


def cached(store: dict[Any, Any], gray: np.ndarray, mask: np.ndarray | None, n: int) -> Features:
    """detect(gray, mask, n), kept in store (the image's own dict: at most MAX_KEPT masks).
    A mask is known by its bytes; the same mask object again is known without hashing them
    (0.9 ms for a portrait frame's 640 x 1138 mask: the propagation passes the same reduced
    masks to every attempt of a frame and never writes into them)."""
    seen = store.get(("object", id(mask), n))
    if seen is not None and seen[0] is mask:
        return seen[1]  # type: ignore[no-any-return]
    key = (_mask_key(mask), n)
    hit = store.get(key)
    if hit is None:
        hit = detect(gray, mask, n)
        if len(store) >= 2 * MAX_KEPT:
            store.clear()
        store[key] = hit
    store[("object", id(mask), n)] = (mask, hit)  # the mask kept: its id is not reused
    return hit


def _inside(uv: np.ndarray, shape: tuple[int, ...], mask: np.ndarray | None) -> np.ndarray:
    """(N,) bool: uv (N, 2) pixels at least OVERLAP_MARGIN_PX inside an image of shape (h, w),
    on a non-zero pixel of mask (h, w) when one is given."""
    h, w = shape[:2]
    m = OVERLAP_MARGIN_PX
    ok = (uv[:, 0] >= m) & (uv[:, 0] <= w - 1 - m) & (uv[:, 1] >= m) & (uv[:, 1] <= h - 1 - m)
    ok &= np.isfinite(uv).all(axis=1)
    if mask is not None and ok.any():
        c = np.round(uv[ok]).astype(int)
        ok[ok] = mask[c[:, 1], c[:, 0]] > 0
    return ok


def _map(uv: np.ndarray, H: np.ndarray) -> np.ndarray:
    if not len(uv):
        return uv.astype(np.float64)
    return np.asarray(cv2.perspectiveTransform(uv[None].astype(np.float64), H)[0])


def match(
    ref: Features,
    frame: Features,
    Hs: np.ndarray,
    ref_shape: tuple[int, ...],
    frame_shape: tuple[int, ...],
    ref_mask: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Pairs (pa, pb), each (M, 2) float32, of the reference's and the frame's features
    matched by an LSH index and the ratio test, or None with fewer than 8 (or fewer than 8
    features on a side).

    Hs (3, 3) maps reference pixels to frame pixels (the prediction); pa are the reference
    keypoints mapped by it (frame pixels, so the fit measures the residual motion), pb the
    frame's keypoints. Only the part both images share under Hs takes part: reference
    features that map inside the frame, frame features that map back inside the reference
    and onto a non-zero pixel of ref_mask (reference pixels, or None); of the reference's,
    the MAX_QUERIES strongest (as many as ORB keeps in the warped reference's view, which
    bounds the index's work whatever the reference's size). The LSH tables are
    drawn from OpenCV's per-thread generator, reseeded here so a match does not depend on
    what ran before it in the thread."""
    if len(ref.uv) < 8 or len(frame.uv) < 8:
        return None
    ka = _map(ref.uv, Hs)
    keep_a = _inside(ka, frame_shape, None)
    keep_b = _inside(_map(frame.uv, np.linalg.inv(Hs)), ref_shape, ref_mask)
    if keep_a.sum() < 8 or keep_b.sum() < 8:
        return None
    ia, ib = np.flatnonzero(keep_a)[:MAX_QUERIES], np.flatnonzero(keep_b)
    cv2.setRNGSeed(MATCH_RNG_SEED)
    index = cv2.FlannBasedMatcher(
        dict(algorithm=6, table_number=6, key_size=12, multi_probe_level=1), dict(checks=32)
    )
    knn = index.knnMatch(ref.descriptors[ia], frame.descriptors[ib], k=2)
    pairs = [
        (m[0].queryIdx, m[0].trainIdx)
        for m in knn
        if len(m) == 2 and m[0].distance < RATIO * m[1].distance
    ]
    if len(pairs) < 8:
        return None
    q, t = np.array(pairs).T
    return ka[ia[q]].astype(np.float32), frame.uv[ib[t]]

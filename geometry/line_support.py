"""Do the court lines a camera projects lie on painted lines in the image?

Painted lines are brighter than the surface either side. Along each projected line, sample
points and compare the brightness at the point with the brightness a few pixels away on both
sides (along the image normal); the support is the fraction of samples where the line is
brighter than both sides. A camera that fits its keypoints but not the image (a wrong
propagation, a moved camera) scores low.
"""

from __future__ import annotations

import cv2
import numpy as np

from geometry._ridge_kernels import in_view_normals, profile_maps, ridge_evidence
from geometry.arrays import median_axis0
from geometry.camera import Camera
from geometry.line_ridges import mask_allows
from geometry.projection import densify_all, project_polylines, projected_runs

MIN_CONTRAST = 12.0


def line_support(
    image: np.ndarray, camera: Camera, polylines, offset_px: float = 6.0, step_m: float = 0.25
) -> float:
    """Fraction in [0, 1] of line samples (inside the image) brighter than both sides;
    NaN when no line sample is in view."""
    g = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    g = cv2.GaussianBlur(g, (3, 3), 0).astype(np.float32)
    h, w = g.shape
    hits = total = 0
    for run in project_polylines(camera, *densify_all(list(polylines), step_m)):
        d = np.gradient(run, axis=0)
        n = np.stack([-d[:, 1], d[:, 0]], axis=1)
        n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-9
        pts = [run, run + offset_px * n, run - offset_px * n]
        ok = np.all(
            [
                (p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)
                for p in pts
            ],
            axis=0,
        )
        if not ok.any():
            continue
        vals = [
            cv2.remap(
                g,
                p[ok, 0].astype(np.float32)[:, None],
                p[ok, 1].astype(np.float32)[:, None],
                cv2.INTER_LINEAR,
            ).ravel()
            for p in pts
        ]
        hits += int(np.sum((vals[0] - np.maximum(vals[1], vals[2])) > MIN_CONTRAST))
        total += int(ok.sum())
    return hits / total if total else float("nan")


_GRAY_BGR = np.array([0.114, 0.587, 0.299], np.float32)  # cv2's BGR -> gray weights


def _sample_gray(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear gray levels (float32, x's shape) of a gray or BGR uint8 image at float pixel
    coordinates x, y ((R, C) float32, C < 32767): a BGR image is sampled per channel and
    weighted like cv2's gray conversion, so no full-resolution gray copy is made."""
    vals = cv2.remap(image, x, y, cv2.INTER_LINEAR).astype(np.float32)
    return vals if vals.ndim == 2 else gray_levels(vals)


def gray_levels(bgr: np.ndarray) -> np.ndarray:
    """(...) float32 gray levels of (..., 3) float32 BGR values: (b w_b + g w_g) + r w_r in
    float32, each product rounded, in that order (the compiled ridge_evidence's arithmetic).
    Not ``bgr @ weights``: NumPy's matmul rounds as the BLAS kernel the CPU gets does (fused
    multiply-adds or not; on an AMD EPYC 27 % of levels differ in the last bit)."""
    w = _GRAY_BGR
    out: np.ndarray = (bgr[..., 0] * w[0] + bgr[..., 1] * w[1]) + bgr[..., 2] * w[2]
    return out


def line_evidence(
    image: np.ndarray,
    camera: Camera,
    polylines,
    search_px: float = 8.0,
    ridge_px=(2.0, 4.0, 8.0),
    step_m: float = 0.25,
    tol_px: float = 2.0,
    dense=None,
    mask: np.ndarray | None = None,
) -> dict:
    """A frame's own evidence that the camera's court lines lie on painted lines.

    Along each projected line (sampled every step_m metres), the brightness profile across the
    line is read at integer offsets -search_px..search_px (image normal); at each offset the
    ridge response is the brightness minus the brighter of the two points d px away, the best
    over d in ridge_px (thin and wide painted lines). The painted line is the offset of the
    strongest response above MIN_CONTRAST.
    Returns {"samples": line samples in view, "found": samples with a ridge found,
    "support": fraction of samples whose ridge lies within tol_px (NaN with no sample),
    "residual_px": median |offset| of the found ridges (NaN with none)}.
    dense: densify_all(polylines, step_m), precomputed once per court (optional).
    image: (h, w) or (h, w, 3) uint8 (BGR: only the sampled pixels are converted to gray);
    polylines: (M, 3) metres, world frame. All lines' samples are read in one remap.
    mask: uint8 (hm, wm) over the image at any scale, 0 over screen-fixed graphics and user
    masks: samples whose position lies there are left out (geometry.line_ridges.mask_allows;
    a ridge found up to search_px from a kept sample may still lie under it). None: none is."""
    h, w = image.shape[:2]
    dense = dense if dense is not None else densify_all(list(polylines), step_m)
    offs = np.arange(-int(search_px), int(search_px) + 1, dtype=np.float64)
    ds = np.asarray(ridge_px, float)
    reach = offs.max() + ds.max()
    run, run_starts = projected_runs(camera, *dense)
    p, nn = in_view_normals(  # (N, 2) float32: the samples whose profiles lie inside the
        np.ascontiguousarray(run, np.float64),  # image, their unit normals
        np.ascontiguousarray(run_starts, np.int64),
        float(reach),
        float(w),
        float(h),
    )
    if mask is not None and len(p):
        keep = mask_allows(mask, p, (w, h))
        p, nn = np.ascontiguousarray(p[keep]), np.ascontiguousarray(nn[keep])
    if not len(p):
        return {"samples": 0, "found": 0, "support": float("nan"), "residual_px": float("nan")}
    K = len(offs)
    if np.all(ds == np.round(ds)):  # integer ridge widths: one profile holds every sample,
        r = int(reach)  # read in one remap; the responses in one compiled pass
        k = np.arange(-r, r + 1, dtype=np.float32)  # (2 r + 1,) px along the normal
        vals = cv2.remap(image, *profile_maps(p, nn, k), cv2.INTER_LINEAR)
        found, support, residual = ridge_evidence(
            vals.reshape(len(p), -1),
            1 if vals.ndim == 2 else vals.shape[2],
            _GRAY_BGR,
            r - int(search_px),  # column of offset -search_px
            K,
            ds.astype(np.int64),
            MIN_CONTRAST,
            float(offs[0]),
            float(tol_px),
        )
        return {"samples": len(p), "found": found, "support": support, "residual_px": residual}
    k = np.concatenate([offs] + [offs + s * dd for dd in ds for s in (-1, 1)]).astype(
        np.float32
    )  # ((1 + 2D) K,)
    vals = _sample_gray(image, *profile_maps(p, nn, k))
    centre = vals[:, :K]
    side = vals[:, K:].reshape(len(p), len(ds), 2, K).max(axis=2)  # (N, D, K)
    resp = (centre[:, None, :] - side).max(axis=1)  # (N, K)
    j = np.argmax(resp, axis=1)
    off, val = offs[j], np.take_along_axis(resp, j[:, None], 1)[:, 0]
    found_at = val > MIN_CONTRAST
    return {
        "samples": int(len(off)),
        "found": int(found_at.sum()),
        "support": float(np.mean(found_at & (np.abs(off) <= tol_px))),
        "residual_px": (
            float(median_axis0(np.abs(off[found_at]))) if found_at.any() else float("nan")
        ),
    }

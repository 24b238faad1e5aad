"""A camera's uncertainty from everything it was fitted to: clicks, painted lines, a lens prior.

A fit's parameter covariance is (J^T J)^-1 when every residual row of J is in units of its own
1-sigma noise. The rows here are the ones geometry.line_refine fits (one path for the fit and
its covariance):

- clicks: (u, v) of each clicked (or transferred) keypoint, 1-sigma ``click_sigma_px`` per axis;
- painted lines: each ridge sample's offset across its line (geometry.line_ridges), 1-sigma
  ``line_sigma_px``; samples along one line share their errors (paint width, a lens term the
  model lacks), so a line counts as at most LINE_EFFECTIVE_SAMPLES independent samples, and a
  sample farther than HUBER_K sigma from its line is down-weighted (Huber), as in the fit;
- a Gaussian lens prior (LensPrior): the radial coefficients held near the reference's with
  its 1-sigma instead of fixed (a pinhole taken as exact) or free (undetermined by a few
  clicks), so a lens the clicks do not pin down widens the prediction where it matters.

The predicted 1-sigma projection error of a court keypoint, sqrt(trace(J_k C J_k^T)) px, is
then what the fit knows about that keypoint; its largest value over the keypoints in the
picture is the fit's predicted error (docs/propagation.md, step 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from geometry._projection_kernels import one_focal_line_rows
from geometry.arrays import as_array
from geometry.camera import Camera, image_centre_uv
from geometry.camera_params import ParamModel
from geometry.line_ridges import Ridges

LINE_SIGMA_PX = 0.7  # 1-sigma of a ridge centre across the line, px (the floor of a measured one)
LINE_EFFECTIVE_SAMPLES = 20  # a line's samples count as at most this many independent ones
# In a covariance a line counts as two independent samples: a straight painted line measures
# two numbers (its image offset and direction); more samples along it average their noise but
# not what they share (paint width, the spec's line against the real one, an unmodelled lens).
# On real NBA, badminton and volleyball frames refined on their lines, the errors at 259
# clicked keypoints are 1.03 (median) and 2.5 (p90) of this prediction, annotation noise
# included (BENCHMARKS.md, "Full covariance"); with 20 they would be 3x larger.
COVARIANCE_LINE_SAMPLES = 2.0
HUBER_K = 2.0  # line residuals beyond this many sigma are down-weighted
SINGULAR_COND = 1e14  # an information matrix worse conditioned than this is singular
K1_INDEX = 7  # theta index of k1 in the one-focal models (rvec, tvec, f, k1, k2)


@dataclass(frozen=True)
class LensPrior:
    """A Gaussian prior on a one-focal model's radial coefficients: mean (R,) and 1-sigma (R,)
    of k1 (and k2), dimensionless (normalised image coordinates); R at most the model's
    radial terms. A sigma of inf holds nothing."""

    mean: tuple[float, ...]
    sigma: tuple[float, ...]

    def rows(self, theta: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(r (R',), J (R', size)): (theta_k - mean_k) / sigma_k for each finite sigma_k."""
        r, J = [], []
        for k, (m, s) in enumerate(zip(self.mean, self.sigma)):
            if not (np.isfinite(s) and s > 0) or K1_INDEX + k >= size:
                continue
            row = np.zeros(size)
            row[K1_INDEX + k] = 1.0 / s
            r.append((theta[K1_INDEX + k] - m) / s)
            J.append(row)
        return np.array(r, float), np.array(J, float).reshape(-1, size)


def line_weights(ridges: Ridges, effective_samples: float = LINE_EFFECTIVE_SAMPLES) -> np.ndarray:
    """(S,) float64: each ridge sample's weight for its line's share of independent samples
    (1 / sqrt(max(1, n_line / effective_samples)), n_line the samples found on its line)."""
    per_line = np.bincount(ridges.line)[ridges.line] if len(ridges) else np.zeros(0)
    return 1.0 / np.sqrt(np.maximum(1.0, per_line / effective_samples))


def huber_weights(offsets_px: np.ndarray, line_sigma_px: float) -> np.ndarray:
    """(S,) float64 in (0, 1]: sqrt of Huber's weight of each line offset (px) at HUBER_K
    sigma, the factor on a residual row that makes its square Huber's cost."""
    z = np.abs(np.asarray(offsets_px, float)) / line_sigma_px
    w: np.ndarray = np.sqrt(np.minimum(1.0, HUBER_K / np.maximum(z, 1e-9)))
    return w


def _one_focal_rows(
    model: ParamModel,
    theta: np.ndarray,
    ridges: Ridges,
    image_size: tuple[int, int],
    sigma_px: float,
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """line_rows of a one-focal ParamModel, in one compiled pass."""
    R, dR_dr = cv2.Rodrigues(theta[:3])
    cx, cy = image_centre_uv(image_size)
    n = model.n_radial
    return one_focal_line_rows(
        R,
        dR_dr,
        np.ascontiguousarray(theta[3:6], float),
        float(theta[6]),
        float(theta[7]) if n >= 1 else 0.0,
        float(theta[8]) if n >= 2 else 0.0,
        n,
        float(cx),
        float(cy),
        np.ascontiguousarray(ridges.points_world, float),
        np.ascontiguousarray(ridges.uv, float),
        np.ascontiguousarray(ridges.normals, float),
        np.ascontiguousarray(weights, float),
        float(sigma_px),
    )


def line_offsets_px(
    model: ParamModel, theta: np.ndarray, ridges: Ridges, image_size: tuple[int, int]
) -> np.ndarray:
    """(S,) px: each sample's signed offset from its projected line along the line's image
    normal (line_rows' residuals before scaling), the same bits by either route; a
    one-focal ParamModel's through the compiled pass (its Jacobian unused), which costs a
    fifth of cv2.projectPoints's (that builds every camera term's derivatives)."""
    if type(model) is ParamModel and model.one_focal:
        return _one_focal_rows(model, theta, ridges, image_size, 1.0, np.ones(len(ridges)))[0]
    uv = model.project_with_jacobian(theta, ridges.points_world, image_size)[0]
    offsets: np.ndarray = np.sum((uv - ridges.uv) * ridges.normals, axis=1)
    return offsets


def line_rows(
    model: ParamModel,
    theta: np.ndarray,
    ridges: Ridges,
    image_size: tuple[int, int],
    line_sigma_px: float,
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(r (S,), J (S, P)) in sigma units: each sample's signed offset (px) from its projected
    line along the line's image normal, / line_sigma_px, times weights (S,). A one-focal
    ParamModel's rows come from one compiled pass (geometry._projection_kernels: through
    cv2.projectPoints's full Jacobian they cost 13 ms a frame on a basketball pan); other
    models (a held lens) go through their own project_with_jacobian."""
    if type(model) is ParamModel and model.one_focal:
        return _one_focal_rows(model, theta, ridges, image_size, line_sigma_px, weights)
    uv, J = model.project_with_jacobian(theta, ridges.points_world, image_size)
    nrm = ridges.normals
    r = np.sum((uv - ridges.uv) * nrm, axis=1) / line_sigma_px
    J = J.reshape(len(ridges), 2, -1)
    J_l = (J[:, 0, :] * nrm[:, :1] + J[:, 1, :] * nrm[:, 1:]) / line_sigma_px
    return r * weights, J_l * weights[:, None]


def click_rows(
    model: ParamModel,
    theta: np.ndarray,
    points_world: np.ndarray,
    uv: np.ndarray,
    image_size: tuple[int, int],
    click_sigma_px: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(r (2N,), J (2N, P)) in sigma units: (projection - click) / click_sigma_px, rows u0,
    v0, u1, v1, ...; points_world (N, 3) metres, uv (N, 2) px."""
    uv_hat, J = model.project_with_jacobian(theta, points_world, image_size)
    return ((uv_hat - uv) / click_sigma_px).ravel(), J / click_sigma_px


def covariance(J: np.ndarray) -> np.ndarray:
    """(P, P) (J^T J)^-1 of rows in sigma units (J (M, P)); all inf when the rows do not
    determine every parameter (fewer rows than parameters, or condition above SINGULAR_COND
    after scaling each column to unit norm)."""
    P = J.shape[1]
    bad = np.full((P, P), np.inf)
    if J.shape[0] < P or not np.all(np.isfinite(J)):
        return bad
    scale = np.linalg.norm(J, axis=0)
    if np.any(scale == 0):
        return bad
    A = (J / scale).T @ (J / scale)
    if np.linalg.cond(A) > SINGULAR_COND:
        return bad
    return np.linalg.inv(A) / np.outer(scale, scale)


def measured_line_sigma_px(offsets_px: np.ndarray, weights: np.ndarray) -> float:
    """The line samples' noise across their lines, px: the weighted RMS of the offsets
    (S,) px of the fitted camera, the samples beyond HUBER_K sigma of LINE_SIGMA_PX left
    out, never below LINE_SIGMA_PX (paint and a ridge detector's bias set a floor)."""
    d = np.asarray(offsets_px, float)
    keep = np.abs(d) <= HUBER_K * 2 * LINE_SIGMA_PX
    if keep.sum() < 2:
        return LINE_SIGMA_PX
    w = np.asarray(weights, float)[keep] ** 2
    rms = float(np.sqrt(np.sum(w * d[keep] ** 2) / np.sum(w)))
    return max(LINE_SIGMA_PX, rms)


def lens_model(camera: Camera, prior: LensPrior | None) -> ParamModel:
    """The one-focal model a camera's uncertainty is computed in: its own radial terms, and
    k1 at least when a prior holds the lens (a pinhole then counts as k1 = 0 +- sigma)."""
    n = int(np.count_nonzero(camera.dist[:2]))
    if camera.dist[1] != 0:
        n = 2
    if prior is not None:
        n = max(n, min(2, len(prior.sigma)))
    return ParamModel(("simple", "simple_k1", "simple_k1k2")[n])


def joint_covariance(
    camera: Camera,
    points_world: np.ndarray | None = None,
    uv: np.ndarray | None = None,
    click_sigma_px: float = 1.0,
    ridges: Ridges | None = None,
    line_sigma_px: float | None = None,
    prior: LensPrior | None = None,
) -> tuple[ParamModel, np.ndarray, np.ndarray]:
    """(model, theta (P,), covariance (P, P)) of a camera from its clicks, its painted lines
    and a lens prior, linearised at the camera.

    camera: the fitted camera (one focal, principal point at the image centre); points_world
    (N, 3) metres, world frame, and uv (N, 2) px: the clicks (or None); click_sigma_px: their
    1-sigma per axis; ridges: painted-line samples found near the camera's projected lines
    (geometry.line_ridges.find_ridges) or None; line_sigma_px: their 1-sigma across the line
    (None: measured_line_sigma_px of the ridges' offsets); prior: LensPrior or None.
    Degenerate inputs (no rows, too few or collinear clicks and no lines, a lens no row
    holds) give a covariance of inf (see covariance).
    """
    model = lens_model(camera, prior)
    theta = model.from_camera(camera)
    size = camera.image_size
    rows = [np.zeros((0, model.size))]
    if points_world is not None and uv is not None and len(points_world):
        X = as_array("points_world", points_world, (None, 3))
        x = as_array("uv", uv, (len(X), 2))
        rows.append(click_rows(model, theta, X, x, size, click_sigma_px)[1])
    if ridges is not None and len(ridges):
        w = line_weights(ridges, COVARIANCE_LINE_SAMPLES)
        d = ridges.distances_px(camera)
        sigma = measured_line_sigma_px(d, w) if line_sigma_px is None else line_sigma_px
        rows.append(line_rows(model, theta, ridges, size, sigma, w * huber_weights(d, sigma))[1])
    if prior is not None:
        rows.append(prior.rows(theta, model.size)[1])
    return model, theta, covariance(np.vstack(rows))


def predicted_sd_px(
    model: ParamModel,
    theta: np.ndarray,
    cov: np.ndarray,
    points_world: np.ndarray,
    image_size: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """(uv (N, 2) px, sd (N,) px): each world point's projection and its predicted 1-sigma
    error sqrt(trace(J_k cov J_k^T)), J_k its (2, P) projection Jacobian; points_world (N, 3)
    metres. A non-finite covariance gives inf everywhere."""
    X = as_array("points_world", points_world, (None, 3))
    uv, J = model.project_with_jacobian(theta, X, image_size)
    if not np.all(np.isfinite(cov)):
        return uv, np.full(len(X), np.inf)
    Jk = J.reshape(len(X), 2, -1)
    var = np.einsum("kip,pq,kiq->k", Jk, cov, Jk)
    return uv, np.sqrt(np.maximum(var, 0.0))


def worst_in_view(
    uv: np.ndarray, sd: np.ndarray, image_size: tuple[int, int]
) -> tuple[float, int | None]:
    """(largest sd px over the points whose uv (N, 2) lies inside the image, its index);
    (nan, None) when none does."""
    w, h = image_size
    with np.errstate(invalid="ignore"):
        inside = (uv[:, 0] >= 0) & (uv[:, 0] <= w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= h - 1)
    if not inside.any():
        return float("nan"), None
    idx = np.flatnonzero(inside)
    k = int(idx[np.argmax(sd[idx])])
    return float(sd[k]), k

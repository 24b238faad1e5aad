"""Types of the compiled line-fit and keypoint rows and the Levenberg-Marquardt loop
(geometry/_projection_kernels.pyx)."""

from collections.abc import Callable

import numpy as np

def one_focal_line_rows(
    R: np.ndarray,
    dR_dr: np.ndarray,
    t: np.ndarray,
    f: float,
    k1: float,
    k2: float,
    n_radial: int,
    cx: float,
    cy: float,
    points_world: np.ndarray,
    uv_target: np.ndarray,
    normals: np.ndarray,
    weights: np.ndarray,
    sigma_px: float,
) -> tuple[np.ndarray, np.ndarray]: ...
def one_focal_point_rows(
    R: np.ndarray,
    dR_dr: np.ndarray,
    t: np.ndarray,
    f: float,
    k1: float,
    k2: float,
    n_radial: int,
    cx: float,
    cy: float,
    points_world: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]: ...
def project_points(
    R: np.ndarray,
    t: np.ndarray,
    K: np.ndarray,
    dist: np.ndarray,
    r_max: float,
    points_world: np.ndarray,
) -> np.ndarray: ...
def line_sample_geometry(
    R: np.ndarray,
    t: np.ndarray,
    K: np.ndarray,
    dist: np.ndarray,
    r_max: float,
    points_world: np.ndarray,
    directions: np.ndarray,
    width: int,
    height: int,
    inside_px: float,
    along_m: float,
    across_m: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
def one_focal_refine(
    rodrigues: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    theta0: np.ndarray,
    n_radial: int,
    cx: float,
    cy: float,
    points_world: np.ndarray,
    uv_flat: np.ndarray,
    max_iter: int,
    rel_cost_tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int, bool]: ...
def minimise_rows_loop(
    rows: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    theta0: np.ndarray,
    max_iter: int,
    rel_cost_tol: float,
    valid: Callable[[np.ndarray], bool] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int, bool]: ...

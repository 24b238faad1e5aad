"""Types of the compiled line-search loops (geometry/_ridge_kernels.pyx)."""

import numpy as np

def ridge_centres(
    prof: np.ndarray,
    offsets: np.ndarray,
    half_widths: np.ndarray,
    widths_px: np.ndarray,
    search_px: float,
    step_px: float,
    strict: bool,
    min_contrast: float,
    ambiguous_ratio: float,
    edge_line_ratio: float,
) -> np.ndarray: ...
def smooth_inliers_per_line(
    line: np.ndarray, arc: np.ndarray, off: np.ndarray, tol_px: float
) -> np.ndarray: ...
def profile_maps(
    uv: np.ndarray, normals: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]: ...
def in_view_normals(
    run: np.ndarray, starts: np.ndarray, reach: float, width: float, height: float
) -> tuple[np.ndarray, np.ndarray]: ...
def ridge_evidence(
    samples: np.ndarray,
    channels: int,
    gray_weights: np.ndarray,
    first_offset: int,
    offsets: int,
    side_px: np.ndarray,
    min_contrast: float,
    first_offset_px: float,
    tol_px: float,
) -> tuple[int, float, float]: ...

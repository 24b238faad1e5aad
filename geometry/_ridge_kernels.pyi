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

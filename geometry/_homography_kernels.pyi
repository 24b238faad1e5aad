"""Types of the compiled robust homography fit (geometry/_homography_kernels.pyx)."""

import numpy as np

def robust_homography(
    pa: np.ndarray,
    pb: np.ndarray,
    threshold_px: float,
    max_iters: int = 2000,
    confidence: float = 0.999,
    seed: int = 0x5EED,
) -> tuple[np.ndarray | None, np.ndarray]: ...

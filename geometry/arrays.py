"""Array helpers: the one validator of array arguments at public entry points, and a median
and distinct values for the propagation's per-frame path."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike

from geometry.errors import GeometryError


def as_array(
    name: str, value: ArrayLike, shape: Sequence[int | None], *, finite: bool = True
) -> np.ndarray:
    """Return ``value`` as a float64 array of ``shape`` (``None`` = any length), or raise.

    Raises ``GeometryError`` naming ``name``, the expected shape and the shape it got, or the
    first non-finite entry.

    >>> as_array("uv", [[1, 2]], (None, 2)).shape
    (1, 2)
    """
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise GeometryError(f"{name}: not a numeric array ({exc})") from None
    if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
        raise GeometryError(f"{name}: expected shape {want}, got {arr.shape}")
    if finite and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise GeometryError(f"{name}: non-finite value at index {tuple(int(i) for i in bad)}")
    return arr


def median_axis0(values: ArrayLike) -> np.ndarray:
    """np.median(values, axis=0) of finite values ((N,) -> scalar array, (N, D) -> (D,);
    N >= 1), by sorting: np.median's first call imports numpy.ma (10-30 ms), which a
    propagation run's start-up would otherwise pay."""
    s = np.sort(np.asarray(values, dtype=np.float64), axis=0)
    n = len(s)
    return np.asarray(0.5 * (s[(n - 1) // 2] + s[n // 2]))


def unique_sorted(values: ArrayLike) -> np.ndarray:
    """np.unique(values) of a plain (N,) array: its distinct values, ascending. NumPy 2.4's
    np.unique asks numpy.ma whether the array is masked, and its first call imports it
    (15-17 ms of a propagation run's start-up)."""
    s = np.sort(np.asarray(values).ravel())
    if len(s) == 0:
        return s
    keep = np.empty(len(s), bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]

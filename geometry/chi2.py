"""Chi-square upper quantiles for integer degrees of freedom, without importing SciPy.

scipy.stats (or even scipy.special) costs 0.6-2 s of start-up; a propagation run needs only
the quantile the calibration's quality test uses. For an integer k the survival function has
a closed form (a finite Poisson sum for even k, erfc plus a finite sum for odd k), and the
quantile is found by bisection to machine precision. Large k (where the sums would underflow)
falls back to scipy.special.chdtri.
"""

from __future__ import annotations

import math

MAX_CLOSED_FORM_DOF = 400  # beyond this, exp(-x / 2) underflows near the quantiles we need


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for X chi-square with dof (integer >= 1) degrees of freedom; x >= 0."""
    if dof < 1 or int(dof) != dof:
        raise ValueError(f"dof: expected an integer >= 1, got {dof!r}")
    dof = int(dof)
    if x <= 0:
        return 1.0
    if dof > MAX_CLOSED_FORM_DOF or x > 1400.0:  # the sums would underflow
        from scipy.special import chdtrc

        return float(chdtrc(dof, x))
    h = 0.5 * x
    if dof % 2 == 0:  # exp(-h) * sum_{i < dof/2} h^i / i!
        term = total = math.exp(-h)
        for i in range(1, dof // 2):
            term *= h / i
            total += term
        return min(1.0, total)
    # odd: erfc(sqrt(h)) + 2 phi(sqrt(x)) * sum_{j=1}^{(dof-1)/2} x^((2j-1)/2) / (2j-1)!!
    r = math.sqrt(x)
    total = math.erfc(math.sqrt(h))
    term = 2.0 * math.exp(-h) / math.sqrt(2.0 * math.pi) * r  # j = 1
    for j in range(1, (dof - 1) // 2 + 1):
        if j > 1:
            term *= x / (2 * j - 1)
        total += term
    return min(1.0, total)


def chi2_isf(q: float, dof: int) -> float:
    """The x with P(X > x) = q (0 < q < 1), X chi-square with dof (integer >= 1) degrees of
    freedom: chi2.ppf(1 - q, dof)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"q: expected a probability in (0, 1), got {q!r}")
    if dof > MAX_CLOSED_FORM_DOF:
        from scipy.special import chdtri

        return float(chdtri(dof, q))
    lo, hi = 0.0, max(1.0, float(dof))
    while chi2_sf(hi, dof) > q:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if chi2_sf(mid, dof) > q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return 0.5 * (lo + hi)

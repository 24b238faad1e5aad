"""geometry.arrays.median_axis0: np.median(axis=0) without numpy.ma."""

import numpy as np
import pytest

from geometry.arrays import median_axis0


@pytest.mark.parametrize("n", [1, 2, 3, 10, 11])
def test_equals_numpy_median(n):
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, 3))
    np.testing.assert_allclose(median_axis0(a), np.median(a, axis=0), rtol=0, atol=1e-15)
    b = rng.normal(size=n)
    assert float(median_axis0(b)) == pytest.approx(float(np.median(b)), abs=1e-15)

"""Constant-acceleration ball flights: exact round trips, least squares, quality checks."""

import numpy as np
import pytest

from geometry.ballistics import GRAVITY, fit_flight
from geometry.errors import GeometryError


def flight(t, p0=(20.0, 4.0, 1.0), v0=(-25.0, 2.0, 4.0), a=GRAVITY + [0.5, 0, 1.0]):
    t = np.asarray(t, float)[:, None]
    return np.asarray(p0) + np.asarray(v0) * t + 0.5 * np.asarray(a) * t**2


def test_three_points_determine_the_flight():
    t = np.array([0.0, 0.4, 0.8])
    f = fit_flight(t, flight(t))
    assert f.ok and np.allclose(f.a, GRAVITY + [0.5, 0, 1.0])
    ts = np.linspace(0, 0.8, 21)
    assert np.allclose(f.position(ts), flight(ts), atol=1e-9)


def test_noisy_points_fit_by_least_squares(rng):
    t = np.linspace(0, 0.9, 23)
    f = fit_flight(t, flight(t) + rng.normal(0, 0.02, (23, 3)))
    assert f.ok and f.rms_m < 0.04
    assert np.abs(f.position(t) - flight(t)).max() < 0.05


def test_reprojection_residual_against_clicks(tennis_camera):
    t = np.array([0.0, 0.3, 0.6])
    f = fit_flight(t, flight(t))
    uv = tennis_camera.project(flight(t)) + [[0, 0], [3, 4], [0, 0]]
    r = f.reprojection_px([tennis_camera] * 3, t, uv)
    assert np.allclose(r, [0, 5, 0], atol=1e-6)


def test_quality_check_rejects_non_flights():
    t = np.linspace(0, 0.8, 9)
    P = flight(t, p0=(20.0, 4.0, 1.0), v0=(-25.0, 2.0, -2.0))
    P[:, 2] = np.abs(P[:, 2])  # it hits the court at t = 0.29 s and bounces
    f = fit_flight(t, P)
    assert not f.ok and "parabola" in f.message
    up = fit_flight(t[:3], flight(t[:3], a=(0, 0, 20.0)))
    assert not up.ok and "upward" in up.message


def test_degenerate_input():
    with pytest.raises(GeometryError, match="at least 3 points"):
        fit_flight([0, 1], np.zeros((2, 3)))
    with pytest.raises(GeometryError, match="same time"):
        fit_flight([0, 1, 1], np.zeros((3, 3)))
    with pytest.raises(GeometryError, match="non-finite"):
        fit_flight([0, 1, 2], [[0, 0, np.nan], [0, 0, 0], [0, 0, 0]])

"""The doctor's paint evidence next to painted areas (issue 10 §3, the NBA key): a line at the
edge of a filled key with another line inside the key, and a crossing next to a filled logo,
must give the line centre or no evidence, never the neighbouring line or the area's edge; a
click moved by 12 px is still seen on the lines that are found."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline.click_paint import painted_lines_with_widths
from courtstudio.synth.synthetic import sample_broadcast_camera
from geometry.click_paint import PaintCheck, _fit_line, check_clicks_on_paint
from geometry.line_ridges import to_gray
from geometry.projection import project_polygon
from geometry.ribbons import ribbon_quads

SIZE = (1280, 720)
WOOD, KEY, PAINT = (120, 170, 210), (60, 110, 40), (240, 240, 240)  # BGR: grey 176, 83, 240
FT = 5.7646  # the far free-throw line's centre, x metres (court_specs/basketball_nba.json)
KEY_Y = (5.2054, 10.0346)  # the far key's lane lines' centres, y metres


def _fill(img, cam, quad_world, bgr):
    uv = project_polygon(cam, np.asarray(quad_world, float))
    if len(uv) >= 3:
        cv2.fillPoly(img, [np.round(uv * 16).astype(np.int32)], bgr, cv2.LINE_AA, 4)


def _rect(x0, x1, y0, y1):
    return [[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]]


def nba_frame(cam, inner_line_m=None, logo=None, seed=0):
    """(h, w, 3) uint8 BGR: a bright floor, the far key filled dark between its painted lines
    (as on many NBA floors), the court's painted lines, optionally a second painted line
    inside the key parallel to the free-throw line inner_line_m metres from it, and a
    bright filled logo rectangle logo (x0, x1, y0, y1) metres; grey noise sigma 3."""
    spec = load_spec("basketball_nba")
    img = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    img[:] = WOOD
    half = 0.5 * spec.line_width("far_key")
    _fill(img, cam, _rect(-1.0, FT - half, KEY_Y[0] + half, KEY_Y[1] - half), KEY)
    if logo is not None:
        _fill(img, cam, _rect(*logo), PAINT)
    for name, pl in spec.lines.items():
        if name != "net_line":
            for quad in ribbon_quads(pl, spec.line_width(name), extend_ends=True):
                _fill(img, cam, quad, PAINT)
    if inner_line_m is not None:
        x = FT - inner_line_m
        _fill(img, cam, _rect(x - half, x + half, KEY_Y[0] + half, KEY_Y[1] - half), PAINT)
    noise = np.random.default_rng(seed).normal(0.0, 3.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def nba_camera():
    spec = load_spec("basketball_nba")
    return spec, sample_broadcast_camera(spec, SIZE, np.random.default_rng(3))


def px_per_m(cam, X, direction):
    """Image px per world metre at X (3,) m along direction (3,)."""
    a, b = cam.project(np.array([X, X + 0.1 * np.asarray(direction, float)]))
    return float(np.linalg.norm(b - a)) / 0.1


def check(spec, cam, img, names, uv) -> PaintCheck:
    lines, widths = painted_lines_with_widths(spec)
    X = np.array([spec.keypoints[n] for n in names], float)
    return check_clicks_on_paint(to_gray(img), cam, X, np.asarray(uv, float), lines, widths)


def assert_lines_follow(pc: PaintCheck, i: int, move_uv: np.ndarray, tol_px: float):
    """Every painted line found for click i puts its centre where the click came from: its
    offset is minus the click's move along its normal (within tol_px)."""
    for j in range(int(pc.lines[i])):
        expected = -float(pc.normals[i, j] @ move_uv)
        assert abs(pc.offsets[i, j] - expected) < tol_px, (j, pc.offsets[i, j], expected)


@pytest.mark.parametrize(
    "name, lines_found, lines_plain",
    # right: the free-throw circle runs 8 px inside the key along the lane line, a rival too
    [("far_free_throw_left", 1, 2), ("far_free_throw_right", 0, 1)],
)
def test_a_line_at_a_painted_keys_edge_is_not_taken_for_the_line_inside_the_key(
    name, lines_found, lines_plain
):
    """The free-throw line between the dark key and the bright floor stands only 64 grey
    levels above the floor; a line inside the key 14 px away stands 157 above both sides.
    Before: that line was taken for the free-throw line (the click 12 px off its paint)."""
    spec, cam = nba_camera()
    X = np.asarray(spec.keypoints[name], float)
    inner_m = 14.0 / px_per_m(cam, X, [1.0, 0.0, 0.0])
    img = nba_frame(cam, inner_line_m=inner_m)
    uv = cam.project(X[None])
    pc = check(spec, cam, img, [name], uv)
    assert pc.lines[0] == lines_found  # the lane line (dark key / floor too) where clear
    assert_lines_follow(pc, 0, np.zeros(2), 1.0)  # the line centres or no evidence
    # the same frame without the inner line: the free-throw line found at its centre
    plain = check(spec, cam, nba_frame(cam), [name], uv)
    assert plain.lines[0] == lines_plain
    assert_lines_follow(plain, 0, np.zeros(2), 1.0)


@pytest.mark.parametrize("angle_deg", [0.0, 60.0, 135.0, 240.0, 300.0])
def test_a_click_moved_12_px_next_to_a_painted_key_is_seen_on_the_lines_found(angle_deg):
    spec, cam = nba_camera()
    name = "far_free_throw_left"
    X = np.asarray(spec.keypoints[name], float)
    img = nba_frame(cam, inner_line_m=14.0 / px_per_m(cam, X, [1.0, 0.0, 0.0]))
    a = np.radians(angle_deg)
    move = 12.0 * np.array([np.cos(a), np.sin(a)])
    pc = check(spec, cam, img, [name], cam.project(X[None]) + move)
    assert pc.lines[0] >= 1  # the move is seen ...
    assert_lines_follow(pc, 0, move, 1.0)  # ... on the right lines only
    assert np.max(np.abs(pc.offsets[0, : pc.lines[0]])) > 4.0 or pc.lines[0] == 2


@pytest.mark.parametrize("move_px", [0.0, 12.0])
def test_a_crossing_next_to_a_filled_logo_gives_the_line_centres(move_px):
    """A bright filled rectangle (a sponsor's logo) a few px beyond both lines of the
    free-throw corner: its edges are no lines, the corner is measured on the painted lines."""
    spec, cam = nba_camera()
    name = "far_free_throw_right"
    X = np.asarray(spec.keypoints[name], float)
    gap_x = 7.0 / px_per_m(cam, X, [1.0, 0.0, 0.0])  # the logo's edges 7 and 5 px off
    gap_y = 5.0 / px_per_m(cam, X, [0.0, 1.0, 0.0])
    logo = (FT + gap_x, FT + 2.0, KEY_Y[1] + gap_y, KEY_Y[1] + 2.0)
    img = nba_frame(cam, logo=logo)
    rng = np.random.default_rng(1)
    for _ in range(4):
        a = rng.uniform(0, 2 * np.pi)
        move = move_px * np.array([np.cos(a), np.sin(a)])
        pc = check(spec, cam, img, [name], cam.project(X[None]) + move)
        assert pc.lines[0] >= 1
        assert_lines_follow(pc, 0, move, 1.0)
        if pc.lines[0] == 2:
            np.testing.assert_allclose(pc.offset_uv[0], -move, atol=1.0)


def test_a_lone_centre_by_the_crossing_does_not_tilt_the_fit():
    """Eight centres 37-58 px along the line at -0.8 px and one at 7 px at +3.6 px (a ridge
    next to the crossing): a straight line through all of them passes through both groups
    and puts the line 3.4 px off at the click; the lone centre is dropped instead."""
    r = np.array([7.0, *np.arange(37.0, 59.0, 3.0)])
    c = np.array([3.6, *np.full(8, -0.8)])
    fit = _fit_line(r, c)
    assert fit is not None and abs(fit[0] + 0.8) < 0.2, fit


def test_centres_of_a_line_crossing_the_search_are_not_the_line():
    """Centres on an image line at 35 degrees to the camera's direction (another painted
    line crossing the search band) are no fit, however straight."""
    r = np.arange(7.0, 60.0, 3.0)
    assert _fit_line(r, 16.0 - np.tan(np.radians(35.0)) * r) is None
    assert _fit_line(r, 2.0 - np.tan(np.radians(3.0)) * r) is not None  # a camera's error

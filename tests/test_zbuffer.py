"""exporters.zbuffer: the nearest triangle at each pixel centre, vectorised."""

from fractions import Fraction

import numpy as np
import pytest

from exporters import zbuffer
from exporters.zbuffer import fill_nearest

RED, BLUE = (0, 0, 255), (255, 0, 0)


def _inside_count(tri, w, h):
    """Pixel centres inside (or on) a triangle, counted one by one in exact arithmetic."""
    (ax, ay), (bx, by), (cx, cy) = [(Fraction(u), Fraction(v)) for u, v in tri]
    area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    n = 0
    for y in range(h):
        for x in range(w):
            w0 = ((bx - x) * (cy - y) - (by - y) * (cx - x)) / area
            w1 = ((cx - x) * (ay - y) - (cy - y) * (ax - x)) / area
            if w0 >= 0 and w1 >= 0 and 1 - w0 - w1 >= 0:
                n += 1
    return n


@pytest.mark.parametrize(
    "tri", [[(2.3, 1.7), (30.6, 4.2), (11.1, 25.8)], [(5, 5), (5, 20), (20, 5)]]
)
def test_a_triangle_covers_exactly_the_pixel_centres_inside_it(tri):
    img = np.zeros((32, 40, 3), np.uint8)
    for faces in ([[0, 1, 2]], [[0, 2, 1]]):  # either winding
        img[:] = 0
        n = fill_nearest(img, np.array(tri, float), np.ones(3), np.array(faces), np.array([RED]))
        assert n == _inside_count(tri, 40, 32) == int((img[..., 2] == 255).sum())


def test_the_nearer_triangle_wins_whatever_the_order():
    uv = np.array([[2, 2], [30, 2], [2, 30], [10, 10], [38, 10], [10, 38]], float)
    depth = np.array([5, 5, 5, 2, 2, 2], float)  # the second triangle is nearer
    faces = np.array([[0, 1, 2], [3, 4, 5]])
    a = np.zeros((40, 40, 3), np.uint8)
    b = np.zeros((40, 40, 3), np.uint8)
    fill_nearest(a, uv, depth, faces, np.array([RED, BLUE]))
    fill_nearest(b, uv, depth, faces[::-1], np.array([BLUE, RED]))
    assert np.array_equal(a, b)
    assert tuple(a[12, 12]) == BLUE and tuple(a[4, 4]) == RED


def test_interpenetrating_triangles_are_resolved_per_pixel():
    # two triangles crossing in depth along x = 20: left of it the red one is nearer
    uv = np.array([[0, 0], [40, 0], [20, 40], [0, 2], [40, 2], [20, 42]], float)
    depth = np.array([2, 6, 4, 6, 2, 4], float)
    img = np.zeros((40, 41, 3), np.uint8)
    fill_nearest(img, uv, depth, np.array([[0, 1, 2], [3, 4, 5]]), np.array([RED, BLUE]))
    assert tuple(img[5, 8]) == RED and tuple(img[5, 32]) == BLUE  # painter's would pick one


def test_batches_give_the_same_image(monkeypatch):
    rng = np.random.default_rng(3)
    centres = rng.uniform(-10, 130, (150, 1, 2))
    uv = (centres + rng.uniform(-15, 15, (150, 3, 2))).reshape(-1, 2)  # overlapping triangles
    depth = rng.uniform(1, 10, len(uv))
    faces = np.arange(len(uv)).reshape(-1, 3)
    colours = rng.integers(0, 255, (len(faces), 3)).astype(np.uint8)
    one = np.zeros((120, 120, 3), np.uint8)
    fill_nearest(one, uv, depth, faces, colours)
    monkeypatch.setattr(zbuffer, "BATCH_CANDIDATES", 997)  # about 20 batches
    many = np.zeros((120, 120, 3), np.uint8)
    fill_nearest(many, uv, depth, faces, colours)
    assert np.array_equal(one, many) and one.any()


def test_degenerate_and_outside_triangles_draw_nothing():
    img = np.zeros((20, 20, 3), np.uint8)
    uv = np.array([[1, 1], [10, 10], [19, 19], [-50, -50], [-40, -50], [-45, -30]], float)
    n = fill_nearest(img, uv, np.ones(6), np.array([[0, 1, 2], [3, 4, 5]]), np.array([RED, RED]))
    assert n == 0 and not img.any()
    assert fill_nearest(img, uv, np.ones(6), np.zeros((0, 3), int), np.zeros((0, 3))) == 0


def test_a_view_of_a_larger_image_is_drawn_in_place():
    big = np.zeros((20, 40, 3), np.uint8)
    view = big[:, 10:30]  # not contiguous
    uv = np.array([[1, 1], [18, 2], [3, 17]], float)
    n = fill_nearest(view, uv, np.ones(3), np.array([[0, 1, 2]]), np.array([RED]))
    assert n > 50 and int((big[..., 2] == 255).sum()) == n
    assert not big[:, :10].any() and not big[:, 30:].any()


def test_the_orbit_view_draws_the_nearer_player_in_front_whatever_the_order():
    """Players share one depth buffer in the 3D view: where two overlap on screen, the nearer
    one shows, in either order of the list."""
    import trimesh

    from court_specs import load_spec
    from exporters.orbit_view import OrbitPlayer, _fill_players, orbit_camera

    spec = load_spec("tennis")
    view = orbit_camera(spec, 0.0, np.deg2rad(10), 30.0, (320, 200))
    s = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
    target = np.array([spec.length_m / 2, spec.width_m / 2, 0.0])
    towards = view.camera_centre_world - target
    near = OrbitPlayer(1, None, s.vertices + target + 0.3 * towards, s.faces)
    far = OrbitPlayer(2, None, 2.0 * s.vertices + target, s.faces)  # bigger, behind it

    def drawn(players):
        img = np.zeros((200, 320, 3), np.uint8)
        _fill_players(img, view, players)
        return img

    a, b, lone = drawn([near, far]), drawn([far, near]), drawn([near])
    assert np.array_equal(a, b)
    # where the near sphere is drawn alone, the pair shows it too: it is in front
    shown = lone.any(axis=2)
    assert shown.sum() > 100 and np.array_equal(a[shown], lone[shown])
    assert (a.any(axis=2) & ~shown).sum() > 100  # the far sphere shows around it

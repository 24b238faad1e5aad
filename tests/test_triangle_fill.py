"""geometry.triangle_fill: the union of triangles as a mask (mesh silhouettes)."""

import cv2
import numpy as np
import pytest
import trimesh

from geometry.triangle_fill import triangles_union_mask


def _sphere_silhouette_case(f_px=400.0, radius_m=1.0, depth_m=5.0, shape=(240, 320)):
    """An icosphere on the optical axis: its projection is a disc of radius f r / sqrt(d^2 - r^2)
    about the principal point (the tangent cone's image)."""
    mesh = trimesh.creation.icosphere(subdivisions=5, radius=radius_m)
    cx, cy = shape[1] / 2, shape[0] / 2
    K = np.array([[f_px, 0, cx], [0, f_px, cy], [0, 0, 1.0]])
    v = mesh.vertices + [0, 0, depth_m]
    uv = v @ K.T
    uv = uv[:, :2] / uv[:, 2:]
    r_px = f_px * radius_m / np.sqrt(depth_m**2 - radius_m**2)
    return uv[mesh.faces], (cx, cy), r_px


def test_sphere_silhouette_is_the_projected_disc():
    # mask pixel (col, row) has its centre at (col + 0.5, row + 0.5) in mask coordinates
    tris, (cx, cy), r_px = _sphere_silhouette_case()
    shape = (240, 320)
    mask = triangles_union_mask(tris, shape)
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]]
    dist = np.hypot(cols + 0.5 - cx, rows + 0.5 - cy)
    # the mesh is a polyhedron inscribed in the sphere: its outline lies within 0.2 % of r inside
    assert mask[dist < r_px * 0.995].all()
    assert not mask[dist > r_px + 0.5].any()


def test_overlaps_are_covered_where_fillpoly_parity_drops_them():
    # a closed mesh: every front face lies over a back face
    tris, (cx, cy), r_px = _sphere_silhouette_case(f_px=800.0, shape=(480, 640))
    ours = triangles_union_mask(tris, (480, 640))
    parity = np.zeros((480, 640), np.uint8)
    cv2.fillPoly(parity, list((tris * 4).astype(np.int32)), 255, cv2.LINE_8, 2)
    disc_area = np.pi * r_px**2
    assert ours.sum() > 0.98 * disc_area
    assert (parity > 0).sum() < 0.9 * ours.sum()  # the defect this module exists for


def test_two_copies_and_both_orientations_cover_once():
    tri = np.array([[10.0, 10.0], [50.0, 12.0], [20.0, 40.0]])
    one = triangles_union_mask(tri[None], (60, 60))
    assert one.sum() > 500
    both = triangles_union_mask(np.stack([tri, tri[::-1], tri]), (60, 60))
    np.testing.assert_array_equal(one, both)


def test_pixel_centre_rule_on_a_square():
    # two triangles making the square [2, 6] x [3, 5]: exactly the centres inside it
    sq = np.array([[2.0, 3.0], [6.0, 3.0], [6.0, 5.0], [2.0, 5.0]])
    mask = triangles_union_mask(np.stack([sq[[0, 1, 2]], sq[[0, 2, 3]]]), (8, 8))
    expected = np.zeros((8, 8), bool)
    expected[3:5, 2:6] = True
    np.testing.assert_array_equal(mask, expected)


def test_clipped_at_the_mask_border():
    tri = np.array([[[-30.0, -30.0], [100.0, -20.0], [-20.0, 100.0]]])
    mask = triangles_union_mask(tri, (60, 60))  # inside where x + y < 80
    assert mask[0, 0] and mask[0, 59] and mask[59, 0] and mask[39, 39]
    assert not mask[59, 59] and not mask[41, 41]


def test_degenerate_inputs():
    empty = triangles_union_mask(np.zeros((0, 3, 2)), (5, 7))
    assert empty.shape == (5, 7) and not empty.any()
    collinear = np.array([[[0.0, 0.0], [5.0, 5.0], [10.0, 10.0]]])
    assert not triangles_union_mask(collinear, (12, 12)).any()
    nan = np.array([[[0.0, 0.0], [np.nan, 5.0], [10.0, 0.0]]])
    assert not triangles_union_mask(nan, (12, 12)).any()
    outside = np.array([[[100.0, 100.0], [120.0, 100.0], [100.0, 130.0]]])
    assert not triangles_union_mask(outside, (12, 12)).any()
    with pytest.raises(ValueError, match="shape"):
        triangles_union_mask(np.zeros((1, 3, 2)), (0, 4))
    with pytest.raises(ValueError, match=r"\(T, 3, 2\)"):
        triangles_union_mask(np.zeros((4, 2)), (4, 4))


def test_app_silhouette_of_a_sphere_is_whole(qapp):
    # the players overlay: a sphere mesh in camera coordinates, drawn at half resolution
    from types import SimpleNamespace

    from annotation_ui.overlay_items import SILHOUETTE_SCALE, mesh_silhouette
    from geometry.camera import Camera

    mesh = trimesh.creation.icosphere(subdivisions=5, radius=1.0)
    f_px, depth_m = 1200.0, 6.0
    cam = Camera(
        np.array([[f_px, 0, 960], [0, f_px, 540], [0, 0, 1.0]]),
        np.eye(3),
        np.zeros(3),
        (1920, 1080),
    )
    body = SimpleNamespace(vertices_cam=mesh.vertices + [0, 0, depth_m], faces=mesh.faces)
    pixmap, _ = mesh_silhouette("sphere-test", body, cam)
    img = pixmap.toImage()
    alpha = np.array(
        [[img.pixelColor(x, y).alpha() for x in range(img.width())] for y in range(img.height())]
    )
    r_px = f_px / np.sqrt(depth_m**2 - 1.0) / SILHOUETTE_SCALE  # in the pixmap's pixels
    covered = (alpha > 0).sum()
    assert covered > 0.98 * np.pi * r_px**2
    assert covered < 1.02 * np.pi * (r_px + 1) ** 2

import numpy as np

from geometry.camera import Camera, rotation_look_at
from geometry.polygons import points_in_polygon
from geometry.projection import clip_polygon_to_front, project_polyline


def test_points_in_polygon_including_edges_and_concave():
    square = np.array([[0, 0], [0, 2], [2, 2], [2, 0.0]])
    pts = np.array([[1, 1], [3, 1], [2, 1], [0, 0], [-0.1, 1]])
    assert points_in_polygon(pts, square).tolist() == [True, False, True, True, False]
    L = np.array([[0, 0], [0, 3], [1, 3], [1, 1], [3, 1], [3, 0.0]])
    assert points_in_polygon(np.array([[2, 2], [0.5, 2], [2, 0.5]]), L).tolist() == [
        False,
        True,
        True,
    ]


def test_polyline_passing_behind_the_camera_is_split():
    C = np.array([0.0, 0.0, 2.0])
    R = rotation_look_at(C, np.array([-10.0, 0.0, 0.0]))
    cam = Camera(
        K=np.array([[500, 0, 319.5], [0, 500, 239.5], [0, 0, 1.0]]),
        R=R,
        t=-R @ C,
        image_size=(640, 480),
    )
    runs = project_polyline(cam, np.array([[-20.0, 1, 0], [20.0, 1, 0]]))
    assert len(runs) == 1  # only the part in front survives
    assert np.all(np.isfinite(runs[0]))


def test_clip_polygon_to_front():
    quad = np.array([[0, 0, -1.0], [1, 0, -1.0], [1, 0, 3.0], [0, 0, 3.0]])
    out = clip_polygon_to_front(quad, 0.5)
    assert np.all(out[:, 2] >= 0.5 - 1e-12) and len(out) == 4
    assert len(clip_polygon_to_front(quad - [0, 0, 10], 0.5)) == 0


def test_batch_projection_matches_per_line(tennis, tennis_camera):
    from geometry.projection import densify_all, project_polylines

    lines = list(tennis.lines.values())
    batch = project_polylines(tennis_camera, *densify_all(lines))
    single = [r for pl in lines for r in project_polyline(tennis_camera, pl)]
    assert len(batch) == len(single)
    for a, b in zip(batch, single):
        assert np.allclose(a, b)
    # a camera standing on the court sees part of the lines behind it: runs are split
    C = np.array([12.0, 5.0, 1.7])
    R = rotation_look_at(C, np.array([0.0, 5.0, 0.0]))
    cam = Camera(K=tennis_camera.K, R=R, t=-R @ C, image_size=(1920, 1080))
    batch = project_polylines(cam, *densify_all(lines))
    single = [r for pl in lines for r in project_polyline(cam, pl)]
    assert len(batch) == len(single) and all(np.allclose(a, b) for a, b in zip(batch, single))


def test_projected_runs_are_the_batch_runs_end_to_end(tennis, tennis_camera):
    """projected_runs (line evidence's path) gives project_polyline's runs end to end and
    where each begins: with every line in front (its fast path: no splitting) and with a
    camera on the court that sees lines pass behind it (runs split, short pieces dropped)."""
    from geometry.projection import densify_all, projected_runs

    lines = list(tennis.lines.values())
    C = np.array([12.0, 5.0, 1.7])
    R = rotation_look_at(C, np.array([0.0, 5.0, 0.0]))
    on_court = Camera(K=tennis_camera.K, R=R, t=-R @ C, image_size=(1920, 1080))
    dense = densify_all(lines)
    for cam, cut in ((tennis_camera, False), (on_court, True)):
        single = [r for pl in lines for r in project_polyline(cam, pl)]
        uv, starts = projected_runs(cam, *dense)
        assert (len(uv) < len(dense[0])) == cut  # points behind the camera left out
        assert len(starts) == len(single) - 1
        assert np.array_equal(starts, np.cumsum([len(r) for r in single])[:-1])
        assert np.allclose(uv, np.concatenate(single))
    C = np.array([12.0, -30.0, 1.7])  # looking away from the court: every line behind
    R = rotation_look_at(C, np.array([12.0, -60.0, 1.7]))
    uv, starts = projected_runs(Camera(K=tennis_camera.K, R=R, t=-R @ C, image_size=(9, 9)), *dense)
    assert uv.shape == (0, 2) and len(starts) == 0

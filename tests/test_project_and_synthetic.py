"""Project files and the synthetic generator."""

import json

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.export.reconstruct import SAMPLE_PROJECT
from courtstudio.io.project import ProjectError, load_annotation, load_project
from courtstudio.synth.synthetic import make_synthetic_frame, sample_broadcast_camera
from courtstudio.synth.synthetic_project import write_synthetic_project
from tests.conftest import IMAGE_SIZE


def test_sample_project_loads():
    p = load_project(SAMPLE_PROJECT)
    sports = {f.sport for f in p.frames}
    assert {"tennis", "badminton", "table_tennis"} <= sports
    for f in p.frames:
        assert p.image_path(f).exists()
        ann = p.load_annotation(f.id)
        assert len(ann.points) >= 6 and ann.ball.visible


def _project(tmp_path, data):
    (tmp_path / "courtstudio_project.json").write_text(json.dumps(data))
    return tmp_path


@pytest.mark.parametrize(
    "data,msg",
    [
        (
            {"format": "courtstudio.project", "format_version": 1, "sport": "squash", "frames": []},
            "field sport: unknown sport 'squash'",
        ),
        (
            {"format": "courtstudio.project", "format_version": 3, "sport": "tennis", "frames": []},
            "newer than this CourtStudio reads",
        ),
        ({"format": "other", "format_version": 1, "sport": "tennis", "frames": []}, "field format"),
        (
            {
                "format": "courtstudio.project",
                "format_version": 1,
                "sport": "tennis",
                "frames": [{"id": "a", "image": "a.jpg"}, {"id": "a", "image": "b.jpg"}],
            },
            r"frames\[1\].id: duplicate",
        ),
        (
            {
                "format": "courtstudio.project",
                "format_version": 1,
                "sport": "tennis",
                "frames": [{"id": "a"}],
            },
            r"frames\[0\].image",
        ),
    ],
)
def test_malformed_project_is_named_and_untouched(tmp_path, data, msg):
    root = _project(tmp_path, data)
    before = (root / "courtstudio_project.json").read_bytes()
    with pytest.raises(ProjectError, match=msg):
        load_project(root)
    assert (root / "courtstudio_project.json").read_bytes() == before


def test_malformed_annotation(tmp_path):
    p = tmp_path / "a.json"
    p.write_text(
        json.dumps(
            {
                "format": "courtstudio.annotation",
                "format_version": 1,
                "frame_id": "a",
                "image_size": [1920, 1080],
                "points": {"far_left_corner": [1, "x"]},
            }
        )
    )
    with pytest.raises(
        ProjectError,
        match=r"points.far_left_corner\[1\]: 'x' is not of type "
        "'number'",
    ):
        load_annotation(p)


def test_synthetic_project_round_trip(tmp_path):
    p = write_synthetic_project(tmp_path / "proj", ["badminton"], per_sport=2, seed=1)
    back = load_project(tmp_path / "proj")
    assert [f.id for f in back.frames] == ["badminton_0001", "badminton_0002"]
    ann = back.load_annotation("badminton_0001")
    truth = json.loads(back.truth_path("badminton_0001").read_text())
    for n, uv in ann.points.items():
        assert np.linalg.norm(np.array(uv) - truth["keypoints_uv"][n]) < 5  # 1 px noise
    assert p.path.exists()


@pytest.mark.parametrize(
    "sport",
    [
        "tennis",
        "badminton",
        "table_tennis",
        "pickleball",
        "volleyball",
        "basketball_fiba",
        "basketball_nba",
    ],
)
def test_broadcast_cameras_frame_the_court_from_the_near_side(sport):
    spec = load_spec(sport)
    for seed in range(10):
        cam = sample_broadcast_camera(spec, IMAGE_SIZE, np.random.default_rng(seed))
        # beyond the near (y = 0) sideline, docs/frames.md
        if spec.broadcast_view in ("side", "auto"):
            assert cam.camera_centre_world[1] < 0
        else:
            assert cam.camera_centre_world[0] > spec.length_m
        uv = cam.project(np.array([spec.keypoints[n] for n in spec.minimal_keypoints]))
        assert np.all(cam.in_image(uv, -10))


def test_rendered_lines_are_where_the_camera_puts_them():
    spec = load_spec("tennis")
    fr = make_synthetic_frame(spec, np.random.default_rng(2))
    img = fr.image.astype(float).mean(axis=2)
    for name in ("far_left_corner", "near_right_corner", "far_service_centre"):
        u, v = np.round(fr.keypoints_uv[name]).astype(int)
        assert img[v - 1 : v + 2, u - 1 : u + 2].max() > 180, name  # white paint at the corner
    # a point in the middle of a service box is not paint
    mid = fr.camera.project(np.array([[8.0, 3.5, 0.0]]))[0].round().astype(int)
    assert img[mid[1], mid[0]] < 150


def test_sample_copy_is_reused_and_follows_the_bundled_sample(tmp_path):
    from courtstudio.export.sample import sample_digest, sample_project_copy

    a = sample_project_copy()
    (a / "marker.txt").write_text("an annotator's work")
    assert sample_project_copy() == a and (a / "marker.txt").exists()  # reused
    assert a.name == f"sample_project_{sample_digest()}"
    changed = tmp_path / "sample"
    import shutil

    shutil.copytree(SAMPLE_PROJECT, changed)
    (changed / "annotations" / "tennis_0001.json").write_text("{}")
    assert sample_digest(changed) != sample_digest()  # a new sample: a new copy

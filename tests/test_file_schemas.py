"""Project and annotation files against their JSON schemas (courtstudio/io/schema/): the
limits match the code's, the compiled validator (fast path) and jsonschema (messages) agree,
and a refusal names the file and the field."""

import copy
import json

import fastjsonschema
import jsonschema
import pytest

from courtstudio.io.file_schemas import _compiled, check_schema, schema_path
from courtstudio.io.package_data import sample_project_dir
from courtstudio.io.points_file import MAX_POINTS
from courtstudio.io.project import POINT_FLAGS, ProjectError, load_project
from courtstudio.io.project_paths import (
    FPS_LIMIT,
    HEIGHT_LIMIT_M,
    IMAGE_SIDE_LIMIT,
    INDEX_LIMIT,
    NAME_MAX_CHARS,
    PIXEL_LIMIT,
    PLAYER_ID_LIMIT,
)
from safe_io.validation import first_schema_error


def schema(name):
    return json.loads(schema_path(name).read_text())


def test_the_schema_limits_are_the_codes():
    p, a = schema("project")["properties"], schema("annotation")["properties"]
    frame = p["frames"]["items"]["properties"]
    assert p["name"]["maxLength"] == NAME_MAX_CHARS
    assert p["fps"]["maximum"] == FPS_LIMIT
    assert frame["index"]["maximum"] == INDEX_LIMIT
    assert a["image_size"]["items"]["maximum"] == IMAGE_SIDE_LIMIT
    assert a["points"]["maxProperties"] == MAX_POINTS
    pixel = a["points"]["additionalProperties"]["items"]
    assert pixel["maximum"] == PIXEL_LIMIT and pixel["minimum"] == -PIXEL_LIMIT
    player = a["players"]["items"]["properties"]
    assert player["id"]["maximum"] == PLAYER_ID_LIMIT
    assert player["box_xyxy"]["items"] == pixel
    assert player["lowest_vertex_height_m"]["maximum"] == HEIGHT_LIMIT_M
    assert tuple(a["point_flags"]["additionalProperties"]["enum"]) == POINT_FLAGS


def test_the_schemas_are_valid_2020_12_schemas():
    for name in ("project", "annotation", "recovered_state"):
        jsonschema.Draft202012Validator.check_schema(schema(name))


def _sample(name):
    root = sample_project_dir()
    path = (
        root / "courtstudio_project.json"
        if name == "project"
        else root / "annotations" / "tennis_0001.json"
    )
    return json.loads(path.read_text())


MUTATIONS = {
    "project": [
        lambda d: None,
        lambda d: d.update(fps=0),
        lambda d: d.update(fps=True),
        lambda d: d.update(fps="25"),
        lambda d: d.update(name="x" * (NAME_MAX_CHARS + 1)),
        lambda d: d.pop("sport"),
        lambda d: d.update(frames={}),
        lambda d: d["frames"].append(3),
        lambda d: d["frames"][0].update(index=-1),
        lambda d: d["frames"][0].update(index=1.5),
        lambda d: d["frames"][0].update(id=7),
        lambda d: d["frames"][0].pop("id"),
        lambda d: d.update(camera_ranges=[{"first": 0, "last": 1}]),
        lambda d: d.update(camera_ranges=[{"first": -1, "last": 1, "source": "a"}]),
        lambda d: d.update(ball_flights=[["a", "b", "c"]]),
        lambda d: d.update(format_version="1"),
        lambda d: d.update(unknown_key=[1, 2]),
    ],
    "annotation": [
        lambda d: None,
        lambda d: d.update(image_size=[1920]),
        lambda d: d.update(image_size=[0, 10]),
        lambda d: d.update(image_size=[1920.5, 1080]),
        lambda d: d.update(image_size=[True, 2]),
        lambda d: d["points"].update(x=[1, 2, 3]),
        lambda d: d["points"].update(x=[1, "2"]),
        lambda d: d["points"].update(x=[1, PIXEL_LIMIT * 2]),
        lambda d: d.update(ball={"uv": [1, 2]}),
        lambda d: d.update(ball={"visible": 1}),
        lambda d: d.update(ball={"visible": True, "uv": [1, 2], "plane": 3}),
        lambda d: d.update(players=[{"id": 0, "box_xyxy": [0, 0, 1, 1]}]),
        lambda d: d.update(players=[{"id": 1, "box_xyxy": [0, 0, 1]}]),
        lambda d: d.update(
            players=[{"id": 1, "box_xyxy": [0, 0, 1, 1], "lowest_vertex_height_m": -101}]
        ),
        lambda d: d.update(players=[{"id": 1, "box_xyxy": [0, 0, 1, 1], "mesh": 5}]),
        lambda d: d.update(flags=["a", 1]),
        lambda d: d.update(point_flags={"x": "hidden"}),
        lambda d: d.pop("frame_id"),
        lambda d: d.update(extra={"kept": True}),
    ],
}


@pytest.mark.parametrize("name, i", [(n, i) for n, ms in MUTATIONS.items() for i in range(len(ms))])
def test_the_compiled_validator_agrees_with_jsonschema(name, i):
    data = _sample(name)
    MUTATIONS[name][i](data)
    slow = first_schema_error(schema_path(name), copy.deepcopy(data))
    try:
        _compiled(name)(copy.deepcopy(data))
        fast_ok = True
    except fastjsonschema.JsonSchemaValueException:
        fast_ok = False
    assert fast_ok == (slow is None), slow
    if i == 0:
        assert slow is None  # the sample's own files are valid
    elif slow is not None:
        with pytest.raises(ProjectError, match=r"^doc\.json: field .+: "):
            check_schema(data, name, "doc.json", ProjectError)


@pytest.mark.parametrize(
    "state, message",
    [
        ({"annotations": [], "camera_ranges": None}, r"field annotations: \[\] is not of type"),
        (
            {"camera_ranges": {"first": 0}},
            r"field camera_ranges: .* is not of type 'array', 'null'",
        ),
        (
            {"camera_ranges": [{"first": 0, "last": 1}]},
            r"field camera_ranges\[0\]: 'source' is a required property",
        ),
        ({"ball_flights": [["a", "b"]]}, r"field ball_flights\[0\]: .* is too short"),
        ({"annotations": {"tennis_0001": 3}}, r"field annotations\.tennis_0001: 3 is not of type"),
    ],
)
def test_a_crafted_recovery_state_is_named(project, state, message):
    from courtstudio.io.project import check_recovered_state

    with pytest.raises(ProjectError, match="^journal: " + message):
        check_recovered_state(project, state, "journal")
    # the fast path and jsonschema agree on it
    assert first_schema_error(schema_path("recovered_state"), state) is not None
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        _compiled("recovered_state")(state)


def test_a_video_frame_without_its_index_is_named(tmp_path):
    (tmp_path / "clip.mp4").write_bytes(b"x")
    (tmp_path / "courtstudio_project.json").write_text(
        json.dumps(
            {
                "format": "courtstudio.project",
                "format_version": 1,
                "sport": "tennis",
                "frames": [
                    {"id": "a", "video": "clip.mp4", "index": 0},
                    {"id": "b", "video": "clip.mp4"},
                ],
            }
        )
    )
    with pytest.raises(
        ProjectError,
        match=r"courtstudio_project\.json: field frames\[1\]\.index: "
        "a video frame needs its frame index",
    ):
        load_project(tmp_path)


def test_a_long_bad_value_gives_a_short_message():
    data = _sample("annotation")
    data["flags"] = "x" * 100_000
    with pytest.raises(ProjectError) as err:
        check_schema(data, "annotation", "a.json", ProjectError)
    assert len(str(err.value)) < 400 and "field flags" in str(err.value)

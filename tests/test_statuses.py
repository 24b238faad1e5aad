"""The status vocabularies: one str-valued enum each, whose strings are a file-format contract
(docs/formats.md): what the files hold must not change when the code names them."""

import json

import pytest

from courtstudio.dataset.stages import StageResult, StageStatus
from courtstudio.export.export_scenes import ExportStatus
from courtstudio.io.project_lock import HolderState
from courtstudio.pipeline.propagate import STATUSES
from courtstudio.pipeline.propagate_frame import FrameCamera
from courtstudio.pipeline.propagation_status import WITH_CAMERA, PropagationStatus
from exporters.scene import SCHEMA_PATH, BallStatus
from geometry.doctor import FitQuality


@pytest.mark.parametrize(
    "enum, strings",
    [
        (PropagationStatus, {"reference", "ok", "static", "flagged"}),
        (ExportStatus, {"ok", "poor", "skipped", "error"}),
        (FitQuality, {"ok", "poor"}),
        (BallStatus, {"not_annotated", "not_visible", "image_only", "3d"}),
        (StageStatus, {"done", "cached", "skipped", "failed", "not_run"}),
        (HolderState, {"live", "stale", "foreign"}),
    ],
)
def test_the_strings_are_the_documented_ones(enum, strings):
    assert {m.value for m in enum} == strings
    for m in enum:  # a member is its string wherever it is written or compared
        assert m == m.value and str(m) == m.value and f"{m}" == m.value
        assert json.dumps({m: [m]}) == json.dumps({m.value: [m.value]})


def test_the_scene_schema_and_the_propagation_reader_accept_exactly_the_enums():
    schema = json.loads(SCHEMA_PATH.read_text())
    assert set(schema["properties"]["ball"]["properties"]["status"]["enum"]) == set(BallStatus)
    assert set(STATUSES) == set(PropagationStatus)
    assert WITH_CAMERA == {"reference", "ok", "static"}


def test_records_written_with_the_enums_read_back_as_plain_strings():
    line = json.dumps(FrameCamera(7, PropagationStatus.FLAGGED, reason="cut").to_json())
    assert json.loads(line)["status"] == "flagged" and '"status": "flagged"' in line
    from dataclasses import asdict

    row = json.dumps(asdict(StageResult("c1", "qa", StageStatus.NOT_RUN)))
    assert '"status": "not_run"' in row
    # plain strings read from files compare equal to the members
    assert json.loads(line)["status"] == PropagationStatus.FLAGGED

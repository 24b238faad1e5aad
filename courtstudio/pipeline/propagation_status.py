"""The status of a propagated frame: cameras.jsonl's ``status`` (docs/formats.md).

The strings are a file-format contract: a record's ``status`` is one of these values.
"""

from __future__ import annotations

from enum import StrEnum


class PropagationStatus(StrEnum):
    REFERENCE = "reference"  # an annotated reference frame, calibrated from its own clicks
    OK = "ok"  # recalibrated from the reference's keypoints carried over
    STATIC = "static"  # the image did not move: the reference's camera is reused
    FLAGGED = "flagged"  # no trusted camera; ``reason`` says why


# statuses whose record carries a camera the app and the exports may use
WITH_CAMERA = frozenset(
    {PropagationStatus.REFERENCE, PropagationStatus.OK, PropagationStatus.STATIC}
)

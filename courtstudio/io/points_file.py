"""The clicked-points file: ``{"image_size": [w, h], "points": {"<keypoint>": [u, v], ...}}``.

The input of ``courtstudio calibrate --points`` and the court part of a frame annotation.
"""

from __future__ import annotations

import math

from safe_io.validation import MAX_ABS_PIXEL, read_json_file

MAX_IMAGE_SIDE_PX = 1_000_000
MAX_POINTS = 10_000


class InputError(ValueError):
    """A user-supplied file or value is malformed; the message names the file and field."""


def read_json(path, what: str = "file") -> dict:
    data = read_json_file(path, InputError, what)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object at the top level")
    return data


def parse_image_size(value, where: str) -> tuple[int, int]:
    """[w, h] pixels: two integers in 1..MAX_IMAGE_SIDE_PX."""
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_IMAGE_SIDE_PX
            for v in value
        )
    ):
        raise InputError(
            f"{where}: expected [width, height] as two integers in 1.."
            f"{MAX_IMAGE_SIDE_PX}, got {_short(value)}"
        )
    return value[0], value[1]


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_points(value, where: str) -> dict[str, tuple[float, float]]:
    """{name: [u, v]} pixels: finite, |u|, |v| <= MAX_ABS_PIXEL, at most MAX_POINTS."""
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected an object {{keypoint name: [u, v]}}")
    if len(value) > MAX_POINTS:
        raise InputError(f"{where}: {len(value)} points (at most {MAX_POINTS})")
    out = {}
    for name, uv in value.items():
        if (
            not isinstance(uv, list)
            or len(uv) != 2
            or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in uv)
        ):
            raise InputError(f"{where}.{name}: expected [u, v] pixels, got {_short(uv)}")
        if not all(math.isfinite(c) for c in uv):
            raise InputError(f"{where}.{name}: non-finite pixel coordinate")
        if not all(abs(c) <= MAX_ABS_PIXEL for c in uv):
            raise InputError(f"{where}.{name}: pixel coordinate beyond {MAX_ABS_PIXEL:g}")
        out[name] = (float(uv[0]), float(uv[1]))
    return out


def load_points_file(path) -> tuple[tuple[int, int], dict[str, tuple[float, float]]]:
    """Return (image_size, {name: (u, v)}); raise InputError naming the bad field."""
    data = read_json(path, "points file")
    for key in ("image_size", "points"):
        if key not in data:
            raise InputError(f"{path}: field {key}: missing")
    return (
        parse_image_size(data["image_size"], f"{path}: field image_size"),
        parse_points(data["points"], f"{path}: field points"),
    )

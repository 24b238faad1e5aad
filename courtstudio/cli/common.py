"""What every command module shares: the error contract, argparse types, help examples,
JSON output, and the camera and plane inputs several commands read."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from geometry.camera import Camera
    from geometry.uncertainty import ParamCovariance

EXIT_BAD_INPUT = 2


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """Usage mistakes are one line (the CLI's error contract), not usage text + a line."""

    def error(self, message):
        raise CliError(f"{self.prog}: {message} (see {self.prog} --help)")


def finite(text: str) -> float:
    """argparse type: a finite number of magnitude at most 1e6 (float() accepts nan, inf)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v) or abs(v) > 1e6:
        raise argparse.ArgumentTypeError(
            f"expected a finite number of magnitude at most 1e6, got {text!r}"
        )
    return v


def positive(text: str) -> float:
    """argparse type: a finite number > 0 (at most 1e6)."""
    v = finite(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def mask_box(text: str, image_size: tuple[int, int] | None = None) -> list[float]:
    """A --mask value "x0,y0,x1,y1" (pixels) as [x0, y0, x1, y1]; CliError unless 4 finite
    numbers with x1 > x0, y1 > y0 (the masks.json rules: courtstudio.io.masks_file) and,
    with image_size (w, h), inside that image (the message names the edge)."""
    from courtstudio.io.masks_file import check_mask_box

    try:
        box = check_mask_box([float(v) for v in text.split(",")], "--mask")
    except ValueError:  # also NaN / inf
        raise CliError(
            f"--mask {text!r}: expected x0,y0,x1,y1 finite pixels with x1 > x0, y1 > y0"
        ) from None
    if image_size is None:
        return box
    try:
        return check_mask_box(box, "--mask", image_size)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def int_in(lo: int, hi: int):
    """argparse type: an integer in lo..hi."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected {lo}..{hi}, got {v}")
        return v

    parse.__name__ = "integer"
    return parse


def examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {ln}" for ln in lines)


def print_json(obj) -> None:
    try:
        text = json.dumps(obj, indent=1, allow_nan=False)
    except ValueError:
        raise CliError(
            "the result holds non-finite numbers (NaN or infinity): check the inputs"
        ) from None
    print(text)


def check_image_size(size, option: str) -> None:
    from safe_io.images import check_dimensions

    check_dimensions(int(size[0]), int(size[1]), option, CliError)


def read_frame(path, size):
    """The frame image (BGR uint8, header checked before decoding), checked against the
    points file's image size."""
    from safe_io.images import read_image

    img = read_image(path, CliError)
    if (img.shape[1], img.shape[0]) != tuple(size):
        raise CliError(
            f"{path}: image is {img.shape[1]}x{img.shape[0]}, the points file says "
            f"{size[0]}x{size[1]}"
        )
    return img


def load_camera_file(path) -> tuple[Camera, dict, ParamCovariance | None]:
    """A camera JSON (calibrate output or any dict with K, R, t, image_size, dist)."""
    from courtstudio.io.points_file import InputError, read_json
    from geometry.camera import Camera
    from geometry.errors import GeometryError
    from geometry.uncertainty import ParamCovariance
    from safe_io.validation import MAX_ABS_PIXEL, MAX_ABS_WORLD_M, check_finite_array

    data = read_json(path, "camera file")
    try:
        cam = Camera.from_dict(data, f"{path}")
    except GeometryError as exc:
        raise InputError(str(exc)) from None
    for field, value, limit in (
        ("K", cam.K, MAX_ABS_PIXEL),
        ("image_size", cam.image_size, MAX_ABS_PIXEL),
        ("t", cam.camera_centre_world, MAX_ABS_WORLD_M),
        ("dist", cam.dist, MAX_ABS_WORLD_M),
    ):
        check_finite_array(value, f"{path}: field {field}", InputError, max_abs=limit)
    cov = None
    if isinstance(data.get("covariance"), dict):
        try:
            cov = ParamCovariance.from_dict(data["covariance"])
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise InputError(f"{path}: field covariance: {exc}") from None
    return cam, data, cov


def projection_plane(args, cam_doc) -> tuple[str, float]:
    from court_specs import load_spec

    sport = args.sport or cam_doc.get("sport")
    if sport is not None and not isinstance(sport, str):
        raise CliError(f"{args.camera}: field sport: expected a spec id, got {sport!r:.40}")
    if args.plane_z is not None:
        return args.plane or "custom", float(args.plane_z)
    if sport is None:
        if args.plane not in (None, "court"):
            raise CliError(f"plane {args.plane!r} needs --sport (the camera file names none)")
        return "court", 0.0
    spec = load_spec(sport)
    plane = args.plane or spec.default_plane
    try:
        return plane, spec.plane_z(plane)
    except KeyError as exc:
        raise CliError(str(exc.args[0])) from None


def add_plane_args(q) -> None:
    """--plane, --plane-z and --sport of the commands that lift or place on a plane."""
    q.add_argument(
        "--plane",
        help="projection plane name from the spec (default: the "
        "playing surface; table tennis: table or floor)",
    )
    q.add_argument("--plane-z", type=finite, help="projection plane height z (metres)")
    q.add_argument("--sport", help="spec for --plane (default: the camera file's sport)")

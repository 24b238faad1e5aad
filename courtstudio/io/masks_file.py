"""PROJECT/propagation/masks.json: the rectangles propagation must never register on
(broadcast graphics: score bug, channel logo, clock, ticker), one set per project.

The one reader and writer of the file: `batch-propagate PROJECT`, the app's Frame > Propagate
and the app's Masks tool all go through it. Format (docs/formats.md "Registration masks")::

    {"format": "courtstudio.masks", "format_version": 1, "image_size": [w, h],
     "masks": [[x0, y0, x1, y1], ...]}

Boxes are in full-resolution pixels of the project's frames (u right, v down, OpenCV's
convention). Only ``masks`` is required (a hand-written ``{"masks": [...]}`` is valid);
unknown keys are kept when the app rewrites the file. The file is untrusted: at most
MAX_MASKS boxes, finite numbers, x1 > x0 and y1 > y0, every box inside the image
([-0.5, w] x [-0.5, h]: both the pixel-centre and the pixel-edge convention of the right
border are accepted). Errors name the file and the field (``masks[2][3]``).
"""

from __future__ import annotations

import math
from pathlib import Path

from courtstudio.io.project import ProjectError

MASKS_FORMAT = "courtstudio.masks"
MASKS_VERSION = 1
MASKS_FILE = "masks.json"
MAX_MASKS = 256  # a broadcast has a handful of graphics; more is not a mask set
MAX_MASKS_BYTES = 1 << 20
EDGE_SLACK_PX = 0.5  # the left/top border is at -0.5 (pixel centres at integers)


def masks_path(project_root) -> Path:
    return Path(project_root) / "propagation" / MASKS_FILE


def check_mask_box(value, where: str, image_size=None) -> list[float]:
    """One box [x0, y0, x1, y1] (pixels) as floats; raises ProjectError naming ``where``
    unless it is 4 finite numbers with x1 > x0, y1 > y0 and, with image_size (w, h), inside
    [-0.5, w] x [-0.5, h]."""
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise ProjectError(f"{where}: expected [x0, y0, x1, y1] (4 numbers)")
    box = []
    for k, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ProjectError(f"{where}[{k}]: expected a finite number, got {v!r:.40}")
        box.append(float(v))
    x0, y0, x1, y1 = box
    if not (x1 > x0 and y1 > y0):
        raise ProjectError(f"{where}: expected x1 > x0 and y1 > y0, got {box}")
    if image_size is not None:
        w, h = image_size
        lo = -EDGE_SLACK_PX
        for k, (c, hi) in enumerate(zip(box, (w, h, w, h))):
            if not lo <= c <= hi:
                raise ProjectError(
                    f"{where}[{k}]: {c:g} is outside the {w}x{h} image ({lo:g}..{hi})"
                )
    return box


def check_mask_boxes(value, where: str, image_size=None) -> list[list[float]]:
    """A list of at most MAX_MASKS boxes (check_mask_box each); ``where`` names the list."""
    if not isinstance(value, list):
        raise ProjectError(f"{where}: expected a list of [x0, y0, x1, y1] boxes")
    if len(value) > MAX_MASKS:
        raise ProjectError(f"{where}: {len(value)} boxes, at most {MAX_MASKS} are allowed")
    return [check_mask_box(b, f"{where}[{i}]", image_size) for i, b in enumerate(value)]


def read_masks_file(path, image_size=None) -> tuple[list[list[float]], dict]:
    """(boxes, the whole JSON object) of a masks file; ([], {}) when it does not exist.
    Raises ProjectError naming the file and the field."""
    from safe_io.validation import read_json_file

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return [], {}
    data = read_json_file(path, ProjectError, "masks file", MAX_MASKS_BYTES)
    if not isinstance(data, dict):
        raise ProjectError(f'{path}: expected an object {{"masks": [[x0, y0, x1, y1], ...]}}')
    if "format" in data and data["format"] != MASKS_FORMAT:
        raise ProjectError(
            f"{path}: field format: expected {MASKS_FORMAT!r}, got {data['format']!r:.40}"
        )
    version = data.get("format_version", MASKS_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version > MASKS_VERSION:
        raise ProjectError(
            f"{path}: field format_version: {version!r:.20} is newer than this "
            f"CourtStudio reads ({MASKS_VERSION}); update CourtStudio"
        )
    if "masks" not in data:
        raise ProjectError(f"{path}: field masks: missing (expected [[x0, y0, x1, y1], ...])")
    saved_size = data.get("image_size")
    if saved_size is not None:
        if (
            not isinstance(saved_size, list)
            or len(saved_size) != 2
            or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in saved_size)
        ):
            raise ProjectError(f"{path}: field image_size: expected [width, height] pixels")
        if image_size is not None and tuple(saved_size) != tuple(map(int, image_size)):
            raise ProjectError(
                f"{path}: field image_size: {saved_size[0]}x{saved_size[1]} but "
                f"the project's frames are {image_size[0]}x{image_size[1]}"
            )
    return check_mask_boxes(data["masks"], f"{path}: field masks", image_size), data


def masks_document(boxes, image_size=None, keep: dict | None = None) -> dict:
    """The JSON object written for ``boxes``: ``keep``'s unknown keys, then the format keys."""
    out = dict(keep or {})
    out.update({"format": MASKS_FORMAT, "format_version": MASKS_VERSION})
    if image_size is not None:
        out["image_size"] = [int(image_size[0]), int(image_size[1])]
    out["masks"] = [
        [float(v) for v in check_mask_box(b, f"masks[{i}]", image_size)]
        for i, b in enumerate(boxes)
    ]
    return out


def write_masks_file(path, boxes, image_size=None, keep: dict | None = None) -> Path:
    """Write the masks atomically (safe_io/atomic.py); returns the path."""
    from safe_io.atomic import write_json_atomic

    path = Path(path)
    if len(boxes) > MAX_MASKS:
        raise ProjectError(f"{len(boxes)} masks: at most {MAX_MASKS} are allowed")
    doc = masks_document(boxes, image_size, keep)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, doc)
    return path

"""The doctor's image evidence at court level: are the clicks on their painted crossings?

geometry.click_paint does the work on plain arrays; this module supplies the spec's painted
ground lines (with their widths) and checks the frame against the clicks' image size. The
app (after the first repaint) and ``calibrate --image`` pass the frame; without one the
doctor works on the clicks alone, as before.
"""

from __future__ import annotations

import numpy as np

from court_specs import CourtSpec
from geometry.camera import Camera
from geometry.click_paint import PaintCheck, check_clicks_on_paint, lines_through
from geometry.line_ridges import to_gray

NOT_PAINTED = ("net_line",)  # as courtstudio.pipeline.line_refinement: the net's foot


def painted_lines_with_widths(spec: CourtSpec) -> tuple[list[np.ndarray], list[float]]:
    """(polylines (M, 3) metres, painted widths metres) of the spec's painted lines on its
    playing surface."""
    z0 = spec.plane_z()
    lines, widths = [], []
    for name, pl in spec.lines.items():
        if name in NOT_PAINTED or not np.all(np.abs(pl[:, 2] - z0) < 1e-9):
            continue
        lines.append(pl)
        widths.append(float(spec.line_width(name)))
    return lines, widths


def image_mismatch(image: np.ndarray, image_size) -> str:
    """Why the image cannot be checked against clicks made on an image_size (w, h) frame,
    or '' when it can (an (h, w) or (h, w, 3) uint8 array of that size)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        return "the frame is not an 8-bit image"
    if image.ndim == 3 and image.shape[2] != 3:
        return "the frame is not an 8-bit grey or BGR image"
    h, w = image.shape[:2]
    if (w, h) != tuple(int(v) for v in image_size):
        return (
            f"the frame is {w}x{h}, the clicks were made on {image_size[0]}x{image_size[1]}: "
            "the painted lines were not checked"
        )
    return ""


def check_paint(
    spec: CourtSpec,
    camera: Camera,
    image: np.ndarray,
    names: list[str],
    uv: np.ndarray,
    masks=(),
) -> PaintCheck:
    """Paint evidence for the clicks uv (N, 2) px of keypoints names in image ((h, w) grey or
    (h, w, 3) BGR uint8 of camera.image_size; check image_mismatch first); masks: [x0, y0,
    x1, y1] px boxes of graphics, where no painted line is read."""
    from geometry.mask_rectangles import boxes_mask

    lines, widths = painted_lines_with_widths(spec)
    X = np.array([spec.keypoints[n] for n in names], float).reshape(-1, 3)
    key = (spec.id, hash(tuple(pl.tobytes() for pl in lines)))
    through = [_lines_through(key, n, X[i], lines) for i, n in enumerate(names)]
    mask = boxes_mask(masks, (image.shape[1], image.shape[0]))
    return check_clicks_on_paint(to_gray(image), camera, X, uv, lines, widths, through, mask)


_THROUGH: dict[tuple, list] = {}


def _lines_through(key: tuple, name: str, point_world: np.ndarray, lines) -> list:
    """geometry.click_paint.lines_through of one keypoint, kept per court (key: the spec's id
    and its painted lines' digest) and keypoint: the doctor asks on every release."""
    hit = _THROUGH.get(key + (name,))
    if hit is None:
        if len(_THROUGH) > 4096:
            _THROUGH.clear()
        hit = _THROUGH[key + (name,)] = lines_through(point_world, lines)
    return hit

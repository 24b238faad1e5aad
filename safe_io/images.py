"""Reading untrusted images and videos within bounds.

An image's dimensions are read from its header (Pillow, which parses headers lazily) before
anything is decoded: more than ``max_pixels()`` pixels (default ``MAX_IMAGE_PIXELS`` = 100
megapixels; ``courtstudio --max-megapixels N ...`` or ``set_max_pixels``) is refused, so a 1 MB
PNG declaring 20000 x 20000 never allocates 1.2 GB. Files are regular files of at most
``MAX_IMAGE_FILE_BYTES``; the bytes read for the check are the bytes decoded (no race). A video
is probed the same way (OpenCV reads the container header: size and frame count) before any
frame is decoded. Images are decoded by Pillow (corrupt data is an exception, never a codec
message on stderr); FFmpeg's log is silenced for the same reason.
"""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

# FFmpeg's own log lines (corrupt packets) would break the CLI's one-line error contract;
# failures are reported by the callers. Read by OpenCV when it first opens a video.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from safe_io.validation import check_regular_file, read_file_bytes

MAX_IMAGE_PIXELS = 100_000_000
MAX_IMAGE_FILE_BYTES = 512 * 1024 * 1024
MAX_VIDEO_FRAMES = 10_000_000
_limit = {"pixels": MAX_IMAGE_PIXELS}


def max_pixels() -> int:
    """The pixel limit in force (width x height) for images and video frames."""
    return _limit["pixels"]


def set_max_pixels(pixels: int | None) -> None:
    """Change the pixel limit for this process (None: back to MAX_IMAGE_PIXELS)."""
    if pixels is not None and pixels <= 0:
        raise ValueError("the pixel limit must be positive")
    _limit["pixels"] = MAX_IMAGE_PIXELS if pixels is None else int(pixels)


def check_dimensions(
    width: int, height: int, where: str, error: type[Exception] = ValueError
) -> tuple[int, int]:
    if width <= 0 or height <= 0:
        raise error(f"{where}: empty image ({width} x {height})")
    if width * height > max_pixels():
        raise error(
            f"{where}: {width} x {height} pixels is over the "
            f"{max_pixels() / 1e6:g} megapixel limit (courtstudio --max-megapixels)"
        )
    return width, height


class _Refused(Exception):
    pass


def read_image(path, error: type[Exception] = ValueError, what: str = "image") -> np.ndarray:
    """(h, w, 3) uint8 BGR of an untrusted image file (PNG, JPEG, BMP, TIFF, WebP, ...),
    EXIF orientation applied as cv2.imread does. Raises ``error`` naming the file: not a
    regular file, too large (bytes, or pixels per its header, checked before decoding), or
    not decodable. Pillow decodes: corrupt data is an exception, never a libpng/libjpeg
    message on stderr."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = None  # Pillow's own bomb check: ours (configurable) runs first
    path = Path(path)
    data = read_file_bytes(path, MAX_IMAGE_FILE_BYTES, error, what)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's own bomb warning: we check ourselves
            with Image.open(io.BytesIO(data)) as im:
                check_dimensions(int(im.size[0]), int(im.size[1]), str(path), _Refused)
                try:
                    if im.getexif().get(0x0112, 1) != 1:  # EXIF orientation
                        im = ImageOps.exif_transpose(im)
                    rgb = np.asarray(im if im.mode == "RGB" else im.convert("RGB"))
                except Exception as exc:  # noqa: BLE001 - Pillow raises many types
                    raise _Refused(
                        f"{path}: cannot decode the image (corrupt or truncated: "
                        f"{' '.join(str(exc).split())[:120]})"
                    ) from None
    except _Refused as exc:
        raise error(str(exc)) from None
    except Image.DecompressionBombError:
        raise error(f"{path}: image dimensions over the pixel limit") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as exc:
        raise error(
            f"{path}: cannot read as an image ({' '.join(str(exc).split())[:120]})"
        ) from None
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.size == 0:
        raise error(f"{path}: cannot read as an image")
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def open_video(path, decoder_threads: int | None = None) -> cv2.VideoCapture:
    """``cv2.VideoCapture`` of path (not checked); decoder_threads: FFmpeg's decoding threads
    (None: its own choice; the same pixels either way)."""
    params = [] if decoder_threads is None else [cv2.CAP_PROP_N_THREADS, int(decoder_threads)]
    return cv2.VideoCapture(str(path), cv2.CAP_ANY, params)


def probe_video(path, error: type[Exception] = ValueError, decoder_threads: int | None = None):
    """An opened ``cv2.VideoCapture`` (open_video) and (frame_count, fps, (w, h)) from the
    container header, checked before any frame is decoded. Raises ``error`` naming the
    file."""
    path = Path(path)
    check_regular_file(path, error, "video")
    cap = open_video(path, decoder_threads)
    if not cap.isOpened():
        cap.release()
        raise error(f"{path}: cannot open as a video")
    count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    fps = float(cap.get(cv2.CAP_PROP_FPS))
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    try:
        check_dimensions(*size, f"{path}: video frames", error)
        if not 0 < count <= MAX_VIDEO_FRAMES:
            raise error(f"{path}: {count} frames (expected 1..{MAX_VIDEO_FRAMES})")
    except Exception:
        cap.release()
        raise
    if not (np.isfinite(fps) and 0 < fps <= 1000):
        fps = 25.0
    return cap, (count, fps, size)

"""Reading untrusted ``.npz`` files (numpy zip archives) within bounds.

Every array's header (shape, dtype) is read from the archive before any data: object arrays
(pickles) are refused, and the declared total size must stay under ``max_array_bytes`` (a
compressed member declaring 400 million vertices never reaches the decompressor). Truncated or
corrupt archives (BadZipFile, EOFError, zlib errors) become one ``error`` naming the file.
"""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from pathlib import Path

import numpy as np

from safe_io.validation import check_regular_file

MAX_NPZ_FILE_BYTES = 2 * 1024**3  # the archive itself (an SMPL-X model is ~100-170 MB)
MAX_NPZ_ARRAY_BYTES = 1024**3  # all arrays read from it together, decompressed


def _declared(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[tuple, np.dtype]:
    with zf.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    return shape, dtype


def read_npz(
    path,
    error: type[Exception] = ValueError,
    what: str = ".npz file",
    keys=None,
    max_file_bytes: int = MAX_NPZ_FILE_BYTES,
    max_array_bytes: int = MAX_NPZ_ARRAY_BYTES,
) -> dict[str, np.ndarray]:
    """{name: array} of the archive's arrays (only ``keys`` when given; absent keys are left
    out). Raises ``error`` naming the file: not a regular file, too large, corrupt, an object
    array, or arrays declaring more than ``max_array_bytes``."""
    path = Path(path)
    size = check_regular_file(path, error, what)
    if size > max_file_bytes:
        raise error(f"{path}: larger than the {max_file_bytes / 2**20:g} MiB limit for a {what}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise error(f"{path}: not a regular file, expected a {what}")
        try:
            with zipfile.ZipFile(fh) as zf:
                members = {i.filename[:-4]: i for i in zf.infolist() if i.filename.endswith(".npy")}
                wanted = [k for k in (members if keys is None else keys) if k in members]
                total = 0
                for k in wanted:
                    shape, dtype = _declared(zf, members[k])
                    if dtype.hasobject:
                        raise error(f"{path}: field {k}: an object array (a pickle); refused")
                    total += int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                    if total > max_array_bytes:
                        raise error(
                            f"{path}: field {k}: declares {shape} {dtype} arrays, over "
                            f"the {max_array_bytes / 2**20:g} MiB limit"
                        )
                out = {}
                for k in wanted:
                    with zf.open(members[k]) as m:
                        out[k] = np.lib.format.read_array(m, allow_pickle=False)
                return out
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            EOFError,
            zlib.error,
            OSError,
            ValueError,
            KeyError,
            RuntimeError,
            NotImplementedError,
        ) as exc:
            if isinstance(exc, error):
                raise
            raise error(
                f"{path}: cannot read {what} ({type(exc).__name__}: "
                f"{' '.join(str(exc).split())[:200]})"
            ) from None

"""Person mesh .npz files are untrusted: truncation, pickles and declared sizes (issue 8)."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from courtstudio.export.reconstruct import SAMPLE_PROJECT
from hmr.person_mesh import MeshError, PersonMesh
from hmr.safe_npz import read_npz

MESH = sorted((SAMPLE_PROJECT / "meshes" / "tennis_0001").glob("*.npz"))[0]


def test_every_truncation_is_a_mesh_error(tmp_path):
    raw = MESH.read_bytes()
    p = tmp_path / "m.npz"
    for n in list(range(0, 400, 37)) + list(range(400, len(raw), max(1, len(raw) // 40))):
        p.write_bytes(raw[:n])
        with pytest.raises(MeshError, match="m.npz"):
            PersonMesh.load_npz(p)


def test_object_arrays_are_refused_without_unpickling(tmp_path):
    with np.load(MESH) as z:
        d = {k: z[k] for k in z.files}
    d["source"] = np.array([{"x": 1}], dtype=object)  # np.savez pickles object arrays
    np.savez(tmp_path / "o.npz", **d)
    with pytest.raises(MeshError, match="source: an object array"):
        PersonMesh.load_npz(tmp_path / "o.npz")


def test_declared_sizes_are_checked_before_decompressing(tmp_path):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f4", "fortran_order": False, "shape": (400_000_000, 3)}
    )
    with zipfile.ZipFile(tmp_path / "h.npz", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("vertices_cam.npy", buf.getvalue() + b"\0" * 100)
    with pytest.raises(MeshError, match="vertices_cam: declares"):
        PersonMesh.load_npz(tmp_path / "h.npz")
    with pytest.raises(ValueError, match="not a regular file"):
        read_npz("/dev/zero")


@pytest.mark.parametrize(
    "key,value,msg",
    [
        ("vertices_cam", np.full((10, 3), np.nan, np.float32), "non-finite"),
        ("vertices_cam", np.full((10, 3), 1e6, np.float32), "beyond"),
        ("faces", np.full((4, 3), 1.5), "faces: expected integers"),
        ("format_version", np.array([1, 2]), "format_version: expected an integer"),
        ("joints_cam", np.zeros((2, 3)), "joints_cam: 2 joints for 6 names"),
    ],
)
def test_malformed_fields_are_named(tmp_path, key, value, msg):
    with np.load(MESH) as z:
        d = {k: z[k] for k in z.files}
    d[key] = value
    np.savez(tmp_path / "m.npz", **d)
    with pytest.raises(MeshError, match=msg):
        PersonMesh.load_npz(tmp_path / "m.npz")

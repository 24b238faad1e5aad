"""Mutations of untrusted files for the fuzz suite (tests/fuzz_cases.py): structured (JSON
trees, .npz arrays, HDF5 datasets, torch dicts) and byte-level, plus special files."""

from __future__ import annotations

import io
import json
import os
import random
import zipfile
from pathlib import Path

import h5py
import numpy as np

HUGE_INT = "9" * 400
SPECIAL = [
    "__NAN__",
    "__INF__",
    "__HUGEINT__",
    "__DEEP__",
    None,
    True,
    0,
    -1,
    7,
    1e308,
    -1e300,
    1e5,
    "bogus",
    "",
    "../../x",
    "/tmp/x",
    "x" * 300,
    [],
    {},
    [1, 2],
    [[1, 2, 3]],
    {"a": 1},
    [None],
    0.5,
]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _get(node, path):
    for p in path:
        node = node[p]
    return node


def mutate_json_tree(data, rng: random.Random):
    """One structured mutation of a parsed JSON document (in place when possible)."""
    paths = list(_paths(data))
    path = rng.choice(paths)
    op = rng.choice(["swap", "swap", "swap", "delete", "shape", "dup"])
    if not path:
        return rng.choice(SPECIAL) if op == "swap" else data
    parent, key = _get(data, path[:-1]), path[-1]
    if op == "swap":
        parent[key] = rng.choice(SPECIAL)
    elif op == "delete":
        del parent[key]
    elif op == "shape":
        v = parent[key]
        if isinstance(v, list):
            if v and rng.random() < 0.5:
                v.pop(rng.randrange(len(v)))
            else:
                v.append(v[0] if v else 1)
        else:
            parent[key] = [v]
    else:  # numeric scaling of a number: absurd magnitudes
        v = parent[key]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            parent[key] = v * rng.choice([-1, 0, 1e6, 1e12, -1e9])
        else:
            parent[key] = rng.choice(SPECIAL)
    return data


def dump_json(data, rng: random.Random) -> str:
    text = json.dumps(data)
    depth = rng.choice([65, 3000, 100_000])
    return (
        text.replace('"__NAN__"', "NaN")
        .replace('"__INF__"', rng.choice(["Infinity", "-Infinity"]))
        .replace('"__HUGEINT__"', HUGE_INT)
        .replace('"__DEEP__"', "[" * depth + "]" * depth)
    )


def mutate_bytes(raw: bytes, rng: random.Random) -> bytes:
    op = rng.choice(["truncate", "truncate", "flip", "empty", "garbage", "json"])
    if op == "truncate":
        return raw[: rng.randrange(max(1, len(raw)))]
    if op == "flip":
        b = bytearray(raw)
        for _ in range(rng.randint(1, 20)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if op == "empty":
        return b""
    if op == "garbage":
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 4000)))
    return b'{"a": 1}'


def mutate_text_file(path: Path, rng: random.Random) -> str:
    """Mutate a JSON (or JSON-lines) file in place; return a description."""
    raw = path.read_bytes()
    r = rng.random()
    if r < 0.15:
        path.write_bytes(mutate_bytes(raw, rng))
        return "bytes"
    if path.suffix == ".jsonl":
        lines = raw.decode().splitlines()
        i = rng.randrange(len(lines))
        lines[i] = dump_json(mutate_json_tree(json.loads(lines[i]), rng), rng)
        path.write_text("\n".join(lines) + "\n")
        return f"jsonl line {i}"
    data = json.loads(raw)
    for _ in range(rng.choice([1, 1, 2, 3])):
        data = mutate_json_tree(data, rng)
    path.write_text(dump_json(data, rng))
    return "tree"


def mutate_npz(path: Path, rng: random.Random) -> str:
    if rng.random() < 0.3:
        path.write_bytes(mutate_bytes(path.read_bytes(), rng))
        return "bytes"
    with np.load(path, allow_pickle=False) as z:
        d = {k: z[k] for k in z.files}
    k = rng.choice(sorted(d))
    op = rng.choice(["delete", "nan", "shape", "dtype", "object", "huge", "scalar"])
    if op == "delete":
        del d[k]
    elif op == "nan" and d[k].dtype.kind == "f":
        d[k] = d[k].copy()
        d[k].flat[0] = np.nan
    elif op == "shape":
        d[k] = d[k].reshape(-1)[: max(0, d[k].size - 1)]
    elif op == "dtype":
        d[k] = np.full(d[k].shape, "x")
    elif op == "scalar":
        d[k] = np.array(rng.choice([5, -1, 1e300, 2**40]))
    elif op == "object":
        d[k] = np.array([{"a": 1}], dtype=object)
    elif op == "huge":  # a header declaring 400M rows with almost no data behind it
        with zipfile.ZipFile(path, "w") as zf:
            for name, a in d.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, a)
                zf.writestr(name + ".npy", buf.getvalue())
            hdr = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                hdr, {"descr": "<f4", "fortran_order": False, "shape": (400_000_000, 3)}
            )
            zf.writestr(k + ".npy", hdr.getvalue() + b"\0" * 64)
        return f"huge {k}"
    np.savez(path, **d)
    return f"{op} {k}"


def mutate_h5(path: Path, rng: random.Random) -> str:
    if rng.random() < 0.3:
        path.write_bytes(mutate_bytes(path.read_bytes(), rng))
        return "bytes"
    with h5py.File(path, "a") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        n = rng.choice(names)
        shape, dtype = f[n].shape, f[n].dtype
        del f[n]
        op = rng.choice(["huge", "nan", "shape", "text", "delete", "big_index", "scalar"])
        if op == "huge":
            f.create_dataset(n, shape=(400_000_000, 3), dtype="f4", chunks=(1024, 3))
        elif op == "nan":
            f.create_dataset(n, data=np.full(shape, np.nan, "f4"))
        elif op == "shape":
            f.create_dataset(n, data=np.zeros((shape[0], 2), dtype))
        elif op == "text":
            f.create_dataset(n, data="hello")
        elif op == "big_index":
            f.create_dataset(
                n, data=np.full(shape, 2**31 - 1 if dtype.kind == "i" else 1e30, dtype)
            )
        elif op == "scalar":
            f.create_dataset(n, data=3.0)
        return f"{op} {n}"


def mutate_pt(path: Path, rng: random.Random) -> str:
    import torch

    if rng.random() < 0.3:
        path.write_bytes(mutate_bytes(path.read_bytes(), rng))
        return "bytes"
    d = torch.load(path, weights_only=True)
    k = rng.choice(sorted(d))
    op = rng.choice(["delete", "intkey", "scalar", "nan", "shape", "list", "string", "cam", "half"])
    if op == "delete":
        del d[k]
    elif op == "intkey":
        d[7] = d.pop(k)
    elif op == "scalar":
        d[k] = torch.tensor(rng.choice([1.0, float("nan"), 1e30]))
    elif op == "nan":
        d[k] = d[k].float() * float("nan")
    elif op == "shape":
        d[k] = d[k].reshape(-1)[:5]
    elif op == "list":
        d[k] = [1, 2, [3]]
    elif op == "string":
        d[k] = "text"
    elif op == "cam":
        d["cam_int"] = rng.choice(
            [
                torch.zeros(3, 3),
                torch.eye(3)[None].repeat(3, 1, 1) * torch.tensor([1.0, 2.0, 3.0])[:, None, None],
                torch.zeros(2, 4, 4),
                -torch.eye(3),
            ]
        )
    else:
        d[k] = d[k].half() if d[k].is_floating_point() else d[k]
    torch.save(d if rng.random() < 0.9 else list(d.values()), path)
    return f"{op} {k}"


def _png_claiming(w: int, h: int) -> bytes:
    import struct
    import zlib

    def chunk(t, data):
        return (
            struct.pack(">I", len(data))
            + t
            + data
            + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
        + chunk(b"IEND", b"")
    )


def mutate_image(path: Path, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        path.write_bytes(
            _png_claiming(rng.choice([20000, 100000, 1]), rng.choice([20000, 100000, 1]))
        )
        return "png header claiming a huge size"
    path.write_bytes(mutate_bytes(path.read_bytes(), rng))
    return "bytes"


def mutate_video(path: Path, rng: random.Random) -> str:
    path.write_bytes(mutate_bytes(path.read_bytes(), rng))
    return "bytes"


def make_special(path: Path, rng: random.Random) -> str:
    """Replace the file by a FIFO, a symlink to /dev/zero, or a folder."""
    path.unlink()
    op = rng.choice(["fifo", "devzero", "folder"])
    if op == "fifo":
        os.mkfifo(path)
    elif op == "devzero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    return op


MUTATORS = {
    ".json": mutate_text_file,
    ".jsonl": mutate_text_file,
    ".npz": mutate_npz,
    ".h5": mutate_h5,
    ".pt": mutate_pt,
    ".png": mutate_image,
    ".avi": mutate_video,
}

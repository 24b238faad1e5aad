"""Fuzzing the command line with mutated copies of every file type CourtStudio reads.

A ``Corpus`` holds one valid, small file of each type (points, camera, spec, scene JSON + HDF5,
project, annotation, truth, cameras.jsonl, PromptHMR .pt, mesh .npz, image, video). A case
picks a target file, mutates a copy (structured mutations of JSON, arrays and tensors: type
swaps, deletions, NaN, huge integers, deep nesting, wrong shapes; byte mutations: truncation,
flips, garbage; special files: a FIFO, /dev/zero) and runs ``courtstudio.cli.main`` in-process
on a command that reads it. ``run_case`` reports whether the CLI kept its contract: exit 0/1,
or exit 2 with exactly one ``courtstudio: error:`` line on stderr (never an internal error),
within a time limit, and no file written outside the case's output folder.

Used by tests/test_fuzz_cli.py (hypothesis) and bench/fuzz_cli.py (a fixed-seed run).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import signal
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import h5py
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "sample_project"
SCALE = 0.25  # the corpus project's frame is the sample's tennis frame at a quarter size


class Hang(BaseException):
    """A case ran past its time limit (BaseException: the CLI's catch-all must not eat it)."""


# ------------------------------------------------------------------------------- corpus
def _scale_annotation(ann: dict) -> dict:
    ann = json.loads(json.dumps(ann))
    ann["image_size"] = [round(v * SCALE) for v in ann["image_size"]]
    ann["points"] = {k: [round(c * SCALE, 2) for c in v] for k, v in ann["points"].items()}
    for p in ann.get("players", []):
        p["box_xyxy"] = [round(c * SCALE, 2) for c in p["box_xyxy"]]
    b = ann.get("ball")
    if b:
        for k in ("uv", "ground_uv"):
            if k in b:
                b[k] = [round(c * SCALE, 2) for c in b[k]]
    return ann


def build_corpus(base: Path) -> dict[str, Path]:
    """Write one valid file of each type under ``base``; return {kind: path}."""
    from courtstudio.cli import main
    base = Path(base)
    base.mkdir(parents=True, exist_ok=True)
    proj = base / "project"
    for sub in ("frames", "annotations", "truth", "meshes/f1", "propagation"):
        (proj / sub).mkdir(parents=True, exist_ok=True)
    img = cv2.imread(str(SAMPLE / "frames" / "tennis_0001.jpg"))
    small = cv2.resize(img, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(proj / "frames" / "f1.png"), small)
    cv2.imwrite(str(proj / "frames" / "f2.png"), small)
    ann = _scale_annotation(json.loads((SAMPLE / "annotations" / "tennis_0001.json")
                                       .read_text()))
    ann["frame_id"] = "f1"
    meshes = sorted((SAMPLE / "meshes" / "tennis_0001").glob("*.npz"))
    for p, m in zip(ann["players"], meshes):
        shutil.copy(m, proj / "meshes" / "f1" / m.name)
        p["mesh"] = f"meshes/f1/{m.name}"
    (proj / "annotations" / "f1.json").write_text(json.dumps(ann, indent=1))
    truth = json.loads((SAMPLE / "truth" / "tennis_0001.json").read_text())
    (proj / "truth" / "f1.json").write_text(json.dumps(truth, indent=1))
    (proj / "courtstudio_project.json").write_text(json.dumps({
        "format": "courtstudio.project", "format_version": 1, "name": "fuzz", "sport": "tennis",
        "frames": [{"id": "f1", "image": "frames/f1.png"}, {"id": "f2", "image": "frames/f2.png"}],
        "camera_ranges": [], "ball_flights": [], "fps": 25.0}, indent=1))
    points = base / "points.json"
    points.write_text(json.dumps({"image_size": ann["image_size"], "points": ann["points"]}))
    out = base / "_seed_out"
    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet, contextlib.redirect_stderr(io.StringIO()):
        assert main(["calibrate", "--sport", "tennis", "--points", str(points), "-o",
                     str(base / "camera.json")]) == 0
        assert main(["batch-propagate", str(proj), "--sport", "tennis", "--out", str(out / "p"),
                     "--quiet"]) == 0
        assert main(["reconstruct", str(proj), "-o", str(out / "r")]) == 0
        assert main(["synth-clip", "--sport", "tennis", "--frames", "4", "--size", "160", "96",
                     "-o", str(base / "clip.avi"), "--points", str(base / "clip_ref.json")]) == 0
    shutil.copy(out / "r" / "f1" / "scene.json", base / "scene.json")
    shutil.copy(out / "r" / "f1" / "scene.h5", base / "scene.h5")
    shutil.copy(ROOT / "court_specs" / "tennis.json", base / "spec.json")
    _write_output_pt(base / "output.pt", base / "camera.json", proj / "meshes" / "f1")
    shutil.rmtree(out)
    return {"points": points, "camera": base / "camera.json", "spec": base / "spec.json",
            "scene": base / "scene.json", "scene_h5": base / "scene.h5",
            "project_file": proj / "courtstudio_project.json",
            "annotation": proj / "annotations" / "f1.json", "truth": proj / "truth" / "f1.json",
            "cameras_jsonl": proj / "propagation" / "cameras.jsonl",
            "mesh_npz": sorted((proj / "meshes" / "f1").glob("*.npz"))[0],
            "image": proj / "frames" / "f1.png", "pt": base / "output.pt",
            "video": base / "clip.avi", "clip_points": base / "clip_ref.json"}


def _write_output_pt(path: Path, camera_json: Path, mesh_dir: Path) -> None:
    """A two-person PromptHMR image-demo output.pt in the real layout (cam_int (2, 3, 3))."""
    import torch
    from hmr.person_mesh import PersonMesh
    from hmr.prompthmr import named_to_body25, padding
    cam = json.loads(camera_json.read_text())
    people = [PersonMesh.load_npz(p) for p in sorted(mesh_dir.glob("*.npz"))]
    s, off = padding(cam["image_size"])
    Kp = np.array(cam["K"], float)
    Kp[:2] *= s
    Kp[:2, 2] += off
    B = len(people)
    torch.save({"pose": torch.zeros(B, 132), "betas": torch.zeros(B, 10),
                "transl": torch.zeros(B, 3), "rotmat": torch.eye(3).repeat(B, 22, 1, 1),
                "vertices": torch.tensor(np.stack([p.vertices_cam for p in people])[:, :500],
                                         dtype=torch.float32),
                "body_joints": torch.tensor(np.stack([named_to_body25(p.joints_cam)
                                                      for p in people]), dtype=torch.float32),
                "cam_int": torch.tensor(Kp, dtype=torch.float32)[None].expand(B, 3, 3)}, path)


# ---------------------------------------------------------------------------- mutations
HUGE_INT = "9" * 400
SPECIAL = ["__NAN__", "__INF__", "__HUGEINT__", "__DEEP__", None, True, 0, -1, 7, 1e308,
           -1e300, 1e5, "bogus", "", "../../x", "/tmp/x", "x" * 300, [], {}, [1, 2],
           [[1, 2, 3]], {"a": 1}, [None], 0.5]


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
    return (text.replace('"__NAN__"', "NaN").replace('"__INF__"', rng.choice(["Infinity",
                                                                              "-Infinity"]))
            .replace('"__HUGEINT__"', HUGE_INT)
            .replace('"__DEEP__"', "[" * depth + "]" * depth))


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
        d[k] = np.array(rng.choice([5, -1, 1e300, 2 ** 40]))
    elif op == "object":
        d[k] = np.array([{"a": 1}], dtype=object)
    elif op == "huge":  # a header declaring 400M rows with almost no data behind it
        with zipfile.ZipFile(path, "w") as zf:
            for name, a in d.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, a)
                zf.writestr(name + ".npy", buf.getvalue())
            hdr = io.BytesIO()
            np.lib.format.write_array_header_1_0(hdr, {"descr": "<f4", "fortran_order": False,
                                                       "shape": (400_000_000, 3)})
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
            f.create_dataset(n, data=np.full(shape, 2 ** 31 - 1 if dtype.kind == "i" else 1e30,
                                             dtype))
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
    op = rng.choice(["delete", "intkey", "scalar", "nan", "shape", "list", "string", "cam",
                     "half"])
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
        d["cam_int"] = rng.choice([torch.zeros(3, 3), torch.eye(3)[None].repeat(3, 1, 1) *
                                   torch.tensor([1.0, 2.0, 3.0])[:, None, None],
                                   torch.zeros(2, 4, 4), -torch.eye(3)])
    else:
        d[k] = d[k].half() if d[k].is_floating_point() else d[k]
    torch.save(d if rng.random() < 0.9 else list(d.values()), path)
    return f"{op} {k}"


def _png_claiming(w: int, h: int) -> bytes:
    import struct
    import zlib

    def chunk(t, data):
        return (struct.pack(">I", len(data)) + t + data
                + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))


def mutate_image(path: Path, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        path.write_bytes(_png_claiming(rng.choice([20000, 100000, 1]),
                                       rng.choice([20000, 100000, 1])))
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


MUTATORS = {".json": mutate_text_file, ".jsonl": mutate_text_file, ".npz": mutate_npz,
            ".h5": mutate_h5, ".pt": mutate_pt, ".png": mutate_image, ".avi": mutate_video}


# -------------------------------------------------------------------------------- cases
def commands(kind: str, files: dict[str, Path], out: Path) -> list[list[str]]:
    """CLI invocations that read a file of ``kind`` (paths from ``files``, outputs in out)."""
    f = {k: str(v) for k, v in files.items()}
    proj = str(files["project_file"].parent)
    o = str(out)
    overlay = ["overlay", f["image"], "--camera", f["camera"], "--sport", "tennis",
               "--points", f["points"], "--ball", "200", "150", "--ground", "200", "190",
               "-o", f"{o}/o.png"]
    players = ["players", "correct", "--camera", f["camera"], "--hmr", f["pt"], "--height",
               "0"]
    return {
        "points": [["calibrate", "--sport", "tennis", "--points", f["points"], "-o",
                    f"{o}/cam.json"], overlay],
        "camera": [["lift-ball", "--camera", f["camera"], "--ball", "200", "150", "--ground",
                    "200", "190", "--json"], overlay, players],
        "spec": [["specs", f["spec"], "--json"], ["zone", "--sport", f["spec"], "3", "4"],
                 ["calibrate", "--sport", f["spec"], "--points", f["points"]],
                 ["overlay", f["image"], "--camera", f["camera"], "--sport", f["spec"], "-o",
                  f"{o}/o.png"]],
        "scene": [["export", f["scene"], "-o", f"{o}/x.glb"],
                  ["export", f["scene"], "-o", f"{o}/x.yaml"]],
        "scene_h5": [["export", f["scene"], "-o", f"{o}/x.glb"],
                     ["export", f["scene"], "-o", f"{o}/x.yaml"]],
        "project_file": [["reconstruct", proj, "-o", f"{o}/r"],
                         ["export", proj, "--format", "coco", "-o", f"{o}/c"]],
        "annotation": [["reconstruct", proj, "-o", f"{o}/r"],
                       ["calibrate", "--sport", "tennis", "--points", f["annotation"]]],
        "truth": [["reconstruct", proj, "-o", f"{o}/r"]],
        "cameras_jsonl": [["reconstruct", proj, "-o", f"{o}/r"],
                          ["export", proj, "--format", "scenes", "-o", f"{o}/s"]],
        "mesh_npz": [["reconstruct", proj, "-o", f"{o}/r"]],
        "image": [overlay, ["reconstruct", proj, "-o", f"{o}/r"]],
        "pt": [players],
        "video": [["batch-propagate", f["video"], "--sport", "tennis", "--reference",
                   f"0:{f['clip_points']}", "--out", f"{o}/v", "--quiet"]],
    }[kind]


def argument_cases(files: dict[str, Path], out: Path, rng: random.Random) -> list[str]:
    """Hostile arguments: outputs that are folders, under files, or with bad extensions;
    frame numbers out of range; non-finite numbers."""
    f = {k: str(v) for k, v in files.items()}
    o = str(out)
    n = rng.choice(["0", "1", "3", "-2", "500", "99999999999"])
    choices = [
        ["synth-clip", "--sport", "tennis", "--frames", n, "--size", "64", "48", "-o",
         f"{o}/c.avi", "--points", f"{o}/p.json"],
        ["synth-clip", "--sport", "tennis", "--frames", "2", "--size", "64", "48",
         "--reference-frame", n, "-o", f"{o}/c.avi", "--points", f"{o}/p.json"],
        ["synth-clip", "--sport", "tennis", "--frames", "2", "--size", n, "48", "-o",
         f"{o}/c.xyz", "--points", f"{o}/p.json"],
        ["calibrate", "--sport", "tennis", "--points", f["points"], "-o", o],
        ["calibrate", "--sport", "tennis", "--points", f["points"], "-o",
         f"{f['points']}/cam.json"],
        ["calibrate", "--sport", "tennis", "--points", f["points"], "--click-sigma",
         rng.choice(["nan", "inf", "0", "-1", "1e400"])],
        ["overlay", f["image"], "--camera", f["camera"], "--sport", "tennis", "-o",
         f"{o}/x.{rng.choice(['xyz', 'json', 'png/', ''])}"],
        ["lift-ball", "--camera", f["camera"], "--ball", rng.choice(["nan", "inf", "1e300"]),
         "0", "--ground", "0", "0"],
        ["export", f["scene"], "-o", f"{o}/{'x' * 300}.glb"],
        ["export", f["scene"], "-o", o + "/"],
        ["export", f["scene"], "-o", f"{o}/x.txt"],
        ["players", "correct", "--camera", f["camera"], "--hmr", f["pt"], "--height",
         rng.choice(["nan", "1e9", "-0.5"]), "--person", n.lstrip("-")],
        ["batch-propagate", f["video"], "--sport", "tennis", "--reference",
         f"{n.lstrip('-')}:{f['clip_points']}", "--out", f"{o}/v", "--quiet"],
        ["reconstruct", str(files["project_file"].parent), "-o", f["points"]],
        ["zone", "--sport", "tennis", rng.choice(["nan", "inf", "1e300"]), "0"],
        ["specs", rng.choice(["/dev/zero", "/", "nosuch.json", "x" * 300])],
        ["synth", "--sports", "tennis", "--image-size", n, "10", "-o", f"{o}/s"],
    ]
    return rng.choice(choices)


@dataclass
class Outcome:
    kind: str
    mutation: str
    argv: list[str]
    code: int | None = None
    stderr: str = ""
    problem: str | None = None  # None: the contract held
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def _snapshot(root: Path, skip: Path) -> dict[str, tuple]:
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        if d == skip or skip in d.parents:
            dirnames[:] = []
            continue
        for name in filenames + [x for x in dirnames if (d / x).is_symlink()]:
            p = d / name
            try:
                st = os.lstat(p)
                snap[str(p)] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
    return snap


def run_cli(argv: list[str], timeout_s: float) -> tuple[int | None, str, str, str | None]:
    """(exit code, stdout, stderr, problem) of main(argv) in-process with a time limit."""
    from courtstudio.cli import main

    def on_alarm(signum, frame):
        raise Hang()
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    code, problem = None, None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except Hang:
        problem = "hang"
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:  # noqa: BLE001 - a traceback is what we are looking for
        problem = f"traceback: {type(exc).__name__}: {exc}"[:300]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    e = err.getvalue()
    if problem is None:
        lines = e.splitlines()
        if "internal error" in e:
            problem = "traceback: " + e.strip()[:300]
        elif code == 2 and (len(lines) != 1 or not lines[0].startswith("courtstudio: error: ")):
            problem = f"exit 2 with {len(lines)} stderr lines"
        elif code not in (0, 1, 2):
            problem = f"exit {code}"
    return code, out.getvalue(), e, problem


def run_case(corpus: dict[str, Path], work: Path, rng: random.Random,
             kind: str | None = None, timeout_s: float = 60.0) -> Outcome:
    """One fuzz case in a fresh copy of the corpus under ``work``."""
    import time
    if work.exists():
        shutil.rmtree(work)
    base = Path(corpus["points"]).parent
    shutil.copytree(base, work, symlinks=True)
    files = {k: work / Path(v).relative_to(base) for k, v in corpus.items()}
    out = work / "out"
    kinds = sorted(set(MUTATORS_BY_KIND) | {"args"})
    kind = kind or rng.choice(kinds)
    if kind == "args":
        argv = argument_cases(files, out, rng)
        mutation = "arguments"
    else:
        target = files[kind]
        if rng.random() < 0.06:
            mutation = make_special(target, rng)
        else:
            mutation = MUTATORS[target.suffix](target, rng)
        argv = rng.choice(commands(kind, files, out))
    before = _snapshot(work, out)
    cwd = os.getcwd()
    os.chdir(work)
    t0 = time.perf_counter()
    try:
        code, _, err, problem = run_cli(argv, timeout_s)
    finally:
        os.chdir(cwd)
    o = Outcome(kind, mutation, argv, code, err, problem, time.perf_counter() - t0)
    if problem is None:
        after = _snapshot(work, out)
        proj_prop = str(files["project_file"].parent / "propagation")
        changed = [p for p in set(before) | set(after) if before.get(p) != after.get(p)
                   and not (argv[0] == "batch-propagate" and p.startswith(proj_prop))
                   and not (argv[0] == "synth-clip" and p.startswith(str(out)))]
        changed = [p for p in changed if not p.startswith(str(out))]
        if changed:
            o.problem = f"wrote outside the output folder: {sorted(changed)[:3]}"
    return o


MUTATORS_BY_KIND = ["points", "camera", "spec", "scene", "scene_h5", "project_file",
                    "annotation", "truth", "cameras_jsonl", "mesh_npz", "image", "pt", "video"]

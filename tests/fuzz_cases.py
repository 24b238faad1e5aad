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
import os
import random
import shutil
import signal
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz_corpus import build_corpus  # noqa: F401 - part of this module's interface
from tests.fuzz_mutations import MUTATORS, make_special


class Hang(BaseException):
    """A case ran past its time limit (BaseException: the CLI's catch-all must not eat it)."""


def commands(kind: str, files: dict[str, Path], out: Path) -> list[list[str]]:
    """CLI invocations that read a file of ``kind`` (paths from ``files``, outputs in out)."""
    f = {k: str(v) for k, v in files.items()}
    proj = str(files["project_file"].parent)
    o = str(out)
    overlay = [
        "overlay",
        f["image"],
        "--camera",
        f["camera"],
        "--sport",
        "tennis",
        "--points",
        f["points"],
        "--ball",
        "200",
        "150",
        "--ground",
        "200",
        "190",
        "-o",
        f"{o}/o.png",
    ]
    players = ["players", "correct", "--camera", f["camera"], "--hmr", f["pt"], "--height", "0"]
    return {
        "points": [
            ["calibrate", "--sport", "tennis", "--points", f["points"], "-o", f"{o}/cam.json"],
            overlay,
        ],
        "camera": [
            [
                "lift-ball",
                "--camera",
                f["camera"],
                "--ball",
                "200",
                "150",
                "--ground",
                "200",
                "190",
                "--json",
            ],
            overlay,
            players,
        ],
        "spec": [
            ["specs", f["spec"], "--json"],
            ["zone", "--sport", f["spec"], "3", "4"],
            ["calibrate", "--sport", f["spec"], "--points", f["points"]],
            [
                "overlay",
                f["image"],
                "--camera",
                f["camera"],
                "--sport",
                f["spec"],
                "-o",
                f"{o}/o.png",
            ],
        ],
        "scene": [
            ["export", f["scene"], "-o", f"{o}/x.glb"],
            ["export", f["scene"], "-o", f"{o}/x.yaml"],
        ],
        "scene_h5": [
            ["export", f["scene"], "-o", f"{o}/x.glb"],
            ["export", f["scene"], "-o", f"{o}/x.yaml"],
        ],
        "project_file": [
            ["reconstruct", proj, "-o", f"{o}/r"],
            ["export", proj, "--format", "coco", "-o", f"{o}/c"],
        ],
        "annotation": [
            ["reconstruct", proj, "-o", f"{o}/r"],
            ["calibrate", "--sport", "tennis", "--points", f["annotation"]],
        ],
        "truth": [["reconstruct", proj, "-o", f"{o}/r"]],
        "cameras_jsonl": [
            ["reconstruct", proj, "-o", f"{o}/r"],
            ["export", proj, "--format", "scenes", "-o", f"{o}/s"],
        ],
        "mesh_npz": [["reconstruct", proj, "-o", f"{o}/r"]],
        "image": [overlay, ["reconstruct", proj, "-o", f"{o}/r"]],
        "pt": [players],
        "video": [
            [
                "batch-propagate",
                f["video"],
                "--sport",
                "tennis",
                "--reference",
                f"0:{f['clip_points']}",
                "--out",
                f"{o}/v",
                "--quiet",
            ]
        ],
    }[kind]


def argument_cases(files: dict[str, Path], out: Path, rng: random.Random) -> list[str]:
    """Hostile arguments: outputs that are folders, under files, or with bad extensions;
    frame numbers out of range; non-finite numbers."""
    f = {k: str(v) for k, v in files.items()}
    o = str(out)
    n = rng.choice(["0", "1", "3", "-2", "500", "99999999999"])
    choices = [
        [
            "synth-clip",
            "--sport",
            "tennis",
            "--frames",
            n,
            "--size",
            "64",
            "48",
            "-o",
            f"{o}/c.avi",
            "--points",
            f"{o}/p.json",
        ],
        [
            "synth-clip",
            "--sport",
            "tennis",
            "--frames",
            "2",
            "--size",
            "64",
            "48",
            "--reference-frame",
            n,
            "-o",
            f"{o}/c.avi",
            "--points",
            f"{o}/p.json",
        ],
        [
            "synth-clip",
            "--sport",
            "tennis",
            "--frames",
            "2",
            "--size",
            n,
            "48",
            "-o",
            f"{o}/c.xyz",
            "--points",
            f"{o}/p.json",
        ],
        ["calibrate", "--sport", "tennis", "--points", f["points"], "-o", o],
        [
            "calibrate",
            "--sport",
            "tennis",
            "--points",
            f["points"],
            "-o",
            f"{f['points']}/cam.json",
        ],
        [
            "calibrate",
            "--sport",
            "tennis",
            "--points",
            f["points"],
            "--click-sigma",
            rng.choice(["nan", "inf", "0", "-1", "1e400"]),
        ],
        [
            "overlay",
            f["image"],
            "--camera",
            f["camera"],
            "--sport",
            "tennis",
            "-o",
            f"{o}/x.{rng.choice(['xyz', 'json', 'png/', ''])}",
        ],
        [
            "lift-ball",
            "--camera",
            f["camera"],
            "--ball",
            rng.choice(["nan", "inf", "1e300"]),
            "0",
            "--ground",
            "0",
            "0",
        ],
        ["export", f["scene"], "-o", f"{o}/{'x' * 300}.glb"],
        ["export", f["scene"], "-o", o + "/"],
        ["export", f["scene"], "-o", f"{o}/x.txt"],
        [
            "players",
            "correct",
            "--camera",
            f["camera"],
            "--hmr",
            f["pt"],
            "--height",
            rng.choice(["nan", "1e9", "-0.5"]),
            "--person",
            n.lstrip("-"),
        ],
        [
            "batch-propagate",
            f["video"],
            "--sport",
            "tennis",
            "--reference",
            f"{n.lstrip('-')}:{f['clip_points']}",
            "--out",
            f"{o}/v",
            "--quiet",
        ],
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


def run_case(
    corpus: dict[str, Path],
    work: Path,
    rng: random.Random,
    kind: str | None = None,
    timeout_s: float = 60.0,
) -> Outcome:
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
        changed = [
            p
            for p in set(before) | set(after)
            if before.get(p) != after.get(p)
            and not (argv[0] == "batch-propagate" and p.startswith(proj_prop))
            and not (argv[0] == "synth-clip" and p.startswith(str(out)))
        ]
        changed = [p for p in changed if not p.startswith(str(out))]
        if changed:
            o.problem = f"wrote outside the output folder: {sorted(changed)[:3]}"
    return o


MUTATORS_BY_KIND = [
    "points",
    "camera",
    "spec",
    "scene",
    "scene_h5",
    "project_file",
    "annotation",
    "truth",
    "cameras_jsonl",
    "mesh_npz",
    "image",
    "pt",
    "video",
]

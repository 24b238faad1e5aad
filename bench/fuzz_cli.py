"""Fuzz the command line: mutated copies of every file type CourtStudio reads (issue 8, §6).

Each case copies a small valid corpus (points, camera, spec, scene JSON + HDF5, project,
annotation, truth, cameras.jsonl, PromptHMR .pt, mesh .npz, image, video), mutates one file
(or the arguments), runs ``courtstudio.cli.main`` in-process and checks the contract: exit 0/1,
or exit 2 with exactly one ``courtstudio: error:`` line, within the time limit, writing nothing
outside the output folder (tests/fuzz_cases.py). Prints cases / tracebacks / hangs / other
contract breaks, and the first few failures.

Run: ``python bench/fuzz_cli.py`` (2,000 cases, seed 0; about 10-20 minutes on a loaded
machine); ``--cases N --seed S --timeout SECONDS --json results.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import os  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.fuzz_cases import build_corpus, run_case  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case = a hang")
    ap.add_argument("--kind", help="only this file kind (e.g. scene_h5, pt, args)")
    ap.add_argument("--json", help="write every failing case here")
    ap.add_argument(
        "--memory-gb",
        type=float,
        default=6.0,
        help="address-space limit (a runaway allocation is a MemoryError, not the "
        "machine's OOM killer)",
    )
    args = ap.parse_args()
    import resource

    lim = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="courtstudio_fuzz_") as tmp:
        corpus = build_corpus(Path(tmp) / "corpus")
        failures, kinds, slowest = [], Counter(), 0.0
        counts = Counter()
        for i in range(args.cases):
            o = run_case(
                corpus,
                Path(tmp) / "case",
                random.Random(rng.getrandbits(64)),
                args.kind,
                args.timeout,
            )
            kinds[o.kind] += 1
            slowest = max(slowest, o.seconds)
            counts["exit %s" % o.code] += 1
            if o.problem:
                cat = (
                    "hang"
                    if o.problem == "hang"
                    else "traceback"
                    if o.problem.startswith("traceback")
                    else "other"
                )
                counts[cat] += 1
                failures.append(
                    {
                        "case": i,
                        "kind": o.kind,
                        "mutation": o.mutation,
                        "argv": o.argv,
                        "problem": o.problem,
                    }
                )
                print(
                    f"case {i} [{o.kind}: {o.mutation}] {' '.join(o.argv)[:160]}\n"
                    f"   -> {o.problem[:300]}",
                    flush=True,
                )
            if (i + 1) % 100 == 0:
                print(
                    f"... {i + 1} cases, {len(failures)} failures, "
                    f"{time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    print(
        f"\ncases {args.cases}  tracebacks {counts['traceback']}  hangs {counts['hang']}  "
        f"other contract breaks {counts['other']}  (seed {args.seed}, "
        f"{time.perf_counter() - t0:.0f} s, slowest case {slowest:.1f} s)"
    )
    print(
        "exit codes: "
        + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()) if k.startswith("exit"))
    )
    print("cases per file kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    if args.json:
        Path(args.json).write_text(json.dumps(failures, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

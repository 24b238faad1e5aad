"""Are two real-clip runs the same? Every record of every kept run, every field.

    PYTHONPATH=$PWD python bench/real_clips_compare.py RUNS_A RUNS_B [--clip ID ...]

RUNS_A and RUNS_B are ``bench/real_clips.py --out`` folders (``<clip>/ref<N>/cameras.jsonl``).
A speed change that should not change results is checked by running the bench before and after
it and comparing here: per run, the frames each side holds and, frame by frame, the records
(parsed JSON, compared exactly: floats bit for bit). Prints one line per run that differs (its
first differing frame and fields) and a total; exit code 0 when every run is identical and both
sides hold the same runs (at least one), 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from courtstudio.pipeline.propagation_records import read_done  # noqa: E402


def runs_of(base: Path, clips: list[str]) -> dict[str, Path]:
    """``{"<clip>/ref<N>": cameras.jsonl}`` under a bench --out folder."""
    out = {}
    for f in sorted(base.glob("*/ref*/cameras.jsonl")):
        clip = f.parent.parent.name
        if not clips or clip in clips:
            out[f"{clip}/{f.parent.name}"] = f
    return out


def differing_fields(a: dict, b: dict) -> list[str]:
    """Top-level keys whose values differ (exactly) between two records."""
    return sorted(k for k in set(a) | set(b) if a.get(k, KeyError) != b.get(k, KeyError))


def compare_run(fa: Path, fb: Path) -> tuple[int, str | None]:
    """(records compared, None when identical, else a one-line description of the first
    difference)."""
    ra, rb = read_done(fa), read_done(fb)
    if set(ra) != set(rb):
        only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
        why = f"frames differ: {len(only_a)} only in A {only_a[:5]}, "
        return len(ra), why + f"{len(only_b)} only in B {only_b[:5]}"
    for i in sorted(ra):
        if ra[i] != rb[i]:
            n_diff = sum(ra[j] != rb[j] for j in ra)
            why = f"{n_diff} records differ, first frame {i}: {differing_fields(ra[i], rb[i])}"
            return len(ra), why
    return len(ra), None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs_a", type=Path)
    ap.add_argument("runs_b", type=Path)
    ap.add_argument("--clip", action="append", default=[])
    args = ap.parse_args(argv)
    a, b = runs_of(args.runs_a, args.clip), runs_of(args.runs_b, args.clip)
    ok = True
    for key in sorted(set(a) - set(b)):
        print(f"{key}: only in {args.runs_a}")
        ok = False
    for key in sorted(set(b) - set(a)):
        print(f"{key}: only in {args.runs_b}")
        ok = False
    n_records = n_same = 0
    common = sorted(set(a) & set(b))
    for key in common:
        n, diff = compare_run(a[key], b[key])
        n_records += n
        if diff is None:
            n_same += 1
        else:
            ok = False
            print(f"{key}: {diff}")
    if not common:
        print("no run to compare (wrong folders or --clip?)")
        return 1
    print(f"{n_same} of {len(common)} runs identical ({n_records} records in A's common runs)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

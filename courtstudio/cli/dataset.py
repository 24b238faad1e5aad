"""`courtstudio dataset build`: a QA dataset from a manifest of clips and projects, on Ray
(a local cluster by default, or one given by --address), resumable."""

from __future__ import annotations

import sys

from courtstudio.cli.common import examples


def cmd_dataset_build(args) -> int:
    from courtstudio.dataset.build import ALL_STAGES, build_dataset
    from courtstudio.dataset.executors import make_executor
    from courtstudio.dataset.manifest import load_manifest

    manifest = load_manifest(args.manifest)
    stages = tuple(args.stages) if args.stages else ALL_STAGES
    unknown = [s for s in stages if s not in ALL_STAGES]
    if unknown:
        raise ValueError(
            f"--stages: unknown stage {unknown[0]!r} (choose from {', '.join(ALL_STAGES)})"
        )
    if args.serial and args.address:
        raise ValueError("--serial and --address exclude each other")
    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers: must be at least 1")

    def log(msg: str) -> None:
        print(f"courtstudio: {msg}", file=sys.stderr)

    def start():
        if args.serial:
            from courtstudio.dataset.executors import serial_executor

            return serial_executor()
        try:
            return make_executor(args.address, args.workers, log)
        except (RuntimeError, ConnectionError) as exc:
            raise ValueError(f"cannot start the cluster: {' '.join(str(exc).split())}") from None

    report = build_dataset(
        manifest,
        args.output,
        start,
        stages,
        progress=not args.quiet,
        log=None if args.quiet else log,
    )
    print(report.to_text())
    return 1 if report.failures else 0


def register(sub, fmt) -> None:
    """Add the `dataset` command group to the CLI's subparsers."""
    dp = sub.add_parser(
        "dataset", help="build QA datasets from many clips (Ray)", formatter_class=fmt
    )
    dsub = dp.add_subparsers(dest="dataset_command", required=True, metavar="COMMAND")
    bp = dsub.add_parser(
        "build",
        formatter_class=fmt,
        help="run propagate -> export -> [players] -> QA over a manifest, then merge",
        description="Every (clip, stage) is a task whose outputs are written atomically "
        "under OUT/clips/<clip>/<stage>/ with a provenance record; a rerun skips "
        "finished tasks and redoes what changed. Failing tasks are retried, then "
        "reported without stopping the others. OUT/dataset/ holds the merged "
        "train.json, bench.json and dataset_info.json; OUT/report.json and "
        "report.txt the per-stage report. Manifest format: docs/scale.md.",
        epilog=examples(
            "courtstudio dataset build manifest.yaml -o out/ds",
            "courtstudio dataset build manifest.json -o out/ds --workers 2",
            "courtstudio dataset build manifest.json -o out/ds --address auto",
            "courtstudio dataset build manifest.json -o out/ds --stages prepare propagate",
        ),
    )
    bp.add_argument("manifest", help="manifest file (.json, .yaml)")
    bp.add_argument("-o", "--output", required=True, metavar="OUT")
    bp.add_argument(
        "--address",
        help="Ray cluster: auto, or ray://HOST:PORT (default: start "
        "a local cluster sized to this machine)",
    )
    bp.add_argument("--workers", type=int, help="CPUs of the local cluster (default: all)")
    bp.add_argument(
        "--stages",
        nargs="+",
        metavar="STAGE",
        help="only these stages: prepare propagate players export qa merge",
    )
    bp.add_argument(
        "--serial",
        action="store_true",
        help="run every task in this process, one after another (no Ray)",
    )
    bp.add_argument("--quiet", action="store_true", help="no progress bar")
    bp.set_defaults(func=cmd_dataset_build)

"""The ``courtstudio`` command line. Command names and JSON keys are a contract (docs/cli.md).

One module per command group, each with ``register(sub, fmt)``. Bad input exits with code 2 and
one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from courtstudio.cli import court, dataset, export, gui, players, propagate, qa, synth
from courtstudio.cli.common import EXIT_BAD_INPUT, CliError, Parser, examples, positive

# Each command imports what it needs when it runs: `courtstudio --help` and usage errors load
# no numpy, OpenCV, jsonschema or h5py (bench/cli_startup.py measures it; issue 9 §7).

__all__ = ["CliError", "EXIT_BAD_INPUT", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = Parser(
        prog="courtstudio",
        formatter_class=fmt,
        description="Metric 3D scenes from broadcast frames of court sports.",
        epilog=examples(
            "courtstudio specs",
            "courtstudio reconstruct --sample -o out/sample",
            "courtstudio calibrate --sport tennis --points points.json -o camera.json",
        ),
    )
    p.add_argument(
        "--specs-dir",
        action="append",
        metavar="DIR",
        help="a folder of court spec files (<sport>.json) searched before the "
        "bundled ones; repeatable (also: COURTSTUDIO_SPECS_DIR)",
    )
    p.add_argument(
        "--max-megapixels",
        type=positive,
        metavar="MP",
        help="refuse images and video frames larger than this (default "
        "100 megapixels; read from the file header before decoding)",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in (court, export, propagate, synth, players, gui, qa, dataset):
        group.register(sub, fmt)
    return p


# what each command writes: a project containing one of these is locked while it runs
WRITTEN_ARGS = {
    "calibrate": ("output", "opencv_yaml"),
    "overlay": ("output",),
    "export": ("output",),
    "reconstruct": ("output",),
    "synth": ("output",),
    "batch-propagate": ("out", "source"),
    "synth-clip": ("output", "points"),
}


def _written_paths(args) -> list:
    paths = [getattr(args, a, None) for a in WRITTEN_ARGS.get(args.command, ())]
    if args.command == "batch-propagate" and not Path(args.source).is_dir():
        paths.remove(args.source)  # a video is only read
    return [p for p in paths if p]


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        name = exc.filename2 if exc.filename2 is not None else exc.filename
        return f"{name}: {exc.strerror}" if name is not None else exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None) -> int:
    """Run one command. Bad input (a usage mistake, a malformed or unreadable file, an
    unwritable output) exits with code 2 and exactly one line on stderr, never a traceback.
    A command that writes into a project holds the project's lock while it runs."""
    try:
        with warnings.catch_warnings():
            # numpy's floating-point RuntimeWarnings are not for the user: results are checked
            warnings.simplefilter("ignore", RuntimeWarning)
            args = build_parser().parse_args(argv)
            # after parsing: --help and usage errors import nothing heavy
            before_imports = getattr(args, "before_imports", None)
            if before_imports is not None:  # a command's process settings (numpy not loaded)
                before_imports()
            from court_specs.loader import configure_spec_dirs, extra_spec_dirs
            from courtstudio.io.project_lock import hold_projects
            from courtstudio.io.settings import Settings

            # the Court specs folder of File > Preferences, as the app uses it
            configure_spec_dirs([Settings.load().specs_dir])
            from safe_io.images import set_max_pixels

            set_max_pixels(None if args.max_megapixels is None else int(args.max_megapixels * 1e6))
            with (
                extra_spec_dirs(args.specs_dir),
                hold_projects(_written_paths(args), f"courtstudio {args.command}"),
            ):
                return args.func(args)
    except (CliError, ValueError, OSError) as exc:
        print(f"courtstudio: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        print("courtstudio: error: input nested too deeply", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("courtstudio: error: out of memory reading the input", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # noqa: BLE001 - the promise is one line, never a traceback
        print(
            f"courtstudio: error: internal error ({type(exc).__name__}: {_one_line(exc)}); "
            "please report it",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    finally:
        if "court_specs.loader" in sys.modules:
            sys.modules["court_specs.loader"].configure_spec_dirs(())
        if "safe_io.images" in sys.modules:  # set by this run (after parsing): reset it
            sys.modules["safe_io.images"].set_max_pixels(None)

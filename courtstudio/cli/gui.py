"""``courtstudio gui``: the desktop app (PySide6, imported only when the command runs)."""

from __future__ import annotations

from courtstudio.cli.common import CliError, examples, int_in
from courtstudio.editing.panel_ids import PANEL_IDS


def frame_memory() -> None:
    """The app decodes frames and propagates in its own process: their memory is reused from
    the heap (courtstudio.pipeline.propagation_memory)."""
    from courtstudio.pipeline.propagation_memory import reuse_frame_memory

    reuse_frame_memory()


def cmd_gui(args) -> int:
    try:
        from annotation_ui.app import run
    except ImportError as exc:
        raise CliError(
            f"the desktop app needs PySide6 ({exc}); install it with "
            "`pip install PySide6-Essentials`"
        ) from None
    if args.sample and args.project:
        raise CliError("give a PROJECT folder or --sample (not both)")
    return run(
        args.project,
        args.sample,
        args.screenshot,
        args.panel,
        args.view,
        args.frame,
        tuple(args.size),
    )


def register(sub, fmt) -> None:
    """Add this group's commands to the ``courtstudio`` sub-parsers."""
    sp = sub.add_parser(
        "gui",
        help="the desktop annotation app",
        formatter_class=fmt,
        description="Open the annotation app on a project folder or the bundled sample. With "
        "--screenshot the window is rendered offscreen to a PNG and the app exits.",
        epilog=examples(
            "courtstudio gui --sample",
            "courtstudio gui my_project",
            "courtstudio gui --sample --screenshot court.png --panel court",
            "courtstudio gui --sample --screenshot ball.png --panel ball --view 3d --frame 1",
        ),
    )
    sp.add_argument("project", nargs="?")
    sp.add_argument(
        "--sample",
        action="store_true",
        help="open the bundled sample project (a writable copy in ~/.courtstudio)",
    )
    sp.add_argument("--screenshot", metavar="FILE.png")
    sp.add_argument("--panel", choices=PANEL_IDS, default=PANEL_IDS[0])
    sp.add_argument("--view", choices=["topdown", "3d"], default="topdown")
    sp.add_argument("--frame", type=int_in(0, 10**9), default=0, help="frame index to show")
    sp.add_argument(
        "--size", nargs=2, type=int_in(100, 16384), default=[1600, 960], metavar=("W", "H")
    )
    sp.set_defaults(func=cmd_gui, before_imports=frame_memory)

"""``courtstudio batch-propagate``: every frame of a clip calibrated from annotated references."""

from __future__ import annotations

import json
import os
from pathlib import Path

from courtstudio.cli.common import CliError, examples, int_in, mask_box, positive


def one_blas_thread() -> None:
    """OpenBLAS (numpy's linear algebra) on one thread for this process and the workers it
    starts, unless the user set OPENBLAS_NUM_THREADS. A pass keeps both cores busy with its own
    threads (decoding, the scan, registration) and its matrices are small, so OpenBLAS's
    worker threads only spin between calls: 4-8 % of a 720p run's CPU (BENCHMARKS.md,
    "Integrated main, 2026-12-01 third session"). OpenBLAS reads the variable when numpy
    loads: the command line calls it (the parser's ``before_imports``) before it imports
    anything that loads numpy."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def pass_process_settings() -> None:
    """A propagation pass's process settings, made before numpy loads: one BLAS thread
    (one_blas_thread) and frames' memory reused from the heap (propagation_memory)."""
    from courtstudio.pipeline.propagation_memory import reuse_frame_memory

    one_blas_thread()
    reuse_frame_memory()


def cmd_batch_propagate(args) -> int:
    from court_specs import load_spec
    from courtstudio.io.points_file import load_points_file
    from courtstudio.pipeline.propagate import (
        ProgressBar,
        Reference,
        VideoFrames,
        VideoSource,
        iter_records,
        propagate,
        propagate_project,
        summary,
    )
    from courtstudio.pipeline.propagation_report import reference_warnings
    from safe_io.atomic import write_json_atomic

    spec = load_spec(args.sport)
    src = Path(args.source)
    masks = [mask_box(m) for m in args.mask]
    if src.is_dir():
        from courtstudio.io.project import load_project  # not imported for a video

        project = load_project(src)
        if any(f.sport != spec.id for f in project.frames):
            raise CliError(f"{src}: the project's frames are not all {spec.id}")
        if not project.frames:
            raise CliError(f"{src}: the project has no frames")
        from courtstudio.io.frames import FrameStore

        size = FrameStore(project).image_size(project.frames[0])
    elif src.is_file():
        if not args.out:
            raise CliError("--out is required for a video")
        frames = VideoFrames(src, workers=max(1, args.workers))
        size = frames.size
    else:
        raise CliError(f"{src}: no such video or project")
    refs = []
    for item in args.reference:
        frame_s, _, pts = item.partition(":")
        if not frame_s.isdigit() or not pts:
            raise CliError(f"--reference {item!r}: expected FRAME:POINTS.json")
        psize, points = load_points_file(pts)
        if tuple(psize) != tuple(size):
            raise CliError(
                f"{pts}: image_size {psize[0]}x{psize[1]} but the frames are {size[0]}x{size[1]}"
            )
        refs.append(Reference(int(frame_s), points))
    bar = None if args.quiet else ProgressBar()
    try:
        if src.is_dir():  # the same function as the app's Frame > Propagate
            try:
                records = propagate_project(
                    project,
                    refs or None,
                    progress=bar,
                    flag_rms_px=args.flag_px,
                    masks=masks,
                    workers=max(1, args.workers),
                    snap=args.snap,
                )
            except ValueError as exc:
                raise CliError(str(exc)) from None
            out = Path(args.out) if args.out else src / "propagation"
            if out.resolve() != (src / "propagation").resolve():
                from courtstudio.pipeline.propagate import write_jsonl_atomic

                write_jsonl_atomic(out / "cameras.jsonl", records)
                write_json_atomic(
                    out / "summary.json",
                    json.loads((src / "propagation" / "summary.json").read_text()),
                )
            rep = summary(records)
        else:
            if not refs:
                raise CliError(
                    "no reference: give --reference FRAME:POINTS.json (for a "
                    "project, annotate a frame's court keypoints)"
                )
            out = Path(args.out)
            propagate(
                frames,
                spec,
                refs,
                out,
                flag_rms_px=args.flag_px,
                progress=bar,
                workers=max(1, args.workers),
                frames_source=VideoSource(str(src), max(1, args.workers)),
                snap=args.snap,
                masks=masks,
                keep_records=False,  # an hour of records is a gigabyte as dicts
            )
            rep = summary(iter_records(out / "cameras.jsonl"))
            write_json_atomic(out / "summary.json", rep)
    finally:
        if bar is not None:
            bar.close()
    c = rep["counts"]
    print(
        f"{rep['frames']} frames: "
        + ", ".join(f"{v} {k}" for k, v in sorted(c.items()))
        + (f"; cuts before frames {rep['cuts']}" if rep["cuts"] else "")
    )
    if rep.get("graphics_boxes"):
        print(f"screen-fixed graphics masked: {rep['graphics_boxes']}")
    for line in reference_warnings(rep.get("reference_quality", []), args.flag_px):
        print(f"  {line}")
    for f in rep["flagged"][:20]:
        print(f"  flagged frame {f['frame']}: {f['reason']}")
    if len(rep["flagged"]) > 20:
        print(f"  ... {len(rep['flagged']) - 20} more in {out / 'summary.json'}")
    return 0


def register(sub, fmt) -> None:
    """Add this group's commands to the ``courtstudio`` sub-parsers."""
    sp = sub.add_parser(
        "batch-propagate",
        formatter_class=fmt,
        help="calibrate every frame of a clip from annotated reference frames",
        description="Carry the clicked keypoints of reference frames to every frame of a video "
        "(registering each frame directly to its nearest reference in the same "
        "shot) and recalibrate it. Writes OUT/cameras.jsonl (one line per frame: "
        "frame, K, R, t, status reference|ok|static|flagged, rms_px, reason) and "
        "OUT/summary.json. Resumable: frames already in cameras.jsonl are skipped.",
        epilog=examples(
            "courtstudio batch-propagate clip.mp4 --sport tennis --reference "
            "0:frame0_points.json --out out/clip",
            "courtstudio batch-propagate clip.mp4 --sport tennis --reference "
            "0:a.json --reference 299:b.json --out out/clip",
        ),
    )
    sp.add_argument(
        "source",
        help="video file, or a project folder (its annotated frames are "
        "the references; results also go to PROJECT/propagation)",
    )
    sp.add_argument("--sport", required=True)
    sp.add_argument(
        "--reference",
        action="append",
        default=[],
        metavar="FRAME:POINTS.json",
        help="an annotated frame (points file as for calibrate); repeatable",
    )
    sp.add_argument(
        "--out", help="output folder (required for a video; a project writes PROJECT/propagation)"
    )
    sp.add_argument(
        "--mask",
        action="append",
        default=[],
        metavar="x0,y0,x1,y1",
        help="pixels never used for registration (graphics); repeatable",
    )
    sp.add_argument(
        "--workers",
        type=int_in(1, 64),
        default=1,
        help="processes, each a contiguous part of the clip (records stream "
        "to cameras.jsonl from all of them)",
    )
    sp.add_argument(
        "--flag-px",
        type=positive,
        default=3.0,
        help="flag frames whose recalibration RMS exceeds their reference's by this",
    )
    sp.add_argument(
        "--snap",
        action="store_true",
        help="snap transferred keypoints onto the painted line crossings first",
    )
    sp.add_argument("--quiet", action="store_true", help="no progress line")
    sp.set_defaults(func=cmd_batch_propagate, before_imports=pass_process_settings)

"""``courtstudio export | reconstruct``: a project's scene files, and conversions of one scene."""

from __future__ import annotations

from pathlib import Path

from courtstudio.cli.common import CliError, examples


def cmd_export(args) -> int:
    from court_specs import load_spec
    from courtstudio.io.project import load_project

    fmt = args.format or {".glb": "glb", ".yaml": "opencv-yaml", ".yml": "opencv-yaml"}.get(
        Path(args.output).suffix.lower()
    )
    src = Path(args.source)
    if fmt is None:
        raise CliError("cannot tell the format from the output name: give --format")
    if fmt == "scenes":
        from courtstudio.export.reconstruct import ExportStatus, reconstruct_project

        summaries = reconstruct_project(
            load_project(src), args.output, force=args.force, overlay_format=args.overlay_format
        )
        return 1 if any(s.status == ExportStatus.ERROR for s in summaries) else 0
    if fmt == "coco":
        from courtstudio.export.reconstruct import export_project_coco

        project = load_project(src)
        paths = export_project_coco(project, Path(args.output))
        for p in paths:
            print(f"wrote {p}")
        return 0
    from exporters.scene import load_scene

    if src.suffix.lower() != ".json":
        raise CliError(f"{src}: expected a scene .json for --format {fmt}")
    scene = load_scene(src, load_meshes=fmt == "glb")  # a camera export reads no mesh
    if fmt == "glb":
        from exporters.glb import write_glb

        write_glb(scene, load_spec(scene.spec_id), args.output)
    elif fmt == "opencv-yaml":
        from exporters.opencv_yaml import write_opencv_yaml

        write_opencv_yaml(scene.camera, args.output)
    else:
        raise CliError(f"unknown format {fmt!r}")
    print(f"wrote {args.output}")
    return 0


def export_folder_options(sp) -> None:
    sp.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty folder that "
        "is not a previous export (same-named files are replaced)",
    )
    sp.add_argument(
        "--overlay-format",
        choices=["png", "jpg"],
        default="png",
        help="overlay image format (jpg: smaller files)",
    )


def cmd_reconstruct(args) -> int:
    from courtstudio.export.reconstruct import SAMPLE_PROJECT, ExportStatus, reconstruct_project
    from courtstudio.io.project import load_project

    if args.sample == (args.project is not None):
        raise CliError("give a PROJECT folder or --sample (not both)")
    project = load_project(SAMPLE_PROJECT if args.sample else args.project)
    summaries = reconstruct_project(
        project, args.output, force=args.force, overlay_format=args.overlay_format
    )
    failed = [s for s in summaries if s.status == ExportStatus.ERROR]
    poor = [s.frame_id for s in summaries if s.status == ExportStatus.POOR]
    print(
        f"{len(summaries) - len(failed)} of {len(summaries)} frames reconstructed; "
        f"outputs in {args.output}"
        + (f"; poor calibration (check the clicks): {', '.join(poor)}" if poor else "")
    )
    return 1 if failed else 0


def register(sub, fmt) -> None:
    """Add this group's commands to the ``courtstudio`` sub-parsers."""
    sp = sub.add_parser(
        "export",
        help="convert a scene (GLB, OpenCV YAML) or a project's clicks (COCO)",
        formatter_class=fmt,
        epilog=examples(
            "courtstudio export out/sample/tennis_0001/scene.json -o tennis.glb",
            "courtstudio export out/sample/tennis_0001/scene.json -o cam.yaml",
            "courtstudio export samples/sample_project --format coco -o coco/",
            "courtstudio export my_project --format scenes -o out/scenes",
        ),
    )
    sp.add_argument("source", help="scene .json, or a project folder for coco and scenes")
    sp.add_argument(
        "-o", "--output", required=True, help="output file (coco: a folder, one file per sport)"
    )
    sp.add_argument(
        "--format",
        choices=["glb", "opencv-yaml", "coco", "scenes"],
        help="scenes: a project's scene files for every frame (no GUI needed)",
    )
    export_folder_options(sp)
    sp.set_defaults(func=cmd_export)

    sp = sub.add_parser(
        "reconstruct",
        help="headless reconstruction of a project (the main job)",
        formatter_class=fmt,
        description="Calibrate every annotated frame, lift the ball, and write per frame "
        "camera.json, camera.yaml, scene.json (+.h5), scene.glb and overlay.png, "
        "plus COCO keypoints and summary.json.",
        epilog=examples(
            "courtstudio reconstruct --sample -o out/sample",
            "courtstudio reconstruct my_project -o out/my_project",
        ),
    )
    sp.add_argument("project", nargs="?")
    sp.add_argument("--sample", action="store_true", help="the bundled sample project")
    sp.add_argument("-o", "--output", required=True)
    export_folder_options(sp)
    sp.set_defaults(func=cmd_reconstruct)

"""``courtstudio synth | synth-clip``: synthetic projects and clips with known cameras."""

from __future__ import annotations

from pathlib import Path

from courtstudio.cli.common import CliError, check_image_size, examples, finite, int_in, positive


def cmd_synth(args) -> int:
    from court_specs import load_spec
    from courtstudio.synth.synthetic_project import write_synthetic_project

    for s in args.sports:
        load_spec(s)
    check_image_size(args.image_size, "--image-size")
    p = write_synthetic_project(
        args.output,
        args.sports,
        args.per_sport,
        args.seed,
        args.click_sigma,
        args.all_points,
        tuple(args.image_size),
        name=Path(args.output).name,
        players=args.players,
        k1=args.k1,
    )
    print(f"wrote {len(p.frames)} frames to project {args.output}")
    return 0


def cmd_synth_clip(args) -> int:
    from court_specs import load_spec
    from courtstudio.synth.synthetic_clip import Hazards, iter_clip, write_clip
    from safe_io.atomic import write_json_atomic

    spec = load_spec(args.sport)
    n = args.frames
    for name, frames in (
        ("--reference-frame", [args.reference_frame]),
        ("--cut-at", args.cut_at),
        ("--blur", args.blur),
    ):
        bad = [f for f in frames if not 0 <= f < n]
        if bad:
            raise CliError(f"{name} {bad[0]}: outside the clip's frames 0..{n - 1}")
    check_image_size(args.size, "--size")
    if not -0.3 <= args.lens_k1 <= 1.5:
        raise CliError(f"--lens-k1 {args.lens_k1}: expected -0.3..1.5")
    if args.letterbox is not None:
        check_image_size(args.letterbox, "--letterbox")
    try:
        hazards = Hazards(
            args.graphics,
            args.surface,
            args.crowd,
            args.motion_blur,
            args.jpeg_quality,
            args.lens_k1,
            None if args.letterbox is None else tuple(args.letterbox),
        )
        out = Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        cams, cuts = write_clip(
            out,
            iter_clip(  # streamed: one frame in memory
                spec,
                args.frames,
                tuple(args.size),
                seed=args.seed,
                cut_at=tuple(args.cut_at),
                blur_frames=tuple(args.blur),
                zoom=args.zoom,
                hazards=hazards,
            ),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    cam = cams[args.reference_frame]
    if cam is None:
        raise CliError(f"frame {args.reference_frame} is inside an inserted cut")
    names = spec.minimal_keypoints
    write_json_atomic(
        args.points,
        {
            "image_size": list(cam.image_size),  # the canvas's, when letterboxed
            "points": {
                n: [round(float(c), 3) for c in cam.project(spec.keypoints[n][None])[0]]
                for n in names
            },
        },
    )
    write_json_atomic(
        out.with_suffix(".truth.json"),
        {"cameras": [None if c is None else c.to_dict() for c in cams], "cuts": cuts},
    )
    print(
        f"wrote {out} ({args.frames} frames), reference points of frame "
        f"{args.reference_frame} in {args.points}"
    )
    return 0


def register(sub, fmt) -> None:
    """Add this group's commands to the ``courtstudio`` sub-parsers."""
    sp = sub.add_parser(
        "synth",
        help="write a project of synthetic broadcast frames with ground truth",
        formatter_class=fmt,
        epilog=examples(
            "courtstudio synth --sports tennis badminton --per-sport 2 -o synth",
            "courtstudio synth --sports table_tennis --all-points --seed 3 -o tt",
        ),
    )
    sp.add_argument("--sports", nargs="+", required=True)
    sp.add_argument("--per-sport", type=int_in(1, 1000), default=1)
    sp.add_argument("--seed", type=int_in(0, 2**32 - 1), default=0)
    sp.add_argument("--click-sigma", type=positive, default=1.0, metavar="PX")
    sp.add_argument(
        "--all-points",
        action="store_true",
        help="click every visible keypoint (default: the paper's six)",
    )
    sp.add_argument(
        "--image-size", nargs=2, type=int_in(16, 16384), default=[1920, 1080], metavar=("W", "H")
    )
    sp.add_argument(
        "--players",
        type=int_in(0, 50),
        default=0,
        help="Anny players per frame, rendered and annotated with simulated "
        "PromptHMR meshes (needs the anny package)",
    )
    sp.add_argument(
        "--k1",
        type=float,
        default=0.0,
        help="radial lens distortion of the cameras (OpenCV k1; wide-angle "
        "-0.3..-0.05; default 0 = pinhole)",
    )
    sp.add_argument("-o", "--output", required=True)
    sp.set_defaults(func=cmd_synth)

    sp = sub.add_parser(
        "synth-clip",
        formatter_class=fmt,
        help="write a synthetic pan/tilt/zoom broadcast clip with known cameras",
        epilog=examples(
            "courtstudio synth-clip --sport tennis --frames 120 -o out/clip.avi "
            "--points out/clip_ref.json",
            "courtstudio synth-clip --sport badminton --cut-at 60 --blur 30 31 "
            "-o out/b.avi --points out/b_ref.json",
        ),
    )
    sp.add_argument("--sport", required=True)
    sp.add_argument("--frames", type=int_in(1, 100_000), default=120)
    sp.add_argument(
        "--size", nargs=2, type=int_in(16, 16384), default=[1280, 720], metavar=("W", "H")
    )
    sp.add_argument("--seed", type=int_in(0, 2**32 - 1), default=1)
    sp.add_argument(
        "--cut-at",
        nargs="*",
        type=int_in(0, 100_000),
        default=[],
        help="insert 20 frames of another camera here (two cuts)",
    )
    sp.add_argument(
        "--blur", nargs="*", type=int_in(0, 100_000), default=[], help="heavily blurred frames"
    )
    sp.add_argument("--reference-frame", type=int_in(0, 100_000), default=0)
    sp.add_argument(
        "--zoom",
        type=positive,
        default=0.15,
        help="the focal length reaches 1 + ZOOM times its start (1.0: a 2x zoom)",
    )
    sp.add_argument(
        "--graphics",
        action="store_true",
        help="screen-fixed logo, score bug, clock and ticker (over 8 %% of the frame)",
    )
    sp.add_argument("--surface", default="grass", choices=["grass", "clay", "hard"])
    sp.add_argument("--crowd", action="store_true", help="textured stands around the court")
    sp.add_argument("--motion-blur", action="store_true", help="blur along the image motion")
    sp.add_argument(
        "--jpeg-quality", type=int_in(0, 100), default=0, help="compress every frame (0: no)"
    )
    sp.add_argument(
        "--lens-k1",
        type=finite,
        default=0.0,
        help="radial lens distortion k1 (< 0 barrel, > 0 pincushion; 0: none)",
    )
    sp.add_argument(
        "--letterbox",
        nargs=2,
        type=int,
        default=None,
        metavar=("W", "H"),
        help="centre the --size picture in a black W x H canvas with static captions (a "
        "phone re-upload: --size 720 406 --letterbox 720 1280)",
    )
    sp.add_argument("-o", "--output", required=True, help="video file (.avi, MJPG)")
    sp.add_argument(
        "--points",
        required=True,
        help="write the reference frame's true keypoints here (a points file)",
    )
    sp.set_defaults(func=cmd_synth_clip)

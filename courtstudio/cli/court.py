"""``courtstudio specs | calibrate | lift-ball | overlay | zone``: the court and its camera."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from courtstudio.cli.common import (
    CliError,
    add_plane_args,
    examples,
    finite,
    load_camera_file,
    mask_box,
    positive,
    print_json,
    projection_plane,
    read_frame,
)


def cmd_specs(args) -> int:
    from court_specs import available_specs, load_spec
    from court_specs.loader import SPEC_DIR

    if args.sport is None:
        rows = [load_spec(s) for s in available_specs()]
        if args.json:
            print_json(
                [
                    {
                        "id": s.id,
                        "name": s.name,
                        "length_m": s.length_m,
                        "width_m": s.width_m,
                        "keypoints": len(s.keypoints),
                    }
                    for s in rows
                ]
            )
        else:
            for s in rows:
                where = "" if Path(s.source).parent == SPEC_DIR else f" ({s.source})"
                print(
                    f"{s.id:<16} {s.name:<20} {s.length_m:g} x {s.width_m:g} m, "
                    f"{len(s.keypoints)} keypoints{where}"
                )
        return 0
    spec = load_spec(args.sport)
    if args.json:
        print_json(spec.to_dict())
        return 0
    print(
        f"{spec.name} ({spec.id}): {spec.length_m:g} x {spec.width_m:g} m; planes "
        + ", ".join(f"{k} z={v:g}" for k, v in spec.planes.items())
    )
    axes = {
        "end": "x toward the camera, y right",
        "side": "camera beyond the 'left' sideline: x right, y away from the camera",
        "auto": "end-on: x toward the camera, y right; side-on: x right, y away",
    }[spec.broadcast_view]
    print(f"keypoints (x, y, z metres; {axes}, z up; docs/frames.md):")
    for n, p in spec.keypoints.items():
        print(f"  {n:<34} ({p[0]:8.4f}, {p[1]:8.4f}, {p[2]:7.4f})")
    print("lines: " + ", ".join(spec.lines))
    print("zones: " + ", ".join(f"{z.name} [{z.label}]" for z in spec.zones))
    if spec.net:
        print(
            f"net: x = {spec.net['x_m']:g} m, {spec.net['height_at_posts_m']:g} m at the posts, "
            f"{spec.net['height_at_centre_m']:g} m at the centre"
        )
    from court_specs.synthesis import describe_drawing

    for line in describe_drawing(spec):
        print(line)
    return 0


def cmd_calibrate(args) -> int:
    from court_specs import load_spec
    from courtstudio.io.points_file import load_points_file
    from courtstudio.pipeline.calibration import calibrate_court
    from safe_io.atomic import write_json_atomic

    spec = load_spec(args.sport)
    size, points = load_points_file(args.points)
    if args.click_sigma is not None and not args.click_sigma > 0:
        raise CliError(f"--click-sigma must be positive, got {args.click_sigma:g}")
    if args.refine_lines and not args.image:
        raise CliError("--refine-lines needs --image FRAME (the frame the points were clicked on)")
    if args.mask and not args.image:
        raise CliError("--mask needs --image FRAME (no painted line is read under its boxes)")
    masks = [mask_box(m, size) for m in args.mask]
    image = read_frame(args.image, size) if args.image else None
    cal = calibrate_court(
        spec,
        size,
        points,
        model=args.model,
        radial=args.radial,
        click_sigma_px=args.click_sigma,
        view=args.view or _points_view(args.points),
        image=image,
        masks=masks,
    )
    if args.refine_lines:
        from courtstudio.pipeline.line_refinement import refine_calibration

        cal = refine_calibration(
            cal, spec, image, model="auto" if args.model == "auto" else "keep", masks=masks
        )
    doc = cal.to_json()
    if args.output:
        write_json_atomic(args.output, doc)
    if args.opencv_yaml:
        from exporters.opencv_yaml import write_opencv_yaml

        write_opencv_yaml(cal.camera, args.opencv_yaml)
    if args.json:
        print_json(doc)
    else:
        _print_calibration_report(doc)
    for w in cal.warnings:
        print(f"courtstudio: warning: {w}", file=sys.stderr)
    return 0


def _points_view(path) -> str | None:
    """The optional "view" of a points file ('end' | 'side' | 'auto'), else None."""
    try:
        view = json.loads(Path(path).read_text()).get("view")
    except (OSError, ValueError, AttributeError):
        return None
    if view is not None and view not in ("end", "side", "auto"):
        raise CliError(f"{path}: field view: expected 'end', 'side' or 'auto', got {view!r}")
    return view


def _print_calibration_report(doc: dict) -> None:
    K = doc["K"]
    c = doc["camera_centre_world"]
    s = doc["camera_centre_sigma_m"]
    print(
        f"sport {doc['sport']}, model {doc['model']}, image {doc['image_size'][0]}x"
        f"{doc['image_size'][1]}"
    )
    if doc.get("model_selection"):
        print(f"lens       {doc['model_selection']['reason']}")
    if any(doc["dist"]):
        print(f"distortion k1={doc['dist'][0]:.4f} k2={doc['dist'][1]:.4f}")
    print(
        f"quality    {doc['quality']} (click noise {doc['click_sigma_px']:.2f} px, "
        f"{doc['click_sigma_source']})"
    )
    print(
        f"focal      fx={K[0][0]:.1f} px fy={K[1][1]:.1f} px (1-sigma "
        f"{doc['focal_sigma_pct']:.2f} %)"
    )
    print(
        f"camera at  ({c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f}) m (1-sigma {s[0]:.2f}, {s[1]:.2f}, "
        f"{s[2]:.2f} m)"
    )
    print(f"RMS        {doc['rms_px']:.2f} px over {len(doc['residuals_px'])} points")
    print(f"  {'keypoint':<32} {'residual px':>11} {'leave-one-out px':>17}")
    for n, r in doc["residuals_px"].items():
        loo = doc["loo_residuals_px"].get(n)
        flag = "  <- suspect" if n in doc["suspects"] else ""
        print(f"  {n:<32} {r:11.2f} {'-' if loo is None else f'{loo:.2f}':>17}{flag}")
    for sug in doc["suggestions"]:
        print(f"suggestion: {sug['message']}")
    ref = doc.get("line_refinement")
    if ref:
        print(
            f"lines      {'refined' if ref['accepted'] else 'not refined'}: {ref['reason']}; "
            f"support {ref['support_before']} -> {ref['support_after']}, line RMS "
            f"{ref['line_rms_before_px']} -> {ref['line_rms_after_px']} px, click RMS "
            f"{ref['click_rms_before_px']} -> {ref['click_rms_after_px']} px "
            f"({ref['samples']} samples on {ref['lines_used']} lines)"
        )


def cmd_lift_ball(args) -> int:
    from courtstudio.pipeline.ball import lift_ball_with_uncertainty

    cam, doc, cov = load_camera_file(args.camera)
    plane, z = projection_plane(args, doc)
    res = lift_ball_with_uncertainty(cam, args.ball, args.ground, plane, z, args.click_sigma, cov)
    out = res.to_json()
    if args.json:
        print_json(out)
    else:
        w = out["world"]
        sc = out["sigma_cm"]
        print(
            f"ball at ({w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}) m, height {out['height_m']:.3f} m "
            f"above {plane}; 1-sigma ({sc[0]:.1f}, {sc[1]:.1f}, {sc[2]:.1f}) cm"
        )
    return 0


def cmd_overlay(args) -> int:
    from court_specs import load_spec
    from courtstudio.io.points_file import load_points_file
    from exporters.overlay import draw_ball, draw_clicks, draw_court, read_image, write_image
    from geometry.rays import ground_projection_polyline, lift_ball

    cam, doc, _ = load_camera_file(args.camera)
    spec = load_spec(args.sport)
    img = read_image(args.image)
    h, w = img.shape[:2]
    if (w, h) != cam.image_size:
        raise CliError(
            f"{args.image} is {w}x{h} but the camera is for {cam.image_size[0]}x{cam.image_size[1]}"
        )
    draw_court(img, cam, spec)
    if args.points:
        _, points = load_points_file(args.points)
        from courtstudio.pipeline.calibration import check_names

        check_names(spec, points)
        draw_clicks(img, cam, spec, points, doc.get("suspects", []))
    if args.ball:
        plane, z = projection_plane(args, doc)
        line = ground_projection_polyline(cam, args.ball, z)
        snapped = (
            lift_ball(cam, args.ball, args.ground, z).uv_ground_snapped if args.ground else None
        )
        draw_ball(img, line, args.ball, snapped)
    write_image(args.output, img)
    print(f"wrote {args.output}")
    return 0


def cmd_zone(args) -> int:
    from court_specs import load_spec

    spec = load_spec(args.sport)
    z = spec.zone_at([args.x, args.y])
    out = {
        "zone": None if z is None else z.name,
        "label": None if z is None else z.label,
        "half": None if z is None else z.half,
    }
    if args.json:
        print_json(out)
    else:
        print("no zone" if z is None else f"{z.name} ({z.label})")
    return 0


def register(sub, fmt) -> None:
    """Add this group's commands to the ``courtstudio`` sub-parsers."""
    sp = sub.add_parser(
        "specs",
        help="list court specs or print one",
        formatter_class=fmt,
        epilog=examples(
            "courtstudio specs", "courtstudio specs tennis", "courtstudio specs badminton --json"
        ),
    )
    sp.add_argument("sport", nargs="?", help="spec id (see the list) or a spec file path")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.set_defaults(func=cmd_specs)

    sp = sub.add_parser(
        "calibrate",
        help="metric camera from clicked court keypoints",
        formatter_class=fmt,
        description="Solve a metric camera (with focal length) from named keypoint clicks. "
        'POINTS = {"image_size": [w, h], "points": {"<keypoint>": [u, v]}}. '
        "Reports per-point and leave-one-out residuals, uncertainties, suspect "
        "clicks and suggested relabellings.",
        epilog=examples(
            "courtstudio calibrate --sport tennis --points samples/sample_project/annotations/"
            "tennis_0001.json",
            "courtstudio calibrate --sport tennis --points points.json --json -o camera.json",
            "courtstudio calibrate --sport badminton --points pts.json --model full --radial",
            "courtstudio calibrate --sport pickleball --points pts.json --image frame.jpg "
            "--refine-lines",
        ),
    )
    sp.add_argument("--sport", required=True)
    sp.add_argument("--points", required=True, help="points JSON file")
    sp.add_argument(
        "--model",
        choices=["auto", "simple", "pinhole", "simple_k1", "simple_k1k2", "full"],
        default="auto",
        help="auto (default): the richest lens the clicks determine, chosen on "
        "held-out clicks; simple = pinhole: one focal, centred principal "
        "point; simple_k1 / simple_k1k2: plus radial distortion; full: fx, "
        "fy, cx, cy",
    )
    sp.add_argument("--radial", action="store_true", help="full model with k1, k2")
    sp.add_argument(
        "--click-sigma",
        type=positive,
        default=None,
        metavar="PX",
        help="click noise, 1-sigma pixels (default: estimated from the residuals, 1 to 3 px)",
    )
    sp.add_argument(
        "--image",
        metavar="FRAME",
        help="the frame the points were clicked on (the doctor then also checks each click "
        "against the painted lines through its keypoint)",
    )
    sp.add_argument(
        "--refine-lines",
        action="store_true",
        help="refine the camera on the painted lines of --image (kept only when "
        "better; the report says why not)",
    )
    sp.add_argument(
        "--mask",
        action="append",
        default=[],
        metavar="x0,y0,x1,y1",
        help="pixels of --image where no painted line is read (score bug, ticker, logo): "
        "by the doctor's paint check and --refine-lines; repeatable",
    )
    sp.add_argument(
        "--view",
        choices=["end", "side", "auto"],
        default=None,
        help="world convention (docs/frames.md): camera beyond a baseline (end), a "
        "sideline (side), or whichever it stands beyond (auto); default: the "
        "points file's \"view\", else the spec's broadcast_view",
    )
    sp.add_argument("--json", action="store_true", help="print the camera JSON")
    sp.add_argument("-o", "--output", help="write the camera JSON here")
    sp.add_argument("--opencv-yaml", metavar="FILE", help="also write OpenCV FileStorage YAML")
    sp.set_defaults(func=cmd_calibrate)

    sp = sub.add_parser(
        "lift-ball",
        help="3D ball from its pixel and its ground point's pixel",
        formatter_class=fmt,
        description="Lift the ball: BALL is the ball's pixel, GROUND a pixel of its ground "
        "point (snapped onto the ground projection of the ball's ray).",
        epilog=examples(
            "courtstudio lift-ball --camera camera.json --ball 812 300 --ground 815 420 --json",
            "courtstudio lift-ball --camera tt.json --ball 900 400 --ground 905 700 --plane floor",
        ),
    )
    sp.add_argument("--camera", required=True)
    sp.add_argument("--ball", nargs=2, type=finite, required=True, metavar=("U", "V"))
    sp.add_argument("--ground", nargs=2, type=finite, required=True, metavar=("U", "V"))
    add_plane_args(sp)
    sp.add_argument("--click-sigma", type=positive, default=1.0, metavar="PX")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_lift_ball)

    sp = sub.add_parser(
        "overlay",
        help="draw the reprojected court and net box over an image",
        formatter_class=fmt,
        epilog=examples(
            "courtstudio overlay --camera camera.json --sport tennis frame.jpg -o check.png",
            "courtstudio overlay --camera camera.json --sport tennis frame.jpg "
            "--points points.json --ball 812 300 --ground 815 420 -o check.png",
        ),
    )
    sp.add_argument("image")
    sp.add_argument("--camera", required=True)
    sp.add_argument("--points", help="also draw these clicks and their reprojections")
    sp.add_argument(
        "--ball",
        nargs=2,
        type=finite,
        metavar=("U", "V"),
        help="also draw the ball tool's projection line",
    )
    sp.add_argument("--ground", nargs=2, type=finite, metavar=("U", "V"))
    sp.add_argument("-o", "--output", required=True)
    sp.add_argument("--plane")
    sp.add_argument("--plane-z", type=finite)
    sp.add_argument("--sport", required=True)
    sp.set_defaults(func=cmd_overlay)

    sp = sub.add_parser(
        "zone",
        help="which named court zone a world point is in",
        formatter_class=fmt,
        epilog=examples(
            "courtstudio zone --sport tennis 8.0 3.0",
            "courtstudio zone --sport basketball_nba 1.0 7.6 --json",
        ),
    )
    sp.add_argument("--sport", required=True)
    sp.add_argument("x", type=finite)
    sp.add_argument("y", type=finite)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_zone)

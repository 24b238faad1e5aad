"""The ``courtstudio`` command line. Command names and JSON keys are a contract (docs/cli.md).

Bad input exits with code 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


from court_specs import SpecError, available_specs, load_spec
from courtstudio import cli_qa
from courtstudio.ball import lift_ball_with_uncertainty
from courtstudio.calibration import calibrate_court
from courtstudio.points_file import InputError, load_points_file, read_json
from courtstudio.project import load_project
from exporters.atomic import write_json_atomic
from exporters.scene import SceneError
from geometry.camera import Camera
from geometry.errors import GeometryError
from geometry.uncertainty import ParamCovariance

EXIT_BAD_INPUT = 2


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {ln}" for ln in lines)


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=1))


# ---------------------------------------------------------------------------------- specs
def cmd_specs(args) -> int:
    if args.sport is None:
        rows = [load_spec(s) for s in available_specs()]
        if args.json:
            _print_json([{"id": s.id, "name": s.name, "length_m": s.length_m,
                          "width_m": s.width_m, "keypoints": len(s.keypoints)} for s in rows])
        else:
            for s in rows:
                print(f"{s.id:<16} {s.name:<20} {s.length_m:g} x {s.width_m:g} m, "
                      f"{len(s.keypoints)} keypoints")
        return 0
    spec = load_spec(args.sport)
    if args.json:
        _print_json(spec.to_dict())
        return 0
    print(f"{spec.name} ({spec.id}): {spec.length_m:g} x {spec.width_m:g} m; planes "
          + ", ".join(f"{k} z={v:g}" for k, v in spec.planes.items()))
    print("keypoints (x, y, z metres; x toward the camera, y right, z up):")
    for n, p in spec.keypoints.items():
        print(f"  {n:<34} ({p[0]:8.4f}, {p[1]:8.4f}, {p[2]:7.4f})")
    print("lines: " + ", ".join(spec.lines))
    print("zones: " + ", ".join(f"{z.name} [{z.label}]" for z in spec.zones))
    if spec.net:
        print(f"net: x = {spec.net['x_m']:g} m, {spec.net['height_at_posts_m']:g} m at the posts, "
              f"{spec.net['height_at_centre_m']:g} m at the centre")
    return 0


# ----------------------------------------------------------------------------- calibrate
def cmd_calibrate(args) -> int:
    spec = load_spec(args.sport)
    size, points = load_points_file(args.points)
    cal = calibrate_court(spec, size, points, model=args.model, radial=args.radial,
                          click_sigma_px=args.click_sigma)
    doc = cal.to_json()
    if args.output:
        write_json_atomic(args.output, doc)
    if args.opencv_yaml:
        from exporters.opencv_yaml import write_opencv_yaml
        write_opencv_yaml(cal.camera, args.opencv_yaml)
    if args.json:
        _print_json(doc)
    else:
        _print_calibration_report(doc)
    for w in cal.warnings:
        print(f"courtstudio: warning: {w}", file=sys.stderr)
    return 0


def _print_calibration_report(doc: dict) -> None:
    K = doc["K"]
    c = doc["camera_centre_world"]
    s = doc["camera_centre_sigma_m"]
    print(f"sport {doc['sport']}, model {doc['model']}, image {doc['image_size'][0]}x"
          f"{doc['image_size'][1]}")
    print(f"focal      fx={K[0][0]:.1f} px fy={K[1][1]:.1f} px (1-sigma "
          f"{doc['focal_sigma_pct']:.2f} %)")
    print(f"camera at  ({c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f}) m (1-sigma {s[0]:.2f}, {s[1]:.2f}, "
          f"{s[2]:.2f} m)")
    print(f"RMS        {doc['rms_px']:.2f} px over {len(doc['residuals_px'])} points")
    print(f"  {'keypoint':<32} {'residual px':>11} {'leave-one-out px':>17}")
    for n, r in doc["residuals_px"].items():
        loo = doc["loo_residuals_px"].get(n)
        flag = "  <- suspect" if n in doc["suspects"] else ""
        print(f"  {n:<32} {r:11.2f} {'-' if loo is None else f'{loo:.2f}':>17}{flag}")
    for sug in doc["suggestions"]:
        print(f"suggestion: {sug['message']}")


# ---------------------------------------------------------------------------- lift-ball
def load_camera_file(path) -> tuple[Camera, dict, ParamCovariance | None]:
    """A camera JSON (calibrate output or any dict with K, R, t, image_size, dist)."""
    data = read_json(path, "camera file")
    try:
        cam = Camera.from_dict(data, f"{path}")
    except GeometryError as exc:
        raise InputError(str(exc)) from None
    cov = None
    if isinstance(data.get("covariance"), dict):
        try:
            cov = ParamCovariance.from_dict(data["covariance"])
        except (KeyError, ValueError) as exc:
            raise InputError(f"{path}: field covariance: {exc}") from None
    return cam, data, cov


def _plane(args, cam_doc) -> tuple[str, float]:
    sport = args.sport or cam_doc.get("sport")
    if args.plane_z is not None:
        return args.plane or "custom", float(args.plane_z)
    if sport is None:
        if args.plane not in (None, "court"):
            raise CliError(f"plane {args.plane!r} needs --sport (the camera file names none)")
        return "court", 0.0
    spec = load_spec(sport)
    plane = args.plane or spec.default_plane
    try:
        return plane, spec.plane_z(plane)
    except KeyError as exc:
        raise CliError(str(exc.args[0])) from None


def cmd_lift_ball(args) -> int:
    cam, doc, cov = load_camera_file(args.camera)
    plane, z = _plane(args, doc)
    res = lift_ball_with_uncertainty(cam, args.ball, args.ground, plane, z, args.click_sigma, cov)
    out = res.to_json()
    if args.json:
        _print_json(out)
    else:
        w = out["world"]
        sc = out["sigma_cm"]
        print(f"ball at ({w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}) m, height {out['height_m']:.3f} m "
              f"above {plane}; 1-sigma ({sc[0]:.1f}, {sc[1]:.1f}, {sc[2]:.1f}) cm")
    return 0


# ------------------------------------------------------------------------------ overlay
def cmd_overlay(args) -> int:
    from exporters.overlay import draw_ball, draw_clicks, draw_court, read_image, write_image
    from geometry.rays import ground_projection_polyline, lift_ball

    cam, doc, _ = load_camera_file(args.camera)
    spec = load_spec(args.sport)
    img = read_image(args.image)
    h, w = img.shape[:2]
    if (w, h) != cam.image_size:
        raise CliError(f"{args.image} is {w}x{h} but the camera is for "
                       f"{cam.image_size[0]}x{cam.image_size[1]}")
    draw_court(img, cam, spec)
    if args.points:
        _, points = load_points_file(args.points)
        from courtstudio.calibration import check_names
        check_names(spec, points)
        draw_clicks(img, cam, spec, points, doc.get("suspects", []))
    if args.ball:
        plane, z = _plane(args, doc)
        line = ground_projection_polyline(cam, args.ball, z)
        snapped = lift_ball(cam, args.ball, args.ground, z).uv_ground_snapped \
            if args.ground else None
        draw_ball(img, line, args.ball, snapped)
    write_image(args.output, img)
    print(f"wrote {args.output}")
    return 0


# ------------------------------------------------------------------------------- export
def cmd_export(args) -> int:
    fmt = args.format or {".glb": "glb", ".yaml": "opencv-yaml", ".yml": "opencv-yaml"}.get(
        Path(args.output).suffix.lower())
    src = Path(args.source)
    if fmt is None:
        raise CliError("cannot tell the format from the output name: give --format")
    if fmt == "scenes":
        from courtstudio.reconstruct import reconstruct_project
        summaries = reconstruct_project(load_project(src), args.output)
        return 1 if any(s.status == "error" for s in summaries) else 0
    if fmt == "coco":
        from courtstudio.reconstruct import export_project_coco
        project = load_project(src)
        paths = export_project_coco(project, Path(args.output))
        for p in paths:
            print(f"wrote {p}")
        return 0
    from exporters.scene import load_scene
    if src.suffix.lower() != ".json":
        raise CliError(f"{src}: expected a scene .json for --format {fmt}")
    scene = load_scene(src)
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


# -------------------------------------------------------------------------------- zone
def cmd_zone(args) -> int:
    spec = load_spec(args.sport)
    z = spec.zone_at([args.x, args.y])
    out = {"zone": None if z is None else z.name, "label": None if z is None else z.label,
           "half": None if z is None else z.half}
    if args.json:
        _print_json(out)
    else:
        print("no zone" if z is None else f"{z.name} ({z.label})")
    return 0


# -------------------------------------------------------------------------- reconstruct
def cmd_reconstruct(args) -> int:
    from courtstudio.reconstruct import SAMPLE_PROJECT, reconstruct_project
    if args.sample == (args.project is not None):
        raise CliError("give a PROJECT folder or --sample (not both)")
    project = load_project(SAMPLE_PROJECT if args.sample else args.project)
    summaries = reconstruct_project(project, args.output)
    failed = [s for s in summaries if s.status == "error"]
    print(f"{len(summaries) - len(failed)} of {len(summaries)} frames reconstructed; "
          f"outputs in {args.output}")
    return 1 if failed else 0


# -------------------------------------------------------------------------------- synth
def cmd_synth(args) -> int:
    from courtstudio.synthetic_project import write_synthetic_project
    for s in args.sports:
        load_spec(s)
    p = write_synthetic_project(args.output, args.sports, args.per_sport, args.seed,
                                args.click_sigma, args.all_points,
                                tuple(args.image_size), name=Path(args.output).name,
                                players=args.players)
    print(f"wrote {len(p.frames)} frames to project {args.output}")
    return 0


# ------------------------------------------------------------------------------ players
def cmd_players_correct(args) -> int:
    from courtstudio.players import world_player
    from hmr.prompthmr import load_image_output, original_intrinsics

    cam, doc, _ = load_camera_file(args.camera)
    _, z = _plane(args, doc)
    result = load_image_output(args.hmr)
    warnings = []
    if result.cam_int_padded is not None:
        f_hmr = original_intrinsics(result.cam_int_padded, cam.image_size)[0, 0]
        f_cam = cam.K[0, 0]
        if abs(f_hmr / f_cam - 1) > 0.01:
            warnings.append(f"the result was computed with f = {f_hmr:.0f} px but the camera "
                            f"has f = {f_cam:.0f} px: run PromptHMR with this camera's K")
    n = len(result.people)
    if args.person is not None and not 0 <= args.person < n:
        raise CliError(f"--person {args.person}: the result has {n} people (0..{n - 1})")
    chosen = range(n) if args.person is None else [args.person]
    people = []
    for i in chosen:
        w = world_player(cam, result.people[i], args.height, z)
        joints = {k: [round(float(c), 5) for c in v] for k, v in w.joints_world.items()}
        people.append({"person": i, "scale": round(w.scale, 6),
                       "lowest_vertex_world": [round(float(c), 5)
                                               for c in w.lowest_vertex_world],
                       "pelvis_world": joints.get("pelvis"), "joints_world": joints,
                       "source": result.people[i].source})
    out = {"people": people, "warnings": warnings}
    if args.json:
        _print_json(out)
    else:
        for p in people:
            pel = p["pelvis_world"]
            pel_text = "-" if pel is None else "({:.2f}, {:.2f}, {:.2f}) m".format(*pel)
            print(f"person {p['person']}: scale {p['scale']:.4f}, pelvis {pel_text}, lowest "
                  "vertex ({:.2f}, {:.2f}, {:.2f}) m".format(*p["lowest_vertex_world"]))
    for w in warnings:
        print(f"courtstudio: warning: {w}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------- propagate
def cmd_batch_propagate(args) -> int:
    from courtstudio.propagate import (Reference, VideoFrames, VideoSource, print_progress,
                                       propagate, summary)
    spec = load_spec(args.sport)
    src = Path(args.source)
    if src.is_dir():
        from courtstudio.propagate import ProjectFrames, project_references
        project = load_project(src)
        if any(f.sport != spec.id for f in project.frames):
            raise CliError(f"{src}: the project's frames are not all {spec.id}")
        frames = ProjectFrames(project)
        default_refs = project_references(project)
        source = None
    elif src.is_file():
        frames = VideoFrames(src)
        default_refs = []
        source = VideoSource(str(src))
    else:
        raise CliError(f"{src}: no such video or project")
    refs = []
    for item in args.reference:
        frame_s, _, pts = item.partition(":")
        if not frame_s.isdigit() or not pts:
            raise CliError(f"--reference {item!r}: expected FRAME:POINTS.json")
        size, points = load_points_file(pts)
        if tuple(size) != tuple(frames.size):
            raise CliError(f"{pts}: image_size {size[0]}x{size[1]} but the video is "
                           f"{frames.size[0]}x{frames.size[1]}")
        refs.append(Reference(int(frame_s), points))
    refs = refs or default_refs
    if not refs:
        raise CliError("no reference: give --reference FRAME:POINTS.json (for a project, "
                       "annotate a frame's court keypoints)")
    records = propagate(frames, spec, refs, args.out, flag_rms_px=args.flag_px,
                        progress=None if args.quiet else print_progress,
                        workers=max(1, args.workers), frames_source=source, snap=args.snap)
    if src.is_dir():  # the project variant: the app shows these
        from courtstudio.propagate import write_jsonl_atomic
        write_jsonl_atomic(src / "propagation" / "cameras.jsonl", records)
    rep = summary(records)
    write_json_atomic(Path(args.out) / "summary.json", rep)
    c = rep["counts"]
    print(f"{rep['frames']} frames: " + ", ".join(f"{v} {k}" for k, v in sorted(c.items()))
          + (f"; cuts before frames {rep['cuts']}" if rep["cuts"] else ""))
    for f in rep["flagged"][:20]:
        print(f"  flagged frame {f['frame']}: {f['reason']}")
    if len(rep["flagged"]) > 20:
        print(f"  ... {len(rep['flagged']) - 20} more in {Path(args.out) / 'summary.json'}")
    return 0


def cmd_synth_clip(args) -> int:
    from courtstudio.synthetic_clip import make_clip, write_video
    spec = load_spec(args.sport)
    clip = make_clip(spec, args.frames, tuple(args.size), seed=args.seed,
                     cut_at=tuple(args.cut_at), blur_frames=tuple(args.blur))
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_video(out, clip.frames)
    cam = clip.cameras[args.reference_frame]
    if cam is None:
        raise CliError(f"frame {args.reference_frame} is inside an inserted cut")
    names = spec.minimal_keypoints
    write_json_atomic(args.points, {"image_size": list(args.size), "points": {
        n: [round(float(c), 3) for c in cam.project(spec.keypoints[n][None])[0]]
        for n in names}})
    write_json_atomic(out.with_suffix(".truth.json"), {"cameras": [
        None if c is None else c.to_dict() for c in clip.cameras], "cuts": clip.cuts})
    print(f"wrote {out} ({args.frames} frames), reference points of frame "
          f"{args.reference_frame} in {args.points}")
    return 0


# ---------------------------------------------------------------------------------- gui
def cmd_gui(args) -> int:
    try:
        from annotation_ui.app import run
    except ImportError as exc:
        raise CliError(f"the desktop app needs PySide6 ({exc}); install it with "
                       "`pip install PySide6-Essentials`") from None
    if args.sample and args.project:
        raise CliError("give a PROJECT folder or --sample (not both)")
    return run(args.project, args.sample, args.screenshot, args.panel, args.view, args.frame,
               tuple(args.size))


# --------------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(
        prog="courtstudio", formatter_class=fmt,
        description="Metric 3D scenes from broadcast frames of court sports.",
        epilog=_examples("courtstudio specs", "courtstudio reconstruct --sample -o out/sample",
                         "courtstudio calibrate --sport tennis --points points.json -o camera.json"))
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sp = sub.add_parser("specs", help="list court specs or print one", formatter_class=fmt,
                        epilog=_examples("courtstudio specs", "courtstudio specs tennis",
                                         "courtstudio specs badminton --json"))
    sp.add_argument("sport", nargs="?", help="spec id (see the list) or a spec file path")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.set_defaults(func=cmd_specs)

    sp = sub.add_parser(
        "calibrate", help="metric camera from clicked court keypoints", formatter_class=fmt,
        description="Solve a metric camera (with focal length) from named keypoint clicks. "
                    "POINTS = {\"image_size\": [w, h], \"points\": {\"<keypoint>\": [u, v]}}. "
                    "Reports per-point and leave-one-out residuals, uncertainties, suspect "
                    "clicks and suggested relabellings.",
        epilog=_examples(
            "courtstudio calibrate --sport tennis --points samples/sample_project/annotations/"
            "tennis_0001.json",
            "courtstudio calibrate --sport tennis --points points.json --json -o camera.json",
            "courtstudio calibrate --sport badminton --points pts.json --model full --radial"))
    sp.add_argument("--sport", required=True)
    sp.add_argument("--points", required=True, help="points JSON file")
    sp.add_argument("--model", choices=["simple", "full"], default="simple",
                    help="simple: one focal, centred principal point (default); full: fx, fy, "
                         "cx, cy")
    sp.add_argument("--radial", action="store_true", help="full model with k1, k2")
    sp.add_argument("--click-sigma", type=float, default=1.0, metavar="PX",
                    help="assumed click noise, 1-sigma pixels (default 1)")
    sp.add_argument("--json", action="store_true", help="print the camera JSON")
    sp.add_argument("-o", "--output", help="write the camera JSON here")
    sp.add_argument("--opencv-yaml", metavar="FILE", help="also write OpenCV FileStorage YAML")
    sp.set_defaults(func=cmd_calibrate)

    def plane_args(q):
        q.add_argument("--plane", help="projection plane name from the spec (default: the "
                                       "playing surface; table tennis: table or floor)")
        q.add_argument("--plane-z", type=float, help="projection plane height z (metres)")
        q.add_argument("--sport", help="spec for --plane (default: the camera file's sport)")

    sp = sub.add_parser(
        "lift-ball", help="3D ball from its pixel and its ground point's pixel",
        formatter_class=fmt,
        description="Lift the ball: BALL is the ball's pixel, GROUND a pixel of its ground "
                    "point (snapped onto the ground projection of the ball's ray).",
        epilog=_examples("courtstudio lift-ball --camera camera.json --ball 812 300 --ground 815 "
                         "420 --json",
                         "courtstudio lift-ball --camera tt.json --ball 900 400 --ground 905 "
                         "700 --plane floor"))
    sp.add_argument("--camera", required=True)
    sp.add_argument("--ball", nargs=2, type=float, required=True, metavar=("U", "V"))
    sp.add_argument("--ground", nargs=2, type=float, required=True, metavar=("U", "V"))
    plane_args(sp)
    sp.add_argument("--click-sigma", type=float, default=1.0, metavar="PX")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_lift_ball)

    sp = sub.add_parser(
        "overlay", help="draw the reprojected court and net box over an image",
        formatter_class=fmt,
        epilog=_examples("courtstudio overlay --camera camera.json --sport tennis frame.jpg "
                         "-o check.png",
                         "courtstudio overlay --camera camera.json --sport tennis frame.jpg "
                         "--points points.json --ball 812 300 --ground 815 420 -o check.png"))
    sp.add_argument("image")
    sp.add_argument("--camera", required=True)
    sp.add_argument("--points", help="also draw these clicks and their reprojections")
    sp.add_argument("--ball", nargs=2, type=float, metavar=("U", "V"),
                    help="also draw the ball tool's projection line")
    sp.add_argument("--ground", nargs=2, type=float, metavar=("U", "V"))
    sp.add_argument("-o", "--output", required=True)
    sp.add_argument("--plane")
    sp.add_argument("--plane-z", type=float)
    sp.add_argument("--sport", required=True)
    sp.set_defaults(func=cmd_overlay)

    sp = sub.add_parser(
        "export", help="convert a scene (GLB, OpenCV YAML) or a project's clicks (COCO)",
        formatter_class=fmt,
        epilog=_examples("courtstudio export out/sample/tennis_0001/scene.json -o tennis.glb",
                         "courtstudio export out/sample/tennis_0001/scene.json -o cam.yaml",
                         "courtstudio export samples/sample_project --format coco -o coco/",
                         "courtstudio export my_project --format scenes -o out/scenes"))
    sp.add_argument("source", help="scene .json, or a project folder for coco and scenes")
    sp.add_argument("-o", "--output", required=True,
                    help="output file (coco: a folder, one file per sport)")
    sp.add_argument("--format", choices=["glb", "opencv-yaml", "coco", "scenes"],
                    help="scenes: a project's scene files for every frame (no GUI needed)")
    sp.set_defaults(func=cmd_export)

    sp = sub.add_parser("zone", help="which named court zone a world point is in",
                        formatter_class=fmt,
                        epilog=_examples("courtstudio zone --sport tennis 8.0 3.0",
                                         "courtstudio zone --sport basketball_nba 1.0 7.6 --json"))
    sp.add_argument("--sport", required=True)
    sp.add_argument("x", type=float)
    sp.add_argument("y", type=float)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_zone)

    sp = sub.add_parser(
        "reconstruct", help="headless reconstruction of a project (the main job)",
        formatter_class=fmt,
        description="Calibrate every annotated frame, lift the ball, and write per frame "
                    "camera.json, camera.yaml, scene.json (+.h5), scene.glb and overlay.png, "
                    "plus COCO keypoints and summary.json.",
        epilog=_examples("courtstudio reconstruct --sample -o out/sample",
                         "courtstudio reconstruct my_project -o out/my_project"))
    sp.add_argument("project", nargs="?")
    sp.add_argument("--sample", action="store_true", help="the bundled sample project")
    sp.add_argument("-o", "--output", required=True)
    sp.set_defaults(func=cmd_reconstruct)

    sp = sub.add_parser(
        "batch-propagate", formatter_class=fmt,
        help="calibrate every frame of a clip from annotated reference frames",
        description="Carry the clicked keypoints of reference frames to every frame of a video "
                    "(registering each frame directly to its nearest reference in the same "
                    "shot) and recalibrate it. Writes OUT/cameras.jsonl (one line per frame: "
                    "frame, K, R, t, status reference|ok|static|flagged, rms_px, reason) and "
                    "OUT/summary.json. Resumable: frames already in cameras.jsonl are skipped.",
        epilog=_examples("courtstudio batch-propagate clip.mp4 --sport tennis --reference "
                         "0:frame0_points.json --out out/clip",
                         "courtstudio batch-propagate clip.mp4 --sport tennis --reference "
                         "0:a.json --reference 299:b.json --out out/clip"))
    sp.add_argument("source", help="video file, or a project folder (its annotated frames are "
                                   "the references; results also go to PROJECT/propagation)")
    sp.add_argument("--sport", required=True)
    sp.add_argument("--reference", action="append", default=[], metavar="FRAME:POINTS.json",
                    help="an annotated frame (points file as for calibrate); repeatable")
    sp.add_argument("--out", required=True)
    sp.add_argument("--workers", type=int, default=1,
                    help="processes for the propagation runs (one per reference and "
                         "direction; video files)")
    sp.add_argument("--flag-px", type=float, default=3.0, help="flag frames whose "
                                                               "recalibration RMS exceeds this")
    sp.add_argument("--snap", action="store_true",
                    help="snap transferred keypoints onto the painted line crossings first")
    sp.add_argument("--quiet", action="store_true", help="no progress line")
    sp.set_defaults(func=cmd_batch_propagate)

    sp = sub.add_parser(
        "synth-clip", formatter_class=fmt,
        help="write a synthetic pan/tilt/zoom broadcast clip with known cameras",
        epilog=_examples("courtstudio synth-clip --sport tennis --frames 120 -o out/clip.avi "
                         "--points out/clip_ref.json",
                         "courtstudio synth-clip --sport badminton --cut-at 60 --blur 30 31 "
                         "-o out/b.avi --points out/b_ref.json"))
    sp.add_argument("--sport", required=True)
    sp.add_argument("--frames", type=int, default=120)
    sp.add_argument("--size", nargs=2, type=int, default=[1280, 720], metavar=("W", "H"))
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--cut-at", nargs="*", type=int, default=[],
                    help="insert 20 frames of another camera here (two cuts)")
    sp.add_argument("--blur", nargs="*", type=int, default=[], help="heavily blurred frames")
    sp.add_argument("--reference-frame", type=int, default=0)
    sp.add_argument("-o", "--output", required=True, help="video file (.avi, MJPG)")
    sp.add_argument("--points", required=True,
                    help="write the reference frame's true keypoints here (a points file)")
    sp.set_defaults(func=cmd_synth_clip)

    sp = sub.add_parser("players", help="player meshes (PromptHMR results)", formatter_class=fmt)
    psub = sp.add_subparsers(dest="players_command", required=True, metavar="COMMAND")
    pc = psub.add_parser(
        "correct", formatter_class=fmt,
        help="place PromptHMR meshes in the world by their lowest vertex's height",
        description="Rescale each person of a PromptHMR image-demo result (output.pt) about "
                    "the camera centre so the lowest vertex is at --height above the plane "
                    "(CourtSI eq. 4), and print scale, lowest_vertex_world, pelvis_world and "
                    "joints_world (pelvis, head, hands, feet; from the result's BODY_25 "
                    "joints). Uses the stored vertices, or the joints when only they are "
                    "stored; no SMPL-X model is needed.",
        epilog=_examples("courtstudio players correct --camera camera.json --hmr output.pt "
                         "--height 0 --json",
                         "courtstudio players correct --camera camera.json --hmr output.pt "
                         "--person 1 --height 0.35"))
    pc.add_argument("--camera", required=True)
    pc.add_argument("--hmr", required=True, help="PromptHMR image-demo output (.pt or .npz)")
    pc.add_argument("--person", type=int, help="only this person (0-based)")
    pc.add_argument("--height", type=float, required=True,
                    help="height of the lowest vertex above the plane, metres (0 = standing)")
    plane_args(pc)
    pc.add_argument("--json", action="store_true")
    pc.set_defaults(func=cmd_players_correct)

    sp = sub.add_parser(
        "gui", help="the desktop annotation app", formatter_class=fmt,
        description="Open the annotation app on a project folder or the bundled sample. With "
                    "--screenshot the window is rendered offscreen to a PNG and the app exits.",
        epilog=_examples("courtstudio gui --sample", "courtstudio gui my_project",
                         "courtstudio gui --sample --screenshot court.png --panel court",
                         "courtstudio gui --sample --screenshot ball.png --panel ball "
                         "--view 3d --frame 1"))
    sp.add_argument("project", nargs="?")
    sp.add_argument("--sample", action="store_true", help="open the bundled sample project "
                                                          "(a writable copy in ~/.courtstudio)")
    sp.add_argument("--screenshot", metavar="FILE.png")
    sp.add_argument("--panel", choices=["court", "ball", "players"], default="court")
    sp.add_argument("--view", choices=["topdown", "3d"], default="topdown")
    sp.add_argument("--frame", type=int, default=0, help="frame index to show")
    sp.add_argument("--size", nargs=2, type=int, default=[1600, 960], metavar=("W", "H"))
    sp.set_defaults(func=cmd_gui)

    sp = sub.add_parser(
        "synth", help="write a project of synthetic broadcast frames with ground truth",
        formatter_class=fmt,
        epilog=_examples("courtstudio synth --sports tennis badminton --per-sport 2 -o synth",
                         "courtstudio synth --sports table_tennis --all-points --seed 3 -o tt"))
    sp.add_argument("--sports", nargs="+", required=True)
    sp.add_argument("--per-sport", type=int, default=1)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--click-sigma", type=float, default=1.0, metavar="PX")
    sp.add_argument("--all-points", action="store_true",
                    help="click every visible keypoint (default: the paper's six)")
    sp.add_argument("--image-size", nargs=2, type=int, default=[1920, 1080], metavar=("W", "H"))
    sp.add_argument("--players", type=int, default=0,
                    help="Anny players per frame, rendered and annotated with simulated "
                         "PromptHMR meshes (needs the anny package)")
    sp.add_argument("-o", "--output", required=True)
    sp.set_defaults(func=cmd_synth)
    cli_qa.register(sub)  # the qa command group
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (CliError, InputError, SpecError, SceneError, GeometryError, ValueError) as exc:
        msg = " ".join(str(exc).split())
        print(f"courtstudio: error: {msg}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())

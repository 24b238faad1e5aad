"""The ``courtstudio`` command line. Command names and JSON keys are a contract (docs/cli.md).

Bad input exits with code 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from courtstudio import cli_dataset, cli_qa

if TYPE_CHECKING:
    from geometry.camera import Camera
    from geometry.uncertainty import ParamCovariance

# Each command imports what it needs when it runs: `courtstudio --help` and usage errors load
# no numpy, OpenCV, jsonschema or h5py (bench/cli_startup.py measures it; issue 9 §7).

EXIT_BAD_INPUT = 2


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line (the CLI's error contract), not usage text + a line."""

    def error(self, message):
        raise CliError(f"{self.prog}: {message} (see {self.prog} --help)")


def _finite(text: str) -> float:
    """argparse type: a finite number of magnitude at most 1e6 (float() accepts nan, inf)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v) or abs(v) > 1e6:
        raise argparse.ArgumentTypeError(f"expected a finite number of magnitude at most 1e6, "
                                         f"got {text!r}")
    return v


def _positive(text: str) -> float:
    """argparse type: a finite number > 0 (at most 1e6)."""
    v = _finite(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def _int_in(lo: int, hi: int):
    """argparse type: an integer in lo..hi."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected {lo}..{hi}, got {v}")
        return v
    parse.__name__ = "integer"
    return parse


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {ln}" for ln in lines)


def _print_json(obj) -> None:
    try:
        text = json.dumps(obj, indent=1, allow_nan=False)
    except ValueError:
        raise CliError("the result holds non-finite numbers (NaN or infinity): check the "
                       "inputs") from None
    print(text)


# ---------------------------------------------------------------------------------- specs
def cmd_specs(args) -> int:
    from court_specs import available_specs, load_spec
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
    axes = {"end": "x toward the camera, y right", "side": "camera beyond the 'left' sideline: "
            "x right, y away from the camera", "auto": "end-on: x toward the camera, y right; "
            "side-on: x right, y away"}[spec.broadcast_view]
    print(f"keypoints (x, y, z metres; {axes}, z up; docs/frames.md):")
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
    from court_specs import load_spec
    from courtstudio.calibration import calibrate_court
    from courtstudio.points_file import load_points_file
    from exporters.atomic import write_json_atomic
    spec = load_spec(args.sport)
    size, points = load_points_file(args.points)
    if args.click_sigma is not None and not args.click_sigma > 0:
        raise CliError(f"--click-sigma must be positive, got {args.click_sigma:g}")
    cal = calibrate_court(spec, size, points, model=args.model, radial=args.radial,
                          click_sigma_px=args.click_sigma,
                          view=args.view or _points_view(args.points))
    if args.refine_lines:
        from courtstudio.line_refinement import refine_calibration
        if not args.image:
            raise CliError("--refine-lines needs --image FRAME (the frame the points were "
                           "clicked on)")
        image = _read_frame(args.image, size)
        cal = refine_calibration(cal, spec, image,
                                 model="auto" if args.model == "auto" else "keep")
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


def _points_view(path) -> str | None:
    """The optional "view" of a points file ('end' | 'side' | 'auto'), else None."""
    try:
        view = json.loads(Path(path).read_text()).get("view")
    except (OSError, ValueError, AttributeError):
        return None
    if view is not None and view not in ("end", "side", "auto"):
        raise CliError(f"{path}: field view: expected 'end', 'side' or 'auto', got {view!r}")
    return view


def _read_frame(path, size):
    """The frame image (BGR uint8, header checked before decoding), checked against the
    points file's image size."""
    from exporters.images import read_image
    img = read_image(path, CliError)
    if (img.shape[1], img.shape[0]) != tuple(size):
        raise CliError(f"{path}: image is {img.shape[1]}x{img.shape[0]}, the points file says "
                       f"{size[0]}x{size[1]}")
    return img


def _print_calibration_report(doc: dict) -> None:
    K = doc["K"]
    c = doc["camera_centre_world"]
    s = doc["camera_centre_sigma_m"]
    print(f"sport {doc['sport']}, model {doc['model']}, image {doc['image_size'][0]}x"
          f"{doc['image_size'][1]}")
    if doc.get("model_selection"):
        print(f"lens       {doc['model_selection']['reason']}")
    if any(doc["dist"]):
        print(f"distortion k1={doc['dist'][0]:.4f} k2={doc['dist'][1]:.4f}")
    print(f"quality    {doc['quality']} (click noise {doc['click_sigma_px']:.2f} px, "
          f"{doc['click_sigma_source']})")
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
    ref = doc.get("line_refinement")
    if ref:
        print(f"lines      {'refined' if ref['accepted'] else 'not refined'}: {ref['reason']}; "
              f"support {ref['support_before']} -> {ref['support_after']}, line RMS "
              f"{ref['line_rms_before_px']} -> {ref['line_rms_after_px']} px, click RMS "
              f"{ref['click_rms_before_px']} -> {ref['click_rms_after_px']} px "
              f"({ref['samples']} samples on {ref['lines_used']} lines)")


# ---------------------------------------------------------------------------- lift-ball
def load_camera_file(path) -> tuple[Camera, dict, ParamCovariance | None]:
    """A camera JSON (calibrate output or any dict with K, R, t, image_size, dist)."""
    from courtstudio.points_file import InputError, read_json
    from geometry.camera import Camera
    from geometry.errors import GeometryError
    from geometry.uncertainty import ParamCovariance
    from exporters.validation import MAX_ABS_PIXEL, MAX_ABS_WORLD_M, check_finite_array
    data = read_json(path, "camera file")
    try:
        cam = Camera.from_dict(data, f"{path}")
    except GeometryError as exc:
        raise InputError(str(exc)) from None
    for field, value, limit in (("K", cam.K, MAX_ABS_PIXEL),
                                ("image_size", cam.image_size, MAX_ABS_PIXEL),
                                ("t", cam.camera_centre_world, MAX_ABS_WORLD_M),
                                ("dist", cam.dist, MAX_ABS_WORLD_M)):
        check_finite_array(value, f"{path}: field {field}", InputError, max_abs=limit)
    cov = None
    if isinstance(data.get("covariance"), dict):
        try:
            cov = ParamCovariance.from_dict(data["covariance"])
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise InputError(f"{path}: field covariance: {exc}") from None
    return cam, data, cov


def _plane(args, cam_doc) -> tuple[str, float]:
    from court_specs import load_spec
    sport = args.sport or cam_doc.get("sport")
    if sport is not None and not isinstance(sport, str):
        raise CliError(f"{args.camera}: field sport: expected a spec id, got {sport!r:.40}")
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
    from courtstudio.ball import lift_ball_with_uncertainty
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
    from court_specs import load_spec
    from courtstudio.points_file import load_points_file
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
    from court_specs import load_spec
    from courtstudio.project import load_project
    fmt = args.format or {".glb": "glb", ".yaml": "opencv-yaml", ".yml": "opencv-yaml"}.get(
        Path(args.output).suffix.lower())
    src = Path(args.source)
    if fmt is None:
        raise CliError("cannot tell the format from the output name: give --format")
    if fmt == "scenes":
        from courtstudio.reconstruct import reconstruct_project
        summaries = reconstruct_project(load_project(src), args.output, force=args.force,
                                        overlay_format=args.overlay_format)
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


def _export_folder_options(sp) -> None:
    sp.add_argument("--force", action="store_true", help="write into a non-empty folder that "
                    "is not a previous export (same-named files are replaced)")
    sp.add_argument("--overlay-format", choices=["png", "jpg"], default="png",
                    help="overlay image format (jpg: smaller files)")


# -------------------------------------------------------------------------------- zone
def cmd_zone(args) -> int:
    from court_specs import load_spec
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
    from courtstudio.project import load_project
    from courtstudio.reconstruct import SAMPLE_PROJECT, reconstruct_project
    if args.sample == (args.project is not None):
        raise CliError("give a PROJECT folder or --sample (not both)")
    project = load_project(SAMPLE_PROJECT if args.sample else args.project)
    summaries = reconstruct_project(project, args.output, force=args.force,
                                    overlay_format=args.overlay_format)
    failed = [s for s in summaries if s.status == "error"]
    poor = [s.frame_id for s in summaries if s.status == "poor"]
    print(f"{len(summaries) - len(failed)} of {len(summaries)} frames reconstructed; "
          f"outputs in {args.output}"
          + (f"; poor calibration (check the clicks): {', '.join(poor)}" if poor else ""))
    return 1 if failed else 0


# -------------------------------------------------------------------------------- synth
def cmd_synth(args) -> int:
    from court_specs import load_spec
    from courtstudio.synthetic_project import write_synthetic_project
    for s in args.sports:
        load_spec(s)
    _check_image_size(args.image_size, "--image-size")
    p = write_synthetic_project(args.output, args.sports, args.per_sport, args.seed,
                                args.click_sigma, args.all_points,
                                tuple(args.image_size), name=Path(args.output).name,
                                players=args.players, k1=args.k1)
    print(f"wrote {len(p.frames)} frames to project {args.output}")
    return 0


# ------------------------------------------------------------------------------ players
def cmd_players_correct(args) -> int:
    from courtstudio.players import world_player
    from hmr.prompthmr import load_image_output, original_intrinsics

    cam, doc, _ = load_camera_file(args.camera)
    _, z = _plane(args, doc)
    if Path(args.hmr).suffix.lower() in (".pkl", ".joblib"):
        result, notes = _video_result(args)
    else:
        result, notes = load_image_output(args.hmr), []
    if result.cam_int_padded is not None:
        f_hmr = original_intrinsics(result.cam_int_padded, cam.image_size)[0, 0]
        f_cam = cam.K[0, 0]
        if abs(f_hmr / f_cam - 1) > 0.01:
            notes.append(f"the result was computed with f = {f_hmr:.0f} px but the camera "
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
    out = {"people": people, "warnings": notes}
    if args.json:
        _print_json(out)
    else:
        for p in people:
            pel = p["pelvis_world"]
            pel_text = "-" if pel is None else "({:.2f}, {:.2f}, {:.2f}) m".format(*pel)
            print(f"person {p['person']}: scale {p['scale']:.4f}, pelvis {pel_text}, lowest "
                  "vertex ({:.2f}, {:.2f}, {:.2f}) m".format(*p["lowest_vertex_world"]))
    for w in notes:
        print(f"courtstudio: warning: {w}", file=sys.stderr)
    return 0


def _video_result(args):
    """PromptHMR video results (a joblib pickle) at --video-frame, one person per track:
    refused unless --trust-pickle (hmr.smplx_body.load_video_results); the risk warning
    becomes one stderr line."""
    from hmr.prompthmr import PromptHMRResult
    from hmr.smplx_body import PickleRiskWarning, load_video_results
    if args.video_frame is None or args.smplx is None:
        raise CliError(f"{args.hmr}: PromptHMR video results need --video-frame N and "
                       "--smplx DIR (the SMPL-X model folder)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PickleRiskWarning)
        tracks = load_video_results(args.hmr, args.smplx, args.video_frame,
                                    trust_pickle=args.trust_pickle)
    for c in caught:
        if issubclass(c.category, PickleRiskWarning):
            print(f"courtstudio: warning: {c.message}", file=sys.stderr)
    return PromptHMRResult([m for _, m in sorted(tracks.items())], None), []


# ---------------------------------------------------------------------------- propagate
def cmd_batch_propagate(args) -> int:
    from court_specs import load_spec
    from courtstudio.points_file import load_points_file
    from courtstudio.project import load_project
    from exporters.atomic import write_json_atomic
    from courtstudio.propagate import (ProgressBar, Reference, VideoFrames, VideoSource,
                                       propagate, propagate_project, summary)
    spec = load_spec(args.sport)
    src = Path(args.source)
    masks = [_mask_box(m) for m in args.mask]
    if src.is_dir():
        project = load_project(src)
        if any(f.sport != spec.id for f in project.frames):
            raise CliError(f"{src}: the project's frames are not all {spec.id}")
        if not project.frames:
            raise CliError(f"{src}: the project has no frames")
        from courtstudio.frames import FrameStore
        size = FrameStore(project).image_size(project.frames[0])
    elif src.is_file():
        if not args.out:
            raise CliError("--out is required for a video")
        frames = VideoFrames(src)
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
            raise CliError(f"{pts}: image_size {psize[0]}x{psize[1]} but the frames are "
                           f"{size[0]}x{size[1]}")
        refs.append(Reference(int(frame_s), points))
    bar = None if args.quiet else ProgressBar()
    try:
        if src.is_dir():  # the same function as the app's Frame > Propagate
            try:
                records = propagate_project(project, refs or None, progress=bar,
                                            flag_rms_px=args.flag_px, masks=masks,
                                            workers=max(1, args.workers), snap=args.snap)
            except ValueError as exc:
                raise CliError(str(exc)) from None
            out = Path(args.out) if args.out else src / "propagation"
            if out.resolve() != (src / "propagation").resolve():
                from courtstudio.propagate import write_jsonl_atomic
                write_jsonl_atomic(out / "cameras.jsonl", records)
                write_json_atomic(out / "summary.json", json.loads(
                    (src / "propagation" / "summary.json").read_text()))
            rep = summary(records)
        else:
            if not refs:
                raise CliError("no reference: give --reference FRAME:POINTS.json (for a "
                               "project, annotate a frame's court keypoints)")
            out = Path(args.out)
            records = propagate(frames, spec, refs, out, flag_rms_px=args.flag_px,
                                progress=bar, workers=max(1, args.workers),
                                frames_source=VideoSource(str(src)), snap=args.snap,
                                masks=masks)
            rep = summary(records)
            write_json_atomic(out / "summary.json", rep)
    finally:
        if bar is not None:
            bar.close()
    c = rep["counts"]
    print(f"{rep['frames']} frames: " + ", ".join(f"{v} {k}" for k, v in sorted(c.items()))
          + (f"; cuts before frames {rep['cuts']}" if rep["cuts"] else ""))
    if rep.get("graphics_boxes"):
        print(f"screen-fixed graphics masked: {rep['graphics_boxes']}")
    for q in rep.get("reference_quality", []):
        if (q["rms_px"] or 0) > args.flag_px:
            print(f"  reference frame {q['frame']}: its clicks fit to {q['rms_px']:.1f} px "
                  "(check them)")
    for f in rep["flagged"][:20]:
        print(f"  flagged frame {f['frame']}: {f['reason']}")
    if len(rep["flagged"]) > 20:
        print(f"  ... {len(rep['flagged']) - 20} more in {out / 'summary.json'}")
    return 0


def _mask_box(text: str) -> list[float]:
    try:
        box = [float(v) for v in text.split(",")]
    except ValueError:
        box = []
    if len(box) != 4 or box[2] <= box[0] or box[3] <= box[1]:
        raise CliError(f"--mask {text!r}: expected x0,y0,x1,y1 pixels with x1 > x0, y1 > y0")
    return box


def cmd_synth_clip(args) -> int:
    from court_specs import load_spec
    from exporters.atomic import write_json_atomic
    from courtstudio.synthetic_clip import Hazards, iter_clip, write_clip
    spec = load_spec(args.sport)
    n = args.frames
    for name, frames in (("--reference-frame", [args.reference_frame]), ("--cut-at", args.cut_at),
                         ("--blur", args.blur)):
        bad = [f for f in frames if not 0 <= f < n]
        if bad:
            raise CliError(f"{name} {bad[0]}: outside the clip's frames 0..{n - 1}")
    _check_image_size(args.size, "--size")
    if not -0.3 <= args.lens_k1 <= 1.5:
        raise CliError(f"--lens-k1 {args.lens_k1}: expected -0.3..1.5")
    try:
        hazards = Hazards(args.graphics, args.surface, args.crowd, args.motion_blur,
                          args.jpeg_quality, args.lens_k1)
        out = Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        cams, cuts = write_clip(out, iter_clip(  # streamed: one frame in memory
            spec, args.frames, tuple(args.size), seed=args.seed, cut_at=tuple(args.cut_at),
            blur_frames=tuple(args.blur), zoom=args.zoom, hazards=hazards))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    cam = cams[args.reference_frame]
    if cam is None:
        raise CliError(f"frame {args.reference_frame} is inside an inserted cut")
    names = spec.minimal_keypoints
    write_json_atomic(args.points, {"image_size": list(args.size), "points": {
        n: [round(float(c), 3) for c in cam.project(spec.keypoints[n][None])[0]]
        for n in names}})
    write_json_atomic(out.with_suffix(".truth.json"), {"cameras": [
        None if c is None else c.to_dict() for c in cams], "cuts": cuts})
    print(f"wrote {out} ({args.frames} frames), reference points of frame "
          f"{args.reference_frame} in {args.points}")
    return 0


def _check_image_size(size, option: str) -> None:
    from exporters.images import check_dimensions
    check_dimensions(int(size[0]), int(size[1]), option, CliError)


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
    p = _Parser(
        prog="courtstudio", formatter_class=fmt,
        description="Metric 3D scenes from broadcast frames of court sports.",
        epilog=_examples(
            "courtstudio specs", "courtstudio reconstruct --sample -o out/sample",
            "courtstudio calibrate --sport tennis --points points.json -o camera.json"))
    p.add_argument("--max-megapixels", type=_positive, metavar="MP",
                   help="refuse images and video frames larger than this (default "
                        "100 megapixels; read from the file header before decoding)")
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
            "courtstudio calibrate --sport badminton --points pts.json --model full --radial",
            "courtstudio calibrate --sport pickleball --points pts.json --image frame.jpg "
            "--refine-lines"))
    sp.add_argument("--sport", required=True)
    sp.add_argument("--points", required=True, help="points JSON file")
    sp.add_argument("--model", choices=["auto", "simple", "pinhole", "simple_k1",
                                        "simple_k1k2", "full"], default="auto",
                    help="auto (default): the richest lens the clicks determine, chosen on "
                         "held-out clicks; simple = pinhole: one focal, centred principal "
                         "point; simple_k1 / simple_k1k2: plus radial distortion; full: fx, "
                         "fy, cx, cy")
    sp.add_argument("--radial", action="store_true", help="full model with k1, k2")
    sp.add_argument("--click-sigma", type=_positive, default=None, metavar="PX",
                    help="click noise, 1-sigma pixels (default: estimated from the residuals, "
                         "1 to 3 px)")
    sp.add_argument("--image", metavar="FRAME", help="the frame the points were clicked on")
    sp.add_argument("--refine-lines", action="store_true",
                    help="refine the camera on the painted lines of --image (kept only when "
                         "better; the report says why not)")
    sp.add_argument("--view", choices=["end", "side", "auto"], default=None,
                    help="world convention (docs/frames.md): camera beyond a baseline (end), a "
                         "sideline (side), or whichever it stands beyond (auto); default: the "
                         "points file's \"view\", else the spec's broadcast_view")
    sp.add_argument("--json", action="store_true", help="print the camera JSON")
    sp.add_argument("-o", "--output", help="write the camera JSON here")
    sp.add_argument("--opencv-yaml", metavar="FILE", help="also write OpenCV FileStorage YAML")
    sp.set_defaults(func=cmd_calibrate)

    def plane_args(q):
        q.add_argument("--plane", help="projection plane name from the spec (default: the "
                                       "playing surface; table tennis: table or floor)")
        q.add_argument("--plane-z", type=_finite, help="projection plane height z (metres)")
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
    sp.add_argument("--ball", nargs=2, type=_finite, required=True, metavar=("U", "V"))
    sp.add_argument("--ground", nargs=2, type=_finite, required=True, metavar=("U", "V"))
    plane_args(sp)
    sp.add_argument("--click-sigma", type=_positive, default=1.0, metavar="PX")
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
    sp.add_argument("--ball", nargs=2, type=_finite, metavar=("U", "V"),
                    help="also draw the ball tool's projection line")
    sp.add_argument("--ground", nargs=2, type=_finite, metavar=("U", "V"))
    sp.add_argument("-o", "--output", required=True)
    sp.add_argument("--plane")
    sp.add_argument("--plane-z", type=_finite)
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
    _export_folder_options(sp)
    sp.set_defaults(func=cmd_export)

    sp = sub.add_parser("zone", help="which named court zone a world point is in",
                        formatter_class=fmt,
                        epilog=_examples("courtstudio zone --sport tennis 8.0 3.0",
                                         "courtstudio zone --sport basketball_nba 1.0 7.6 --json"))
    sp.add_argument("--sport", required=True)
    sp.add_argument("x", type=_finite)
    sp.add_argument("y", type=_finite)
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
    _export_folder_options(sp)
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
    sp.add_argument("--out", help="output folder (required for a video; a project writes "
                                   "PROJECT/propagation)")
    sp.add_argument("--mask", action="append", default=[], metavar="x0,y0,x1,y1",
                    help="pixels never used for registration (graphics); repeatable")
    sp.add_argument("--workers", type=_int_in(1, 64), default=1,
                    help="processes, each a contiguous part of the clip (records stream "
                         "to cameras.jsonl from all of them)")
    sp.add_argument("--flag-px", type=_positive, default=3.0,
                    help="flag frames whose recalibration RMS exceeds their reference's by this")
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
    sp.add_argument("--frames", type=_int_in(1, 100_000), default=120)
    sp.add_argument("--size", nargs=2, type=_int_in(16, 16384), default=[1280, 720],
                    metavar=("W", "H"))
    sp.add_argument("--seed", type=_int_in(0, 2 ** 32 - 1), default=1)
    sp.add_argument("--cut-at", nargs="*", type=_int_in(0, 100_000), default=[],
                    help="insert 20 frames of another camera here (two cuts)")
    sp.add_argument("--blur", nargs="*", type=_int_in(0, 100_000), default=[],
                    help="heavily blurred frames")
    sp.add_argument("--reference-frame", type=_int_in(0, 100_000), default=0)
    sp.add_argument("--zoom", type=_positive, default=0.15,
                    help="the focal length reaches 1 + ZOOM times its start (1.0: a 2x zoom)")
    sp.add_argument("--graphics", action="store_true",
                    help="screen-fixed logo, score bug, clock and ticker (over 8 %% of the frame)")
    sp.add_argument("--surface", default="grass", choices=["grass", "clay", "hard"])
    sp.add_argument("--crowd", action="store_true", help="textured stands around the court")
    sp.add_argument("--motion-blur", action="store_true", help="blur along the image motion")
    sp.add_argument("--jpeg-quality", type=_int_in(0, 100), default=0,
                    help="compress every frame (0: no)")
    sp.add_argument("--lens-k1", type=_finite, default=0.0,
                    help="radial lens distortion k1 (< 0 barrel, > 0 pincushion; 0: none)")
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
    pc.add_argument("--hmr", required=True, help="PromptHMR image-demo output (.pt or .npz), "
                                                 "or video results (.pkl: see --trust-pickle)")
    pc.add_argument("--video-frame", type=_int_in(0, 10 ** 9), metavar="N",
                    help="video results: the frame to place (one person per track)")
    pc.add_argument("--smplx", metavar="DIR",
                    help="video results: SMPL-X model folder (smplx/SMPLX_NEUTRAL.npz)")
    pc.add_argument("--trust-pickle", action="store_true",
                    help="open video results (a joblib pickle, which runs any code it "
                         "contains): only for results you produced yourself")
    pc.add_argument("--person", type=_int_in(0, 100_000), help="only this person (0-based)")
    pc.add_argument("--height", type=_finite, required=True,
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
    sp.add_argument("--frame", type=_int_in(0, 10 ** 9), default=0, help="frame index to show")
    sp.add_argument("--size", nargs=2, type=_int_in(100, 16384), default=[1600, 960],
                    metavar=("W", "H"))
    sp.set_defaults(func=cmd_gui)

    sp = sub.add_parser(
        "synth", help="write a project of synthetic broadcast frames with ground truth",
        formatter_class=fmt,
        epilog=_examples("courtstudio synth --sports tennis badminton --per-sport 2 -o synth",
                         "courtstudio synth --sports table_tennis --all-points --seed 3 -o tt"))
    sp.add_argument("--sports", nargs="+", required=True)
    sp.add_argument("--per-sport", type=_int_in(1, 1000), default=1)
    sp.add_argument("--seed", type=_int_in(0, 2 ** 32 - 1), default=0)
    sp.add_argument("--click-sigma", type=_positive, default=1.0, metavar="PX")
    sp.add_argument("--all-points", action="store_true",
                    help="click every visible keypoint (default: the paper's six)")
    sp.add_argument("--image-size", nargs=2, type=_int_in(16, 16384), default=[1920, 1080],
                    metavar=("W", "H"))
    sp.add_argument("--players", type=_int_in(0, 50), default=0,
                    help="Anny players per frame, rendered and annotated with simulated "
                         "PromptHMR meshes (needs the anny package)")
    sp.add_argument("--k1", type=float, default=0.0,
                    help="radial lens distortion of the cameras (OpenCV k1; wide-angle "
                         "-0.3..-0.05; default 0 = pinhole)")
    sp.add_argument("-o", "--output", required=True)
    sp.set_defaults(func=cmd_synth)
    cli_qa.register(sub)  # the qa command group
    cli_dataset.register(sub, fmt, _examples)  # the dataset command group
    return p


# what each command writes: a project containing one of these is locked while it runs
WRITTEN_ARGS = {"calibrate": ("output", "opencv_yaml"), "overlay": ("output",),
                "export": ("output",), "reconstruct": ("output",), "synth": ("output",),
                "batch-propagate": ("out", "source"), "synth-clip": ("output", "points")}


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
            from courtstudio.project_lock import hold_projects
            from exporters.images import set_max_pixels
            set_max_pixels(None if args.max_megapixels is None
                           else int(args.max_megapixels * 1e6))
            with hold_projects(_written_paths(args), f"courtstudio {args.command}"):
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
        print(f"courtstudio: error: internal error ({type(exc).__name__}: {_one_line(exc)}); "
              "please report it", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if "exporters.images" in sys.modules:  # set by this run (after parsing): reset it
            sys.modules["exporters.images"].set_max_pixels(None)


if __name__ == "__main__":
    sys.exit(main())

"""``courtstudio players correct``: PromptHMR meshes placed in the world."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from courtstudio.cli.common import (
    CliError,
    add_plane_args,
    examples,
    finite,
    int_in,
    load_camera_file,
    print_json,
    projection_plane,
)


def cmd_players_correct(args) -> int:
    from courtstudio.pipeline.players import world_player
    from hmr.prompthmr import load_image_output, original_intrinsics

    cam, doc, _ = load_camera_file(args.camera)
    _, z = projection_plane(args, doc)
    if Path(args.hmr).suffix.lower() in (".pkl", ".joblib"):
        result, notes = _video_result(args)
    else:
        result, notes = load_image_output(args.hmr), []
    if result.cam_int_padded is not None:
        f_hmr = original_intrinsics(result.cam_int_padded, cam.image_size)[0, 0]
        f_cam = cam.K[0, 0]
        if abs(f_hmr / f_cam - 1) > 0.01:
            notes.append(
                f"the result was computed with f = {f_hmr:.0f} px but the camera "
                f"has f = {f_cam:.0f} px: run PromptHMR with this camera's K"
            )
    n = len(result.people)
    if args.person is not None and not 0 <= args.person < n:
        raise CliError(f"--person {args.person}: the result has {n} people (0..{n - 1})")
    chosen = range(n) if args.person is None else [args.person]
    people = []
    for i in chosen:
        w = world_player(cam, result.people[i], args.height, z)
        joints = {k: [round(float(c), 5) for c in v] for k, v in w.joints_world.items()}
        people.append(
            {
                "person": i,
                "scale": round(w.scale, 6),
                "lowest_vertex_world": [round(float(c), 5) for c in w.lowest_vertex_world],
                "pelvis_world": joints.get("pelvis"),
                "joints_world": joints,
                "source": result.people[i].source,
            }
        )
    out = {"people": people, "warnings": notes}
    if args.json:
        print_json(out)
    else:
        for p in people:
            pel = p["pelvis_world"]
            pel_text = "-" if pel is None else "({:.2f}, {:.2f}, {:.2f}) m".format(*pel)
            print(
                f"person {p['person']}: scale {p['scale']:.4f}, pelvis {pel_text}, lowest "
                "vertex ({:.2f}, {:.2f}, {:.2f}) m".format(*p["lowest_vertex_world"])
            )
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
        raise CliError(
            f"{args.hmr}: PromptHMR video results need --video-frame N and "
            "--smplx DIR (the SMPL-X model folder)"
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PickleRiskWarning)
        tracks = load_video_results(
            args.hmr, args.smplx, args.video_frame, trust_pickle=args.trust_pickle
        )
    for c in caught:
        if issubclass(c.category, PickleRiskWarning):
            print(f"courtstudio: warning: {c.message}", file=sys.stderr)
    return PromptHMRResult([m for _, m in sorted(tracks.items())], None), []


def register(sub, fmt) -> None:
    """Add this group's commands to the ``courtstudio`` sub-parsers."""
    sp = sub.add_parser("players", help="player meshes (PromptHMR results)", formatter_class=fmt)
    psub = sp.add_subparsers(dest="players_command", required=True, metavar="COMMAND")
    pc = psub.add_parser(
        "correct",
        formatter_class=fmt,
        help="place PromptHMR meshes in the world by their lowest vertex's height",
        description="Rescale each person of a PromptHMR image-demo result (output.pt) about "
        "the camera centre so the lowest vertex is at --height above the plane "
        "(CourtSI eq. 4), and print scale, lowest_vertex_world, pelvis_world and "
        "joints_world (pelvis, head, hands, feet; from the result's BODY_25 "
        "joints). Uses the stored vertices, or the joints when only they are "
        "stored; no SMPL-X model is needed.",
        epilog=examples(
            "courtstudio players correct --camera camera.json --hmr output.pt --height 0 --json",
            "courtstudio players correct --camera camera.json --hmr output.pt "
            "--person 1 --height 0.35",
        ),
    )
    pc.add_argument("--camera", required=True)
    pc.add_argument(
        "--hmr",
        required=True,
        help="PromptHMR image-demo output (.pt or .npz), "
        "or video results (.pkl: see --trust-pickle)",
    )
    pc.add_argument(
        "--video-frame",
        type=int_in(0, 10**9),
        metavar="N",
        help="video results: the frame to place (one person per track)",
    )
    pc.add_argument(
        "--smplx",
        metavar="DIR",
        help="video results: SMPL-X model folder (smplx/SMPLX_NEUTRAL.npz)",
    )
    pc.add_argument(
        "--trust-pickle",
        action="store_true",
        help="open video results (a joblib pickle, which runs any code it "
        "contains): only for results you produced yourself",
    )
    pc.add_argument("--person", type=int_in(0, 100_000), help="only this person (0-based)")
    pc.add_argument(
        "--height",
        type=finite,
        required=True,
        help="height of the lowest vertex above the plane, metres (0 = standing)",
    )
    add_plane_args(pc)
    pc.add_argument("--json", action="store_true")
    pc.set_defaults(func=cmd_players_correct)

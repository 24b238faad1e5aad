"""Which labelling the solver picks on real hand-clicked frames (issue 10 section 1, issue 14).

FOLDER holds ``annotations/*.json`` (points files with ``sport`` and optionally ``view``, as in
the dev set of docs/frames.md's real-frames check). For every frame:

- the view (``--view``, else the annotation's ``view``, else the spec's; 'auto' resolves per
  camera) and the convention applied (end_on / side_on);

- the clicks as labelled: the world convention used, accepted or refused (with the doctor's
  fix), RMS (px), camera centre (m) and its signed margin from the court's centre line across
  the view's axis (x - L/2 end-on, W/2 - y side-on; positive = the convention's side);
- the same clicks relabelled by each court symmetry (left/right mirror, near/far mirror,
  180-degree turn): every one must be refused, and the doctor's fix must be the inverse
  symmetry.

Run: ``python bench/labelling_real.py /work/devset [--view end|side|auto]`` (default: each
annotation's ``view``, else the spec's). Prints a markdown table and a summary line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court, world_convention  # noqa: E402
from geometry.errors import CalibrationError  # noqa: E402

SYMMETRIES = ("left_right", "near_far", "rotate_180")


def run_frame(path: Path, view: str | None) -> dict:
    d = json.loads(path.read_text())
    spec = load_spec(d["sport"])
    view = view or d.get("view") or spec.broadcast_view
    conv = world_convention(spec, view)
    out = {"id": path.stem, "sport": spec.id, "convention": f"({conv.view})", "n": len(d["points"])}
    try:
        cal = calibrate_court(spec, d["image_size"], d["points"], view=view)
        c = cal.camera.camera_centre_world
        out.update(
            accepted=True,
            rms_px=cal.fit.rms_px,
            centre=c.tolist(),
            convention=cal.world_convention,
            margin_m=conv.side_margin_m(c),
            fixes=[f.kind for f in cal.fixes],
        )
    except CalibrationError as exc:
        fx = getattr(exc, "fixes", [])
        out.update(accepted=False, reason=str(exc), fixes=[f.kind for f in fx])
    out["symmetric"] = {}
    maps = spec.symmetry_maps()
    for kind in SYMMETRIES:
        pts = {maps[kind][n]: uv for n, uv in d["points"].items()}
        try:
            cal = calibrate_court(spec, d["image_size"], pts, view=view)
            out["symmetric"][kind] = f"ACCEPTED (RMS {cal.fit.rms_px:.2f})"
        except CalibrationError as exc:
            fx = getattr(exc, "fixes", [])
            out["symmetric"][kind] = f"refused, fix {fx[0].kind}" if fx else "refused, no fix"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--view", choices=["end", "side", "auto"], default=None)
    ap.add_argument("--json", type=Path, help="also write the per-frame records here")
    args = ap.parse_args(argv)
    files = sorted((args.folder / "annotations").glob("*.json"))
    if not files:
        print(f"labelling_real: no annotations in {args.folder / 'annotations'}", file=sys.stderr)
        return 2
    rows = [run_frame(f, args.view) for f in files]
    print(
        "| frame | sport | convention | clicks | as labelled | RMS px | camera (m) | margin m "
        "| L/R mirror | N/F mirror | 180 turn |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["accepted"]:
            lab = "accepted" + (f" (fix offered: {', '.join(r['fixes'])})" if r["fixes"] else "")
            rms, cam = f"{r['rms_px']:.2f}", "(" + ", ".join(f"{v:.2f}" for v in r["centre"]) + ")"
            margin = f"{r['margin_m']:+.2f}"
        else:
            lab = f"REFUSED ({', '.join(r['fixes']) or 'no fix'})"
            rms = cam = margin = "-"
        s = r["symmetric"]
        print(
            f"| {r['id']} | {r['sport']} | {r['convention']} | {r['n']} | {lab} | {rms} | {cam} "
            f"| {margin} | {s['left_right']} | {s['near_far']} | {s['rotate_180']} |"
        )
    ok = sum(r["accepted"] for r in rows)
    inverse = sum(all(s == f"refused, fix {k}" for k, s in r["symmetric"].items()) for r in rows)
    med = np.median([r["rms_px"] for r in rows if r["accepted"]]) if ok else float("nan")
    print(
        f"\n{ok}/{len(rows)} frames accepted as labelled (median RMS {med:.2f} px); "
        f"{inverse}/{len(rows)} frames have every symmetric relabelling refused with the "
        f"inverse fix"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

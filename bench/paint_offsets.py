"""Each clicked keypoint's paint evidence on real frames, as the app's "paint px" column shows it.

    python bench/paint_offsets.py FOLDER [--over 4] [--json OUT]

FOLDER: the real-frames layout (/work/devset: annotations/<id>.json, frames/<id>.png|jpg).
Per frame the clicks as annotated are calibrated with the frame (courtstudio.pipeline.
calibration.calibrate_court, image given: the doctor's path), and every click with paint
evidence is listed when its distance to its painted crossing (the "paint px" column) exceeds
``--over`` px or the doctor uses it (off_paint_z finite: the camera of the other clicks backs
the paint; a suspect when above SUSPECT_Z). The clicks were read off the painted-line centres
by hand, so a large offset here is a wrong ridge (or a wrong click) to look at.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_frames import frame_path  # noqa: E402
from court_specs import load_spec  # noqa: E402
from courtstudio.pipeline.calibration import calibrate_court  # noqa: E402
from courtstudio.pipeline.click_paint import check_paint  # noqa: E402
from geometry.click_paint import off_paint_z  # noqa: E402
from geometry.doctor import SUSPECT_Z  # noqa: E402
from geometry.errors import GeometryError  # noqa: E402


def frame_rows(spec, size, clicks, image) -> tuple[list[dict], list[str]]:
    """([{name, lines, offset_px, du, dv, z}] per click with evidence, the doctor's suspects)."""
    names = list(clicks)
    uv = np.array([clicks[n] for n in names], float)
    cal = calibrate_court(spec, size, clicks, image=image)
    paint = check_paint(spec, cal.fit.camera, image, names, uv)
    z = off_paint_z(paint, uv, cal.click_sigma_px, cal.loo.predicted_uv, cal.loo.predicted_cov)
    d = paint.distance_px()
    rows = [
        dict(
            name=n,
            lines=int(paint.lines[i]),
            offset_px=float(d[i]),
            du=float(paint.offset_uv[i, 0]),
            dv=float(paint.offset_uv[i, 1]),
            z=float(z[i]),
        )
        for i, n in enumerate(names)
        if paint.lines[i] > 0
    ]
    return rows, list(cal.suspects)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--over", type=float, default=4.0, help="list offsets above this, px")
    ap.add_argument("--json", help="write every click's evidence here")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    out, n_clicks, n_ev, big, used = {}, 0, 0, [], []
    for f in sorted((folder / "annotations").glob("*.json")):
        doc = json.loads(f.read_text())
        p = frame_path(folder, doc, f.stem)
        img = cv2.imread(str(p), cv2.IMREAD_COLOR) if p is not None else None
        size = tuple(doc["image_size"])
        if img is None or (img.shape[1], img.shape[0]) != size:
            print(f"{f.stem}: no readable frame of {size}")
            continue
        clicks = {k: tuple(v) for k, v in doc["points"].items()}
        try:
            rows, suspects = frame_rows(load_spec(doc["sport"]), size, clicks, img)
        except GeometryError as exc:
            print(f"{f.stem}: refused ({exc})")
            continue
        out[f.stem] = dict(clicks=len(clicks), evidence=rows, suspects=suspects)
        n_clicks += len(clicks)
        n_ev += len(rows)
        shown = [r for r in rows if r["offset_px"] > args.over or np.isfinite(r["z"])]
        print(
            f"{f.stem:32s} clicks {len(clicks):2d}, with paint evidence {len(rows):2d}, "
            f"suspects {suspects or '-'}"
        )
        for r in shown:
            tag = "SUSPECT" if r["z"] > SUSPECT_Z else ("used" if np.isfinite(r["z"]) else "")
            print(
                f"    {r['name']:28s} {r['lines']} line(s) {r['offset_px']:6.1f} px "
                f"({r['du']:+6.1f}, {r['dv']:+6.1f})  z {r['z']:5.1f} {tag}"
            )
            if r["offset_px"] > args.over:
                big.append((f.stem, r["name"], r["offset_px"]))
            if np.isfinite(r["z"]):
                used.append((f.stem, r["name"]))
    print(
        f"{len(out)} frames, {n_clicks} clicks, {n_ev} with paint evidence; "
        f"{len(big)} over {args.over:g} px; {len(used)} used by the doctor (backed)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

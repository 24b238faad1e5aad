"""Calibration and ball-lifting accuracy on synthetic broadcast cameras (issue 2, section 8).

For each sport: N random broadcast cameras at 1920x1080 (courtstudio.synth.synthetic); for each
click-noise sigma, the keypoint clicks get Gaussian noise and the camera is solved:

- mean |e_fx|, |e_fy| (relative focal error, %, the paper's Table 4 metric), mean camera-centre
  error (cm), mean RMS reprojection (px);
- the Cramer-Rao bound of the focal length at that sigma (from the Jacobian at the true camera)
  and the ratio achieved / bound, both as RMS over cameras (an efficient solver gives 1.0);
- the same with every keypoint the camera sees instead of the paper's six;
- ball lifting: balls over the court, both clicks noisy, camera from the noisy six-point clicks;
  mean |error| along X / Y / Z (cm, the paper's Table 5 metric).

Fixed seeds; run: ``python bench/calibration_accuracy.py [--cameras 200] [--json out.json]``.
Prints markdown tables (pasted into BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from court_specs import load_spec  # noqa: E402
from courtstudio.synth.synthetic import sample_ball, sample_broadcast_camera, visible_keypoints  # noqa: E402
from geometry.calibration import solve_camera  # noqa: E402
from geometry.camera_params import ParamModel  # noqa: E402
from geometry.errors import GeometryError  # noqa: E402
from geometry.rays import lift_ball  # noqa: E402
from geometry.uncertainty import cramer_rao_covariance  # noqa: E402

SIZE = (1920, 1080)
SIGMAS = (0.5, 1.0, 2.0, 4.0)
SPORTS = (
    "tennis",
    "badminton",
    "table_tennis",
    "pickleball",
    "volleyball",
    "basketball_fiba",
    "basketball_nba",
)
BALLS_PER_CAMERA = 5
SIMPLE = ParamModel("simple")


def run_cell(spec, cams, names_of, sigma, rng, with_ball):
    """Accumulate metrics over the cameras for one (sport, sigma, point set)."""
    e_fx, e_fy, e_c, rms, crb, fails = [], [], [], [], [], 0
    ball_err = []
    for cam in cams:
        names = names_of(cam)
        X = np.array([spec.keypoints[n] for n in names])
        uv_true = cam.project(X)
        uv = uv_true + rng.normal(0, sigma, uv_true.shape)
        try:
            fit = solve_camera(X, uv, SIZE, names=names, click_sigma_px=sigma)
        except GeometryError:
            fails += 1
            continue
        f_true = cam.K[0, 0]
        e_fx.append(abs(fit.camera.K[0, 0] / f_true - 1))
        e_fy.append(abs(fit.camera.K[1, 1] / cam.K[1, 1] - 1))
        e_c.append(np.linalg.norm(fit.camera.camera_centre_world - cam.camera_centre_world))
        rms.append(fit.rms_px)
        cov = cramer_rao_covariance(SIMPLE, SIMPLE.from_camera(cam), X, SIZE, sigma)
        crb.append(np.sqrt(cov[6, 6]) / f_true)
        if with_ball:
            for _ in range(BALLS_PER_CAMERA):
                B = sample_ball(spec, rng)
                G = B.copy()
                G[2] = spec.plane_z()
                uv_b, uv_g = cam.project(np.array([B, G]))
                try:
                    res = lift_ball(
                        fit.camera,
                        uv_b + rng.normal(0, sigma, 2),
                        uv_g + rng.normal(0, sigma, 2),
                        spec.plane_z(),
                    )
                except GeometryError:
                    continue
                ball_err.append(np.abs(res.world - B))
    e_fx = np.array(e_fx)
    crb = np.array(crb)
    out = {
        "n": int(len(e_fx)),
        "failures": fails,
        "mean_abs_efx_pct": 100 * float(np.mean(e_fx)),
        "mean_abs_efy_pct": 100 * float(np.mean(e_fy)),
        "rms_efx_pct": 100 * float(np.sqrt(np.mean(e_fx**2))),
        "crb_focal_pct": 100 * float(np.sqrt(np.mean(crb**2))),
        "ratio_to_crb": float(np.sqrt(np.mean(e_fx**2)) / np.sqrt(np.mean(crb**2))),
        "camera_centre_error_cm": 100 * float(np.mean(e_c)),
        "rms_reprojection_px": float(np.mean(rms)),
    }
    if with_ball and ball_err:
        be = np.array(ball_err)
        out["ball_mean_abs_error_cm"] = [100 * float(v) for v in be.mean(axis=0)]
        out["ball_n"] = int(len(be))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cameras", type=int, default=200)
    ap.add_argument("--sports", nargs="+", default=list(SPORTS))
    ap.add_argument("--json", help="also write all figures to this JSON file")
    args = ap.parse_args()
    results = {}
    for si, sport in enumerate(args.sports):
        spec = load_spec(sport)
        cam_rng = np.random.default_rng(1000 + si)
        cams = [sample_broadcast_camera(spec, SIZE, cam_rng) for _ in range(args.cameras)]
        six = spec.minimal_keypoints
        results[sport] = {}
        for sigma in SIGMAS:
            rng = np.random.default_rng(int(2000 + 100 * si + 10 * sigma))
            r6 = run_cell(spec, cams, lambda c, six=six: six, sigma, rng, with_ball=True)
            rall = run_cell(
                spec,
                cams,
                lambda c, spec=spec: list(visible_keypoints(spec, c)),
                sigma,
                rng,
                with_ball=False,
            )
            results[sport][str(sigma)] = {"six": r6, "all": rall}
            print(
                f"{sport:<16} sigma={sigma:<4} six: |efx| {r6['mean_abs_efx_pct']:.3f}% "
                f"bound {r6['crb_focal_pct']:.3f}% ratio {r6['ratio_to_crb']:.3f} centre "
                f"{r6['camera_centre_error_cm']:.1f} cm | all: |efx| "
                f"{rall['mean_abs_efx_pct']:.3f}% ratio {rall['ratio_to_crb']:.3f}",
                file=sys.stderr,
            )
    print_tables(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


PAPER_FOCAL = {"tennis": "4.23 / 4.31", "badminton": "0.55 / 0.72", "table_tennis": "0.01 / 1.45"}
PAPER_BALL = {"tennis": "29 / 11 / 9", "badminton": "10 / 4 / 6", "table_tennis": "0.3 / 0.3 / 0.5"}


def print_tables(results):
    print(
        "\n### Focal length and camera centre, paper's six points (4 corners + 2 net-post "
        "tops; basketball: corners + rings)\n"
    )
    print(
        "| sport | sigma px | mean e_fx / e_fy % | CRB 1-sigma % | ratio to CRB | "
        "centre err cm | RMS px | paper e_fx / e_fy % |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for sport, by_sigma in results.items():
        for sigma, r in by_sigma.items():
            s = r["six"]
            print(
                f"| {sport} | {sigma} | {s['mean_abs_efx_pct']:.3f} / {s['mean_abs_efy_pct']:.3f}"
                f" | {s['crb_focal_pct']:.3f} | {s['ratio_to_crb']:.3f} | "
                f"{s['camera_centre_error_cm']:.1f} | {s['rms_reprojection_px']:.2f} | "
                f"{PAPER_FOCAL.get(sport, '-') if sigma == '1.0' else ''} |"
            )
    print("\n### Every keypoint the camera sees\n")
    print(
        "| sport | sigma px | mean e_fx % | CRB % | ratio to CRB | centre err cm | vs six points |"
    )
    print("|---|---|---|---|---|---|---|")
    for sport, by_sigma in results.items():
        for sigma, r in by_sigma.items():
            a, s = r["all"], r["six"]
            print(
                f"| {sport} | {sigma} | {a['mean_abs_efx_pct']:.3f} | {a['crb_focal_pct']:.3f} "
                f"| {a['ratio_to_crb']:.3f} | {a['camera_centre_error_cm']:.1f} | "
                f"{a['mean_abs_efx_pct'] / s['mean_abs_efx_pct']:.2f}x |"
            )
    print(
        "\n### Ball lifting, mean |error| X / Y / Z (cm), both clicks noisy, camera from "
        "the noisy six-point clicks\n"
    )
    print("| sport | sigma 0.5 | sigma 1 | sigma 2 | sigma 4 | paper (CourtSI engine) |")
    print("|---|---|---|---|---|---|")
    for sport, by_sigma in results.items():
        cells = []
        for sigma in ("0.5", "1.0", "2.0", "4.0"):
            b = by_sigma[sigma]["six"].get("ball_mean_abs_error_cm")
            cells.append("-" if b is None else " / ".join(f"{v:.1f}" for v in b))
        print(f"| {sport} | " + " | ".join(cells) + f" | {PAPER_BALL.get(sport, '-')} |")


if __name__ == "__main__":
    main()

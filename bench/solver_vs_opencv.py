"""Our pinhole calibration vs cv2.calibrateCamera and scipy's least_squares, at equal accuracy.

    PYTHONPATH=. python bench/solver_vs_opencv.py [--cameras 100] [--sigma 1.0]

Synthetic broadcast cameras per sport (fixed seeds), the paper's six keypoints plus every other
visible keypoint, Gaussian click noise. The model is `simple` (one focal, centred principal
point, no distortion). Four solvers:

- ours, whole:   geometry.calibration.solve_camera (focal-free start + LM + checks + covariance)
- ours, LM only: geometry.levenberg_marquardt.refine from the start solve_camera begins from
- scipy LM:      scipy.optimize.least_squares(method="lm") on the same residuals and analytic
                 Jacobian, from the same start
- OpenCV:        cv2.calibrateCamera with the same model (CALIB_USE_INTRINSIC_GUESS with the
                 start's focal, fixed centred principal point, fx = fy, no distortion); it finds
                 its own pose (it takes no pose guess)

Prints, per solver, the median and 90th-percentile CPU time per solve and how far its optimum is
from the whole solve_camera's (RMS and focal; negative: lower RMS than ours). docs/solver.md
quotes the result.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from court_specs import available_specs, load_spec  # noqa: E402
from courtstudio.synth.synthetic import sample_broadcast_camera, visible_keypoints  # noqa: E402
from geometry.calibration import solve_camera  # noqa: E402
from geometry.calibration_starts import initial_candidates  # noqa: E402
from geometry.camera_params import ParamModel, image_centre_uv  # noqa: E402
from geometry.levenberg_marquardt import refine  # noqa: E402

SIZE = (1920, 1080)
CV_FLAGS = (
    cv2.CALIB_USE_INTRINSIC_GUESS
    | cv2.CALIB_FIX_PRINCIPAL_POINT
    | cv2.CALIB_FIX_ASPECT_RATIO
    | cv2.CALIB_ZERO_TANGENT_DIST
    | cv2.CALIB_FIX_K1
    | cv2.CALIB_FIX_K2
    | cv2.CALIB_FIX_K3
)
CV_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-10)


def _timed(fn, *args, **kw):
    """The result and the CPU seconds it took (the machine may be shared: wall time would
    include waiting for a core; OpenCV runs single-threaded here, so CPU time is the cost)."""
    t0 = time.process_time()
    out = fn(*args, **kw)
    return out, time.process_time() - t0


def _rms(model: ParamModel, theta: np.ndarray, X: np.ndarray, uv: np.ndarray) -> float:
    pred, _ = model.project_with_jacobian(theta, X, SIZE)
    return float(np.sqrt(np.mean(np.sum((pred - uv) ** 2, axis=1))))


def _scipy_lm(model: ParamModel, theta0: np.ndarray, X: np.ndarray, uv: np.ndarray):
    def fun(th):
        return (model.project_with_jacobian(th, X, SIZE)[0] - uv).ravel()

    def jac(th):
        return model.project_with_jacobian(th, X, SIZE)[1]

    return least_squares(fun, theta0, jac=jac, method="lm", x_scale="jac", xtol=1e-10, ftol=1e-10).x


def _opencv(f0: float, X: np.ndarray, uv: np.ndarray):
    cx, cy = image_centre_uv(SIZE)  # the one-focal models' principal point
    K0 = np.array([[f0, 0, cx], [0, f0, cy], [0, 0, 1.0]])
    _, K, _, rvecs, tvecs = cv2.calibrateCamera(
        [X.astype(np.float32)],
        [uv.astype(np.float32)],
        SIZE,
        K0,
        np.zeros(5),
        flags=CV_FLAGS,
        criteria=CV_CRITERIA,
    )
    # its solution's RMS recomputed on the float64 clicks, as ours is
    return np.concatenate([rvecs[0].ravel(), tvecs[0].ravel(), [K[0, 0]]])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cameras", type=int, default=100, help="cameras per sport")
    ap.add_argument("--sigma", type=float, default=1.0, help="click noise, px")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    model = ParamModel("simple")
    times: dict[str, list[float]] = {
        k: [] for k in ("whole", "init", "lm_all", "lm", "scipy", "opencv")
    }
    d_rms: dict[str, list[float]] = {"lm": [], "scipy": [], "opencv": []}
    d_f: dict[str, list[float]] = {"lm": [], "scipy": [], "opencv": []}
    for si, sport in enumerate(available_specs()):
        spec = load_spec(sport)
        rng = np.random.default_rng(100 + si)
        for _ in range(args.cameras):
            cam = sample_broadcast_camera(spec, SIZE, rng)
            names = list(visible_keypoints(spec, cam))
            if len(names) < 6:
                continue
            X = np.array([spec.keypoints[n] for n in names], float)
            uv = cam.project(X) + rng.normal(0, args.sigma, (len(X), 2))
            try:
                fit, t_whole = _timed(solve_camera, X, uv, SIZE, model="simple", names=names)
            except Exception:  # noqa: BLE001 - a refused frame is not timed
                continue
            starts, t_init = _timed(initial_candidates, X, uv, SIZE)
            if not starts:
                continue
            t_all = sum(_timed(refine, model, th, X, uv, SIZE)[1] for th in starts)
            theta0 = min(starts, key=lambda th: _rms(model, th, X, uv))
            ours, t_lm = _timed(refine, model, theta0, X, uv, SIZE)
            th_scipy, t_scipy = _timed(_scipy_lm, model, theta0, X, uv)
            th_cv, t_cv = _timed(_opencv, float(theta0[6]), X, uv)
            rms_cv, f_cv = _rms(model, th_cv, X, uv), th_cv[6]
            rms_ours, f_ours = fit.rms_px, fit.camera.K[0, 0]  # the whole solve's optimum
            times["whole"].append(t_whole)
            times["init"].append(t_init)
            times["lm_all"].append(t_all)
            times["lm"].append(t_lm)
            times["scipy"].append(t_scipy)
            times["opencv"].append(t_cv)
            d_rms["scipy"].append(_rms(model, th_scipy, X, uv) - rms_ours)
            d_rms["opencv"].append(rms_cv - rms_ours)
            d_rms["lm"].append(_rms(model, ours.theta, X, uv) - rms_ours)
            d_f["scipy"].append(abs(th_scipy[6] / f_ours - 1))
            d_f["opencv"].append(abs(f_cv / f_ours - 1))
            d_f["lm"].append(abs(ours.theta[6] / f_ours - 1))
    n = len(times["whole"])
    print(
        f"{n} solves ({args.cameras} cameras x {len(available_specs())} sports, "
        f"sigma {args.sigma} px, {SIZE[0]}x{SIZE[1]})"
    )
    labels = {
        "whole": "ours, whole solve_camera",
        "init": "ours, focal-free start",
        "lm_all": "ours, LM from every start",
        "lm": "ours, LM only (same start)",
        "scipy": "scipy least_squares lm",
        "opencv": "cv2.calibrateCamera",
    }
    for k, label in labels.items():
        ts = sorted(times[k])
        print(
            f"{label:<28} CPU median {statistics.median(ts) * 1e3:6.3f} ms  "
            f"p90 {ts[int(0.9 * (n - 1))] * 1e3:6.3f} ms"
        )
    for k in ("lm", "scipy", "opencv"):
        dr = np.array(d_rms[k])
        df = np.array(d_f[k])
        print(
            f"{labels[k]:<28} RMS - ours: median {np.median(dr):+.2e} px, "
            f"max {dr.max():+.2e} px, min {dr.min():+.2e} px; |f/f_ours - 1| median "
            f"{np.median(df):.1e}, max {df.max():.1e}; worse by > 0.01 px in "
            f"{int(np.sum(dr > 0.01))} of {n}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Carry annotated court keypoints from reference frames through a clip and recalibrate every
frame (issue 5; docs/propagation.md).

1. Shots: a jump in the colour histogram between consecutive frames is a cut. A cut ends a
   propagation run and is flagged; runs never cross it.
2. Each frame takes the nearest reference in its shot (so between two references each half
   propagates from its own end) and is registered *directly* to it (geometry.plane_motion):
   the previous frame's homography predicts, the residual is measured, errors do not chain.
3. The reference's clicked keypoints are transferred by that homography (exact for every point
   under pan/tilt/zoom about a fixed point) and the frame is recalibrated, warm-started.
4. Status: "reference"; "static" (the image did not move: the reference camera is reused);
   "ok"; or "flagged" with a reason (cut, registration failed, residual above the threshold,
   court lines that no longer lie on the painted lines, too few keypoints in view, no
   reference in the shot).

Results stream to ``cameras.jsonl`` (one JSON line per frame, written as soon as the frame is
done), so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

import numpy as np

from court_specs import CourtSpec
from courtstudio.calibration import calibrate_court
from geometry.camera import Camera
from geometry.camera_params import ParamModel
from geometry.line_snap import snap_keypoints
from geometry.line_support import line_support
from geometry.plane_motion import is_cut, is_identity, register_to_reference, transfer_points

FLAG_RMS_PX = 3.0
MIN_LINE_SUPPORT = 0.5  # fraction of projected line samples on painted lines
MIN_POINTS_IN_VIEW = 4


class Frames(Protocol):
    """count, size (w, h), image(i); optionally mask(i): uint8 (h, w), 0 where features must
    not be used (players), or None."""

    count: int
    size: tuple[int, int]

    def image(self, index: int) -> np.ndarray: ...


def frame_mask(frames, index: int):
    fn = getattr(frames, "mask", None)
    return fn(index) if fn is not None else None


@dataclass
class FrameCamera:
    frame: int
    status: str
    camera: Camera | None = None
    rms_px: float | None = None
    reason: str = ""
    reference: int | None = None
    H: np.ndarray | None = None  # reference -> frame
    cut: bool = False  # a shot cut just before this frame
    points: dict | None = None  # the keypoints it was calibrated from, px

    def to_json(self) -> dict:
        d = {"frame": self.frame, "status": self.status,
             "rms_px": None if self.rms_px is None else round(float(self.rms_px), 4)}
        if self.camera is not None:
            d.update({"K": self.camera.K.tolist(), "R": self.camera.R.tolist(),
                      "t": self.camera.t.tolist(), "image_size": list(self.camera.image_size),
                      "dist": self.camera.dist.tolist()})
        if self.reason:
            d["reason"] = self.reason
        if self.reference is not None:
            d["reference"] = self.reference
        if self.H is not None:
            d["H_from_reference"] = self.H.tolist()
        if self.cut:
            d["cut"] = True
        if self.points:
            d["points"] = {k: [round(float(v[0]), 3), round(float(v[1]), 3)]
                           for k, v in self.points.items()}
        return d


@dataclass(frozen=True)
class Reference:
    frame: int
    points: dict  # {keypoint: (u, v)}


def find_cuts(frames: Frames) -> list[int]:
    """Frames that start a new shot (index i: a cut between i - 1 and i)."""
    cuts, prev = [], None
    for i in range(frames.count):
        img = frames.image(i)
        if prev is not None and is_cut(prev, img):
            cuts.append(i)
        prev = img
    return cuts


MAX_JSONL_BYTES = 1024 ** 3  # cameras.jsonl: ~1 KB a frame, a million frames
STATUSES = ("reference", "ok", "static", "flagged")


def check_record(d) -> str | None:
    """Why a cameras.jsonl record is unusable (None: it is fine). A record with a camera
    (K) must hold a valid one (K, R, t, image_size, dist: finite, a rotation, positive
    focal, pixels <= 1e6, metres <= 1e4) and a numeric rms_px."""
    from exporters.validation import MAX_ABS_PIXEL, MAX_ABS_WORLD_M
    from geometry.errors import GeometryError
    if not isinstance(d, dict):
        return "expected a JSON object"
    f = d.get("frame")
    if not isinstance(f, int) or isinstance(f, bool) or f < 0:
        return "field frame: expected a frame number >= 0"
    if d.get("status") not in STATUSES:
        return f"field status: expected one of {', '.join(STATUSES)}"
    rms = d.get("rms_px")
    if rms is not None and (not isinstance(rms, (int, float)) or isinstance(rms, bool)
                            or not 0 <= rms <= MAX_ABS_PIXEL):
        return "field rms_px: expected pixels >= 0 or null"
    ref = d.get("reference")
    if ref is not None and (not isinstance(ref, int) or isinstance(ref, bool)):
        return "field reference: expected a frame number"
    for k in ("reason",):
        if k in d and not isinstance(d[k], str):
            return f"field {k}: expected text"
    if "K" in d:
        if rms is None:
            return "field rms_px: a record with a camera needs its RMS"
        try:
            cam = Camera.from_dict(d, "camera")
        except GeometryError as exc:
            return f"field {exc}"
        if (np.abs(cam.K).max() > MAX_ABS_PIXEL or max(cam.image_size) > MAX_ABS_PIXEL
                or np.abs(cam.camera_centre_world).max() > MAX_ABS_WORLD_M
                or np.abs(cam.dist).max() > MAX_ABS_WORLD_M):
            return "field K/t/dist/image_size: absurd magnitude"
    return None


def read_done(path: Path, problems: list | None = None) -> dict[int, dict]:
    """Valid records of a cameras.jsonl by frame (a partial last line from a kill, and any
    line that is not a valid record, is skipped and, when ``problems`` is given, described
    there as 'line N: why'). The file must be a regular file of at most MAX_JSONL_BYTES."""
    from courtstudio.points_file import InputError
    from exporters.validation import parse_json_text, read_file_bytes
    done = {}
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return done
    text = read_file_bytes(path, MAX_JSONL_BYTES, InputError, "cameras.jsonl file").decode(
        "utf-8", "replace")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = parse_json_text(line, f"{path}: line {n}", InputError)
        except InputError as exc:
            if problems is not None:
                problems.append(str(exc))
            continue
        why = check_record(d)
        if why is not None:
            if problems is not None:
                problems.append(f"{path}: line {n}: {why}")
            continue
        done[d["frame"]] = d
    return done


def propagate(frames: Frames, spec: CourtSpec, references: list[Reference], out_dir,
              flag_rms_px: float = FLAG_RMS_PX, shared_centre: bool = True,
              progress: Callable[[int, int], None] | None = None, workers: int = 1,
              frames_source=None, snap: bool = False) -> list[dict]:
    """Calibrate every frame of the clip; returns the cameras.jsonl records (frame order).

    workers > 1 runs the propagation runs (one per reference and direction) in that many
    processes; frames_source (picklable, called to open the frames in a worker, e.g.
    VideoSource) is then required. snap: refine the transferred keypoints that are line
    crossings on the painted lines (geometry.line_snap) before recalibrating."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "cameras.jsonl"
    done = read_done(path)
    n = frames.count
    refs = sorted(references, key=lambda r: r.frame)
    for r in refs:
        if not 0 <= r.frame < n:
            raise ValueError(f"reference frame {r.frame} is outside the clip (0..{n - 1})")
    cuts = find_cuts(frames)
    cut_set = set(cuts)
    bounds = [0] + cuts + [n]
    shots = list(zip(bounds[:-1], bounds[1:]))
    ref_cams = {}
    for r in refs:
        cal = calibrate_court(spec, frames.size, r.points, diagnose=False)
        ref_cams[r.frame] = cal
    finished = len(done)
    jobs = []
    with open(path, "a") as fh:
        def emit(rec: FrameCamera):
            nonlocal finished
            rec.cut = rec.frame in cut_set
            d = rec.to_json()
            fh.write(json.dumps(d) + "\n")
            fh.flush()
            done[rec.frame] = d
            finished += 1
            if progress:
                progress(finished, n)

        for s0, s1 in shots:
            in_shot = [r for r in refs if s0 <= r.frame < s1]
            if not in_shot:
                for i in range(s0, s1):
                    if i not in done:
                        emit(FrameCamera(i, "flagged", reason="no reference in this shot"
                                         + (" (starts at a cut)" if i == s0 and s0 else "")))
                continue
            for k, r in enumerate(in_shot):
                lo = s0 if k == 0 else (in_shot[k - 1].frame + r.frame) // 2 + 1
                hi = s1 - 1 if k == len(in_shot) - 1 else (r.frame + in_shot[k + 1].frame) // 2
                if r.frame not in done:
                    cal = ref_cams[r.frame]
                    emit(FrameCamera(r.frame, "reference", cal.camera, cal.fit.rms_px,
                                     reference=r.frame, H=np.eye(3), points=r.points))
                for direction, stop in ((1, hi), (-1, lo)):
                    jobs.append((r, ref_cams[r.frame].camera, direction, stop))
        if workers > 1 and frames_source is not None and len(jobs) > 1:
            from concurrent.futures import ProcessPoolExecutor
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(_job, frames_source, spec.source or spec.id, job,
                                       dict(done), flag_rms_px, snap)
                           for job in jobs]
                for fut in futures:
                    for rec in fut.result():
                        emit(rec)
        else:
            for ref, cam, direction, stop in jobs:
                _run(frames, spec, ref, cam, direction, stop, done, emit, flag_rms_px, snap)
    records = [done[i] for i in sorted(done)]
    if shared_centre:
        for s0, s1 in shots:
            share_centre(records[s0:s1], spec, frames.size, flag_rms_px)
        write_jsonl_atomic(path, records)
    return records


SHARED_TOL_PX = 0.5


def share_centre(records: list[dict], spec: CourtSpec, size, flag_rms_px: float) -> None:
    """One camera centre for a shot (the median of its frames' free solutions); each frame is
    refitted for rotation and focal length with it, and keeps its free pose where the shared
    centre fits more than SHARED_TOL_PX worse (the camera moved). In place."""
    from geometry.fixed_centre import solve_fixed_centre
    solved = [r for r in records if r["status"] in ("ok", "reference") and r.get("points")]
    if len(solved) < 2:
        return
    cams = {r["frame"]: _camera(r) for r in solved}
    C = np.median([c.camera_centre_world for c in cams.values()], axis=0)
    for r in solved:
        names = list(r["points"])
        X = np.array([spec.keypoints[n] for n in names])
        uv = np.array([r["points"][n] for n in names])
        try:
            cam, rms = solve_fixed_centre(X, uv, size, C, cams[r["frame"]])
        except ValueError:
            r["centre"] = "free"
            continue
        if rms <= (r["rms_px"] or 0.0) + SHARED_TOL_PX and rms <= flag_rms_px:
            r.update({"K": cam.K.tolist(), "R": cam.R.tolist(), "t": cam.t.tolist(),
                      "dist": cam.dist.tolist(),
                      "rms_px": round(rms, 4), "centre": "shared"})
        else:
            r["centre"] = "free"
    by_frame = {r["frame"]: r for r in records}
    for r in records:  # static frames show their reference's final camera
        ref = by_frame.get(r.get("reference"))
        if r["status"] == "static" and ref is not None and "K" in ref:
            r.update({k: ref[k] for k in ("K", "R", "t", "dist") if k in ref})


def _camera(r: dict) -> Camera:
    return Camera(np.array(r["K"]), np.array(r["R"]), np.array(r["t"]), tuple(r["image_size"]),
                  dist=np.array(r.get("dist", np.zeros(5))))


def write_jsonl_atomic(path: Path, records: list[dict]) -> None:
    from exporters.atomic import write_text_atomic
    write_text_atomic(path, "".join(json.dumps(r) + "\n" for r in records))


def _camera_from_theta(theta, size) -> Camera:
    return ParamModel("simple").to_camera(theta, size)


def _run(frames: Frames, spec, ref: Reference, ref_cam: Camera, direction: int, stop: int,
         done: dict, emit, flag_rms_px: float, snap: bool = False) -> None:
    """Frames ref.frame + direction ... stop (inclusive), registered to the reference."""
    ref_img = frames.image(ref.frame)
    ref_mask = frame_mask(frames, ref.frame)
    ground_lines = [pl for pl in spec.lines.values()
                    if np.all(np.abs(pl[:, 2] - spec.plane_z()) < 1e-9)]
    names = list(ref.points)
    ref_uv = np.array([ref.points[n] for n in names], float)
    H_prev = np.eye(3)
    theta = ParamModel("simple").from_camera(ref_cam)
    # the reference's lens: a pinhole stays a pinhole; a distorted one lets each frame choose
    lens_model = "auto" if ref_cam.has_distortion else "simple"
    i = ref.frame + direction
    while (direction > 0 and i <= stop) or (direction < 0 and i >= stop):
        if i in done:  # resuming: continue from the recorded homography
            H_rec = done[i].get("H_from_reference")
            if H_rec is not None:
                H_prev = np.array(H_rec)
            i += direction
            continue
        img = frames.image(i)
        reg = register_to_reference(ref_img, img, H_prev, ref_mask, frame_mask(frames, i))
        if not reg.ok:
            emit(FrameCamera(i, "flagged", reason=f"registration failed ({reg.inliers} "
                                                  "inliers): blur, a cut or occlusion",
                             reference=ref.frame))
            i += direction
            continue
        H_prev = reg.H
        if is_identity(reg.H, frames.size):
            emit(FrameCamera(i, "static", ref_cam, 0.0, reference=ref.frame, H=reg.H))
            i += direction
            continue
        uv = transfer_points(reg.H, ref_uv)
        w, h = frames.size
        inside = (uv[:, 0] >= 0) & (uv[:, 0] <= w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] <= h - 1)
        if inside.sum() < MIN_POINTS_IN_VIEW:
            emit(FrameCamera(i, "flagged", reason=f"only {int(inside.sum())} keypoints in view",
                             reference=ref.frame, H=reg.H))
            i += direction
            continue
        pts = {n: tuple(p) for n, p, ok in zip(names, uv, inside) if ok}
        if snap:
            ground = {n: v for n, v in pts.items()
                      if abs(spec.keypoints[n][2] - spec.plane_z()) < 1e-9}
            snapped, _ = snap_keypoints(img, _camera_from_theta(theta, frames.size), ground,
                                        spec.keypoints, ground_lines)
            pts.update(snapped)
        try:
            cal = calibrate_court(spec, frames.size, pts, diagnose=False, theta0=theta,
                                  model=lens_model)
        except ValueError as exc:
            emit(FrameCamera(i, "flagged", reason=f"recalibration failed: {exc}",
                             reference=ref.frame, H=reg.H))
            i += direction
            continue
        theta = ParamModel("simple").from_camera(cal.camera)
        status, reason = "ok", ""
        support = line_support(img, cal.camera, ground_lines)
        if cal.fit.rms_px > flag_rms_px:
            status, reason = "flagged", f"residual {cal.fit.rms_px:.1f} px"
        elif support < MIN_LINE_SUPPORT:
            status, reason = "flagged", (f"court lines do not match the image (support "
                                         f"{support:.2f})")
        emit(FrameCamera(i, status, cal.camera, cal.fit.rms_px, reason, ref.frame, reg.H,
                         points=pts))
        i += direction


def _job(frames_source, spec_ref, job, done, flag_rms_px, snap=False) -> list[FrameCamera]:
    """One propagation run in a worker process; returns its records."""
    from court_specs import load_spec
    frames = frames_source()
    spec = load_spec(spec_ref)
    out: list[FrameCamera] = []
    ref, cam, direction, stop = job
    _run(frames, spec, ref, cam, direction, stop, dict(done), out.append, flag_rms_px, snap)
    return out


@dataclass(frozen=True)
class VideoSource:
    """A picklable way to open a video's frames in another process."""

    path: str

    def __call__(self) -> "VideoFrames":
        return VideoFrames(self.path)


def summary(records: list[dict]) -> dict:
    counts: dict[str, int] = {}
    for r in records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    flagged = [{"frame": r["frame"], "reason": r.get("reason", "")} for r in records
               if r["status"] == "flagged"]
    cuts = [r["frame"] for r in records if r.get("cut")]
    return {"frames": len(records), "counts": counts, "cuts": cuts, "flagged": flagged}


class VideoFrames:
    """Frames of a video file, decoded in order with a small cache (propagation reads each
    frame a few times, mostly in sequence)."""

    def __init__(self, path, cache: int = 64):
        from courtstudio.frames import VideoReader
        self.reader = VideoReader(path)
        self.count = self.reader.frame_count
        self.size = self.reader.size
        self._cache: dict[int, np.ndarray] = {}
        self._order: list[int] = []
        self.cache = cache

    def image(self, index: int) -> np.ndarray:
        hit = self._cache.get(index)
        if hit is not None:
            return hit
        img = self.reader.read(index)
        self._cache[index] = img
        self._order.append(index)
        if len(self._order) > self.cache:
            self._cache.pop(self._order.pop(0), None)
        return img


def print_progress(done: int, total: int) -> None:
    if done == total or done % 10 == 0:
        print(f"\rpropagating: {done}/{total} frames", end="\n" if done == total else "",
              file=sys.stderr, flush=True)


class ProjectFrames:
    """A project's frames (images or video) as propagation input; annotated player boxes are
    masked so players do not drive the camera motion."""

    BOX_PAD = 0.1

    def __init__(self, project, store=None, annotation_of=None):
        from courtstudio.frames import FrameStore
        self.project = project
        self.store = store or FrameStore(project)
        self.count = len(project.frames)
        self.size = self.store.image_size(project.frames[0]) if project.frames else (0, 0)
        self.annotation_of = annotation_of or project.load_annotation

    def image(self, index: int) -> np.ndarray:
        return self.store.image(self.project.frames[index])

    def mask(self, index: int):
        ann = self.annotation_of(self.project.frames[index].id)
        if ann is None or not ann.players:
            return None
        w, h = self.size
        m = np.full((h, w), 255, np.uint8)
        for p in ann.players:
            x0, y0, x1, y1 = p.box_xyxy
            px, py = self.BOX_PAD * (x1 - x0), self.BOX_PAD * (y1 - y0)
            m[max(0, int(y0 - py)):int(y1 + py) + 1, max(0, int(x0 - px)):int(x1 + px) + 1] = 0
        return m


def project_references(project, annotation_of=None) -> list[Reference]:
    """Every frame of the project annotated with at least 4 court keypoints."""
    refs = []
    for i, f in enumerate(project.frames):
        ann = annotation_of(f.id) if annotation_of else project.load_annotation(f.id)
        if ann is not None and len(ann.points) >= 4:
            refs.append(Reference(i, dict(ann.points)))
    return refs


def propagate_project(project, references=None, store=None, progress=None,
                      annotation_of=None) -> list[dict]:
    """Propagate through a project (one sport): writes PROJECT/propagation/cameras.jsonl and
    summary.json. A run with other references than the saved one starts afresh."""
    from court_specs import load_spec
    from exporters.atomic import write_json_atomic
    sports = {f.sport for f in project.frames}
    if len(sports) != 1:
        raise ValueError(f"propagation needs one sport per project; this one has "
                         f"{', '.join(sorted(sports))}")
    refs = references if references is not None else project_references(project,
                                                                         annotation_of)
    if not refs:
        raise ValueError("no reference: annotate at least 4 court keypoints on a frame")
    out = project.root / "propagation"
    fingerprint = [[r.frame, sorted((k, [round(v[0], 3), round(v[1], 3)])
                                    for k, v in r.points.items())] for r in refs]
    summary_path = out / "summary.json"
    if summary_path.exists():
        try:
            old = json.loads(summary_path.read_text()).get("references")
        except ValueError:
            old = None
        if old != fingerprint and (out / "cameras.jsonl").exists():
            (out / "cameras.jsonl").unlink()
    records = propagate(ProjectFrames(project, store, annotation_of), load_spec(sports.pop()),
                        refs, out, progress=progress)
    rep = summary(records)
    rep["references"] = fingerprint
    write_json_atomic(summary_path, rep)
    return records

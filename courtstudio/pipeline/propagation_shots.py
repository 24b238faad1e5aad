"""Per-shot bookkeeping of a propagation run's records: the shots between its cuts, the
frames registered to a reference outside their shot, and one shared camera centre per shot
(docs/propagation.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import cv2
import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.propagation_flags import WEAK_GEOMETRY
from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from geometry.arrays import median_axis0
from geometry.camera import Camera, image_centre_uv
from geometry.held_lens import field_dist
from geometry.pixel_lens import PixelLens


def _shots(records: dict, n: int, lo: int = 0) -> list[tuple[int, int]]:
    """(start, end) of the shots of frames lo..n-1: a record's ``cut`` starts one (records:
    frame -> record, or anything with .get)."""
    cuts = [i for i in range(lo + 1, n) if records.get(i, {}).get("cut")]
    bounds = [lo] + cuts + [n]
    return list(zip(bounds[:-1], bounds[1:]))


def _misassigned(records: dict, shots, refs) -> list[tuple[int, int, list]]:
    """Blocks (lo, hi, in-shot references) of frames whose record used a reference outside
    their shot, or found none, while their shot has one of its own."""
    out = []
    for s0, s1 in shots:
        in_shot = [r for r in refs if s0 <= r.frame < s1]
        if not in_shot:  # its frames were registered to any reference, and verified
            continue
        bad = [
            i
            for i in range(s0, s1)
            if records.get(i, {}).get("status") != Status.REFERENCE
            and (
                (
                    records.get(i, {}).get("reference") is not None
                    and not s0 <= records[i]["reference"] < s1
                )
                or records.get(i, {}).get("reason", "").startswith("no reference")
            )
        ]
        if bad:
            out.append((bad[0], bad[-1] + 1, in_shot))
    return out


SHARED_TOL_PX = 0.5
# A frame whose transferred keypoints fit the shot's camera centre worse than its reference's
# clicks do by more than this (px at 1080p, scaled by the image height) is flagged: a camera
# on a fixed mount only turns and zooms, so keypoints that need another centre were carried by
# a homography that is no pan, tilt or zoom (a registration right where the surface has
# features and wrong towards the corners). Measured: synthetic low-texture and graphics clips,
# 10 frames 9-23 px off at a corner with every keypoint transferred and predicted 1 px,
# 3.2-9.2 px at 1080p against at most 3.2 for their right frames; the 13 real clips' frames
# left ok at most 3.17 beyond their reference's (NYK-BOS's last two frames), the hand-held
# pickleball pan 1.9 (BENCHMARKS.md, fifth session).
CENTRE_MISFIT_PX_1080 = 3.2
OFF_CENTRE = "keypoints do not fit the shot's camera centre"


SHARE_CHUNK = 2048
# Frames refitted in one batch. A shot of any length is refitted chunk after chunk, so the last
# step's memory is bounded by this (an hour of one shot held 1.1 GB as a whole, BENCHMARKS.md
# tenth session); every frame's arithmetic is its own (the batch solve's frames are
# independent and padded to the shot's widest), so any chunking gives the same bits.


def share_centre(records: list[dict], spec: CourtSpec, size, flag_rms_px: float) -> None:
    """One camera centre for a shot (the median of its frames' free solutions); each frame is
    refitted for rotation and focal length with it, and keeps its free pose where the shared
    centre fits more than SHARED_TOL_PX worse (the camera moved). In place, on one shot's
    records (consecutive frames in frame order) held in memory; share_centre_chunks is the
    same step over a shot read chunk by chunk. All frames are refitted in vectorised solves
    (geometry.fixed_centre_batch); a frame it leaves without a valid camera is solved alone
    (geometry.fixed_centre). Frames flagged for weak geometry alone are refitted too (the
    shared centre removes three of the parameters their few keypoints fail to determine) but
    stay flagged and do not move the centre. A frame whose camera was refined on its painted
    lines (``refined``: "lines") counts towards the centre but keeps its camera: refitted to
    its keypoints alone it would lose what its lines pinned (a real NBA frame refined to
    1.7 px went back to 8.6 px)."""
    by_frame = {r["frame"]: r for r in records}
    for _ in share_centre_chunks(lambda: [records], by_frame.get, spec, size, flag_rms_px):
        pass


def share_centre_chunks(
    chunks: Callable[[], Iterable[list[dict]]],
    record_at: Callable[[int], dict | None],
    spec: CourtSpec,
    size,
    flag_rms_px: float,
) -> Iterator[list[dict]]:
    """share_centre over one shot read in chunks: ``chunks()`` yields its records (in frame
    order, consecutive lists) and is called twice (the centre, then the refit);
    ``record_at(frame)`` is a frame's record, or None outside the shot, called once for each
    frame some record names as its reference. Yields each chunk refitted (the records
    ``chunks()`` gave, except that a referenced frame's record is the one ``record_at`` gave,
    refitted before the rest: its static frames copy its final camera and the off-centre test
    reads its final residual). Unchanged when fewer than two frames are trusted."""
    centre = ShotCentre.of(chunks())
    if centre is None:
        yield from chunks()
        return
    refs = {f: r for f in sorted(centre.referenced) if (r := record_at(f)) is not None}
    centre.refit([r for r in refs.values() if _solved(r)], spec, size, flag_rms_px)
    for chunk in chunks():
        chunk = [refs.get(r["frame"], r) for r in chunk]
        solved = [r for r in chunk if _solved(r)]
        centre.refit([r for r in solved if r["frame"] not in refs], spec, size, flag_rms_px)
        _flag_off_centre(solved, refs, size)
        for r in chunk:  # static frames show their reference's final camera
            ref = refs.get(r.get("reference"))
            if r["status"] == Status.STATIC and ref is not None and "K" in ref:
                r.update({k: ref[k] for k in ("K", "R", "t", "dist") if k in ref})
        yield chunk


@dataclass(frozen=True)
class ShotCentre:
    """A shot's shared camera centre C (3,) metres, world frame; the padding width of its
    batch solves n_max (the most keypoints of any frame refitted: one width for the whole
    shot keeps each frame's arithmetic the same in any chunking); and the frames its records
    name as their reference."""

    C: np.ndarray
    n_max: int
    referenced: frozenset

    @classmethod
    def of(cls, chunks: Iterable[list[dict]]) -> ShotCentre | None:
        """From a shot's records (chunks in frame order); None when fewer than two frames
        are trusted. Memory: 24 bytes a trusted frame."""
        centres, n_max, referenced = [], 0, set()
        for chunk in chunks:
            referenced.update(r["reference"] for r in chunk if r.get("reference") is not None)
            solved = [r for r in chunk if _solved(r)]
            n_max = max([n_max] + [len(r["points"]) for r in solved])
            trusted = [r for r in solved if _trusted(r)]
            if trusted:  # the centres -R^T t, per axis, of the trusted frames; a weak-geometry
                # frame (flagged, its registration sound) is refitted about them but does not
                # move them
                Rs = np.array([r["R"] for r in trusted], float)
                ts = np.array([r["t"] for r in trusted], float)
                centres.append(-np.einsum("fji,fj->fi", Rs, ts))
        if sum(map(len, centres)) < 2:
            return None
        return cls(median_axis0(np.concatenate(centres)), n_max, frozenset(referenced))

    def refit(self, solved: list[dict], spec: CourtSpec, size, flag_rms_px: float) -> None:
        """Refit (in place) records of this shot about C, at most SHARE_CHUNK in a batch."""
        for k in range(0, len(solved), SHARE_CHUNK):
            _refit_batch(solved[k : k + SHARE_CHUNK], spec, size, flag_rms_px, self)


def _refit_batch(solved: list[dict], spec: CourtSpec, size, flag_rms_px, centre) -> None:
    from geometry.fixed_centre_batch import rodrigues_many, solve_fixed_centre_many

    if not solved:
        return
    F, n_max, C = len(solved), centre.n_max, centre.C
    Rs = np.array([r["R"] for r in solved], float)
    Ks = np.array([r["K"] for r in solved], float)
    X, uv, weight = np.zeros((F, n_max, 3)), np.zeros((F, n_max, 2)), np.zeros((F, n_max))
    dist = np.zeros((F, 5))
    # a held lens is a pixel field (geometry.held_lens): its frames are refitted as pinholes
    # in the field's ideal pixels, and their coefficients follow the refitted focal
    fields = [_held_field(r, size) for r in solved]
    for k, r in enumerate(solved):
        names = list(r["points"])
        X[k, : len(names)] = [spec.keypoints[n] for n in names]
        pts = np.array([r["points"][n] for n in names], float)
        uv[k, : len(names)] = pts if fields[k] is None else fields[k].undistort(pts)
        weight[k, : len(names)] = 1.0
        d = np.asarray(r.get("dist") or [], float).ravel()[:5]
        if fields[k] is None:
            dist[k, : len(d)] = d
    theta0 = np.concatenate(
        [
            np.array([cv2.Rodrigues(R)[0].ravel() for R in Rs]),
            0.5 * (Ks[:, 0, 0] + Ks[:, 1, 1])[:, None],
        ],
        axis=1,
    )
    theta, rms_all = solve_fixed_centre_many(X, uv, weight, size, C, theta0, dist)
    R_all = rodrigues_many(theta[:, :3])
    c = image_centre_uv(size)
    for k, r in enumerate(solved):
        if r.get("refined") == "lines":  # fitted to its lines too: a refit to its points
            r["centre"] = "free"  # alone would drop them (and its prediction with them)
            continue
        if np.all(np.isfinite(theta[k])) and theta[k, 3] > 0 and np.isfinite(rms_all[k]):
            f = float(theta[k, 3])
            K = np.array([[f, 0.0, c[0]], [0.0, f, c[1]], [0.0, 0.0, 1.0]])
            R, rms = R_all[k], float(rms_all[k])
        else:
            cam = _fixed_centre_alone(r, spec, size, C, fields[k])
            if cam is None:
                r["centre"] = "free"
                continue
            (K, R, rms) = cam
        d = dist[k] if fields[k] is None else field_dist(fields[k], K[0, 0])
        if fields[k] is not None:  # the residual in the frame's own (distorted) pixels
            rms = _rms_distorted(r, spec, Camera(K, R, -R @ C, size, dist=d))
        r["centre_rms_px"] = round(rms, 4) if np.isfinite(rms) else None
        if rms <= (r["rms_px"] or 0.0) + SHARED_TOL_PX and rms <= flag_rms_px:
            r.update(
                {
                    "K": K.tolist(),
                    "R": R.tolist(),
                    "t": (-R @ C).tolist(),
                    "dist": d.tolist(),
                    "rms_px": round(rms, 4),
                    "centre": "shared",
                }
            )
        else:
            r["centre"] = "free"


def _flag_off_centre(solved: list[dict], by_frame: dict, size) -> None:
    """Flag (in place) the frames left ok whose keypoints fit the shot's centre
    (``centre_rms_px``) worse than their reference's record fits its clicks by more than
    CENTRE_MISFIT_PX_1080 (scaled by the image height). They keep their camera, as weak
    frames do."""
    limit = CENTRE_MISFIT_PX_1080 * size[1] / 1080.0
    for r in solved:
        c, ref = r.get("centre_rms_px"), by_frame.get(r.get("reference"))
        if r["status"] != Status.OK or c is None or ref is None or ref.get("rms_px") is None:
            continue
        beyond = float(c) - float(ref["rms_px"])
        if beyond > limit:
            r["status"] = Status.FLAGGED
            r["reason"] = (
                f"{OFF_CENTRE} ({beyond:.1f} px beyond its reference's residual, "
                f"limit {limit:.1f}): a registration that is no pan, tilt or zoom"
            )


def _solved(r: dict) -> bool:
    """A record the shared centre refits: keypoints, and trusted or weak."""
    return bool(r.get("points")) and (_trusted(r) or _weak(r))


def _trusted(r: dict) -> bool:
    return r["status"] in (Status.OK, Status.REFERENCE)


def _weak(r: dict) -> bool:
    """Flagged for weak geometry alone: a camera from a sound registration (propagate_frame)."""
    return (
        r["status"] == Status.FLAGGED and "K" in r and r.get("reason", "").startswith(WEAK_GEOMETRY)
    )


def _fixed_centre_alone(r: dict, spec: CourtSpec, size, C, field: PixelLens | None = None):
    """(K, R, rms px) of one record refitted about the centre C by geometry.fixed_centre, or
    None when that fails. With a held lens field, fitted as a pinhole in its ideal pixels."""
    from geometry.fixed_centre import solve_fixed_centre

    names = list(r["points"])
    X = np.array([spec.keypoints[n] for n in names])
    uv = np.array([r["points"][n] for n in names])
    start = _camera(r)
    if field is not None:
        uv = field.undistort(uv)
        start = Camera(start.K, start.R, start.t, start.image_size)
    try:
        cam, rms = solve_fixed_centre(X, uv, size, C, start)
    except ValueError:
        return None
    return cam.K, cam.R, rms


def _held_field(r: dict, size) -> PixelLens | None:
    """The pixel field of a record whose lens was held (``lens`` "held"), else None."""
    if r.get("lens") != "held" or not any(r.get("dist") or []):
        return None
    return PixelLens(np.array(r["K"], float), np.array(r["dist"], float), size)


def _rms_distorted(r: dict, spec: CourtSpec, camera: Camera) -> float:
    names = list(r["points"])
    X = np.array([spec.keypoints[n] for n in names], float)
    uv = np.array([r["points"][n] for n in names], float)
    return float(np.sqrt(np.mean(np.sum((camera.project(X) - uv) ** 2, axis=1))))


def _camera(r: dict) -> Camera:
    return Camera.from_dict(r, f"frame {r.get('frame')} camera")

"""A run's last steps read a shot in chunks (courtstudio/pipeline/propagation_finish.py):
the shared-centre refit and the isolated-refinement rule give the same bits chunk by chunk as
over the whole shot held at once, so memory stays flat in the shot's length; and one singular
frame in the batch solve no longer stops every other frame's iterations."""

import copy
import json

import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.pipeline import propagation_finish, propagation_shots
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.pipeline.propagation_flags import WEAK_GEOMETRY
from courtstudio.pipeline.propagation_isolated import (
    flag_isolated_in_chunks,
    flag_isolated_refinements,
)
from courtstudio.pipeline.propagation_shots import OFF_CENTRE, share_centre, share_centre_chunks
from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip
from geometry.camera import Camera, rotation_look_at
from tests.propagation_clips import reference_clicks

SPEC = load_spec("tennis")
SIZE = (1280, 720)
CENTRE = np.array([48.0, 5.5, 12.0])
NAMES = [n for n, X in SPEC.keypoints.items() if abs(X[2]) < 1e-9]


def _shot(n: int = 41, ref: int = 27, seed: int = 5) -> list[dict]:
    """Records of one shot of a camera that pans and zooms about CENTRE: free solutions whose
    centres scatter by 0.2 m, clicks with 0.4 px of noise; the reference at frame ``ref``
    (after the static frames 2-4 that copy its camera), weak-geometry frames, a frame refined
    on its lines, one whose keypoints were sheared 6 % (off the shot's centre) and one with
    three points only (a narrower row of the padded batch)."""
    rng = np.random.default_rng(seed)
    R0 = rotation_look_at(CENTRE, np.array([14.0, 5.5, 0.0]))
    out = []
    for i in range(n):
        yaw, f = 0.004 * np.sin(i / 5), 1200.0 * (1 + 0.003 * i)
        c, s = np.cos(yaw), np.sin(yaw)
        R = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]) @ R0
        K = np.array([[f, 0, 639.5], [0, f, 359.5], [0, 0, 1]])
        truth = Camera(K, R, -R @ CENTRE, SIZE)
        names = NAMES[:3] if i == 9 else NAMES
        uv = truth.project(np.array([SPEC.keypoints[m] for m in names]))
        uv = uv + rng.normal(0, 0.4, uv.shape)
        if i == 17:  # carried by a homography that is no pan, tilt or zoom
            uv = (uv - [639.5, 359.5]) @ np.array([[1.0, 0.0], [0.06, 1.0]]) + [639.5, 359.5]
        free = Camera(
            K * [[1.01, 1, 1], [1, 1.01, 1], [1, 1, 1]],
            R,
            -R @ (CENTRE + rng.normal(0, 0.2, 3)),
            SIZE,
        )
        rec = {
            "frame": i,
            "status": Status.REFERENCE if i == ref else Status.OK,
            "reference": None if i == ref else ref,
            "K": free.K.tolist(),
            "R": free.R.tolist(),
            "t": free.t.tolist(),
            "image_size": list(SIZE),
            "dist": [0.0] * 5,
            "rms_px": round(0.3 + 0.01 * i, 4),
            "points": {m: [float(a) for a in p] for m, p in zip(names, uv)},
        }
        if i in (2, 3, 4):
            rec.update(status=Status.STATIC, rms_px=None)
        if i in (30, 31):
            rec.update(status=Status.FLAGGED, reason=f"{WEAK_GEOMETRY}: uncertain by 9 px")
        if i == 12:
            rec["refined"] = "lines"
        out.append(rec)
    return out


def _chunked(records: list[dict], size: int) -> list[list[dict]]:
    return [records[k : k + size] for k in range(0, len(records), size)]


@pytest.mark.parametrize("chunk", [1, 4, 7, 41])
def test_share_centre_in_chunks_gives_the_same_bits_as_the_whole_shot(monkeypatch, chunk):
    whole = _shot()
    share_centre(whole, SPEC, SIZE, flag_rms_px=3.0)
    # the step did its work: refitted, static frames given the later reference's final
    # camera, the sheared frame flagged, the lined frame kept
    assert sum(r.get("centre") == "shared" for r in whole) >= 30
    assert all(whole[i]["K"] == whole[27]["K"] for i in (2, 3, 4))
    assert whole[27]["centre"] == "shared"
    assert whole[17]["status"] == Status.FLAGGED and whole[17]["reason"].startswith(OFF_CENTRE)
    assert whole[12]["centre"] == "free"
    monkeypatch.setattr(propagation_shots, "SHARE_CHUNK", max(1, chunk // 2))
    file = {r["frame"]: r for r in _shot()}  # as read back from cameras.jsonl: fresh copies
    shot = [copy.deepcopy(file[i]) for i in sorted(file)]
    got = [
        r
        for c in share_centre_chunks(
            lambda: iter(_chunked(shot, chunk)),
            lambda f: copy.deepcopy(file[f]) if f in file else None,
            SPEC,
            SIZE,
            3.0,
        )
        for r in c
    ]
    assert json.dumps(got) == json.dumps(whole)


def test_a_shot_with_one_trusted_frame_passes_through_unchanged():
    shot = _shot(6, ref=0)
    for r in shot[1:]:
        r.update(status=Status.FLAGGED, reason="registration failed")
    before = copy.deepcopy(shot)
    got = [
        r
        for c in share_centre_chunks(lambda: iter([shot]), lambda f: None, SPEC, SIZE, 3.0)
        for r in c
    ]
    assert got == before


@pytest.mark.parametrize("seed", range(6))
def test_isolated_rule_in_chunks_makes_the_whole_shots_verdicts(seed):
    rng = np.random.default_rng(seed)
    kinds = {
        "W": {"status": "flagged", "reason": f"{WEAK_GEOMETRY}: uncertain by 9 px"},
        "L": {"status": "ok", "refined": "lines"},
        "o": {"status": "ok"},
    }
    pattern = "".join(rng.choice(list("WLo"), 80, p=[0.86, 0.1, 0.04])) + "WWWWWWLLLWWWWWWW"
    shot = [{"frame": i, "reference": 0, **kinds[c]} for i, c in enumerate(pattern)]
    whole = copy.deepcopy(shot)
    flagged = flag_isolated_refinements(whole)
    # the pattern has isolated refinements to find, and refinements that are not
    assert flagged and len(flagged) < pattern.count("L")
    for size in (1, 2, 5, 13, 96):
        got = [r for c in flag_isolated_in_chunks(_chunked(copy.deepcopy(shot), size)) for r in c]
        assert got == whole, size


def test_the_last_steps_in_small_chunks_write_the_same_file(tmp_path, monkeypatch):
    """A synthetic clip with a cut through propagate, its last steps in chunks of 5 frames:
    cameras.jsonl byte for byte as with one chunk a shot."""
    spec = load_spec("tennis")
    clip = make_clip(spec, 30, (960, 540), seed=3, cut_at=(18,), cut_length=4)
    cam0 = clip.cameras[0]
    refs = [Reference(0, reference_clicks(spec, cam0))]
    propagate(ClipFrames(clip), spec, refs, tmp_path / "a", keep_records=False)
    monkeypatch.setattr(propagation_shots, "SHARE_CHUNK", 5)
    monkeypatch.setattr(propagation_finish, "SHARE_CHUNK", 5)
    kept = propagate(ClipFrames(clip), spec, refs, tmp_path / "b")
    a = (tmp_path / "a" / "cameras.jsonl").read_bytes()
    assert a == (tmp_path / "b" / "cameras.jsonl").read_bytes()
    assert sum(r.get("centre") == "shared" for r in kept) >= 10
    assert [r["frame"] for r in kept] == list(range(30))


def test_each_frame_of_the_batch_solve_is_its_own():
    """A frame refitted in a batch with others gets exactly the bits it gets alone (so any
    chunking of a shot gives the same records)."""
    import cv2

    from geometry.fixed_centre_batch import solve_fixed_centre_many

    shot = [r for r in _shot() if r["status"] in (Status.OK, Status.REFERENCE)]
    n = max(len(r["points"]) for r in shot)
    X, uv, w = np.zeros((len(shot), n, 3)), np.zeros((len(shot), n, 2)), np.zeros((len(shot), n))
    for k, r in enumerate(shot):
        m = len(r["points"])
        X[k, :m] = [SPEC.keypoints[q] for q in r["points"]]
        uv[k, :m], w[k, :m] = list(r["points"].values()), 1.0
    theta0 = np.array(
        [np.r_[cv2.Rodrigues(np.array(r["R"]))[0].ravel(), r["K"][0][0]] for r in shot]
    )
    theta, rms = solve_fixed_centre_many(X, uv, w, SIZE, CENTRE, theta0)
    for k in (0, 7, len(shot) - 1):
        th, r = solve_fixed_centre_many(X[[k]], uv[[k]], w[[k]], SIZE, CENTRE, theta0[[k]])
        assert np.array_equal(th[0], theta[k]) and r[0] == rms[k], k
    assert np.abs(theta[:, 3] - theta0[:, 3]).max() > 1.0  # the focal lengths were refitted


def test_a_singular_system_gets_no_step_and_the_others_theirs():
    """np.linalg.solve raises for a whole batch when one matrix is singular: each frame is
    then solved alone, the singular one given no step (and, in the solve, more damping)."""
    from geometry.fixed_centre_batch import _solve_each

    rng = np.random.default_rng(1)
    M = rng.normal(size=(3, 4, 4))
    A = M @ np.transpose(M, (0, 2, 1)) + np.eye(4)
    A[1] = 0.0
    g = rng.normal(size=(3, 4))
    step, singular = _solve_each(A, g)
    assert list(singular) == [False, True, False]
    assert np.array_equal(step[1], np.zeros(4))
    for k in (0, 2):
        assert np.array_equal(step[k], -np.linalg.solve(A[k], g[k]))
    step, singular = _solve_each(A[[0, 2]], g[[0, 2]])
    assert not singular.any() and np.allclose(step[1], -np.linalg.solve(A[2], g[2]))

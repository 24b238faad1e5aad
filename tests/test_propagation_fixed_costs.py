"""Propagation's per-frame and start-up costs cut without changing results (issue 11 section 5,
docs/propagation.md "Speed"): each fast path is checked against the plain computation it
replaces."""

import cv2
import numpy as np
import pytest

from court_specs import load_spec
from courtstudio.synth.synthetic_clip import make_clip
from geometry.camera import Camera


@pytest.fixture(scope="module")
def tennis():
    return load_spec("tennis")


def test_line_evidence_equals_the_plain_per_line_formula(tennis):
    """line_evidence (all lines' samples in one remap, runs from projected_runs, the ridge
    widths folded in one at a time) gives exactly what the plain formula gives: per run
    np.gradient normals, each sample's profile read at every offset and ridge width, the
    best response over the widths; for the true camera, a moved one and one standing on
    the court (lines split where they pass behind it)."""
    from courtstudio.pipeline.propagate_frame import LINE_STEP_M, ground_lines
    from geometry.camera import rotation_look_at
    from geometry.line_support import MIN_CONTRAST, line_evidence
    from geometry.projection import densify_all, project_polylines

    clip = make_clip(tennis, 1, (1280, 720), seed=3)
    img, cam = clip.frames[0], clip.cameras[0]
    dense = densify_all(ground_lines(tennis), LINE_STEP_M)
    h, w = img.shape[:2]

    def at(p, q, o):  # the gray level o px from p along q, as cv2's gray conversion weighs
        xy = (p + o * q).astype(np.float32)
        v = cv2.remap(img, xy[None, None, :1], xy[None, None, 1:], cv2.INTER_LINEAR)
        return np.float32(v.astype(np.float32).ravel() @ [0.114, 0.587, 0.299])

    def plain(camera, search=8, widths=(2, 4, 8), tol=2.0):
        offs = np.arange(-search, search + 1)
        found, near, resid = [], [], []
        for run in project_polylines(camera, *dense):
            d = np.gradient(run, axis=0)
            n = np.stack([-d[:, 1], d[:, 0]], 1)
            n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-9
            reach = search + max(widths)
            for p, q in zip(run, n):
                ends = np.array([p + reach * q, p - reach * q])
                if not np.all((ends >= 0) & (ends <= [w - 1, h - 1])):
                    continue
                resp = [
                    max(at(p, q, k) - max(at(p, q, k - dd), at(p, q, k + dd)) for dd in widths)
                    for k in offs
                ]
                j = int(np.argmax(resp))
                found.append(resp[j] > MIN_CONTRAST)
                near.append(found[-1] and abs(offs[j]) <= tol)
                if found[-1]:
                    resid.append(abs(offs[j]))
        return len(found), int(sum(found)), float(np.mean(near)), float(np.median(resid))

    C = np.array([12.0, 5.0, 1.7])
    R = rotation_look_at(C, np.array([0.0, 5.0, 0.0]))
    for camera in (
        cam,
        Camera(cam.K, cam.R, cam.t + np.array([0.3, 0.0, 0.0]), cam.image_size),
        Camera(cam.K, R, -R @ C, cam.image_size),
    ):
        ev = line_evidence(img, camera, [], dense=dense)
        n, k, support, residual = plain(camera)
        assert n > 30
        assert (ev["samples"], ev["found"]) == (n, k)
        assert ev["support"] == pytest.approx(support, abs=1e-12)
        assert ev["residual_px"] == pytest.approx(residual, abs=1e-12)


def test_cached_inverses_are_numpys():
    """plane_motion's per-scale and per-size inverses: the bits np.linalg.inv gives, and
    read-only (they are shared by every frame of a run)."""
    from geometry.plane_motion import _from_reduced, _from_unit_square, to_reduced

    for s in (0.5, 1 / 3, 2 / 3, 1.0):
        inv = _from_reduced(s)
        assert np.array_equal(inv, np.linalg.inv(to_reduced(s)))
        assert not inv.flags.writeable and _from_reduced(s) is inv
    for w, h in ((1280, 720), (1920, 1080), (641, 359)):
        T = np.array([[w, 0, 0], [0, h, 0], [0, 0, 1.0]])
        assert np.array_equal(_from_unit_square(w, h), np.linalg.inv(T))
        assert not _from_unit_square(w, h).flags.writeable

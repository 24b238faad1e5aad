"""Multi-frame questions (an extension beyond CourtSI): pairs of frames of one clip.

Scenes of the same match and clip, ordered by frame index, are paired with their next frame
when the two are ``min_gap``..``max_gap`` frames apart. Players are matched by their stable
id and numbered across the whole clip by id (so "Player 2" is the same person in both
images). Quantities: a player's horizontal displacement, the ball's straight-line travel and
average speed (needs the scenes' ``frame.time_s``), and the ball's clearance over the net when
it crosses the net line between two close frames (linear interpolation). Every answer is
evaluated on both scenes' Monte-Carlo draws, row by row, and filtered like the single-frame
questions (qa/select.py).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from geometry.ballistics import fit_flight
from geometry.errors import GeometryError
from qa.entities import Entities
from qa.measures import (
    court_rectangle,
    inside_court,
    net_x,
    polygon_boundary_distance,
    zone_index,
    zone_margin,
)
from qa.questions import Candidate
from qa.scenes import QAScene

MIN_GAP_FRAMES = 1
MAX_GAP_FRAMES = 75
NET_CROSSING_MAX_GAP = 10  # frames: interpolation across the net only between close frames


def clip_pairs(scenes: list[QAScene], min_gap=MIN_GAP_FRAMES, max_gap=MAX_GAP_FRAMES):
    """[(a, b)] consecutive scenes of one match and clip, min_gap..max_gap frames apart."""
    groups = defaultdict(list)
    for qs in scenes:
        groups[(qs.match_id, qs.clip_id, qs.sport)].append(qs)
    out = []
    for group in groups.values():
        group.sort(key=lambda q: q.frame_index)
        for a, b in zip(group, group[1:]):
            if min_gap <= b.frame_index - a.frame_index <= max_gap:
                out.append((a, b))
    return out


def clip_triples(scenes: list[QAScene]) -> list[tuple]:
    """[(a, b, c)] three consecutive frames of a clip, each pair min..max gap apart, all with
    a 3D ball and a time: candidates for one ball flight."""
    pairs = clip_pairs(scenes)
    nxt = {id(a): b for a, b in pairs}
    out = []
    for a, b in pairs:
        c = nxt.get(id(b))
        if c is not None and all(
            q.scene.time_s is not None and q.scene.ball.world is not None for q in (a, b, c)
        ):
            out.append((a, b, c))
    return out


def flight_candidates(frames: tuple, ents: tuple) -> list[Candidate]:
    """Flight questions over three frames (a, b, c) whose balls fit one constant-acceleration
    flight (geometry.ballistics quality check on the saved balls): the apex height between the
    first and the last image, and, when the flight meets the surface at most 0.1 s after the
    last image, where it bounces (zone, inside/outside). Each draw refits its own flight."""
    a = frames[0]
    spec, w = a.spec, a.wording
    if any(e.ball is None for e in ents):
        return []
    t = np.array([q.scene.time_s for q in frames], float)
    n = min(e.n for e in ents)
    P = np.stack([e.ball[:n] for e in ents], axis=1)  # (n, 3 frames, 3)
    try:
        if not fit_flight(t, P[0]).ok:
            return []
    except GeometryError:
        return []
    dt = t - t[0]
    A = np.column_stack([np.ones(3), dt, 0.5 * dt**2])
    coef = np.linalg.solve(A, P.transpose(1, 0, 2).reshape(3, -1)).reshape(3, n, 3)
    p0, v0, acc = coef  # each (n, 3)
    z0 = spec.plane_z()
    t_apex = np.clip(-v0[:, 2] / np.where(acc[:, 2] < -1e-9, acc[:, 2], -1e-9), 0, dt[-1])
    apex = p0[:, 2] + v0[:, 2] * t_apex + 0.5 * acc[:, 2] * t_apex**2 - z0
    base = {"ball": w.ball, "surface": w.surface, "ground": w.player_ground}
    pts = {f"ball {k + 1}": P[0, k].round(4).tolist() for k in range(3)}
    out = [Candidate("mf_ball_apex", dict(base), apex, points=pts, key=("mf_ball_apex",))]
    # landing: z(t) = surface + ball radius, the later root
    r = spec.ball_radius_m
    qa_, qb, qc = 0.5 * acc[:, 2], v0[:, 2], p0[:, 2] - z0 - r
    disc = qb**2 - 4 * qa_ * qc
    with np.errstate(invalid="ignore", divide="ignore"):
        t_land = (-qb - np.sqrt(disc)) / (2 * qa_)
    if not (disc[0] >= 0 and dt[1] <= t_land[0] <= dt[-1] + 0.1):
        return out
    land = p0 + v0 * t_land[:, None] + 0.5 * acc * t_land[:, None] ** 2
    land[~np.isfinite(land).all(1)] = land[0]
    pts["bounce"] = land[0].round(4).tolist()
    zi = zone_index(spec, land)
    if zi[0] >= 0:
        labels = [w.zone(z.name, z.label) for z in spec.zones]
        out.append(
            Candidate(
                "mf_bounce_zone",
                dict(base),
                zi,
                labels,
                zone_margin(spec, land[0]),
                "zone_m",
                pts,
                ("mf_bounce_zone",),
            )
        )
    out.append(
        Candidate(
            "mf_bounce_in_out",
            dict(base),
            (~inside_court(spec, land)).astype(int),
            ["inside", "outside"],
            float(polygon_boundary_distance(land[:1], court_rectangle(spec))[0]),
            "zone_m",
            pts,
            ("mf_bounce_in_out",),
        )
    )
    return out


def clip_serials(scenes: list[QAScene]) -> dict[tuple, dict[int, int]]:
    """(match, clip, sport) -> {player id: number drawn in the clip's multi-frame images}."""
    ids = defaultdict(set)
    for qs in scenes:
        ids[(qs.match_id, qs.clip_id, qs.sport)].update(p.id for p in qs.athletes)
    return {k: {pid: i + 1 for i, pid in enumerate(sorted(v))} for k, v in ids.items()}


def _net_top(spec, y: np.ndarray) -> np.ndarray:
    """Net height (m above the surface) at y: the posts' height at the ends, the centre's at
    the middle, linear in between."""
    n = spec.net
    y0, y1 = n["post_left_top"][1], n["post_right_top"][1]
    mid = (y0 + y1) / 2
    frac = np.clip(np.abs(y - mid) / (abs(y1 - y0) / 2), 0, 1)
    return n["height_at_centre_m"] + frac * (n["height_at_posts_m"] - n["height_at_centre_m"])


def pair_candidates(
    a: QAScene, ea: Entities, b: QAScene, eb: Entities, serial: dict[int, int]
) -> list[Candidate]:
    """Multi-frame candidates of a pair of frames (a before b)."""
    w = a.wording
    base = {"ball": w.ball, "surface": w.surface, "ground": w.player_ground}
    n = min(ea.n, eb.n)
    out = []
    pa = {p.id: p for p in ea.players}
    pb = {p.id: p for p in eb.players}
    for pid in sorted(set(pa) & set(pb)):
        ga, gb = pa[pid].parts["ground"][:n], pb[pid].parts["ground"][:n]
        d = np.linalg.norm((gb - ga)[:, :2], axis=1)
        name = f"Player {serial[pid]}"
        out.append(
            Candidate(
                "mf_player_displacement",
                {**base, "p": name},
                d,
                points={
                    f"{name} first": ga[0].round(4).tolist(),
                    f"{name} second": gb[0].round(4).tolist(),
                },
                key=("mf_player_displacement", pid),
            )
        )
    if ea.ball is not None and eb.ball is not None:
        A, B = ea.ball[:n], eb.ball[:n]
        pts = {"ball first": A[0].round(4).tolist(), "ball second": B[0].round(4).tolist()}
        travel = np.linalg.norm(B - A, axis=1)
        out.append(
            Candidate("mf_ball_travel", dict(base), travel, points=pts, key=("mf_ball_travel",))
        )
        ta, tb = a.scene.time_s, b.scene.time_s
        if ta is not None and tb is not None and tb > ta:
            out.append(
                Candidate(
                    "mf_ball_speed",
                    dict(base),
                    travel / (tb - ta),
                    points=pts,
                    key=("mf_ball_speed",),
                )
            )
        spec = a.spec
        gap = b.frame_index - a.frame_index
        if spec.net is not None and gap <= NET_CROSSING_MAX_GAP:
            nx = net_x(spec)
            if (A[0, 0] - nx) * (B[0, 0] - nx) < 0:
                t = (nx - A[:, 0]) / np.where(
                    np.abs(B[:, 0] - A[:, 0]) > 1e-9, B[:, 0] - A[:, 0], 1e-9
                )
                cross = A + np.clip(t, 0, 1)[:, None] * (B - A)
                clearance = cross[:, 2] - spec.plane_z() - _net_top(spec, cross[:, 1])
                if clearance[0] > 0:
                    out.append(
                        Candidate(
                            "mf_net_clearance",
                            dict(base),
                            clearance,
                            points={**pts, "crossing": cross[0].round(4).tolist()},
                            key=("mf_net_clearance",),
                        )
                    )
    return out

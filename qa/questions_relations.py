"""Relational-reasoning candidate questions of one scene (multiple choice): which zone, half,
player, line or side, relative to the ball, the camera, the net or another player; and the
basketball shot-region questions.

Called by qa/questions.py ``candidates``; same ``Candidate`` conventions.
"""

from __future__ import annotations

import itertools

import numpy as np

from qa.candidate import Candidate, _choice, _lateral, _name, _num, _rank, _v
from qa.measures import (
    court_rectangle,
    distance_to_polyline_xy,
    inside_court,
    polygon_boundary_distance,
    zone_index,
    zone_margin,
)
from qa.templates import PART_NAMES


def _relations(qs, E, f, nx, has_net, lines) -> list[Candidate]:
    spec, w = qs.spec, qs.wording
    out = []
    B, C = E.ball, E.camera_centre
    ps = E.players
    zlabels = [w.zone(z.name, z.label) for z in spec.zones]
    names = [_name(p) for p in ps]
    half_labels = [f"the {w.near} half", f"the {w.far} half"]
    if B is not None:
        zi = zone_index(spec, B)
        if zi[0] >= 0:
            out.append(
                _choice(
                    "ball_zone",
                    f(),
                    zi,
                    zlabels,
                    zone_margin(spec, B[0]),
                    "zone_m",
                    {"ball": _v(B[0])},
                    ("ball_zone",),
                )
            )
        if has_net:
            out.append(
                _choice(
                    "ball_half",
                    f(),
                    (B[:, 0] < nx).astype(int),
                    half_labels,
                    abs(B[0, 0] - nx),
                    "zone_m",
                    {"ball": _v(B[0])},
                    ("ball_half",),
                )
            )
        out.append(
            _choice(
                "ball_in_out",
                f(),
                (~inside_court(spec, B)).astype(int),
                ["inside", "outside"],
                polygon_boundary_distance(B[:1], court_rectangle(spec))[0],
                "zone_m",
                {"ball": _v(B[0])},
                ("ball_in_out",),
            )
        )
        if len(ps) >= 2:
            D = np.stack([np.linalg.norm(p.position() - B, axis=1) for p in ps], axis=1)
            for kind, largest in (("nearest_player_ball", False), ("farthest_player_ball", True)):
                idx, gap = _rank(D, largest)
                out.append(
                    _choice(kind, f(), idx, names, gap, "nearest_m", {"ball": _v(B[0])}, (kind,))
                )
        for p in ps:
            pf = f(p=_name(p))
            if p.facing is not None:
                lat, fwd = _lateral(p, B)
                out.append(
                    _choice(
                        "ball_own_side",
                        pf,
                        (lat < 0).astype(int),
                        ["left", "right"],
                        abs(lat[0]),
                        "left_right_m",
                        {"ball": _v(B[0])},
                        ("ball_own_side", p.serial),
                    )
                )
                out.append(
                    _choice(
                        "ball_front_back",
                        pf,
                        (fwd < 0).astype(int),
                        ["in front", "behind"],
                        abs(fwd[0]),
                        "left_right_m",
                        {"ball": _v(B[0])},
                        ("ball_front_back", p.serial),
                    )
                )
            if p.has_body:
                dz = B[:, 2] - p.parts["head"][:, 2]
                out.append(
                    _choice(
                        "ball_vs_head",
                        pf,
                        (dz < 0).astype(int),
                        ["higher", "lower"],
                        abs(dz[0]),
                        "height_m",
                        {"ball": _v(B[0])},
                        ("ball_vs_head", p.serial),
                    )
                )
            dc = np.linalg.norm(p.position() - C, axis=1) - np.linalg.norm(B - C, axis=1)
            out.append(
                _choice(
                    "cam_vs_ball",
                    pf,
                    (dc > 0).astype(int),
                    ["yes", "no"],
                    abs(dc[0]),
                    "nearest_m",
                    {},
                    ("cam_vs_ball", p.serial),
                )
            )
    if len(ps) >= 2:
        D = np.stack([np.linalg.norm(p.position() - C, axis=1) for p in ps], axis=1)
        for kind, largest in (("nearest_cam", False), ("farthest_cam", True)):
            idx, gap = _rank(D, largest)
            out.append(_choice(kind, f(), idx, names, gap, "nearest_m", {}, (kind,)))
        if has_net:
            Dn = np.stack([abs(p.parts["ground"][:, 0] - nx) for p in ps], axis=1)
            idx, gap = _rank(Dn)
            out.append(
                _choice("nearer_net", f(), idx, names, gap, "nearest_m", {}, ("nearer_net",))
            )
        for ln, poly in lines.items():
            Dl = np.stack([distance_to_polyline_xy(p.parts["ground"], poly) for p in ps], 1)
            idx, gap = _rank(Dl)
            out.append(
                _choice(
                    "player_nearest_line",
                    f(line=w.line(ln)),
                    idx,
                    names,
                    gap,
                    "nearest_m",
                    {"line": ln},
                    ("player_nearest_line", ln),
                )
            )
    for p, q in itertools.permutations(ps, 2):
        pf = f(p=_name(p), q=_name(q))
        xq = E.to_camera(q.position())[:, 0] - E.to_camera(p.position())[:, 0]
        out.append(
            _choice(
                "cam_left_right",
                pf,
                (xq > 0).astype(int),
                ["left", "right"],
                abs(xq[0]),
                "left_right_m",
                {},
                ("cam_left_right", p.serial, q.serial),
            )
        )
        if p.serial < q.serial:
            dd = np.linalg.norm(q.position() - C, axis=1) - np.linalg.norm(p.position() - C, axis=1)
            out.append(
                _choice(
                    "cam_closer_pair",
                    pf,
                    (dd < 0).astype(int),
                    [_name(p), _name(q)],
                    abs(dd[0]),
                    "nearest_m",
                    {},
                    ("cam_closer_pair", p.serial, q.serial),
                )
            )
            if p.has_body and q.has_body:
                dz = q.parts["head"][:, 2] - p.parts["head"][:, 2]
                out.append(
                    _choice(
                        "higher_head",
                        pf,
                        (dz > 0).astype(int),
                        [_name(p), _name(q)],
                        abs(dz[0]),
                        "height_m",
                        {},
                        ("higher_head", p.serial, q.serial),
                    )
                )
        if p.facing is not None:
            lat, fwd = _lateral(p, q.position())
            out.append(
                _choice(
                    "own_side_pp",
                    pf,
                    (lat < 0).astype(int),
                    ["left", "right"],
                    abs(lat[0]),
                    "left_right_m",
                    {},
                    ("own_side_pp", p.serial, q.serial),
                )
            )
            out.append(
                _choice(
                    "front_back_pp",
                    pf,
                    (fwd < 0).astype(int),
                    ["in front", "behind"],
                    abs(fwd[0]),
                    "left_right_m",
                    {},
                    ("front_back_pp", p.serial, q.serial),
                )
            )
    if len(ps) >= 3:
        for p in ps:
            others = [q for q in ps if q is not p]
            D = np.stack([np.linalg.norm(q.position() - p.position(), axis=1) for q in others], 1)
            idx, gap = _rank(D)
            out.append(
                _choice(
                    "nearest_to_player",
                    f(p=_name(p)),
                    idx,
                    [_name(q) for q in others],
                    gap,
                    "nearest_m",
                    {},
                    ("nearest_to_player", p.serial),
                )
            )
    lnames = list(lines)
    llabels = [w.line(n) for n in lnames]
    for p in ps:
        G = p.parts["ground"]
        pf = f(p=_name(p))
        zi = zone_index(spec, G)
        if zi[0] >= 0 and spec.player_plane == spec.default_plane:  # not under a table
            out.append(
                _choice(
                    "player_zone",
                    pf,
                    zi,
                    zlabels,
                    zone_margin(spec, G[0]),
                    "zone_m",
                    {_name(p): _v(G[0])},
                    ("player_zone", p.serial),
                )
            )
        if has_net:
            out.append(
                _choice(
                    "player_half",
                    pf,
                    (G[:, 0] < nx).astype(int),
                    [f"the {w.near} side", f"the {w.far} side"],
                    abs(G[0, 0] - nx),
                    "zone_m",
                    {_name(p): _v(G[0])},
                    ("player_half", p.serial),
                )
            )
        if spec.player_plane == spec.default_plane:
            out.append(
                _choice(
                    "player_in_out",
                    pf,
                    (~inside_court(spec, G)).astype(int),
                    ["inside", "outside"],
                    polygon_boundary_distance(G[:1], court_rectangle(spec))[0],
                    "zone_m",
                    {_name(p): _v(G[0])},
                    ("player_in_out", p.serial),
                )
            )
        parts = ("left_foot", "right_foot") if p.has_body else ("ground",)
        for part in parts:
            X = p.parts[part]
            D = np.stack([distance_to_polyline_xy(X, lines[n]) for n in lnames], axis=1)
            idx, gap = _rank(D)
            out.append(
                _choice(
                    "nearest_line",
                    {**pf, "part": PART_NAMES.get(part, "feet")},
                    idx,
                    llabels,
                    gap,
                    "nearest_m",
                    {f"{_name(p)} {part}": _v(X[0])},
                    ("nearest_line", p.serial, part),
                )
            )
        for ln, poly in lines.items():
            xs, ys = poly[:, 0], poly[:, 1]
            if (
                has_net
                and np.ptp(xs) < 1e-6
                and np.ptp(ys) > 1.0
                and abs(xs[0] - nx) > 0.5
                and np.sign(xs[0] - nx) == np.sign(G[0, 0] - nx)
            ):
                d = abs(xs[0] - nx) - abs(G[:, 0] - nx)
                out.append(
                    _choice(
                        "line_side",
                        f(p=_name(p), line=w.line(ln)),
                        (d < 0).astype(int),
                        [f"between {w.line(ln)} and the net", f"beyond {w.line(ln)}"],
                        abs(d[0]),
                        "zone_m",
                        {"line": ln},
                        ("line_side", p.serial, ln),
                    )
                )
            if np.ptp(ys) < 1e-6 and np.ptp(xs) > 1.0 and abs(ys[0] - spec.width_m / 2) > 0.5:
                inward = np.sign(spec.width_m / 2 - ys[0])
                d = (G[:, 1] - ys[0]) * inward
                out.append(
                    _choice(
                        "sideline_side",
                        f(p=_name(p), line=w.line(ln)),
                        (d < 0).astype(int),
                        ["inside", "outside"],
                        abs(d[0]),
                        "zone_m",
                        {"line": ln},
                        ("sideline_side", p.serial, ln),
                    )
                )
    return out


def _shot_regions(qs, E, f) -> list[Candidate]:
    """Basketball: shot region (the zone's label, either basket) and three-point questions."""
    spec, w = qs.spec, qs.wording
    labels = list(dict.fromkeys(z.label for z in spec.zones))
    region = np.array([labels.index(z.label) for z in spec.zones] + [-1])
    three = np.array([z.name in w.three_point_zones for z in spec.zones] + [False])
    out = []
    for p in E.players:
        G = p.parts["ground"]
        zi = zone_index(spec, G)
        if zi[0] < 0:
            continue
        m = zone_margin(spec, G[0])
        pts = {_name(p): _v(G[0])}
        out.append(
            _choice(
                "shot_region",
                f(p=_name(p)),
                region[zi],
                labels,
                m,
                "zone_m",
                pts,
                ("shot_region", p.serial),
            )
        )
        out.append(
            _choice(
                "three_point",
                f(p=_name(p)),
                (~three[zi]).astype(int),
                ["yes", "no"],
                m,
                "zone_m",
                pts,
                ("three_point", p.serial),
            )
        )
    if E.players:
        G = np.stack([p.parts["ground"] for p in E.players], axis=1)
        beyond = np.stack([three[zone_index(spec, g)] for g in G])
        out.append(
            _num(
                "players_beyond_arc", f(), beyond.sum(1).astype(float), {}, ("players_beyond_arc",)
            )
        )
        out[-1].margin_m = min(zone_margin(spec, g) for g in G[0])
        out[-1].margin_key = "zone_m"
    if E.ball is not None:
        zi = zone_index(spec, E.ball)
        if zi[0] >= 0:
            out.append(
                _choice(
                    "ball_shot_region",
                    f(),
                    region[zi],
                    labels,
                    zone_margin(spec, E.ball[0]),
                    "zone_m",
                    {"ball": _v(E.ball[0])},
                    ("ball_shot_region",),
                )
            )
    return out

"""Candidate questions of one scene: every question its entities can answer, with the answer
evaluated under every Monte-Carlo draw (qa/entities.py) and its ambiguity margin.

A candidate's ``values`` has one row per draw (row 0 = the answer): floats for distances and
counts, (x, y, z) rows for localization, label indices for choices. Choice questions index a
``labels`` list; which labels are shown as options, and in which order, is decided later
(qa/select.py). Margins are metres, compared with the sport's margins (qa/data/wording.json).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from qa.entities import BODY_PARTS, Entities, PlayerEntity
from qa.measures import (
    court_rectangle,
    distance_to_polyline_xy,
    inside_court,
    net_x,
    polygon_boundary_distance,
    zone_index,
    zone_margin,
)
from qa.scenes import QAScene
from qa.templates import KINDS, PART_NAMES

UP = np.array([0.0, 0.0, 1.0])


@dataclass
class Candidate:
    kind: str
    fields: dict
    values: np.ndarray
    labels: list[str] | None = None
    margin_m: float = float("inf")
    margin_key: str | None = None  # which sport margin applies
    points: dict = field(default_factory=dict)  # nominal 3D quantities behind the answer
    key: tuple = ()

    @property
    def category(self) -> str:
        return KINDS[self.kind][0]

    @property
    def answer_type(self) -> str:
        return KINDS[self.kind][1]


def _name(pl: PlayerEntity) -> str:
    return f"Player {pl.serial}"


def _v(a) -> list[float]:
    return [round(float(x), 4) for x in np.asarray(a).ravel()]


def _lateral(pl: PlayerEntity, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(left offset, forward offset) of target (n, 3) in pl's own horizontal frame, metres."""
    f = pl.facing
    left = np.cross(UP, f)
    d = (target - pl.position()) * np.array([1.0, 1.0, 0.0])
    return (d * left).sum(1), (d * f).sum(1)


def _choice(kind, fields, idx, labels, margin, margin_key, points, key) -> Candidate:
    return Candidate(
        kind, fields, np.asarray(idx, int), labels, float(margin), margin_key, points, key
    )


def _num(kind, fields, values, points, key) -> Candidate:
    return Candidate(kind, fields, np.asarray(values, float), None, float("inf"), None, points, key)


def _rank(dists: np.ndarray, largest: bool = False) -> tuple[np.ndarray, float]:
    """Per draw the index of the smallest (largest) of (n, k) distances; the nominal gap."""
    order = np.argsort(-dists if largest else dists, axis=1)
    d0 = np.sort(dists[0])
    gap = (d0[-1] - d0[-2]) if largest else (d0[1] - d0[0])
    return order[:, 0], float(gap)


def candidates(qs: QAScene, E: Entities) -> list[Candidate]:
    """Every candidate question of the scene (before filtering and balancing)."""
    spec, w = qs.spec, qs.wording
    base = {
        "ball": w.ball,
        "surface": w.surface,
        "ground": w.player_ground,
        "frame": w.frame_phrase,
        "near": w.near,
        "far": w.far,
    }
    out: list[Candidate] = []
    C = E.camera_centre
    B = E.ball
    players = E.players
    bodies = [p for p in players if p.has_body]
    z_surface = spec.plane_z()
    z_ground = spec.player_plane_z()
    nx = net_x(spec)
    has_net = spec.net is not None
    lines = {k: v for k, v in spec.lines.items() if k != "net_line"}
    line_names = list(lines)

    def f(**kw):
        return {**base, **kw}

    # --------------------------------------------------------------- distances
    if B is not None:
        out.append(
            _num(
                "cam_ball",
                f(),
                np.linalg.norm(B - C, axis=1),
                {"ball": _v(B[0]), "camera": _v(C[0])},
                ("cam_ball",),
            )
        )
        if B[0, 2] - z_surface > 0.02:
            out.append(
                _num("ball_height", f(), B[:, 2] - z_surface, {"ball": _v(B[0])}, ("ball_height",))
            )
        for ln in line_names:
            out.append(
                _num(
                    "ball_line",
                    f(line=w.line(ln)),
                    distance_to_polyline_xy(B, lines[ln]),
                    {"ball": _v(B[0]), "line": ln},
                    ("ball_line", ln),
                )
            )
        if has_net:
            out.append(
                _num("ball_net", f(), np.abs(B[:, 0] - nx), {"ball": _v(B[0])}, ("ball_net",))
            )
        out.append(
            Candidate("loc_ball", f(), B.copy(), points={"ball": _v(B[0])}, key=("loc_ball",))
        )
    for p in players:
        P = p.position()
        out.append(
            _num(
                "cam_player",
                f(p=_name(p)),
                np.linalg.norm(P - C, axis=1),
                {_name(p): _v(P[0]), "camera": _v(C[0])},
                ("cam_player", p.serial),
            )
        )
        if has_net:
            out.append(
                _num(
                    "player_net",
                    f(p=_name(p)),
                    np.abs(p.parts["ground"][:, 0] - nx),
                    {_name(p): _v(p.parts["ground"][0])},
                    ("player_net", p.serial),
                )
            )
    for p in bodies:
        n = _name(p)
        for part in BODY_PARTS:
            X = p.parts[part]
            pf = f(p=n, part=PART_NAMES[part])
            pts = {f"{n} {part}": _v(X[0])}
            if part in ("pelvis", "head"):
                out.append(
                    _num(
                        "cam_part",
                        pf,
                        np.linalg.norm(X - C, axis=1),
                        {**pts, "camera": _v(C[0])},
                        ("cam_part", p.serial, part),
                    )
                )
            if X[0, 2] - z_ground > 0.05:
                out.append(
                    _num(
                        "part_height", pf, X[:, 2] - z_ground, pts, ("part_height", p.serial, part)
                    )
                )
            if part in ("left_foot", "right_foot", "pelvis"):
                for ln in line_names:
                    out.append(
                        _num(
                            "part_line",
                            {**pf, "line": w.line(ln)},
                            distance_to_polyline_xy(X, lines[ln]),
                            {**pts, "line": ln},
                            ("part_line", p.serial, part, ln),
                        )
                    )
            out.append(
                Candidate("loc_part", pf, X.copy(), points=pts, key=("loc_part", p.serial, part))
            )
            if B is not None:
                out.append(
                    _num(
                        "ball_part",
                        pf,
                        np.linalg.norm(B - X, axis=1),
                        {**pts, "ball": _v(B[0])},
                        ("ball_part", p.serial, part),
                    )
                )
        out.append(
            _num(
                "feet_apart",
                f(p=n),
                np.linalg.norm(p.parts["left_foot"] - p.parts["right_foot"], axis=1),
                {},
                ("feet_apart", p.serial),
            )
        )
        out.append(
            _num(
                "hands_apart",
                f(p=n),
                np.linalg.norm(p.parts["left_hand"] - p.parts["right_hand"], axis=1),
                {},
                ("hands_apart", p.serial),
            )
        )
        if B is not None and B[0, 2] - p.parts["head"][0, 2] > w.margins["height_m"]:
            out.append(
                _num(
                    "ball_over_head",
                    f(p=n),
                    B[:, 2] - p.parts["head"][:, 2],
                    {"ball": _v(B[0]), f"{n} head": _v(p.parts["head"][0])},
                    ("ball_over_head", p.serial),
                )
            )
    for p, q in itertools.permutations(players, 2):
        P, Q = p.position(), q.position()
        pf = f(p=_name(p), q=_name(q))
        if p.serial < q.serial:
            out.append(
                _num(
                    "player_player",
                    pf,
                    np.linalg.norm(P - Q, axis=1),
                    {_name(p): _v(P[0]), _name(q): _v(Q[0])},
                    ("player_player", p.serial, q.serial),
                )
            )
        if p.has_body and q.has_body:
            dz = p.parts["head"][:, 2] - q.parts["head"][:, 2]
            if dz[0] > w.margins["height_m"]:
                out.append(_num("head_diff", pf, dz, {}, ("head_diff", p.serial, q.serial)))
            for a, b in (
                ("head", "head"),
                ("pelvis", "pelvis"),
                ("left_hand", "right_hand"),
                ("right_hand", "left_foot"),
                ("left_foot", "left_foot"),
            ):
                if p.serial < q.serial or a != b:
                    out.append(
                        _num(
                            "part_part",
                            {**pf, "part": PART_NAMES[a], "part2": PART_NAMES[b]},
                            np.linalg.norm(p.parts[a] - q.parts[b], axis=1),
                            {},
                            ("part_part", p.serial, q.serial, a, b),
                        )
                    )

    out += _counting(qs, E, f, nx, has_net)
    out += _relations(qs, E, f, nx, has_net, lines)
    if w.three_point_zones:
        out += _shot_regions(qs, E, f)
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


def _counting(qs, E, f, nx, has_net) -> list[Candidate]:
    spec, w = qs.spec, qs.wording
    out = []
    B = E.ball
    counts = ["0", "1", "2"]
    if B is not None:
        for half, sign in ((w.near, 1), (w.far, -1)):
            out.append(
                _choice(
                    "balls_half",
                    f(half=half),
                    (sign * (B[:, 0] - nx) > 0),
                    counts,
                    abs(B[0, 0] - nx),
                    "zone_m",
                    {"ball": _v(B[0])},
                    ("balls_half", half),
                )
            )
        for h in (0.5, 1.0, 2.0, 3.0):
            out.append(
                _choice(
                    "balls_above",
                    f(h=f"{h:g}"),
                    B[:, 2] - spec.plane_z() > h,
                    counts,
                    abs(B[0, 2] - spec.plane_z() - h),
                    "height_m",
                    {"ball": _v(B[0])},
                    ("balls_above", h),
                )
            )
        rect = court_rectangle(spec)
        out.append(
            _choice(
                "balls_inside",
                f(),
                inside_court(spec, B),
                counts,
                polygon_boundary_distance(B[:1], rect)[0],
                "zone_m",
                {"ball": _v(B[0])},
                ("balls_inside",),
            )
        )
        if has_net:
            top = spec.plane_z() + float(spec.net["height_at_centre_m"])
            out.append(
                _choice(
                    "balls_above_net",
                    f(),
                    B[:, 2] > top,
                    counts,
                    abs(B[0, 2] - top),
                    "height_m",
                    {"ball": _v(B[0])},
                    ("balls_above_net",),
                )
            )
    ps = E.players
    if not ps:
        return out
    G = np.stack([p.parts["ground"] for p in ps], axis=1)  # (n, k, 3)
    if has_net:
        for half, sign in ((w.near, 1), (w.far, -1)):
            out.append(
                _num(
                    "players_half",
                    f(half=half),
                    (sign * (G[..., 0] - nx) > 0).sum(1),
                    {},
                    ("players_half", half),
                )
            )
            out[-1].margin_m, out[-1].margin_key = float(np.min(abs(G[0, :, 0] - nx))), "zone_m"
    if spec.player_plane == spec.default_plane:
        rect = court_rectangle(spec)
        inside = np.stack([inside_court(spec, g) for g in G])
        out.append(_num("players_inside", f(), inside.sum(1), {}, ("players_inside",)))
        out[-1].margin_m = float(polygon_boundary_distance(G[0], rect).min())
        out[-1].margin_key = "zone_m"
    # the camera's left: y < W/2 end-on, x < L/2 side-on (docs/frames.md)
    axis, mid = (0, spec.length_m / 2) if w.side_on else (1, spec.width_m / 2)
    out.append(_num("players_left", f(), (G[..., axis] < mid).sum(1), {}, ("players_left",)))
    out[-1].margin_m = float(np.min(abs(G[0, :, axis] - mid)))
    out[-1].margin_key = "left_right_m"
    bodies = [p for p in ps if p.has_body]
    if bodies and len(bodies) == len(ps):
        up = np.stack(
            [
                np.maximum(p.parts["left_hand"][:, 2], p.parts["right_hand"][:, 2])
                - p.parts["head"][:, 2]
                for p in bodies
            ],
            axis=1,
        )
        out.append(_num("players_hand_up", f(), (up > 0).sum(1), {}, ("players_hand_up",)))
        out[-1].margin_m, out[-1].margin_key = float(np.min(abs(up[0]))), "height_m"
    if E.ball is not None:
        P = np.stack([p.position() for p in ps], axis=1)
        d = np.linalg.norm(P - E.ball[:, None], axis=2)
        for r in (1.0, 2.0, 3.0, 5.0):
            out.append(
                _num(
                    "players_near_ball", f(r=f"{r:g}"), (d < r).sum(1), {}, ("players_near_ball", r)
                )
            )
            out[-1].margin_m, out[-1].margin_key = float(np.min(abs(d[0] - r))), "nearest_m"
    for c in out:
        if c.answer_type == "int":
            c.values = c.values.astype(float)
    return out


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

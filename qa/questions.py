"""Candidate questions of one scene: every question its entities can answer, with the answer
evaluated under every Monte-Carlo draw (qa/entities.py) and its ambiguity margin.

A candidate's ``values`` has one row per draw (row 0 = the answer): floats for distances and
counts, (x, y, z) rows for localization, label indices for choices. Choice questions index a
``labels`` list; which labels are shown as options, and in which order, is decided later
(qa/select.py). Margins are metres, compared with the sport's margins (qa/data/wording.json).
"""

from __future__ import annotations

import itertools

import numpy as np

from qa.candidate import UP, Candidate, _name, _num, _v
from qa.entities import BODY_PARTS, Entities
from qa.measures import distance_to_polyline_xy, net_x
from qa.questions_counting import _counting
from qa.questions_relations import _relations, _shot_regions
from qa.scenes import QAScene
from qa.templates import PART_NAMES

__all__ = ["UP", "Candidate", "candidates"]


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

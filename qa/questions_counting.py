"""Spatial-counting candidate questions of one scene: how many balls or players satisfy a
condition (in a half, inside the court, above the net, hand raised, near the ball).

Called by qa/questions.py ``candidates``; same ``Candidate`` conventions.
"""

from __future__ import annotations

import numpy as np

from qa.candidate import Candidate, _choice, _num, _v
from qa.measures import court_rectangle, inside_court, polygon_boundary_distance


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

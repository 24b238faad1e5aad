"""Painted line centres for tools/make_court_specs.py: each sport's lines are first built at
their rule dimensions (the edge the rules measure to), then every line and every keypoint on the
playing surface is moved to the centres of the painted lines, where annotators click and where
the app's snap and line refinement find the crossing (issue: keypoints at line centres).

A sport's rule is data (``PAINT``): for each line its painted width (metres) and where the paint
lies relative to the measured edge:

- ``"in"`` / ``"out"``: toward / away from the court's centre (the paint is inside / outside the
  rule dimension: tennis, badminton, pickleball, volleyball boundaries are inside; FIBA and NBA
  boundary lines are outside the 28 x 15 m / 94 x 50 ft playing court);
- ``("toward", (x, y))`` / ``("away", (x, y))``: toward / away from a point (a basket, the key's
  middle, a circle's centre);
- ``"centred"``: the rule dimension is the line's axis (centre lines, the tennis centre service
  line);
- ``"none"``: not painted (the net's foot): the line stays where it is.

Arcs are declared as circles (``arcs``: ``{line: [(cx, cy, radius), ...]}``) so their points
move radially and their crossings with straight lines are exact, not those of the 3-degree
chords. World frame and units as court_spec_geometry (metres, x along the sidelines, y along
the baselines, z up); points off the playing surface (net tops, rings, the floor under a table)
are not on painted lines and do not move.
"""

from __future__ import annotations

import math

import numpy as np
from court_spec_geometry import ARC_STEP_DEG, r

ON_TOL_M = 2e-4  # a point lies on a line within this (coordinates are rounded to 0.1 mm)


def _side(placement, centre_xy):
    """(+1 toward | -1 away | 0, reference point) for a placement rule."""
    if placement == "in":
        return 1, centre_xy
    if placement == "out":
        return -1, centre_xy
    if placement in ("centred", "none"):
        return 0, centre_xy
    kind, point = placement
    if kind not in ("toward", "away"):
        raise ValueError(f"placement {placement!r}")
    return (1 if kind == "toward" else -1), tuple(point)


def _on_segment(p, a, b):
    ax, ay = a[0], a[1]
    dx, dy = b[0] - ax, b[1] - ay
    n2 = dx * dx + dy * dy
    t = 0.0 if n2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / n2))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy) < ON_TOL_M


def _on_circle(p, c):
    return abs(math.hypot(p[0] - c[0], p[1] - c[1]) - c[2]) < ON_TOL_M


def constraints_at(p, lines, paint, arcs, centre_xy):
    """The painted-centre constraints of the lines through point p (x, y): a list of
    ('line', (nx, ny), d) meaning n . p' = d, or ('circle', (cx, cy), radius)."""
    out = []
    for name, pl in lines.items():
        width, placement = paint[name]
        sign, q = _side(placement, centre_xy)
        if placement == "none":
            continue
        items = []
        for c in arcs.get(name, []):
            # on the circle near one of the line's vertices on it: on the arc itself, not
            # only on a chord (a chord strays up to r (1 - cos 1.5 deg) from it)
            on_arc = [v for v in pl if _on_circle(v, c)]
            reach = 2 * c[2] * math.sin(math.radians(ARC_STEP_DEG)) + ON_TOL_M
            if _on_circle(p, c) and any(math.dist(p[:2], v[:2]) <= reach for v in on_arc):
                inside = math.hypot(q[0] - c[0], q[1] - c[1]) < c[2]
                grow = -sign if inside else sign
                items.append(("circle", (c[0], c[1]), c[2] + grow * width / 2))
        for a, b in zip(pl[:-1], pl[1:]):
            on_circle = any(_on_circle(a, c) and _on_circle(b, c) for c in arcs.get(name, []))
            if on_circle or not _on_segment(p, a, b):
                continue
            dx, dy = b[0] - a[0], b[1] - a[1]
            norm = math.hypot(dx, dy)
            nx, ny = -dy / norm, dx / norm
            if (q[0] - a[0]) * nx + (q[1] - a[1]) * ny < 0:
                nx, ny = -nx, -ny
            items.append(("line", (nx, ny), nx * a[0] + ny * a[1] + sign * width / 2))
        for item in items:
            if not any(_same(item, o) for o in out):
                out.append(item)
    return out


def _same(u, v):
    if u[0] != v[0]:
        return False
    if u[0] == "line" and u[1][0] * v[1][0] + u[1][1] * v[1][1] < 0:
        u = ("line", (-u[1][0], -u[1][1]), -u[2])
    return all(abs(s - t) < 1e-9 for s, t in zip((*u[1], u[2]), (*v[1], v[2])))


def solve(p, constraints, iterations=50):
    """The point nearest p (x, y) meeting the constraints (Gauss-Newton with minimum-norm
    steps: one line moves p along its normal, two crossing lines give their crossing)."""
    x, y = float(p[0]), float(p[1])
    for _ in range(iterations):
        rows, res = [], []
        for kind, v, d in constraints:
            if kind == "line":
                rows.append(v)
                res.append(v[0] * x + v[1] * y - d)
            else:
                ex, ey = x - v[0], y - v[1]
                rho = math.hypot(ex, ey)
                rows.append((ex / rho, ey / rho))
                res.append(rho - d)
        # least squares, minimum-norm (lstsq): one constraint or parallel ones move p along
        # the common normal
        dx, dy = np.linalg.lstsq(np.array(rows, float), np.array(res, float), rcond=None)[0]
        x, y = x - dx, y - dy
        if abs(dx) + abs(dy) < 1e-13:
            break
    return x, y


def to_line_centres(spec, paint, arcs=None):
    """Move spec's lines and surface keypoints (in place) from the rule dimensions to the
    painted line centres. paint: {line name: (width_m, placement)} for every line; arcs: the
    circles the lines' arcs lie on. Returns spec."""
    arcs = arcs or {}
    missing = sorted(set(spec["lines"]) - set(paint))
    if missing:
        raise ValueError(f"{spec['id']}: no paint rule for line(s) {', '.join(missing)}")
    centre_xy = (spec["length_m"] / 2, spec["width_m"] / 2)
    z0 = spec["planes"][spec["default_plane"]]
    nominal = {k: [list(p) for p in pl] for k, pl in spec["lines"].items()}

    def move(p):
        if abs(p[2] - z0) > 1e-9:
            return p
        cons = constraints_at(p, nominal, paint, arcs, centre_xy)
        if not cons:
            return p
        x, y = solve(p, cons)
        return [r(x), r(y), p[2]]

    spec["lines"] = {
        k: (pl if paint[k][1] == "none" else [move(p) for p in pl]) for k, pl in nominal.items()
    }
    spec["keypoints"] = {k: move(list(p)) for k, p in spec["keypoints"].items()}
    return spec


def line_widths(paint):
    """(line_width_m, line_widths_m) for a spec from its paint rules: the most common painted
    width (the wider on a tie) and the painted lines of any other width."""
    painted = {k: r(wd) for k, (wd, placement) in paint.items() if placement != "none"}
    counts: dict[float, int] = {}
    for wd in painted.values():
        counts[wd] = counts.get(wd, 0) + 1
    common = max(counts, key=lambda wd: (counts[wd], wd))
    return common, {k: wd for k, wd in painted.items() if wd != common}

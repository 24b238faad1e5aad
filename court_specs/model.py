"""The in-memory court spec: keypoints, lines, zones, net; symmetry maps and zone queries."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from court_specs.synthesis import (
    DEFAULT_BALL_RADIUS_M,
    DEFAULT_LINE_WIDTH_M,
    DEFAULT_NET_POST_RADIUS_M,
    RaisedSurface,
    SynthesisPreset,
)
from geometry.polygons import points_in_polygon


class UnknownPlaneError(KeyError, ValueError):
    """A plane name the spec does not define (a KeyError for lookups, a ValueError for the
    bad-input handlers: an annotation naming a plane 'bogus' is bad input, not a crash)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


SYMMETRY_TOL_M = 1e-4
CORNERS = ("far_left_corner", "far_right_corner", "near_left_corner", "near_right_corner")
PAPER_SIX = CORNERS + ("net_post_left_top", "net_post_right_top")


@dataclass(frozen=True)
class Zone:
    """A named region of the court plane. polygon: (M, 2) metres, world x-y."""

    name: str
    label: str
    half: str | None
    polygon: np.ndarray


@dataclass(frozen=True)
class CourtSpec:
    """A sport's court. All coordinates metres, world frame (docs/frames.md)."""

    id: str
    name: str
    length_m: float
    width_m: float
    planes: dict[str, float]
    default_plane: str
    keypoints: dict[str, np.ndarray]  # name -> (3,)
    lines: dict[str, np.ndarray]  # name -> (M, 3) polyline
    zones: list[Zone]
    net: dict | None
    frame_phrase: str
    notes: str = ""
    ball_radius_m: float = DEFAULT_BALL_RADIUS_M
    broadcast_view: str = "end"  # 'end' | 'side' | 'auto': the world convention (docs/frames.md)
    source: str = ""
    line_width_m: float = DEFAULT_LINE_WIDTH_M  # painted line width, metres
    line_widths_m: dict[str, float] = field(default_factory=dict)  # per-line overrides
    raised_surface: RaisedSurface | None = None  # a table: the surface stands on a floor plane
    synthesis: SynthesisPreset | None = None  # synthetic camera/ball presets (synthesis.py)
    raw: dict = field(default_factory=dict, repr=False)

    def frame_phrase_for(self, world_convention: str) -> str:
        """The QA phrase of the frame for 'end_on' / 'side_on' (the spec's frame_phrases),
        else frame_phrase."""
        return str(self.raw.get("frame_phrases", {}).get(world_convention, self.frame_phrase))

    def line_width(self, name: str) -> float:
        """Painted width (m) of the named line: its line_widths_m entry, else line_width_m."""
        return float(self.line_widths_m.get(name, self.line_width_m))

    @property
    def net_post_radius_m(self) -> float:
        """Radius (m) of the net posts for drawing (net.post_radius_m, default 0.04)."""
        return float((self.net or {}).get("post_radius_m", DEFAULT_NET_POST_RADIUS_M))

    @property
    def keypoint_names(self) -> list[str]:
        return list(self.keypoints)

    def plane_z(self, plane: str | None = None) -> float:
        """Height (m) of a named plane; None = the spec's default (the playing surface)."""
        name = plane or self.default_plane
        if name not in self.planes:
            raise UnknownPlaneError(
                f"{self.id} has no plane {name!r}; planes: {', '.join(self.planes)}"
            )
        return float(self.planes[name])

    @property
    def minimal_keypoints(self) -> list[str]:
        """The paper's minimum annotation: the four corners and the two net-post tops; a court
        without a net (basketball) has its ring centres instead."""
        names = list(CORNERS)
        if self.net is not None:
            names += ["net_post_left_top", "net_post_right_top"]
        return names + [k for k in self.keypoints if k.endswith("ring_centre")]

    @property
    def player_plane(self) -> str:
        """The plane players stand on: the floor where the spec has one (table tennis), else
        the playing surface."""
        return "floor" if "floor" in self.planes else self.default_plane

    def player_plane_z(self) -> float:
        return self.plane_z(self.player_plane)

    def zone_at(self, point_xy) -> Zone | None:
        """The first zone (in file order) containing world point (x, y) or (x, y, z); or None."""
        p = np.asarray(point_xy, float)[:2][None]
        for z in self.zones:
            if points_in_polygon(p, z.polygon)[0]:
                return z
        return None

    def net_box_world(self) -> list[np.ndarray]:
        """Polylines (M, 3) of the net's 3D box: two posts, the top tape (its sag follows
        net.tape_model: straight to a centre strap, a parabola, or level), and the net's
        bottom edge on the surface. Empty without a net."""
        if self.net is None:
            return []
        left = np.asarray(self.net["post_left_top"], float)
        right = np.asarray(self.net["post_right_top"], float)
        z0 = self.plane_z()
        centre = (left + right) / 2
        centre[2] = z0 + float(self.net["height_at_centre_m"])
        if self.net.get("tape_model") == "parabola":
            s = np.linspace(-1.0, 1.0, 21)[:, None]
            top = centre + s * (right - left) / 2
            top[:, 2] = centre[2] + (left[2] - centre[2]) * s[:, 0] ** 2
        else:
            top = np.array([left, centre, right])
        base_l, base_r = left.copy(), right.copy()
        base_l[2] = base_r[2] = z0
        return [
            np.array([base_l, left]),
            np.array([base_r, right]),
            top,
            np.array([base_l, base_r]),
        ]

    def symmetry_maps(self) -> dict[str, dict[str, str]]:
        """Name permutations of the court's symmetries: 'left_right' (y -> W - y), 'near_far'
        (x -> L - x) and 'rotate_180' (both). A keypoint without a mirror image maps to itself
        only if it lies on the mirror plane; otherwise it is left out of that map."""
        L, W = self.length_m, self.width_m
        names = list(self.keypoints)
        P = np.array([self.keypoints[n] for n in names])
        maps = {}
        for kind, f in (
            ("left_right", lambda p: [p[0], W - p[1], p[2]]),
            ("near_far", lambda p: [L - p[0], p[1], p[2]]),
            ("rotate_180", lambda p: [L - p[0], W - p[1], p[2]]),
        ):
            m = {}
            for n, p in zip(names, P):
                d = np.linalg.norm(P - np.asarray(f(p)), axis=1)
                j = int(np.argmin(d))
                if d[j] < SYMMETRY_TOL_M:
                    m[n] = names[j]
            maps[kind] = m
        return maps

    def to_dict(self) -> dict:
        """The spec as loaded (the file's JSON content)."""
        return dict(self.raw)

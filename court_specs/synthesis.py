"""The optional per-sport data for drawing and synthesis: painted line widths, a raised playing
surface (a table), the net posts' radius and the synthetic broadcast camera's presets.

Every field is optional in a spec file; a missing one gets the documented default below
(docs/court_specs.md, "Drawing and synthesis"), never another sport's value. Camera and ball
presets default to values scaled from the court's own size.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_LINE_WIDTH_M = 0.05  # the common painted line width (tennis, volleyball, basketball)
DEFAULT_NET_POST_RADIUS_M = 0.04
DEFAULT_BALL_RADIUS_M = 0.05
# BGR 0-255: the view beyond the surround, the surround (the floor under a raised surface),
# the playing surface, a raised surface's edge faces, the painted lines
DEFAULT_COLOURS_BGR = {
    "background": (70, 95, 60),
    "surround": (80, 120, 70),
    "surface": (120, 90, 50),
    "surface_edge": (60, 40, 20),
    "lines": (235, 235, 235),
}
# Derived presets: fractions of D, the court's extent along the main camera's view (length_m
# for an 'end' view, width_m for 'side' and 'auto'), and of the width W across it; typical
# ratios of the bundled sports' presets.
DERIVED_DISTANCE_D = (0.5, 1.2)
DERIVED_HEIGHT_D = (0.3, 0.65)
DERIVED_LATERAL_W = 0.25
DERIVED_BALL_HEIGHT_D = (0.004, 0.13)


@dataclass(frozen=True)
class RaisedSurface:
    """The playing surface is the top of a slab (a table) standing on ``floor_plane``:
    synthesis draws its edge, lets it hide players, and stands players on the floor plane
    behind the ends. thickness_m: the slab's top thickness, metres."""

    floor_plane: str
    thickness_m: float


@dataclass(frozen=True)
class SynthesisPreset:
    """The synthetic broadcast camera and ball of a sport (courtstudio/synth/synthetic.py), metres.

    camera_distance_m: (lo, hi) of the camera's distance beyond the near baseline (end view)
    or the y = 0 sideline (side view); camera_height_m: (lo, hi) above the playing surface;
    camera_lateral_m: the largest offset from the centre line (end view); ball_height_m:
    (lo, hi) above the playing surface; colours_bgr: name -> (B, G, R) 0-255 of
    DEFAULT_COLOURS_BGR's names; derived: names of the fields the spec leaves out, which are
    then scaled from the court's size.
    """

    camera_distance_m: tuple[float, float]
    camera_height_m: tuple[float, float]
    camera_lateral_m: float
    ball_height_m: tuple[float, float]
    colours_bgr: dict[str, tuple[int, int, int]]
    derived: tuple[str, ...] = ()


def _pair(v) -> tuple[float, float]:
    return float(v[0]), float(v[1])


def parse_synthesis(data: dict) -> SynthesisPreset:
    """The spec's ``synthesis`` block with defaults (data: the whole spec file's JSON)."""
    syn = data.get("synthesis", {})
    L, W = float(data["length_m"]), float(data["width_m"])
    D = L if data.get("broadcast_view", "end") == "end" else W
    derived = {
        "camera_distance_m": (DERIVED_DISTANCE_D[0] * D, DERIVED_DISTANCE_D[1] * D),
        "camera_height_m": (DERIVED_HEIGHT_D[0] * D, DERIVED_HEIGHT_D[1] * D),
        "camera_lateral_m": DERIVED_LATERAL_W * W,
        "ball_height_m": (DERIVED_BALL_HEIGHT_D[0] * D, DERIVED_BALL_HEIGHT_D[1] * D),
    }
    values = {}
    for k, default in derived.items():
        v = syn.get(k, default)
        values[k] = float(v) if k == "camera_lateral_m" else _pair(v)
    colours = {
        **DEFAULT_COLOURS_BGR,
        **{k: tuple(int(c) for c in v) for k, v in syn.get("colours_bgr", {}).items()},
    }
    return SynthesisPreset(
        **values, colours_bgr=colours, derived=tuple(k for k in derived if k not in syn)
    )


def parse_raised_surface(data: dict) -> RaisedSurface | None:
    r = data.get("raised_surface")
    return None if r is None else RaisedSurface(str(r["floor_plane"]), float(r["thickness_m"]))


def check_optional_fields(data: dict, bad) -> None:
    """Checks of the optional fields (drawing, synthesis, qa_wording) that span fields and that
    the schema cannot express; ``bad(field, message)`` raises."""
    for k in ("camera_distance_m", "camera_height_m", "ball_height_m"):
        v = data.get("synthesis", {}).get(k)
        if v is not None and v[0] > v[1]:
            bad(f"synthesis.{k}", f"expected [low, high], got {v}")
    for name in data.get("line_widths_m", {}):
        if name not in data["lines"]:
            bad(f"line_widths_m.{name}", f"no such line (lines: {', '.join(data['lines'])})")
    qa = data.get("qa_wording", {})
    zones = {z["name"] for z in data["zones"]}
    for key, known in (
        ("line_names", data["lines"]),
        ("zone_names", zones),
        ("three_point_zones", zones),
    ):
        for name in qa.get(key, ()):
            if name not in known:
                bad(f"qa_wording.{key}.{name}", "no such line or zone in this spec")
    r = data.get("raised_surface")
    if r is not None:
        if r["floor_plane"] not in data["planes"]:
            bad(
                "raised_surface.floor_plane",
                f"{r['floor_plane']!r} is not one of planes ({', '.join(data['planes'])})",
            )
        if not data["planes"][r["floor_plane"]] < 0:
            bad(
                "raised_surface.floor_plane", "the floor must lie below the playing surface (z < 0)"
            )


def describe_drawing(spec) -> list[str]:
    """Text lines for ``courtstudio specs SPORT``: line widths, raised surface, synthesis
    presets; presets scaled from the court's size are marked 'derived'."""
    out = [
        f"lines painted {spec.line_width_m:g} m wide"
        + "".join(f", {k} {v:g} m" for k, v in spec.line_widths_m.items())
        + f"; ball radius {spec.ball_radius_m:g} m"
    ]
    if spec.raised_surface is not None:
        r = spec.raised_surface
        out.append(
            f"raised surface: a {r.thickness_m:g} m slab standing on plane "
            f"{r.floor_plane} (players stand there, behind the ends)"
        )
    p = spec.synthesis

    def rng(k):
        lo, hi = getattr(p, k)
        return f"{lo:.3g}..{hi:.3g} m" + (" (derived)" if k in p.derived else "")

    lateral = f"{p.camera_lateral_m:.3g} m" + (
        " (derived)" if "camera_lateral_m" in p.derived else ""
    )
    out.append(
        f"synthesis: camera {rng('camera_distance_m')} back, {rng('camera_height_m')} "
        f"high, lateral up to {lateral}; ball {rng('ball_height_m')} high"
    )
    return out

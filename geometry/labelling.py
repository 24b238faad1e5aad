"""Which of a court's symmetric labellings is the world frame, and which cameras are physical.

A court is symmetric under the group {identity, left_right (y -> W - y), near_far
(x -> L - x), rotate_180 (both)}, so one set of clicks admits four labellings:

- the two *mirrored* ones (left_right, near_far) flip the court's handedness. No proper camera
  fits them above the court: planar clicks are fitted exactly by the camera reflected through
  the court plane (below it, or with the points behind it), and clicks off the plane (net,
  rings) are not fitted at all. ``pose_problem`` rejects such cameras.
- the two *proper* ones (identity, rotate_180) both fit, with camera centres C and its
  image under the 180-degree turn about the court's centre. The world convention picks one by
  the sign of the camera's offset from the court's centre line across the view's axis
  (``WorldConvention.side_margin_m``): end-on views put the camera at x > L/2 (beyond the
  near baseline), side-on views at y < W/2 (beyond the near sideline, the one the spec calls
  'left'); 'auto' takes the view from where the camera stands (``WorldConvention.view_for``).
  The two candidates' margins are exactly opposite, so one is positive unless the camera
  stands on that centre line, where a camera of that view never stands (docs/frames.md).

Only numpy; no court-spec types, so the solver and the doctor can use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

VIEWS = ("end", "side")
CONVENTION_NAMES = {"end": "end_on", "side": "side_on"}
MIN_CAMERA_HEIGHT_M = 1e-3
MIN_DEPTH_M = 1e-6
MIRRORED_KINDS = ("left_right", "near_far")
WHOLE_COURT_KINDS = ("left_right", "near_far", "rotate_180")


def camera_centre(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """(3,) metres, world frame: C = -R^T t for world-to-camera R (3, 3), t (3,)."""
    R = np.asarray(rotation, float)
    return -R.T @ np.asarray(translation, float).reshape(3)


def pose_problem(
    rotation: np.ndarray,
    translation: np.ndarray,
    points_world: np.ndarray,
    surface_z_m: float | None = 0.0,
) -> str | None:
    """Why a pose is not a physical broadcast camera, or None when it is.

    rotation (3, 3), translation (3,): world-to-camera. points_world: (N, 3) metres. A
    physical camera has every point in front (depth > 0) and its centre above the playing
    surface z = surface_z_m (the court floor; for table tennis the table top); surface_z_m None
    skips the height test (generic, non-court use)."""
    R = np.asarray(rotation, float)
    t = np.asarray(translation, float).reshape(3)
    depth = np.asarray(points_world, float) @ R[2] + t[2]
    if not np.all(depth > MIN_DEPTH_M):
        return "behind"
    if surface_z_m is not None:
        c = camera_centre(R, t)
        if not c[2] > surface_z_m + MIN_CAMERA_HEIGHT_M:
            return "below"
    return None


@dataclass(frozen=True)
class WorldConvention:
    """How the world frame is tied to the camera (docs/frames.md).

    view: 'end' (camera beyond a baseline: tennis, badminton, table tennis, pickleball),
    'side' (camera beyond a sideline: basketball), or 'auto' (volleyball, filmed both ways):
    per camera, 'end' when its line of sight to the court's centre crosses an end line and
    'side' when it crosses a sideline (``view_for``; the same for both proper labellings).
    length_m, width_m: the court's extent along world x and y, metres."""

    view: str
    length_m: float
    width_m: float

    def __post_init__(self):
        if self.view not in VIEWS + ("auto",):
            raise ValueError(
                f"view: expected one of {', '.join(VIEWS + ('auto',))}, got {self.view!r}"
            )

    def view_for(self, centre_world) -> str:
        """'end' or 'side' for a camera centre (3,) m. For 'auto': 'end' when the camera is
        farther outside the court along x than along y relative to the court's shape
        (|x - L/2| W > |y - W/2| L: its line of sight to the centre crosses an end line).
        Invariant under the 180-degree relabelling, so it never depends on the labelling;
        it switches only for a camera looking at the centre exactly over a corner, and
        there the two views pick the same labelling on one diagonal (docs/frames.md)."""
        if self.view != "auto":
            return self.view
        c = np.asarray(centre_world, float)
        dx, dy = abs(c[0] - self.length_m / 2), abs(c[1] - self.width_m / 2)
        return "end" if dx * self.width_m >= dy * self.length_m else "side"

    def name_for(self, centre_world) -> str:
        """'end_on' or 'side_on': the value scene and camera files record."""
        return CONVENTION_NAMES[self.view_for(centre_world)]

    def side_margin_m(self, centre_world) -> float:
        """Signed offset (m) of the camera centre (3,) from the court's centre line across the
        view's axis, positive on the conventional side: end: x - L/2; side: W/2 - y.

        The 180-degree relabelling maps it to exactly its negative, so the choice between the
        two proper labellings is continuous in the camera position and never ambiguous
        except for a camera on that centre line itself."""
        c = np.asarray(centre_world, float)
        if self.view_for(c) == "end":
            return float(c[0] - self.length_m / 2)
        return float(self.width_m / 2 - c[1])

    def on_conventional_side(self, centre_world) -> bool:
        return self.side_margin_m(centre_world) > 0.0

    def wrong_side_message(self, centre_world) -> str:
        """One sentence: where the clicks put the camera and where the convention wants it."""
        c = np.asarray(centre_world, float)
        if self.view_for(c) == "end":
            return (
                f"the clicks put the camera on the far side of the court (x = {c[0]:.2f} m, "
                f"the near half starts at x = {self.length_m / 2:.2f} m): near/far labels "
                f"look swapped"
            )
        return (
            f"the clicks put the camera beyond the far sideline (y = {c[1]:.2f} m; in a "
            f"side view the camera is beyond the sideline at y = 0, so y < "
            f"{self.width_m / 2:.2f} m): the ends and the sidelines look swapped"
        )

    def unusual_position_warning(self, centre_world) -> str | None:
        """A warning when the camera is on the conventional side but not beyond the court's
        edge for its view (a side view calibrated as end-on, or the reverse)."""
        c = np.asarray(centre_world, float)
        view = self.view_for(c)
        if view == "end" and c[0] <= self.length_m:
            return (
                f"camera centre x = {c[0]:.2f} m is not behind the near baseline "
                f"(x = {self.length_m:g} m): for a camera beside the court use the side "
                f"view (--view side)"
            )
        if view == "side" and c[1] >= 0.0:
            return (
                f"camera centre y = {c[1]:.2f} m is not beyond the near sideline (y = 0): "
                f"for a camera behind a baseline use the end view (--view end)"
            )
        return None

"""The annotator's tool state: which tool is active, which keypoint is next, which player is
selected, which registration mask (or proposal) is selected. Qt-free, so the keyboard-driven
flow is testable without a window."""

from __future__ import annotations

from contextlib import contextmanager

from court_specs import CourtSpec
from courtstudio.editing.events import Signal
from courtstudio.editing.panel_ids import PANEL_IDS

TOOLS = PANEL_IDS  # one tool per panel


def keypoint_order(spec: CourtSpec) -> list[str]:
    """The order keypoints are offered in: the paper's minimum annotation first (corners and
    net-post tops, or corners and rings), then the rest as the spec lists them. Side view
    (docs/frames.md: far end on the left, near sideline at the bottom of the diagram): the
    minimum's corners, then its other points, each in the diagram's reading order (top
    row left to right, then down), the rest
    column by column from the left end to the right end, top to bottom."""
    first = spec.minimal_keypoints
    rest = [n for n in spec.keypoints if n not in first]
    if spec.broadcast_view in ("side", "auto"):
        kp = spec.keypoints
        first = sorted(
            first,
            key=lambda n: (not n.endswith("_corner"), -round(kp[n][1], 2), round(kp[n][0], 2)),
        )
        rest = sorted(rest, key=lambda n: (round(kp[n][0], 2), -round(kp[n][1], 2), kp[n][2]))
    return first + rest


class ToolState:
    def __init__(self):
        self.tool = "court"
        self.keypoint: str | None = None
        self.player_id: int | None = None
        self.mask: tuple[str, int] | None = None  # ("mask" | "proposal", index)
        self.changed = Signal("tool_state.changed")
        self._quiet = False

    def _emit(self) -> None:
        if not self._quiet:
            self.changed.emit()

    @contextmanager
    def quiet(self):
        """Change several things without emitting ``changed`` (the caller refreshes once)."""
        was, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = was

    def set_tool(self, tool: str) -> None:
        if tool not in TOOLS:
            raise ValueError(f"unknown tool {tool!r}; tools: {', '.join(TOOLS)}")
        if tool != self.tool:
            self.tool = tool
            self._emit()

    def set_keypoint(self, name: str | None) -> None:
        if name != self.keypoint:
            self.keypoint = name
            self._emit()

    def set_player(self, pid: int | None) -> None:
        if pid != self.player_id:
            self.player_id = pid
            self._emit()

    def set_mask(self, selection: tuple[str, int] | None) -> None:
        """Select a registration mask ("mask", i) or a proposal ("proposal", i), or none."""
        if selection != self.mask:
            self.mask = None if selection is None else (str(selection[0]), int(selection[1]))
            self._emit()

    def advance(self, spec: CourtSpec, clicked: dict, step: int = 1) -> None:
        """Move to the next (step=+1) or previous (-1) keypoint; unclicked ones first."""
        order = keypoint_order(spec)
        if self.keypoint not in order:
            self.set_keypoint(next((n for n in order if n not in clicked), order[0]))
            return
        i = order.index(self.keypoint)
        n = len(order)
        for k in range(1, n + 1):
            cand = order[(i + step * k) % n]
            if cand not in clicked:
                self.set_keypoint(cand)
                return
        self.set_keypoint(order[(i + step) % n])

"""The tool panels, registered once: adding a panel is adding a row here (and its id to
courtstudio/editing/panel_ids.py, the Qt-free list the CLI's ``gui --panel`` choices come
from). The window builds its tabs, its Tools menu entries and its read-only switch from this
table, ``courtstudio gui --panel`` picks the tab from it, and the canvas dispatches a press or
drag of the active tool to the handlers named here (CanvasTools methods).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtWidgets import QWidget

from annotation_ui.ball_panel import BallPanel
from annotation_ui.court_panel import CourtPanel
from annotation_ui.masks_panel import MasksPanel
from annotation_ui.players_panel import PlayersPanel
from courtstudio.editing.panel_ids import PANEL_IDS


@dataclass(frozen=True)
class Panel:
    """id: the tool and panel id (panel_ids.PANEL_IDS); title: the tab's and the Tools menu's
    name; shortcut: the key selecting the tool; attr: the window attribute holding the
    widget; factory: builds the widget; press / drag: the CanvasTools methods handling the
    tool's mouse press and drag on the canvas."""

    id: str
    title: str
    shortcut: str
    attr: str
    factory: Callable[[], QWidget]
    press: str
    drag: str

    @property
    def tab_text(self) -> str:
        return f"{self.title} ({self.shortcut})"

    @property
    def action_text(self) -> str:
        return f"{self.title} tool"


PANELS = (
    Panel("court", "Court", "C", "court_panel", CourtPanel, "_press_court", "_drag_court"),
    Panel("ball", "Ball", "B", "ball_panel", BallPanel, "_press_ball", "_drag_ball"),
    Panel(
        "players", "Players", "P", "players_panel", PlayersPanel, "_press_players", "_drag_players"
    ),
    # the Masks tool handles the canvas itself (annotation_ui/masks_tool.py): no-op handlers
    Panel("masks", "Masks", "M", "masks_panel", MasksPanel, "_press_masks", "_drag_masks"),
)
if tuple(p.id for p in PANELS) != PANEL_IDS:
    raise RuntimeError(
        "annotation_ui/panels.py and courtstudio/editing/panel_ids.py list different panels"
    )
BY_ID = {p.id: p for p in PANELS}


def panel_index(panel_id: str) -> int:
    """The tab index of a panel (KeyError for an unknown id)."""
    return PANEL_IDS.index(BY_ID[panel_id].id)

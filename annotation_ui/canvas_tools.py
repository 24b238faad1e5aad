"""Mouse handling on the frame canvas for the court, ball and players tools (the masks tool
handles its own: annotation_ui/masks_tool.py). Every edit goes to the document
(an undoable command); a drag is one undo step.

Court: click places the current keypoint and advances to the next; press on an existing click
drags it. Ball: first click is the ball, the next ones place (or drag) its ground point on the
drawn line; Shift+click re-places the ball. Players: drag on empty image draws a box (the
selected player's id if that player has no box in this frame, else the next free id); drag
inside a box moves it; drag its corner resizes it.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal

from annotation_ui.panels import BY_ID
from courtstudio.editing.document import AnnotationDocument
from courtstudio.editing.tool_state import ToolState
from courtstudio.pipeline.players import height_from_ground_click

HIT_RADIUS_SCREEN_PX = 10.0


class CanvasTools(QObject):
    message = Signal(str)  # refused edits, shown in the status bar

    def __init__(self, doc: AnnotationDocument, tools: ToolState, view):
        super().__init__(view)
        self.doc, self.tools, self.view = doc, tools, view
        self._drag = None
        view.pressed.connect(self._pressed)
        view.dragged.connect(self._dragged)
        view.released.connect(self._released)

    @property
    def _fid(self) -> str:
        return self.doc.current_frame.id

    def _radius(self) -> float:
        return HIT_RADIUS_SCREEN_PX * self.view.pixels_per_screen_px()

    def _guard(self, fn, *args):
        try:
            fn(*args)
        except (ValueError, KeyError) as exc:
            self.message.emit(" ".join(str(exc).split()))
            self._drag = None

    def _pressed(self, u, v, mods):
        if self.doc is None:
            return
        self._guard(getattr(self, BY_ID[self.tools.tool].press), u, v, mods)

    def _dragged(self, u, v):
        if self._drag is not None:
            self._guard(getattr(self, BY_ID[self.tools.tool].drag), u, v)

    def _released(self, u, v):
        if self.doc is None:
            return
        drag, self._drag = self._drag, None
        self.doc.end_drag()
        if drag and drag[0] == "kp_new":
            ann = self.doc.annotation(self._fid)
            self.tools.advance(self.doc.spec(), ann.points)

    # ------------------------------------------------------------------ court
    def _press_court(self, u, v, mods):
        ann = self.doc.annotation(self._fid)
        hit = _nearest(ann.points, (u, v), self._radius())
        if hit is not None:
            self.tools.set_keypoint(hit)
            self._drag = ("kp", hit)
            return
        if self.tools.keypoint is None:
            self.tools.advance(self.doc.spec(), ann.points)
        name = self.tools.keypoint
        self.doc.set_keypoint(self._fid, name, (u, v))
        self._drag = ("kp_new", name)

    def _drag_court(self, u, v):
        self.doc.set_keypoint(self._fid, self._drag[1], (u, v), drag=True)

    # ------------------------------------------------------------------- ball
    def _press_ball(self, u, v, mods):
        ann = self.doc.annotation(self._fid)
        b = ann.ball
        if b is None or not b.visible or b.uv is None or mods & Qt.KeyboardModifier.ShiftModifier:
            self.doc.set_ball_pixel(self._fid, (u, v))
            self._drag = None
            return
        self.doc.set_ball_ground(self._fid, (u, v))
        self._drag = ("ground",)

    def _drag_ball(self, u, v):
        self.doc.set_ball_ground(self._fid, (u, v), drag=True)

    # ---------------------------------------------------------------- players
    def _press_players(self, u, v, mods):
        ann = self.doc.annotation(self._fid)
        if mods & Qt.KeyboardModifier.AltModifier:
            self._height_click(ann, u, v)
            return
        r = self._radius()
        for p in reversed(ann.players):
            x0, y0, x1, y1 = p.box_xyxy
            if abs(u - x1) <= r and abs(v - y1) <= r:
                self.tools.set_player(p.id)
                self._drag = ("resize", p.id, (x0, y0))
                return
            if x0 <= u <= x1 and y0 <= v <= y1:
                self.tools.set_player(p.id)
                self._drag = ("move", p.id, (u, v), p.box_xyxy)
                return
        pid = self.tools.player_id
        if pid is None or ann.player(pid) is not None:
            pid = self.doc.next_player_id()
        self.tools.set_player(pid)
        self._drag = ("new", pid, (u, v))

    def _drag_players(self, u, v):
        kind, pid = self._drag[0], self._drag[1]
        if kind == "new" or kind == "resize":
            x0, y0 = self._drag[2]
            if abs(u - x0) >= 2 and abs(v - y0) >= 2:
                self.doc.set_player_box(self._fid, pid, (x0, y0, u, v), drag=True)
        elif kind == "move":
            (su, sv), (x0, y0, x1, y1) = self._drag[2], self._drag[3]
            du, dv = u - su, v - sv
            self.doc.set_player_box(self._fid, pid, (x0 + du, y0 + dv, x1 + du, y1 + dv), drag=True)

    def _height_click(self, ann, u, v):
        """Alt+click: the selected player's lowest vertex stands over this ground point."""
        pid = self.tools.player_id
        p = ann.player(pid) if pid is not None else None
        if p is None or p.mesh is None:
            raise ValueError(
                "select a player with a mesh, then Alt+click its lowest vertex's ground point"
            )
        state = self.doc.camera_state(self._fid)
        if state.camera is None:
            raise ValueError("calibrate the court first")
        spec = self.doc.spec()
        h = height_from_ground_click(
            state.camera, self.doc.player_mesh(p.mesh), (u, v), spec.player_plane_z()
        )
        self.doc.set_player_height(self._fid, pid, h)

    # ------------------------------------------------------------------ masks
    def _press_masks(self, u, v, mods):
        """Nothing: MasksTool (annotation_ui/masks_tool.py) listens to the view itself."""

    def _drag_masks(self, u, v):
        """Nothing (MasksTool handles the drag; this tool never sets ``self._drag``)."""


def _nearest(points: dict, uv, radius: float):
    best, best_d = None, radius
    for name, p in points.items():
        d = float(np.hypot(p[0] - uv[0], p[1] - uv[1]))
        if d <= best_d:
            best, best_d = name, d
    return best

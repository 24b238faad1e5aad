"""The Masks tool (M): registration masks drawn on the frame, their panel, and Detect graphics.

Mouse (tool "masks"): drag on empty image draws a rectangle; drag inside a mask moves it, a
corner or an edge resizes it (Esc during the drag cancels it); click a proposal to select it,
Enter accepts it; Delete removes the selection. Every edit is a command on the document
(courtstudio.editing.mask_layer), so undo, the autosave journal and read-only refusal come from the
model; this module only turns mouse events into those calls and draws what the model holds.
Masks are overlays like the others: View > Hide overlays (H) hides them.
"""

from __future__ import annotations

import itertools

from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QGraphicsSimpleTextItem

from annotation_ui.coords import uv_to_scene
from annotation_ui.masks_panel import MasksPanel
from courtstudio.editing.mask_layer import clamp_box, drag_box, move_inside

MASK = QColor(255, 90, 40)
PROPOSAL = QColor(60, 200, 255)
SELECTED = QColor(255, 255, 255)
HIT_RADIUS_SCREEN_PX = 8.0
HANDLE_SCREEN_PX = 7.0
STATUS_HINT = (
    "drag on the frame to draw a rectangle over a broadcast graphic; drag "
    "inside one to move it, a corner or edge to resize (Esc cancels); Enter accepts "
    "a proposal, Delete removes the selection"
)
CURSORS = {
    "move": Qt.CursorShape.SizeAllCursor,
    "l": Qt.CursorShape.SizeHorCursor,
    "r": Qt.CursorShape.SizeHorCursor,
    "t": Qt.CursorShape.SizeVerCursor,
    "b": Qt.CursorShape.SizeVerCursor,
    "tl": Qt.CursorShape.SizeFDiagCursor,
    "br": Qt.CursorShape.SizeFDiagCursor,
    "tr": Qt.CursorShape.SizeBDiagCursor,
    "bl": Qt.CursorShape.SizeBDiagCursor,
}
_drag_ids = itertools.count()


def _pen(color: QColor, width: float, dashed: bool = False) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def _scene_rect(box) -> QRectF:
    return QRectF(uv_to_scene(box[0], box[1]), uv_to_scene(box[2], box[3]))


def _tag(layer, box, text: str, color: QColor) -> None:
    """A label on a dark plate inside the box's top-left corner (constant screen size)."""
    item = QGraphicsSimpleTextItem(text)
    item.setBrush(QBrush(QColor(255, 255, 255)))
    r = item.boundingRect()
    plate = QGraphicsRectItem(QRectF(0, 0, r.width() + 6, r.height() + 2))
    plate.setBrush(QBrush(QColor(color.red() // 3, color.green() // 3, color.blue() // 3, 200)))
    plate.setPen(QPen(Qt.PenStyle.NoPen))
    plate.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    plate.setPos(uv_to_scene(box[0], box[1]))
    item.setParentItem(plate)
    item.setPos(3, 1)
    layer._add(plate, 4.5)


def draw_masks(layer, masks: list, proposals: list, selection) -> None:
    """Masks: tinted and hatched, solid outline, "Mask N"; proposals: dashed outline, light
    tint, "Proposed N"; the selection: a white outline with resize handles."""
    for kind, boxes, color in (("mask", masks, MASK), ("proposal", proposals, PROPOSAL)):
        for i, box in enumerate(boxes):
            chosen = selection == (kind, i)
            rect = _scene_rect(box)
            tint = QGraphicsRectItem(rect)
            tint.setBrush(
                QBrush(
                    QColor(color.red(), color.green(), color.blue(), 60 if kind == "mask" else 35)
                )
            )
            tint.setPen(
                _pen(
                    SELECTED if chosen else color, 2.5 if chosen else 1.5, dashed=kind == "proposal"
                )
            )
            layer._add(tint, 1.5)
            if kind == "mask":
                hatch = QGraphicsRectItem(rect)
                hatch.setBrush(
                    QBrush(
                        QColor(color.red(), color.green(), color.blue(), 150),
                        Qt.BrushStyle.BDiagPattern,
                    )
                )
                hatch.setPen(QPen(Qt.PenStyle.NoPen))
                layer._add(hatch, 1.6)
            _tag(layer, box, f"Mask {i + 1}" if kind == "mask" else f"Proposed {i + 1}", color)
            if chosen and kind == "mask":
                x0, y0, x1, y1 = box
                xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
                s = HANDLE_SCREEN_PX
                for u, v in (
                    (x0, y0),
                    (x1, y0),
                    (x0, y1),
                    (x1, y1),
                    (xm, y0),
                    (xm, y1),
                    (x0, ym),
                    (x1, ym),
                ):
                    h = QGraphicsRectItem(QRectF(-s / 2, -s / 2, s, s))
                    h.setBrush(QBrush(SELECTED))
                    h.setPen(_pen(QColor(0, 0, 0), 1.0))
                    h.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
                    h.setPos(uv_to_scene(u, v))
                    layer._add(h, 5.0)


class MasksTool(QObject):
    """The Masks tool of a MainWindow: mouse on the canvas, the panel, Detect graphics."""

    def __init__(self, win, panel: MasksPanel | None = None):
        """win: the MainWindow (view, tools, statusBar, refresh, _guarded, set_tool); panel:
        the Masks panel when the window built it already (else one is made here)."""
        super().__init__(win)
        self.win = win
        self.doc = None
        self.panel = panel if panel is not None else MasksPanel()
        self._drag = None
        self._pushed = False  # the current drag has pushed an edit (Esc undoes it)
        self._notice: str | None = None  # the last refusal, kept in the status bar until
        # the next press (the refresh after a release would otherwise overwrite it)
        view = win.view
        view.pressed.connect(self._pressed)
        view.dragged.connect(self._dragged)
        view.released.connect(self._released)
        view.hovered.connect(self._hovered)
        view.installEventFilter(self)
        p = self.panel
        p.selected.connect(lambda kind, i: win.tools.set_mask((kind, i)))
        p.detect_requested.connect(lambda: win._guarded(self.detect_graphics))
        p.accept_requested.connect(lambda: win._guarded(self.accept_selected))
        p.accept_all_requested.connect(lambda: win._guarded(self.accept_all))
        p.delete_requested.connect(lambda: win._guarded(self.delete_selected))
        p.delete_all_requested.connect(lambda: win._guarded(self.delete_all))

    # ------------------------------------------------------------- document
    def attach(self, doc) -> None:
        self.doc = doc
        doc.masks.changed.connect(self._masks_changed)
        if doc.masks.error:
            self.win.statusBar().showMessage(doc.masks.error, 15000)

    def detach(self) -> None:
        if self.doc is not None:
            self.doc.masks.changed.disconnect(self._masks_changed)
        self.doc = None
        self._drag = None

    def _masks_changed(self) -> None:
        m, sel = self.doc.masks, self.win.tools.mask
        n = len(m.boxes) if sel and sel[0] == "mask" else len(m.proposals)
        if sel is not None and sel[1] >= n:  # an undo removed what was selected
            self.win.tools.set_mask(None)
        self.win.refresh()

    @property
    def active(self) -> bool:
        return self.doc is not None and self.win.tools.tool == "masks"

    def status_hint(self) -> str:
        """What a click does in this tool, or why the last gesture was refused."""
        return f"refused: {self._notice}" if self._notice else STATUS_HINT

    def draw(self, layer) -> None:
        """Draw the masks (in every tool: they belong to the frame); proposals, the selection
        and the panel only in the Masks tool (the panel is hidden otherwise)."""
        if self.doc is None:
            return
        m, tools = self.doc.masks, self.win.tools
        if tools.tool != "masks":
            draw_masks(layer, m.boxes, [], None)
            return
        draw_masks(layer, m.boxes, m.proposals, tools.mask)
        size, frame_size = m.image_size, self.doc.frames.image_size(self.doc.current_frame)
        info = f"{len(m.boxes)} mask(s)"
        if m.proposals:
            info += f", {len(m.proposals)} proposal(s) to accept or delete"
        info += "; unsaved (File > Save)" if m.dirty else "; saved"
        if size is not None and tuple(frame_size) != tuple(size):
            info += (
                f". Masks are in the first frame's size {size[0]}x{size[1]}; this frame "
                f"is {frame_size[0]}x{frame_size[1]}"
            )
        self.panel.update_state(m.boxes, m.proposals, tools.mask, m.error, info)

    # ------------------------------------------------------------------ mouse
    def _radius(self) -> float:
        return HIT_RADIUS_SCREEN_PX * self.win.view.pixels_per_screen_px()

    def _guard(self, fn, *args) -> None:
        try:
            fn(*args)
        except (ValueError, KeyError) as exc:
            self._notice = " ".join(str(exc).split())
            self.win.statusBar().showMessage(self._notice, 8000)
            self._drag = None

    def _pressed(self, u, v, mods) -> None:
        if self.active:
            self._notice = None
            self._guard(self._press, u, v)

    def _press(self, u, v) -> None:
        self.doc.masks.check_editable()  # refused at the press, said at once
        self._pushed = False
        hit = self.doc.masks.hit((u, v), self._radius())
        key = ("mask-drag", next(_drag_ids))
        if hit is None:
            self.win.tools.set_mask(None)
            self._drag = ["new", None, (u, v), key]
            return
        kind, i, handle = hit
        self.win.tools.set_mask((kind, i))
        if kind == "mask":
            self._drag = ["edit", i, (u, v), key, handle, self.doc.masks.boxes[i]]

    def _dragged(self, u, v) -> None:
        if self.active and self._drag is not None:
            self._guard(self._drag_to, u, v)

    def _drag_to(self, u, v) -> None:
        m, d = self.doc.masks, self._drag
        (u0, v0), key = d[2], d[3]
        if d[0] == "new":
            if abs(u - u0) < 2 or abs(v - v0) < 2:
                return
            box = (u0, v0, u, v)
            if d[1] is None:
                d[1] = m.add(box, merge_key=key)
                self.win.tools.set_mask(("mask", d[1]))
            else:
                m.set_box(d[1], box, merge_key=key)
            self._pushed = True
            return
        handle, start = d[4], d[5]
        if handle == "move":
            box = move_inside(start, u - u0, v - v0, m.image_size)
        else:
            box = clamp_box(drag_box(start, handle, u - u0, v - v0), m.image_size)
        m.set_box(d[1], box, merge_key=key)
        self._pushed = m.boxes[d[1]] != tuple(start) or self._pushed

    def _cancel_drag(self) -> None:
        """Esc during a drag: the drag's edit (one merged command) is undone."""
        pushed, self._drag, self._pushed = self._pushed, None, False
        if pushed and self.doc.undo_stack.can_undo:
            self.doc.end_drag()
            self.doc.undo()

    def _released(self, u, v) -> None:
        self._drag, self._pushed = None, False

    def _hovered(self, u, v) -> None:
        vp = self.win.view.viewport()
        if not self.active or self._drag is not None:
            if not self.active:
                vp.unsetCursor()
            return
        hit = self.doc.masks.hit((u, v), self._radius())
        if hit is not None and hit[0] == "mask":
            vp.setCursor(CURSORS[hit[2]])
        else:
            vp.setCursor(Qt.CursorShape.CrossCursor)

    def eventFilter(self, obj, event) -> bool:
        """On the canvas, in the Masks tool: Enter accepts the selected proposal; Esc
        cancels the drag in progress (its edit is undone) or else clears the selection."""
        if event.type() != QEvent.Type.KeyPress or not self.active:
            return False
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.win._guarded(self.accept_selected)
            return True
        if event.key() == Qt.Key.Key_Escape:
            if self._drag is not None:
                self.win._guarded(self._cancel_drag)
            else:
                self.win.tools.set_mask(None)
            return True
        return False

    # ---------------------------------------------------------------- actions
    def accept_selected(self) -> None:
        sel = self.win.tools.mask
        if sel is None or sel[0] != "proposal":
            raise ValueError(
                "select a proposed mask first (click it, or pick it in the Masks panel)"
            )
        i = self.doc.masks.accept(sel[1])
        self.win.tools.set_mask(("mask", i))

    def accept_all(self) -> None:
        n = self.doc.masks.accept_all()
        self.win.tools.set_mask(None)
        self.win.statusBar().showMessage(
            f"Accepted {n} proposed mask(s); File > Save writes them", 6000
        )

    def delete_selected(self) -> None:
        sel = self.win.tools.mask
        if sel is None:
            raise ValueError("select a mask or a proposal first")
        self.win.tools.set_mask(None)
        if sel[0] == "mask":
            self.doc.masks.remove(sel[1])
        else:
            self.doc.masks.reject(sel[1])

    def delete_all(self) -> None:
        self.win.tools.set_mask(None)
        self.doc.masks.clear()

    def detect_graphics(self, cancel_after: int | None = None) -> int:
        """Run the screen-fixed graphics detector over the project's frames (cancellable
        progress) and propose what it finds; returns the number proposed."""
        from PySide6.QtWidgets import QProgressDialog

        from courtstudio.pipeline.graphics_proposals import detect_graphics
        from courtstudio.pipeline.propagate_sources import ProjectFrames

        win, doc = self.win, self.doc
        if doc.undo_stack.read_only:
            raise ValueError(f"read-only: {doc.undo_stack.read_only}")
        if doc.masks.error:
            raise ValueError(doc.masks.error)
        win.set_tool("masks")
        dlg = QProgressDialog("Looking for screen-fixed graphics...", "Cancel", 0, 1, win)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)

        class Cancelled(Exception):
            pass

        def progress(done, total):
            dlg.setMaximum(total)
            dlg.setValue(done)
            if dlg.wasCanceled() or (cancel_after is not None and done >= cancel_after):
                raise Cancelled()

        try:
            result = detect_graphics(
                ProjectFrames(doc.project, doc.frames, annotation_of=doc.annotation), progress
            )
        except Cancelled:
            win.statusBar().showMessage("Detect graphics cancelled", 6000)
            return 0
        finally:
            dlg.close()
        n = doc.masks.propose(result.boxes) if result.boxes else 0
        win.tools.set_mask(("proposal", 0) if n else None)
        msg = result.message
        if result.boxes:
            msg += (
                f"; {n} proposed (Enter or Accept keeps one, Delete drops it)"
                if n
                else "; all are covered by masks already"
            )
        win.statusBar().showMessage(msg, 15000)
        return n

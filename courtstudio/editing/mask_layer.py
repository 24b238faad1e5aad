"""The project's registration masks as an editable layer of the document (Qt-free).

Rectangles over broadcast graphics (score bug, channel logo, clock, ticker) that propagation
must not register on: one set per project, the same on every frame, stored in
PROJECT/propagation/masks.json (courtstudio.io.masks_file, the reader `batch-propagate` uses).
Proposals from the screen-fixed graphics detector (courtstudio.pipeline.graphics_proposals) wait
beside the masks until the annotator accepts or deletes them.

Every edit is a command on the document's undo stack whose state is the pair (masks,
proposals), so undoing an accept brings the proposal back. Only the masks are journaled and
saved; ``dirty`` compares them with what is on disk. All boxes are (x0, y0, x1, y1) floats in
full-resolution pixels of the project's frames (u right, v down, OpenCV's convention).
"""

from __future__ import annotations

from typing import Callable

from courtstudio.editing.events import Signal
from courtstudio.editing.undo import Command, ReadOnlyError, UndoStack
from courtstudio.io.masks_file import (
    MAX_MASKS,
    check_mask_boxes,
    masks_path,
    read_masks_file,
    write_masks_file,
)
from courtstudio.io.project import ProjectError

MIN_SIDE_PX = 2.0
Box = tuple[float, float, float, float]
# hit-test handles: corners and edges resize, "move" drags the whole box
CORNERS = {"tl": (0, 1), "tr": (2, 1), "bl": (0, 3), "br": (2, 3)}
EDGES = {"l": 0, "t": 1, "r": 2, "b": 3}


def clamp_box(box, image_size) -> Box:
    """``box`` (any corner order) with x0 < x1, y0 < y1, clipped to the image
    ([-0.5, w - 0.5] x [-0.5, h - 0.5]); ProjectError if under MIN_SIDE_PX on a side."""
    x0, y0, x1, y1 = (float(c) for c in box)
    w, h = image_size
    x0, x1 = sorted((min(max(x0, -0.5), w - 0.5), min(max(x1, -0.5), w - 0.5)))
    y0, y1 = sorted((min(max(y0, -0.5), h - 0.5), min(max(y1, -0.5), h - 0.5)))
    if x1 - x0 < MIN_SIDE_PX or y1 - y0 < MIN_SIDE_PX:
        raise ProjectError(
            f"a mask must be at least {MIN_SIDE_PX:g} px wide and high inside the {w}x{h} frame"
        )
    return (x0, y0, x1, y1)


def drag_box(box, handle: str, du: float, dv: float) -> Box:
    """``box`` after dragging ``handle`` (a corner "tl", "tr", "bl", "br", an edge "l", "t",
    "r", "b", or "move") by (du, dv) pixels; not normalised or clipped (clamp_box does)."""
    b = [float(c) for c in box]
    if handle == "move":
        return (b[0] + du, b[1] + dv, b[2] + du, b[3] + dv)
    if handle in CORNERS:
        ix, iy = CORNERS[handle]
        b[ix] += du
        b[iy] += dv
    elif handle in EDGES:
        i = EDGES[handle]
        b[i] += du if i in (0, 2) else dv
    else:
        raise ValueError(f"unknown handle {handle!r}")
    return (b[0], b[1], b[2], b[3])


def move_inside(box, du: float, dv: float, image_size) -> Box:
    """``box`` moved by (du, dv) pixels, the move shortened so the box stays inside the
    image (its size never changes)."""
    x0, y0, x1, y1 = (float(c) for c in box)
    w, h = image_size
    du = min(max(du, -0.5 - x0), w - 0.5 - x1)
    dv = min(max(dv, -0.5 - y0), h - 0.5 - y1)
    return (x0 + du, y0 + dv, x1 + du, y1 + dv)


def hit_box(box, uv, radius: float) -> str | None:
    """Which handle of ``box`` the pixel ``uv`` grabs within ``radius`` pixels: a corner,
    then an edge, then "move" inside; None outside."""
    x0, y0, x1, y1 = box
    u, v = float(uv[0]), float(uv[1])
    near = {
        "l": abs(u - x0) <= radius,
        "r": abs(u - x1) <= radius,
        "t": abs(v - y0) <= radius,
        "b": abs(v - y1) <= radius,
    }
    for name in ("tl", "tr", "bl", "br"):
        if near[name[1]] and near[name[0]]:
            return name
    inside_u = x0 - radius <= u <= x1 + radius
    inside_v = y0 - radius <= v <= y1 + radius
    for name in ("l", "r"):
        if near[name] and inside_v:
            return name
    for name in ("t", "b"):
        if near[name] and inside_u:
            return name
    return "move" if x0 <= u <= x1 and y0 <= v <= y1 else None


class ProjectMasks:
    """The masks of one open project. ``changed()`` is emitted after every change (of the
    masks or of the proposals), ``boxes_changed()`` before it when the masks changed."""

    def __init__(
        self, project_root, undo_stack: UndoStack, image_size: Callable[[], tuple[int, int]]
    ):
        """image_size: returns the project's frame size (w, h) (the first frame's, as
        propagation uses); called once, when the masks are first needed."""
        self.path = masks_path(project_root)
        self.undo_stack = undo_stack
        self._image_size_fn = image_size
        self._loaded = False
        self._size: tuple[int, int] | None = None
        self._boxes: list[Box] = []
        self._proposals: list[Box] = []
        self._saved: list[Box] = []
        self._keep: dict = {}
        self._error: str | None = None
        self.journal_pending = False  # masks changed since the last journal record
        self.changed = Signal("masks.changed")
        self.boxes_changed = Signal("masks.boxes_changed")

    # ------------------------------------------------------------------ reading
    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            self._size = tuple(int(s) for s in self._image_size_fn())
            boxes, self._keep = read_masks_file(self.path, self._size)
        except ValueError as exc:
            self._error = " ".join(str(exc).split())
            return
        self._boxes = self._saved = [tuple(b) for b in boxes]

    @property
    def boxes(self) -> list[Box]:
        self._load()
        return list(self._boxes)

    @property
    def proposals(self) -> list[Box]:
        self._load()
        return list(self._proposals)

    @property
    def image_size(self) -> tuple[int, int] | None:
        self._load()
        return self._size

    @property
    def error(self) -> str | None:
        """Why masks.json could not be read (then masks cannot be edited), or None."""
        self._load()
        return self._error

    @property
    def dirty(self) -> bool:
        return self._loaded and self._boxes != self._saved

    def hit(self, uv, radius: float) -> tuple[str, int, str] | None:
        """(kind "mask" or "proposal", index, handle) under pixel ``uv``; masks drawn later
        are on top; a proposal is only picked as a whole ("move")."""
        for i in range(len(self.boxes) - 1, -1, -1):
            h = hit_box(self._boxes[i], uv, radius)
            if h is not None:
                return ("mask", i, h)
        for i in range(len(self._proposals) - 1, -1, -1):
            if hit_box(self._proposals[i], uv, 0.0) is not None:
                return ("proposal", i, "move")
        return None

    # -------------------------------------------------------------------- edits
    def _apply(self, state) -> None:
        boxes, proposals = state
        moved = list(boxes) != self._boxes
        if moved:
            self.journal_pending = True
        self._boxes, self._proposals = list(boxes), list(proposals)
        if moved:
            self.boxes_changed.emit()
        self.changed.emit()

    def check_editable(self) -> None:
        """Raise unless the masks can be edited: ReadOnlyError (another writer), or
        ProjectError (masks.json cannot be read; fixing it is the annotator's call)."""
        self._load()
        if self.undo_stack.read_only:  # said before any other reason
            raise ReadOnlyError(f"read-only: {self.undo_stack.read_only}")
        if self._error is not None:
            raise ProjectError(f"{self._error}: fix or remove this file to edit the masks")

    def _push(self, text: str, boxes, proposals, merge_key=None) -> None:
        self.check_editable()
        if len(boxes) > MAX_MASKS:
            raise ProjectError(f"at most {MAX_MASKS} masks per project")
        before = (tuple(self._boxes), tuple(self._proposals))
        after = (tuple(boxes), tuple(proposals))
        if after != before:
            self.undo_stack.push(Command(text, self._apply, before, after, merge_key))

    def add(self, box, merge_key=None) -> int:
        """A new mask (clamped to the frame); returns its index."""
        self.check_editable()
        b = clamp_box(box, self.image_size)
        self._push("Draw mask", self.boxes + [b], self._proposals, merge_key)
        return len(self._boxes) - 1

    def set_box(self, index: int, box, merge_key=None) -> None:
        """Move or resize mask ``index`` (successive pushes with one merge_key: one step)."""
        self.check_editable()
        boxes = self.boxes
        self._index(index, boxes)
        boxes[index] = clamp_box(box, self.image_size)
        self._push(f"Move mask {index + 1}", boxes, self._proposals, merge_key)

    def remove(self, index: int) -> None:
        boxes = self.boxes
        self._index(index, boxes)
        del boxes[index]
        self._push(f"Delete mask {index + 1}", boxes, self._proposals)

    def clear(self) -> None:
        self.check_editable()
        self._push("Delete all masks", [], self._proposals)

    def propose(self, boxes, text: str = "Detect graphics") -> int:
        """Replace the proposals (one undo step); boxes covered by a mask already (over
        half their area) are left out. Returns how many are proposed."""
        self.check_editable()
        size = self.image_size
        props = []
        for b in check_mask_boxes([list(b) for b in boxes], "proposals"):
            try:
                c = clamp_box(b, size)
            except ProjectError:
                continue
            if all(_overlap(c, m) <= 0.5 for m in self.boxes):
                props.append(c)
        self._push(text, self._boxes, props)
        return len(props)

    def accept(self, index: int) -> int:
        """Proposal ``index`` becomes a mask; returns the mask's index."""
        props = self.proposals
        self._index(index, props, "proposal")
        box = props.pop(index)
        self._push(f"Accept proposed mask {index + 1}", self.boxes + [box], props)
        return len(self._boxes) - 1

    def accept_all(self) -> int:
        n = len(self.proposals)
        self._push(f"Accept {n} proposed masks", self.boxes + self._proposals, [])
        return n

    def reject(self, index: int) -> None:
        props = self.proposals
        self._index(index, props, "proposal")
        del props[index]
        self._push(f"Delete proposed mask {index + 1}", self._boxes, props)

    @staticmethod
    def _index(index: int, items: list, what: str = "mask") -> None:
        if not 0 <= index < len(items):
            raise ProjectError(f"no {what} {index + 1} (there are {len(items)})")

    # ---------------------------------------------------------- journal / save
    def journal_record(self) -> dict | None:
        """The autosave record of the masks when they changed since the last call."""
        if not self.journal_pending:
            return None
        self.journal_pending = False
        return {"propagation_masks": [list(b) for b in self._boxes]}

    def unsaved(self) -> list[list[float]] | None:
        """The masks when they differ from the file, else None (a compacted journal)."""
        return [list(b) for b in self._boxes] if self.dirty else None

    def restore(self, boxes) -> None:
        """Recovered masks from the journal, as one undo step (unsaved). Values are checked
        (finite, x1 > x0, y1 > y0, at most MAX_MASKS); a box reaching outside the frame (the
        video was replaced by one of another size) is clipped to it, one left without area
        is dropped, so a recovery never fails half-way."""
        checked = check_mask_boxes(boxes, "autosave journal: field propagation_masks")
        self.check_editable()
        kept = []
        for b in checked:
            try:
                kept.append(clamp_box(b, self.image_size))
            except ProjectError:
                continue
        self._push("Recover masks", kept, self._proposals)

    def save(self) -> list:
        """Write masks.json when the masks changed (atomic); returns the paths written."""
        if not self.dirty:
            return []
        write_masks_file(self.path, self._boxes, self._size, self._keep)
        self._saved = list(self._boxes)
        self.journal_pending = False
        return [self.path]


def _overlap(a: Box, b: Box) -> float:
    """The fraction of a's area inside b."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return max(0.0, w) * max(0.0, h) / area if area > 0 else 0.0

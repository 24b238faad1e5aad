"""The Masks panel: the project's registration masks (rectangles over broadcast graphics that
propagation ignores) and the detector's proposals, with Detect / Accept / Delete. It shows
the model (courtstudio.editing.mask_layer.ProjectMasks) and emits requests; it edits nothing
itself."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

HINT = (
    "Rectangles over broadcast graphics (score bug, channel logo, clock, ticker) that "
    "propagation must ignore: one set for the whole project, the same on every frame. "
    "Drag on the frame to draw one; drag inside to move it, a corner or edge to resize; "
    "Delete removes the selected one. Detect graphics proposes them from the clip's "
    "frames (Enter or Accept keeps a proposal). File > Save writes them to "
    "propagation/masks.json, which Frame > Propagate and batch-propagate PROJECT use."
)


class MasksPanel(QWidget):
    selected = Signal(str, int)  # ("mask" | "proposal", index)
    detect_requested = Signal()
    accept_requested = Signal()
    accept_all_requested = Signal()
    delete_requested = Signal()
    delete_all_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hint = QLabel(HINT)
        self.hint.setWordWrap(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c0392b; font-weight: bold;")
        self.error.hide()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["rectangle", "x0, y0 .. x1, y1 (px)", "size"])
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.cellClicked.connect(self._clicked)
        self.detect = QPushButton("Detect graphics")
        self.detect.setToolTip(
            "Find screen-fixed graphics (score bug, logo, clock, ticker) in "
            "the project's frames: regions that stay put while the camera "
            "moves. Needs a clip with camera motion (Ctrl+Shift+G)"
        )
        self.accept = QPushButton("Accept")
        self.accept.setToolTip("Keep the selected proposal as a mask (Enter on the frame)")
        self.accept_all = QPushButton("Accept all")
        self.accept_all.setToolTip("Keep every proposal as a mask")
        self.delete = QPushButton("Delete")
        self.delete.setToolTip("Delete the selected mask or proposal (Delete)")
        self.delete_all = QPushButton("Delete all masks")
        self.delete_all.setToolTip("Remove every mask of the project (one undo step)")
        self.detect.clicked.connect(self.detect_requested.emit)
        self.accept.clicked.connect(self.accept_requested.emit)
        self.accept_all.clicked.connect(self.accept_all_requested.emit)
        self.delete.clicked.connect(self.delete_requested.emit)
        self.delete_all.clicked.connect(self.delete_all_requested.emit)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addWidget(self.error)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.info)
        row = QHBoxLayout()
        for b in (self.detect, self.accept, self.accept_all):
            row.addWidget(b)
        lay.addLayout(row)
        row2 = QHBoxLayout()
        row2.addWidget(self.delete)
        row2.addWidget(self.delete_all)
        row2.addStretch(1)
        lay.addLayout(row2)
        self._rows: list[tuple[str, int]] = []

    def _clicked(self, row: int, col: int) -> None:
        if 0 <= row < len(self._rows):
            self.selected.emit(*self._rows[row])

    def update_state(
        self, masks: list, proposals: list, selection, error: str | None, info: str
    ) -> None:
        """masks, proposals: (x0, y0, x1, y1) pixels; selection: ("mask" | "proposal", i) or
        None; error: why masks.json cannot be read (editing is off), or None."""
        self._rows = [("mask", i) for i in range(len(masks))] + [
            ("proposal", i) for i in range(len(proposals))
        ]
        self.table.setRowCount(len(self._rows))
        for row, (kind, i) in enumerate(self._rows):
            b = masks[i] if kind == "mask" else proposals[i]
            cells = [
                f"Mask {i + 1}" if kind == "mask" else f"Proposed {i + 1}",
                f"{b[0]:.0f}, {b[1]:.0f} .. {b[2]:.0f}, {b[3]:.0f}",
                f"{b[2] - b[0]:.0f} x {b[3] - b[1]:.0f}",
            ]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if kind == "proposal":
                    item.setForeground(QColor(40, 150, 200))
                self.table.setItem(row, col, item)
        if selection is not None and tuple(selection) in self._rows:
            self.table.selectRow(self._rows.index(tuple(selection)))
        else:
            self.table.clearSelection()
        self.error.setText(error or "")
        self.error.setVisible(bool(error))
        self.info.setText(info)
        editable = error is None
        kind = selection[0] if selection is not None else None
        self.detect.setEnabled(editable)
        self.accept.setEnabled(editable and kind == "proposal")
        self.accept_all.setEnabled(editable and bool(proposals))
        self.delete.setEnabled(editable and kind is not None)
        self.delete_all.setEnabled(editable and bool(masks))

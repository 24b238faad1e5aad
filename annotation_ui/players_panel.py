"""The Players panel: the frame's player boxes with stable ids (Player 1..N), their foot
point on the court, the selected player, and the annotated lowest-vertex height."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)


class PlayersPanel(QWidget):
    player_selected = Signal(int)
    delete_requested = Signal(int)
    height_set = Signal(int, float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hint = QLabel("Drag on the frame to draw a box; drag inside a box to move it, "
                           "its lower-right corner to resize. Ids stay with a player across "
                           "frames: select Player N, then draw.")
        self.hint.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["player", "feet on court (m)", "lowest vertex m"])
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.cellClicked.connect(self._clicked)
        self.height = QDoubleSpinBox()
        self.height.setRange(-1.0, 3.0)
        self.height.setDecimals(3)
        self.height.setSingleStep(0.01)
        self.height.setSuffix(" m")
        self.set_height = QPushButton("Set height")
        self.set_height.clicked.connect(self._set_height)
        self.delete = QPushButton("Delete player")
        self.delete.clicked.connect(self._delete)
        row = QHBoxLayout()
        row.addWidget(QLabel("lowest vertex"))
        row.addWidget(self.height)
        row.addWidget(self.set_height)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addWidget(self.table)
        lay.addLayout(row)
        lay.addWidget(self.delete)
        self._ids: list[int] = []
        self.selected: int | None = None

    def _clicked(self, row, col):
        if 0 <= row < len(self._ids):
            self.player_selected.emit(self._ids[row])

    def _delete(self):
        if self.selected is not None:
            self.delete_requested.emit(self.selected)

    def _set_height(self):
        if self.selected is not None:
            self.height_set.emit(self.selected, self.height.value())

    def update_state(self, ann, ground_points: dict, selected):
        self.selected = selected
        self._ids = [p.id for p in ann.players]
        self.table.setRowCount(len(ann.players))
        for row, p in enumerate(ann.players):
            g = ground_points.get(p.id)
            cells = [f"Player {p.id}", "-" if g is None else f"({g[0]:.2f}, {g[1]:.2f})",
                     "-" if p.lowest_vertex_height_m is None else
                     f"{p.lowest_vertex_height_m:.3f}"]
            for col, text in enumerate(cells):
                self.table.setItem(row, col, QTableWidgetItem(text))
            if p.id == selected:
                self.table.selectRow(row)
        has = selected is not None and selected in self._ids
        self.delete.setEnabled(has)
        self.set_height.setEnabled(has)

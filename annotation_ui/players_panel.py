"""The Players panel: the frame's player boxes with stable ids (Player 1..N), their foot
point on the court, the selected player, and the annotated lowest-vertex height."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from annotation_ui.widget_updates import fill_table


class PlayersPanel(QWidget):
    player_selected = Signal(int)
    delete_requested = Signal(int)
    height_set = Signal(int, float)
    load_mesh_requested = Signal(int)
    propose_requested = Signal()
    import_hmr_requested = Signal()
    run_hmr_requested = Signal()
    track_requested = Signal()
    template_requested = Signal(int, float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hint = QLabel(
            "Drag on the frame to draw a box; drag inside a box to move it, "
            "its lower-right corner to resize. Ids stay with a player across "
            "frames: select Player N, then draw. With a mesh: type the lowest "
            "vertex's height, or Alt+click its ground point."
        )
        self.hint.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(
            ["player", "on court (m)", "lowest vertex (m)", "mesh scale"]
        )
        header = self.table.horizontalHeader()
        for col in (0, 2, 3):  # their headers whole; the court position takes the rest
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
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
        self.load_mesh = QPushButton("Load mesh...")
        self.load_mesh.setToolTip(
            "A PersonMesh .npz or an OBJ/PLY/GLB in this frame's camera coordinates (metres)"
        )
        self.load_mesh.clicked.connect(
            lambda: self.selected is not None and self.load_mesh_requested.emit(self.selected)
        )
        self.propose = QPushButton("Propose boxes")
        self.propose.clicked.connect(self.propose_requested.emit)
        self.track = QPushButton("Track through clip")
        self.track.setToolTip(
            "SAM3 video tracking from this frame: boxes on every frame of "
            "the video, ids kept (video projects; CUDA GPU)"
        )
        self.track.clicked.connect(self.track_requested.emit)
        self.import_hmr = QPushButton("Import PromptHMR result...")
        self.import_hmr.setToolTip(
            "The image demo's output.pt: each person goes to the player "
            "whose box matches its mesh, or becomes a new player"
        )
        self.import_hmr.clicked.connect(self.import_hmr_requested.emit)
        self.run_hmr = QPushButton("Run PromptHMR")
        self.run_hmr.setToolTip(
            "Meshes for every box, with this frame's calibrated K (needs "
            "PromptHMR and a CUDA GPU; see File > Preferences)"
        )
        self.run_hmr.clicked.connect(self.run_hmr_requested.emit)
        self.stature = QDoubleSpinBox()
        self.stature.setRange(1.0, 2.5)
        self.stature.setValue(1.80)
        self.stature.setDecimals(2)
        self.stature.setSuffix(" m")
        self.template = QPushButton("Template body")
        self.template.setToolTip(
            "An Anny body of this stature standing at the box's feet, "
            "for a player with no HMR result (first use builds the model, "
            "about 35 s)"
        )
        self.template.clicked.connect(
            lambda: (
                self.selected is not None
                and self.template_requested.emit(self.selected, self.stature.value())
            )
        )
        row = QHBoxLayout()
        row.addWidget(QLabel("lowest vertex"))
        row.addWidget(self.height)
        row.addWidget(self.set_height)
        lay = QVBoxLayout(self)
        lay.addWidget(self.hint)
        lay.addWidget(self.table)
        lay.addLayout(row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.load_mesh)
        buttons.addWidget(self.delete)
        buttons.addWidget(self.propose)
        buttons.addWidget(self.track)
        lay.addLayout(buttons)
        hmr_row = QHBoxLayout()
        hmr_row.addWidget(self.import_hmr)
        hmr_row.addWidget(self.run_hmr)
        lay.addLayout(hmr_row)
        tmpl = QHBoxLayout()
        tmpl.addWidget(QLabel("stature"))
        tmpl.addWidget(self.stature)
        tmpl.addWidget(self.template)
        lay.addLayout(tmpl)
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

    def update_state(
        self,
        ann,
        ground_points: dict,
        selected,
        scales: dict | None = None,
        proposer: str | None = None,
    ):
        """ground_points: {id: (x, y) world}; scales: {id: mesh scale} for players with a
        mesh; proposer: the box proposer's name, None when none is installed."""
        self.selected = selected
        scales = scales or {}
        self._ids = [p.id for p in ann.players]
        self.propose.setEnabled(proposer is not None)
        self.track.setEnabled(proposer is not None)
        self.propose.setToolTip(
            f"Fill in boxes with {proposer}"
            if proposer
            else "No box proposer is installed (SAM3 is an optional extra); draw boxes by hand"
        )
        rows = []
        for p in ann.players:
            g = ground_points.get(p.id)
            rows.append(
                [
                    f"Player {p.id}",
                    "-" if g is None else f"({g[0]:.2f}, {g[1]:.2f})",
                    "-" if p.lowest_vertex_height_m is None else f"{p.lowest_vertex_height_m:.3f}",
                    "no mesh" if p.id not in scales else f"{scales[p.id]:.3f}",
                ]
            )
        fill_table(self.table, rows)
        for row, p in enumerate(ann.players):
            if p.id == selected:
                self.table.selectRow(row)
        has = selected is not None and selected in self._ids
        self.delete.setEnabled(has)
        self.load_mesh.setEnabled(has)
        self.template.setEnabled(has)
        self.set_height.setEnabled(has and selected in scales)

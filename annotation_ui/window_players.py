"""The main window's players buttons: file dialogs and status messages around the Qt-free
workflow (courtstudio/editing/player_workflow.py: track, propose boxes, PromptHMR, import,
template bodies): a mixin of MainWindow (annotation_ui/main_window.py)."""

from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog


class PlayersGlue:
    """The players panel's requests, run through ``self.player_workflow`` on ``self.doc``."""

    def load_mesh_dialog(self, pid: int):
        path, _ = QFileDialog.getOpenFileName(
            self,
            f"Mesh for Player {pid}",
            "",
            "Meshes (*.npz *.obj *.ply *.glb *.gltf *.stl *.off);;All (*)",
        )
        if path:
            self.load_mesh(pid, path)

    def load_mesh(self, pid: int, path) -> None:
        """Attach a mesh file (camera coordinates of this frame) to a player."""
        from hmr.mesh_files import load_mesh_file

        self._edit(lambda: self.doc.set_player_mesh(self._fid, pid, load_mesh_file(path)))

    def import_hmr_dialog(self):
        path, _ = QFileDialog.getOpenFileName(
            self, "PromptHMR result", "", "PromptHMR output (*.pt *.npz);;All (*)"
        )
        if path:
            self._edit(self.import_hmr, path)

    def import_hmr(self, path) -> list[int]:
        """Import a PromptHMR image-demo result into the current frame's players."""
        ids, message = self.player_workflow.import_hmr(self.doc, path)
        self.statusBar().showMessage(message, 8000)
        return ids

    def run_prompthmr(self) -> list[int]:
        """PromptHMR on the current frame's boxes with its calibrated K (GPU machines)."""
        return self.player_workflow.run_prompthmr(self.doc)

    def track_players(self, tracker=None) -> int:
        """Player boxes on every frame of a video project from the tracker (SAM3's video
        predictor by default), prompted on the current frame; tracker ids become player ids
        (+1, so ids start at 1). One undo step per frame. Returns the boxes added."""
        added, message = self.player_workflow.track_players(self.doc, tracker)
        self.statusBar().showMessage(message, 8000)
        return added

    def template_body(self, pid: int, stature_m: float) -> None:
        """An Anny body for a player without an HMR result (feet from the box)."""

        @contextmanager
        def busy():
            self.statusBar().showMessage("Building the body (the first time takes about 35 s)...")
            self.setCursor(Qt.CursorShape.WaitCursor)
            try:
                yield
            finally:
                self.unsetCursor()

        self.player_workflow.template_body(self.doc, pid, stature_m, busy)

    def _proposer(self):
        """The configured box proposer (SAM3, File > Preferences), built once."""
        from hmr.sam3_boxes import ProposerError

        try:
            return self.player_workflow.proposer()
        except ProposerError as exc:
            self.statusBar().showMessage(str(exc), 10000)
            return None

    def propose_boxes(self, proposer=None) -> list[int]:
        """Fill in player boxes from the proposer; boxes over existing players are skipped."""
        from courtstudio.editing.player_workflow import NO_PROPOSER

        proposer = proposer or self._proposer()
        if proposer is None:
            self.statusBar().showMessage(NO_PROPOSER, 8000)
            return []
        ids, message = self.player_workflow.propose_boxes(self.doc, proposer)
        self.statusBar().showMessage(message, 6000)
        return ids

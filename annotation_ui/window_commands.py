"""The main window's commands on the current frame, run from menus and shortcuts: go to frame
N, copy the previous frame's clicks, cycle a click's flag, delete the selection, the ball's
not-visible flag, hide the overlays, the view's brightness/contrast/gamma and refining the camera
on the painted lines: a mixin of MainWindow (annotation_ui/main_window.py), acting on
``self.doc`` and ``self.tools``."""

from __future__ import annotations

from annotation_ui.qimage import bgr_to_pixmap
from annotation_ui.view_adjust import ViewAdjust


class FrameCommands:
    """Menu and shortcut commands on the frame shown (``self._fid``)."""

    def go_to_frame_dialog(self):
        """Ctrl+G: go to frame N (numbered from 1, as the status bar shows)."""
        n = self.ask_int(
            "Go to frame",
            f"Frame (1 to {self.doc.frame_count}):",
            self.doc.current_index + 1,
            1,
            self.doc.frame_count,
        )
        if n is not None:
            self.go_to(n - 1)

    def _ask_int(self, title: str, label: str, value: int, lo: int, hi: int) -> int | None:
        from PySide6.QtWidgets import QInputDialog

        n, ok = QInputDialog.getInt(self, title, label, value, lo, hi)
        return n if ok else None

    def copy_previous_keypoints(self):
        """Ctrl+Shift+V: the nearest earlier frame's keypoint clicks onto this frame (one
        undo step; clicks already here are kept), to drag into place."""
        src, n = self.doc.copy_previous_keypoints(self._fid)
        self.statusBar().showMessage(
            f"Copied {n} keypoints from {src}; drag them into place (Ctrl+Z undoes the copy)", 8000
        )

    def cycle_point_flag(self):
        """O: the current keypoint's click seen -> occluded -> estimated -> seen."""
        name = self.tools.keypoint
        ann = self.doc.annotation(self._fid)
        if name is None or name not in ann.points:
            raise ValueError("select a clicked keypoint first (click it, or Tab to it)")
        order = [None, "occluded", "estimated"]
        flag = order[(order.index(ann.point_flags.get(name)) + 1) % len(order)]
        self.doc.set_point_flag(self._fid, name, flag)
        self.statusBar().showMessage(
            f"{name}: {flag}, left out of the calibration" if flag else f"{name}: seen", 6000
        )

    def toggle_overlays(self):
        """H: hide or show every overlay on the canvas (the frame alone)."""
        self.overlay.set_visible(not self.overlay.visible)
        self.actions_by_name["Hide overlays"].setChecked(not self.overlay.visible)

    def view_adjust_dialog(self):
        from annotation_ui.view_adjust import ViewAdjustDialog

        dlg = ViewAdjustDialog(self.view_adjust, self)
        dlg.changed.connect(self.set_view_adjust)
        dlg.show()
        self._adjust_dialog = dlg
        return dlg

    def set_view_adjust(self, adjust: ViewAdjust) -> None:
        """Brightness / contrast / gamma of the displayed frame (view only, kept while
        stepping through frames; the file is never changed)."""
        self.view_adjust = adjust
        if self._image is not None:
            shown = adjust.apply(self._image)
            self.view.set_pixmap(bgr_to_pixmap(shown))
            self.loupe.set_image(shown)

    def advance_keypoint(self, step: int):
        self.tools.advance(self.doc.spec(), self.doc.annotation(self._fid).points, step)

    def delete_selected(self):
        if self.tools.tool == "masks":
            self.masks_tool.delete_selected()
        elif self.tools.tool == "players" and self.tools.player_id is not None:
            self.doc.remove_player(self._fid, self.tools.player_id)
        elif self.tools.keypoint is not None:
            self.doc.remove_keypoint(self._fid, self.tools.keypoint)

    def toggle_ball_not_visible(self):
        b = self.doc.annotation(self._fid).ball
        self.doc.set_ball_not_visible(self._fid, not (b is not None and not b.visible))

    def refine_on_lines(self):
        """Refine the current frame's camera on its painted lines (Court panel button)."""
        state = self.doc.refine_on_lines(self._fid)
        rep = state.calibration.refinement if state.calibration is not None else None
        self.refresh()
        if rep:
            self.statusBar().showMessage(
                "Refined on the painted lines"
                if rep["accepted"]
                else f"Not refined: {rep['reason']}",
                8000,
            )

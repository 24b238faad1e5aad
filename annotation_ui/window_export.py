"""The main window's long jobs with a progress dialog: export scenes, propagate the court
keypoints: a mixin of MainWindow (annotation_ui/main_window.py). The work itself is
courtstudio.export.export_scenes and courtstudio.pipeline.propagate."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QProgressDialog

from courtstudio.export.export_scenes import ExportFolderError, ExportStatus, export_frames


class ExportDialogs:
    """Export and propagation dialogs over ``self.doc``."""

    def export_dialog(self, all_frames: bool):
        out = QFileDialog.getExistingDirectory(self, "Export scenes to")
        if out:
            self.export_to(out, all_frames)

    def export_to(
        self, out_dir, all_frames: bool, cancel_after: int | None = None, force: bool = False
    ) -> list:
        """Export with a cancellable progress dialog; returns the frame summaries. A folder
        that is not empty and not a previous export is used only if the user agrees."""
        frames = self.doc.project.frames if all_frames else [self.doc.current_frame]
        dlg = QProgressDialog("Exporting scenes...", "Cancel", 0, len(frames), self)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)

        def progress(done, total, summary):
            dlg.setValue(done)
            dlg.setLabelText(f"{summary.frame_id}: {summary.status}")
            if cancel_after is not None and done >= cancel_after:
                dlg.cancel()
            return not dlg.wasCanceled()

        try:
            summaries = export_frames(self.doc, frames, out_dir, progress, force=force)
        except ExportFolderError as exc:
            dlg.close()
            if (
                self.ask(
                    "Export into this folder?",
                    f"{exc.folder} is not empty and is not a "
                    "CourtStudio export: files with the same names will be replaced.",
                    ["Export anyway", "Cancel"],
                )
                != "Export anyway"
            ):
                return []
            return self.export_to(out_dir, all_frames, cancel_after, force=True)
        dlg.close()
        ok = sum(s.status == ExportStatus.OK for s in summaries)
        self.statusBar().showMessage(f"Exported {ok} of {len(frames)} frame(s) to {out_dir}", 8000)
        return summaries

    def propagate_dialog(self, cancel_after: int | None = None) -> list:
        """Carry the annotated frames' keypoints through the project and recalibrate every
        frame (saved edits first: propagation reads the frames' current clicks)."""
        from courtstudio.pipeline.propagate import propagate_project
        from courtstudio.pipeline.propagation_status import PropagationStatus

        if self.doc.undo_stack.read_only:  # propagation writes PROJECT/propagation
            raise ValueError(f"read-only: {self.doc.undo_stack.read_only}")
        total = self.doc.frame_count
        dlg = QProgressDialog("Propagating court keypoints...", "Cancel", 0, total, self)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)

        class Cancelled(Exception):
            pass

        label = "Propagating court keypoints..."

        def progress(done, n):
            if dlg.labelText() != label:
                dlg.setLabelText(label)
                dlg.setRange(0, n)
            dlg.setValue(done)
            if dlg.wasCanceled() or (cancel_after is not None and done >= cancel_after):
                raise Cancelled()

        def resuming(passed, of):  # a resumed run reads past the frames it has already done
            dlg.setLabelText(
                f"Resuming: reading past the frames already done ({passed} of {of})..."
            )
            dlg.setRange(0, of + 1)  # the bar shows this; never full (a full one closes)
            dlg.setValue(passed)
            if dlg.wasCanceled():
                raise Cancelled()

        progress.resuming = resuming  # type: ignore[attr-defined]

        records = []
        try:
            records = propagate_project(
                self.doc.project,
                store=self.doc.frames,
                progress=progress,
                annotation_of=self.doc.annotation,
                project_masks_boxes=None if self.doc.masks.error else self.doc.masks.boxes,
            )
            flagged = sum(r["status"] == PropagationStatus.FLAGGED for r in records)
            self.statusBar().showMessage(
                f"Propagated {len(records)} frames; {flagged} flagged for review", 10000
            )
        except Cancelled:
            self.statusBar().showMessage(
                "Propagation cancelled; done frames are kept and a new run resumes", 8000
            )
        finally:
            dlg.close()
            self.doc.reload_propagation()
        if records:
            self._propagation_report(records)
        return records

    def _propagation_report(self, records: list[dict]) -> None:
        """After a run with flagged frames or reference warnings: what went wrong, in the
        command line's words, and the way to the first flagged frame."""
        from courtstudio.pipeline.propagate import FLAG_RMS_PX, propagate
        from courtstudio.pipeline.propagation_report import (
            flagged_by_reason,
            frame_ranges,
            reference_warnings,
        )
        from courtstudio.pipeline.propagation_status import PropagationStatus

        flagged = [r for r in records if r["status"] == PropagationStatus.FLAGGED]
        warnings = reference_warnings(
            propagate.last_extras.get("reference_quality", []), FLAG_RMS_PX
        )
        if not flagged and not warnings:
            return
        lines = [f"{len(records)} frames, {len(flagged)} flagged for review (red on the timeline)."]
        lines += [f"\N{BULLET} {w[0].upper()}{w[1:]}." for w in warnings]
        groups = flagged_by_reason(records)
        for reason, frames in groups[:4]:
            lines.append(f"Frames {frame_ranges(frames)}: {reason}.")
        if len(groups) > 4:
            lines.append(f"{sum(len(f) for _, f in groups[4:])} more, for other reasons.")
        if flagged:
            lines.append(
                "Frame > Next flagged frame (Ctrl+Right) steps through them; the Court panel "
                "says why each is flagged."
            )
        buttons = ["Go to the first flagged frame", "Close"] if flagged else ["Close"]
        if self.ask("Propagation finished", "\n\n".join(lines), buttons) == buttons[0] and flagged:
            self.go_to(flagged[0]["frame"])

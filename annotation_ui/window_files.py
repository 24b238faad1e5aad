"""The main window's project files: open (with the lock and crash recovery), close, new,
save, the journal's failure dialog, the read-only banner, and Preferences: a mixin of
MainWindow (annotation_ui/main_window.py)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QFileDialog, QMessageBox

from annotation_ui.dialogs import NewProjectDialog, folder_entries, remove_created
from annotation_ui.panels import PANELS
from annotation_ui.preferences import PreferencesDialog, calibration_preferences
from annotation_ui.window_menus import WRITING_ACTIONS
from court_specs.loader import configure_spec_dirs
from courtstudio.editing.autosave import autosave_path, discard_recovery, pending_recovery
from courtstudio.editing.document import AnnotationDocument
from courtstudio.editing.journal_guard import GuardedAutosave
from courtstudio.editing.player_workflow import PlayerWorkflow
from courtstudio.io.project import check_recovered_state, load_project
from courtstudio.io.project_lock import ProjectLockedError, acquire, live_holder, locked_message
from courtstudio.io.settings import Settings


class FileOperations:
    """Project open / close / new / save over ``self.doc``; the window's dialogs."""

    def open_project(self, path, recover: bool | None = None) -> bool:
        """Open a project folder. recover: what to do with an autosave journal (None: ask)."""
        if not self.close_project():
            return False
        try:
            project = load_project(path)
        except ValueError as exc:
            self.ask("Cannot open project", " ".join(str(exc).split()), ["OK"])
            return False
        read_only, journal = None, None
        if not self.view_only:
            try:
                self.project_lock = acquire(project.root, "courtstudio gui")
            except ProjectLockedError as exc:
                read_only = " ".join(str(exc).split())
        elif (held := live_holder(project.root)) is not None:  # looking writes no lock
            read_only = locked_message(project.root, *held)
        if self.project_lock is not None:
            try:
                journal = pending_recovery(project)
                if journal is not None:
                    check_recovered_state(project, journal, str(autosave_path(project)))
            except ValueError as exc:
                self.project_lock.release()
                self.project_lock = None
                self.ask("Cannot open project", " ".join(str(exc).split()), ["OK"])
                return False
        self.doc = AnnotationDocument(project)
        self.doc.calibrations.configure(*calibration_preferences(self.settings))
        self.court_panel.set_lens_model(calibration_preferences(self.settings)[0])
        if journal is not None:
            n = len(journal["annotations"])
            if recover is None:
                recover = (
                    self.ask(
                        "Recover unsaved work?",
                        f"CourtStudio was closed without saving {n} edited frame(s) "
                        + (
                            "and the registration masks "
                            if journal.get("propagation_masks") is not None
                            else ""
                        )
                        + f"of {project.name}. Recover them?",
                        ["Recover", "Discard"],
                    )
                    == "Recover"
                )
            if recover:
                self.doc.restore_unsaved_state(journal)
            else:
                discard_recovery(project)
        if self.project_lock is not None:
            self.autosave = GuardedAutosave(self.doc, self._journal_failed)
        else:  # read-only or view-only: the journal belongs to whoever holds the lock
            self.doc.undo_stack.read_only = read_only or "opened to view only"
        self._show_read_only(read_only)
        self.canvas.doc = self.doc
        self.masks_tool.attach(self.doc)
        self.doc.annotation_changed.connect(self._annotation_changed)
        self.doc.frame_changed.connect(self._frame_changed)
        self.doc.ranges_changed.connect(self._ranges_changed)
        self.doc.flight_draft_changed.connect(self.refresh)
        self.doc.undo_stack.changed.connect(self._update_title)
        self.tools.set_keypoint(None)
        self.placeholder.setText("")
        self._remember(project.root)
        self._ranges_changed()
        self._frame_changed(0)
        return True

    def close_project(self) -> bool:
        if self.doc is None:
            return True
        if self.doc.is_dirty:
            answer = self.ask(
                "Save changes?",
                f"Save the changes to {self.doc.project.name}?",
                ["Save", "Discard", "Cancel"],
            )
            if answer == "Cancel":
                return False
            if answer == "Save":
                if not self.save():
                    return False
            else:
                discard_recovery(self.doc.project)
        if self.autosave is not None:
            self.autosave.close()
            if not self.doc.is_dirty:  # a ball-flight draft alone is not kept past closing
                discard_recovery(self.doc.project)
        if self.project_lock is not None:
            self.project_lock.release()
            self.project_lock = None
        self._show_read_only(None)
        self.doc.annotation_changed.disconnect(self._annotation_changed)
        self.doc.frame_changed.disconnect(self._frame_changed)
        self.doc.ranges_changed.disconnect(self._ranges_changed)
        self.doc.flight_draft_changed.disconnect(self.refresh)
        self.doc.undo_stack.changed.disconnect(self._update_title)
        self.masks_tool.detach()
        self.doc.frames.close()
        self.doc = self.autosave = self.canvas.doc = None
        self._diagnosis_pending = False
        self.overlay.clear()
        return True

    def open_project_dialog(self):
        path = QFileDialog.getExistingDirectory(self, "Open project folder")
        if path:
            self.open_project(path)

    def open_sample(self):
        from courtstudio.export.sample import sample_project_copy

        self.open_project(sample_project_copy())

    def new_project_dialog(self):
        dlg = NewProjectDialog(self, self.settings.value("new_project/kind", "images", str))
        if dlg.exec() != NewProjectDialog.DialogCode.Accepted:
            return
        self.create_project(dlg.values())

    def create_project(self, v: dict) -> bool:
        """Create and open a project from the New project dialog's values ({kind, source,
        sport, folder}); on failure nothing it created is left behind (the folder, or what it
        added to an existing folder) and the error is shown."""
        from courtstudio.io.project_new import new_project_from_images, new_project_from_video

        if not v["source"] or not v["folder"]:
            self.ask("New project", "Choose a source and a project folder.", ["OK"])
            return False
        self.settings.setValue("new_project/kind", v["kind"])
        make = new_project_from_video if v["kind"] == "video" else new_project_from_images
        before = folder_entries(v["folder"])
        try:
            project = make(v["folder"], v["source"], v["sport"])
        except (ValueError, OSError) as exc:
            remove_created(v["folder"], before)
            self.ask("New project", " ".join(str(exc).split()), ["OK"])
            return False
        return self.open_project(project.root)

    def save(self) -> bool:
        """Save; a failure is shown in a critical dialog and nothing is marked saved."""
        if self.doc is None:
            return True
        if self.doc.undo_stack.read_only:
            self.statusBar().showMessage(f"read-only: {self.doc.undo_stack.read_only}", 8000)
            return False
        try:
            written = self.doc.save()
        except (OSError, ValueError) as exc:
            QMessageBox.critical(
                self,
                "Save failed",
                f"Could not save {self.doc.project.name}: {' '.join(str(exc).split())}\n\n"
                "Nothing was marked as saved: your edits are still open and in the recovery "
                "journal. Fix the problem (free space, permissions) and save again.",
            )
            return False
        self.statusBar().showMessage(f"Saved {len(written)} file(s)", 4000)
        return True

    def _journal_failed(self, exc: Exception) -> None:
        """The recovery journal could not be written: the edit was reverted (GuardedAutosave),
        and the annotator is told, instead of working on unprotected edits."""
        self.refresh()
        QMessageBox.critical(
            self,
            "Edit not kept",
            f"The recovery journal {autosave_path(self.doc.project)} could not be written: "
            f"{' '.join(str(exc).split())}\n\nThe last edit was undone, so nothing on screen "
            "is at risk of being lost in a crash. Fix the problem (free space, permissions) "
            "and redo it; Save writes the edits made so far.",
        )

    def _show_read_only(self, reason: str | None) -> None:
        """Banner, disabled edit actions and panels, and one stderr line when read-only."""
        self.read_only_reason = reason
        if reason:
            self.banner.setText(
                f"Read-only: {reason}. Edits and saves are disabled; close the "
                "other window (or program) and reopen the project to edit."
            )
            print(f"courtstudio: warning: opened read-only: {reason}", file=sys.stderr)
        self.banner.setVisible(bool(reason))
        for name in WRITING_ACTIONS:
            self.actions_by_name[name].setEnabled(not reason)
        for panel in PANELS:
            getattr(self, panel.attr).setEnabled(not reason)

    def closeEvent(self, event):
        if self.close_project():
            event.accept()
        else:
            event.ignore()

    def preferences_dialog(self):
        PreferencesDialog(self.settings, self.app_settings, self).exec()
        self.reload_settings()
        self._lens_model_changed(calibration_preferences(self.settings)[0])

    def reload_settings(self) -> None:
        """Read the settings again (after Preferences): the player workflow is rebuilt with
        them (its box proposer and PromptHMR runner are built again when next used)."""
        self.app_settings = self._load_settings()
        self.player_workflow = PlayerWorkflow(self.app_settings)

    def _load_settings(self) -> Settings:
        """The user's settings: the environment over the settings file (as Qt reads it)."""
        settings = Settings.load(stored=lambda key: self.settings.value(key, "", str))
        configure_spec_dirs([settings.specs_dir])  # the New project dialog lists their sports
        return settings

    def _lens_model_changed(self, model: str):
        """The lens model (court panel) and the click noise (Preferences) for every frame."""
        self.settings.setValue("calibration/model", model)
        if self.doc is not None:
            self.doc.calibrations.configure(*calibration_preferences(self.settings))
            self.refresh()

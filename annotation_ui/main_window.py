"""The main window: assembles the canvas, panels, views and timeline around an open document.

It holds no annotation state: everything is in ``AnnotationDocument`` (edits, undo, saving) and
``ToolState`` (tool, next keypoint, selected player); widgets are refreshed from them.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QMainWindow, QMessageBox,
                               QProgressDialog, QSplitter, QTabWidget, QVBoxLayout, QWidget)

from annotation_ui.ball_panel import BallPanel
from annotation_ui.canvas_tools import CanvasTools
from annotation_ui.court_panel import CourtPanel
from annotation_ui.dialogs import (NewProjectDialog, ShortcutsDialog, folder_entries,
                                   remove_created)
from annotation_ui.frame_view import FrameView
from annotation_ui.loupe import Loupe
from annotation_ui.overlay_items import (CLICK, OverlayLayer, draw_ball, draw_clicks,
                                         draw_court, draw_mesh, draw_players)
from annotation_ui.players_panel import PlayersPanel
from annotation_ui.preferences import PreferencesDialog, apply_preferences, \
    calibration_preferences
from annotation_ui.qimage import bgr_to_pixmap
from annotation_ui.timeline import Timeline
from annotation_ui.view_adjust import ViewAdjust
from annotation_ui.views import OrbitView, TopDownView
from courtstudio.autosave import autosave_path, discard_recovery, pending_recovery
from courtstudio.document import AnnotationDocument
from courtstudio.export_scenes import ExportFolderError, export_frames
from courtstudio.journal_guard import GuardedAutosave
from courtstudio.live_calibration import box_ground_point, lift_frame_ball
from courtstudio.players import world_player
from courtstudio.project import check_recovered_state, load_project
from courtstudio.project_lock import ProjectLockedError, acquire, live_holder, locked_message
from courtstudio.sample import user_home
from courtstudio.tool_state import TOOLS, ToolState
from exporters.orbit_view import OrbitPlayer

MAX_RECENT = 8
# actions that change the project: disabled while it is open read-only
WRITING_ACTIONS = ("Save", "Undo", "Redo", "Delete keypoint / player", "Flag frame for review",
                   "Ball not visible", "Propagate court keypoints",
                   "Copy previous frame's keypoints", "Keypoint occluded / estimated")
HOVER_PX = 10.0  # screen px: a keypoint this close to the cursor is labelled
SIDE_PX, SIDE_MIN_PX = 440, 380  # the side panel's width (loupe + views, tool panels)
DIAGNOSIS_FALLBACK_MS = 150  # the doctor runs this late at most when no repaint comes
PANEL_DRAG_MS = 50  # during a drag the side panels follow at most this often (the canvas: always)


class MainWindow(QMainWindow):
    def __init__(self):
        super().__init__()
        self.doc: AnnotationDocument | None = None
        self.autosave: GuardedAutosave | None = None
        self.project_lock = None  # the held .courtstudio/lock (courtstudio.project_lock)
        self.read_only_reason: str | None = None
        # view_only: look without writing anything (screenshots): no lock, no journal
        self.view_only = False
        self.tools = ToolState()
        self.settings = QSettings(str(user_home() / "settings.ini"), QSettings.Format.IniFormat)
        apply_preferences(self.settings)
        self.ask = self._ask_user  # replaced in tests: (title, text, buttons) -> button
        self.ask_int = self._ask_int  # replaced in tests: (title, label, value, lo, hi)
        self._dragging = False
        # after a frame change the doctor (leave-one-out, relabellings) and the ball's
        # 1-sigma wait until the frame has been shown (_frame_shown)
        self._diagnosis_pending = False
        self._diagnosis_token = 0
        self._panels_at = 0.0  # time.monotonic() of the last panel update
        self._panel_timer = QTimer(self)  # the trailing panel update of a drag
        self._panel_timer.setSingleShot(True)
        self._panel_timer.timeout.connect(lambda: self.refresh(panels_now=True))
        self._hover_kp: str | None = None
        self.view_adjust = ViewAdjust()
        self._image = None  # the current frame as read (BGR), before the view adjustment
        self._build()
        self._build_actions()
        self.tools.changed.connect(self.refresh)
        self.resize(1500, 900)
        self._update_title()

    # ------------------------------------------------------------------- layout
    def _build(self):
        self.view = FrameView()
        self.overlay = OverlayLayer(self.view.scene())
        self.canvas = CanvasTools(None, self.tools, self.view)
        self.canvas.message.connect(lambda m: self.statusBar().showMessage(m, 6000))
        self.view.pressed.connect(lambda *a: setattr(self, "_dragging", True))
        self.view.released.connect(self._drag_finished)
        self.view.hovered.connect(self._hovered)
        self.view.zoomed.connect(self.refresh)  # labels are placed apart at this zoom
        self.view.painted.connect(self._frame_shown)
        self.loupe = Loupe()
        self.court_panel = CourtPanel()
        self.ball_panel = BallPanel()
        self.players_panel = PlayersPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.court_panel, "Court (C)")
        self.tabs.addTab(self.ball_panel, "Ball (B)")
        self.tabs.addTab(self.players_panel, "Players (P)")
        self.tabs.currentChanged.connect(lambda i: self.tools.set_tool(TOOLS[i]))
        self.topdown = TopDownView()
        self.orbit = OrbitView()
        self.result_tabs = QTabWidget()
        self.result_tabs.addTab(self.topdown, "Top-down")
        self.result_tabs.addTab(self.orbit, "3D")
        self.result_tabs.currentChanged.connect(lambda i: self.refresh())
        # laptop layout (issue 10: on 1366x768 the canvas was 695 px wide and three residual
        # rows showed): a side panel of fixed width, the loupe beside the result views on
        # one row above the tool panels, so the panels get the height
        side = QWidget()
        side.setMinimumWidth(SIDE_MIN_PX)
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.setSpacing(2)
        top = QWidget()
        top_lay = QHBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addWidget(self.loupe, 0, Qt.AlignmentFlag.AlignTop)
        top_lay.addWidget(self.result_tabs, 1)
        self.result_tabs.setMaximumHeight(self.loupe.height() + 26)
        side_lay.addWidget(top, 0)
        side_lay.addWidget(self.tabs, 1)
        self.timeline = Timeline()
        self.timeline.frame_requested.connect(self.go_to)
        centre = QSplitter(Qt.Orientation.Vertical)
        centre.addWidget(self.view)
        centre.addWidget(self.timeline)
        centre.setSizes([820, 50])
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(centre)
        main.addWidget(side)
        main.setStretchFactor(0, 1)  # the canvas takes what the window gains
        main.setStretchFactor(1, 0)
        main.setSizes([1060, SIDE_PX])
        self.main_split = main
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #f6c343; color: #1a1a1a; padding: 6px; "
                                  "font-weight: bold;")
        self.banner.hide()
        central = QWidget()
        central_lay = QVBoxLayout(central)
        central_lay.setContentsMargins(0, 0, 0, 0)
        central_lay.setSpacing(0)
        central_lay.addWidget(self.banner)
        central_lay.addWidget(main)
        self.setCentralWidget(central)
        self.placeholder = QLabel("Open a project (Ctrl+O), create one (Ctrl+N), or open the "
                                  "sample (File > Open sample project).")
        self.statusBar().addPermanentWidget(self.placeholder)
        self.court_panel.diagram.keypoint_clicked.connect(self.tools.set_keypoint)
        self.court_panel.apply_suggestion.connect(self._apply_suggestion)
        self.court_panel.set_static_range.connect(self._static_range)
        self.court_panel.lens_model_changed.connect(self._lens_model_changed)
        self.court_panel.refine_lines.connect(lambda: self._guarded(self.refine_on_lines))
        self.ball_panel.not_visible_toggled.connect(
            lambda on: self._edit(self.doc.set_ball_not_visible, self._fid, on))
        self.ball_panel.plane_chosen.connect(
            lambda plane: self._edit(self.doc.set_ball_plane, self._fid, plane))
        self.ball_panel.clear_requested.connect(lambda: self._edit(self.doc.clear_ball,
                                                                   self._fid))
        self.ball_panel.flight_mark.connect(lambda part: self._edit(self.mark_flight, part))
        self.ball_panel.flight_remove.connect(
            lambda: self._edit(self.doc.remove_ball_flight_at, self.doc.current_index))
        self._flight_draft: dict[str, str] = {}
        self.players_panel.player_selected.connect(self.tools.set_player)
        self.players_panel.delete_requested.connect(
            lambda pid: self._edit(self.doc.remove_player, self._fid, pid))
        self.players_panel.height_set.connect(
            lambda pid, h: self._edit(self.doc.set_player_height, self._fid, pid, h))
        self.players_panel.load_mesh_requested.connect(self.load_mesh_dialog)
        self.players_panel.propose_requested.connect(self.propose_boxes)
        self.players_panel.import_hmr_requested.connect(self.import_hmr_dialog)
        self.players_panel.run_hmr_requested.connect(lambda: self._edit(self.run_prompthmr))
        self.players_panel.track_requested.connect(lambda: self._edit(self.track_players))
        self.players_panel.template_requested.connect(
            lambda pid, h: self._edit(self.template_body, pid, h))

    def _build_actions(self):
        """Menus and shortcuts from one table; Help > Shortcuts lists the same table."""
        spec = [
            ("&File", [
                ("New project...", "Ctrl+N", self.new_project_dialog),
                ("Open project...", "Ctrl+O", self.open_project_dialog),
                ("Open sample project", None, self.open_sample),
                ("Preferences...", None, self.preferences_dialog),
                ("Save", "Ctrl+S", self.save),
                ("Export current frame...", "Ctrl+Shift+E", lambda: self.export_dialog(False)),
                ("Export all frames...", "Ctrl+E", lambda: self.export_dialog(True)),
                ("Quit", "Ctrl+Q", self.close)]),
            ("&Edit", [
                ("Undo", "Ctrl+Z", self.undo),
                ("Redo", "Ctrl+Shift+Z;Ctrl+Y", self.redo),
                ("Delete keypoint / player", "Delete;Backspace", self.delete_selected),
                ("Copy previous frame's keypoints", "Ctrl+Shift+V",
                 self.copy_previous_keypoints),
                ("Keypoint occluded / estimated", "O", self.cycle_point_flag),
                ("Flag frame for review", "F", lambda: self._edit(self.doc.toggle_flag,
                                                                  self._fid))]),
            ("&Tools", [
                ("Court tool", "C", lambda: self.set_tool("court")),
                ("Ball tool", "B", lambda: self.set_tool("ball")),
                ("Players tool", "P", lambda: self.set_tool("players")),
                ("Next keypoint", "Tab;]", lambda: self.advance_keypoint(1)),
                ("Previous keypoint", "Shift+Tab;[", lambda: self.advance_keypoint(-1)),
                ("Ball not visible", "N", self.toggle_ball_not_visible)]),
            ("F&rame", [
                ("Next frame", "Right;D", lambda: self.step(1)),
                ("Previous frame", "Left;A", lambda: self.step(-1)),
                ("Forward 10 frames", "PgDown", lambda: self.step(10)),
                ("Back 10 frames", "PgUp", lambda: self.step(-10)),
                ("First frame", "Home", lambda: self.go_to(0)),
                ("Go to frame...", "Ctrl+G", self.go_to_frame_dialog),
                ("Last frame", "End", lambda: self.go_to(10 ** 9)),
                ("Propagate court keypoints", "Ctrl+P", self.propagate_dialog)]),
            ("&View", [
                ("Fit frame", "0", lambda: self.view.fit()),
                ("Zoom in", "=;+", lambda: self.view.zoom(1.25)),
                ("Zoom out", "-", lambda: self.view.zoom(0.8)),
                ("Hide overlays", "H", self.toggle_overlays),
                ("Brightness / contrast / gamma...", "Ctrl+B", self.view_adjust_dialog)]),
            ("&Help", [("Keyboard shortcuts", "F1", self.show_shortcuts)]),
        ]
        self.shortcut_table = []
        self.actions_by_name = {}
        for menu_name, items in spec:
            menu = self.menuBar().addMenu(menu_name)
            for text, keys, slot in items:
                act = QAction(text, self)
                if keys:
                    act.setShortcuts([QKeySequence(k) for k in keys.split(";")])
                    act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
                    self.shortcut_table.append((text, keys.replace(";", ", ")))
                act.triggered.connect(lambda checked=False, s=slot: self._guarded(s))
                if text == "Hide overlays":
                    act.setCheckable(True)
                menu.addAction(act)
                self.addAction(act)
                self.actions_by_name[text] = act
            if menu_name == "&File":
                self.recent_menu = menu.addMenu("Open recent")
                self._fill_recent()

    # ---------------------------------------------------------------- projects
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
                recover = self.ask("Recover unsaved work?",
                                   f"CourtStudio was closed without saving {n} edited frame(s) "
                                   f"of {project.name}. Recover them?",
                                   ["Recover", "Discard"]) == "Recover"
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
        self.doc.annotation_changed.connect(self._annotation_changed)
        self.doc.frame_changed.connect(self._frame_changed)
        self.doc.ranges_changed.connect(self._ranges_changed)
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
            answer = self.ask("Save changes?", f"Save the changes to {self.doc.project.name}?",
                              ["Save", "Discard", "Cancel"])
            if answer == "Cancel":
                return False
            if answer == "Save":
                if not self.save():
                    return False
            else:
                discard_recovery(self.doc.project)
        if self.autosave is not None:
            self.autosave.close()
        if self.project_lock is not None:
            self.project_lock.release()
            self.project_lock = None
        self._show_read_only(None)
        self.doc.annotation_changed.disconnect(self._annotation_changed)
        self.doc.frame_changed.disconnect(self._frame_changed)
        self.doc.ranges_changed.disconnect(self._ranges_changed)
        self.doc.undo_stack.changed.disconnect(self._update_title)
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
        from courtstudio.sample import sample_project_copy
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
        from courtstudio.project_new import new_project_from_images, new_project_from_video
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
                self, "Save failed",
                f"Could not save {self.doc.project.name}: {' '.join(str(exc).split())}\n\n"
                "Nothing was marked as saved: your edits are still open and in the recovery "
                "journal. Fix the problem (free space, permissions) and save again.")
            return False
        self.statusBar().showMessage(f"Saved {len(written)} file(s)", 4000)
        return True

    def _journal_failed(self, exc: Exception) -> None:
        """The recovery journal could not be written: the edit was reverted (GuardedAutosave),
        and the annotator is told, instead of working on unprotected edits."""
        self.refresh()
        QMessageBox.critical(
            self, "Edit not kept",
            f"The recovery journal {autosave_path(self.doc.project)} could not be written: "
            f"{' '.join(str(exc).split())}\n\nThe last edit was undone, so nothing on screen "
            "is at risk of being lost in a crash. Fix the problem (free space, permissions) "
            "and redo it; Save writes the edits made so far.")

    def _show_read_only(self, reason: str | None) -> None:
        """Banner, disabled edit actions and panels, and one stderr line when read-only."""
        self.read_only_reason = reason
        if reason:
            self.banner.setText(f"Read-only: {reason}. Edits and saves are disabled; close the "
                                "other window (or program) and reopen the project to edit.")
            print(f"courtstudio: warning: opened read-only: {reason}", file=sys.stderr)
        self.banner.setVisible(bool(reason))
        for name in WRITING_ACTIONS:
            self.actions_by_name[name].setEnabled(not reason)
        for panel in (self.court_panel, self.ball_panel, self.players_panel):
            panel.setEnabled(not reason)

    def closeEvent(self, event):
        if self.close_project():
            event.accept()
        else:
            event.ignore()

    def _remember(self, root: Path):
        recent = [str(root)] + [p for p in self.settings.value("recent", [], list)
                                if p != str(root)]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._fill_recent()

    def _fill_recent(self):
        self.recent_menu.clear()
        for p in self.settings.value("recent", [], list):
            act = self.recent_menu.addAction(p)
            act.triggered.connect(lambda checked=False, path=p: self.open_project(path))

    # ----------------------------------------------------------------- editing
    @property
    def _fid(self) -> str:
        return self.doc.current_frame.id

    def _guarded(self, fn, *args):
        if self.doc is None and fn not in (self.new_project_dialog, self.open_project_dialog,
                                           self.open_sample, self.close, self.show_shortcuts,
                                           self.preferences_dialog, self.toggle_overlays,
                                           self.view_adjust_dialog):
            return
        try:
            fn(*args)
        except (ValueError, KeyError) as exc:
            self.statusBar().showMessage(" ".join(str(exc).split()), 6000)

    def _edit(self, fn, *args):
        self._guarded(fn, *args)

    def undo(self):
        self.doc.undo()

    def redo(self):
        self.doc.redo()

    def set_tool(self, tool: str):
        self.tabs.setCurrentIndex(TOOLS.index(tool))

    def step(self, delta: int):
        self.doc.step(delta)

    def go_to(self, index: int):
        if self.doc is not None:
            self.doc.go_to(index)

    def go_to_frame_dialog(self):
        """Ctrl+G: go to frame N (numbered from 1, as the status bar shows)."""
        n = self.ask_int("Go to frame", f"Frame (1 to {self.doc.frame_count}):",
                         self.doc.current_index + 1, 1, self.doc.frame_count)
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
        self.statusBar().showMessage(f"Copied {n} keypoints from {src}; drag them into place "
                                     "(Ctrl+Z undoes the copy)", 8000)

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
            f"{name}: {flag}, left out of the calibration" if flag else f"{name}: seen", 6000)

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
        if self.tools.tool == "players" and self.tools.player_id is not None:
            self.doc.remove_player(self._fid, self.tools.player_id)
        elif self.tools.keypoint is not None:
            self.doc.remove_keypoint(self._fid, self.tools.keypoint)

    def toggle_ball_not_visible(self):
        b = self.doc.annotation(self._fid).ball
        self.doc.set_ball_not_visible(self._fid, not (b is not None and not b.visible))

    def _apply_suggestion(self, mapping: dict):
        self._edit(self.doc.apply_relabelling, self._fid, mapping)

    def _static_range(self, first: int, last: int):
        self._edit(self.doc.set_camera_range, first, last, self._fid)

    def _drag_finished(self, *args):
        self._dragging = False
        self._diagnosis_pending = False  # an edit ends here: its doctor runs now
        self.refresh()

    def load_mesh_dialog(self, pid: int):
        path, _ = QFileDialog.getOpenFileName(
            self, f"Mesh for Player {pid}", "",
            "Meshes (*.npz *.obj *.ply *.glb *.gltf *.stl *.off);;All (*)")
        if path:
            self.load_mesh(pid, path)

    def load_mesh(self, pid: int, path) -> None:
        """Attach a mesh file (camera coordinates of this frame) to a player."""
        from hmr.mesh_files import load_mesh_file
        self._edit(lambda: self.doc.set_player_mesh(self._fid, pid, load_mesh_file(path)))

    def import_hmr_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "PromptHMR result", "",
                                              "PromptHMR output (*.pt *.npz);;All (*)")
        if path:
            self._edit(self.import_hmr, path)

    def import_hmr(self, path) -> list[int]:
        """Import a PromptHMR image-demo result into the current frame's players."""
        from courtstudio.players import match_people_to_players
        from hmr.prompthmr import load_image_output
        state = self.doc.camera_state(self._fid)
        if state.camera is None:
            raise ValueError("calibrate the court first: the meshes are placed with its camera")
        smplx_dir = os.environ.get("COURTSTUDIO_SMPLX_DIR")
        result = load_image_output(path, smplx_model=smplx_dir or None)
        ann = self.doc.annotation(self._fid)
        matches = match_people_to_players(state.camera, result.people,
                                          {p.id: p.box_xyxy for p in ann.players})
        ids = self.doc.import_people(self._fid, [(pid, box, result.people[i])
                                                 for pid, i, box in matches])
        self.statusBar().showMessage(
            f"Imported {len(ids)} people: players {', '.join(map(str, ids))}. Give each "
            "one's lowest-vertex height to place it.", 8000)
        return ids

    def preferences_dialog(self):
        PreferencesDialog(self.settings, self).exec()
        self.__dict__.pop("_proposer_cache", None)
        self._lens_model_changed(calibration_preferences(self.settings)[0])

    def _lens_model_changed(self, model: str):
        """The lens model (court panel) and the click noise (Preferences) for every frame."""
        self.settings.setValue("calibration/model", model)
        if self.doc is not None:
            self.doc.calibrations.configure(*calibration_preferences(self.settings))
            self.refresh()

    def refine_on_lines(self):
        """Refine the current frame's camera on its painted lines (Court panel button)."""
        state = self.doc.refine_on_lines(self._fid)
        rep = state.calibration.refinement if state.calibration is not None else None
        self.refresh()
        if rep:
            self.statusBar().showMessage(
                "Refined on the painted lines" if rep["accepted"]
                else f"Not refined: {rep['reason']}", 8000)

    def run_prompthmr(self) -> list[int]:
        """PromptHMR on the current frame's boxes with its calibrated K (GPU machines)."""
        from hmr.prompthmr_runner import PromptHMRRunner
        state = self.doc.camera_state(self._fid)
        if state.camera is None:
            raise ValueError("calibrate the court first: PromptHMR is given its K")
        ann = self.doc.annotation(self._fid)
        if not ann.players:
            raise ValueError("draw (or propose) the player boxes first")
        if not hasattr(self, "_hmr_runner"):
            self._hmr_runner = PromptHMRRunner()
        res = self._hmr_runner.run(self.doc.frames.image(self.doc.current_frame),
                                   [p.box_xyxy for p in ann.players], state.camera)
        return self.doc.import_people(self._fid, [(p.id, p.box_xyxy, m) for p, m in
                                                  zip(ann.players, res.people)])

    def track_players(self, tracker=None) -> int:
        """Player boxes on every frame of a video project from the tracker (SAM3's video
        predictor by default), prompted on the current frame; tracker ids become player ids
        (+1, so ids start at 1). One undo step per frame. Returns the boxes added."""
        frame = self.doc.current_frame
        if frame.video is None:
            raise ValueError("tracking needs a video project (frames from one video)")
        if tracker is None:
            from hmr.sam3_boxes import Sam3VideoTracker
            ckpt = os.environ.get("COURTSTUDIO_SAM3_CHECKPOINT")
            if not ckpt:
                raise ValueError("set the SAM3 checkpoint in File > Preferences first")
            tracker = Sam3VideoTracker(ckpt, os.environ.get("COURTSTUDIO_SAM3_BPE"))
        size = self.doc.frames.image_size(frame)
        by_index = {f.index: f.id for f in self.doc.project.frames if f.video == frame.video}
        added = 0
        per_frame: dict[str, list] = {}
        for b in tracker.track(self.doc.project.video_path(frame), size, frame.index):
            if b.frame_index in by_index:
                per_frame.setdefault(by_index[b.frame_index], []).append(b)
        for fid, boxes in per_frame.items():
            added += self.doc.set_tracked_boxes(fid, {b.track_id + 1: b.box_xyxy
                                                      for b in boxes})
        self.statusBar().showMessage(f"Tracked {added} boxes over {len(per_frame)} frames", 8000)
        return added

    def template_body(self, pid: int, stature_m: float) -> None:
        """An Anny body for a player without an HMR result (feet from the box)."""
        from courtstudio.players import template_player
        state = self.doc.camera_state(self._fid)
        p = self.doc.annotation(self._fid).player(pid)
        if state.camera is None or p is None:
            raise ValueError("calibrate the court and draw the player's box first")
        spec = self.doc.spec()
        foot = box_ground_point(state.camera, p.box_xyxy, spec.player_plane_z())
        if foot is None:
            raise ValueError("the box's feet are not on the court in front of the camera")
        self.statusBar().showMessage("Building the body (the first time takes about 35 s)...")
        self.setCursor(Qt.CursorShape.WaitCursor)
        try:
            mesh = template_player(state.camera, foot, stature_m)
        finally:
            self.unsetCursor()
        self.doc.import_people(self._fid, [(pid, p.box_xyxy, mesh)])
        self.doc.set_player_height(self._fid, pid, 0.0)

    def _proposer(self):
        """The configured box proposer (SAM3 via COURTSTUDIO_SAM3_CHECKPOINT), built once."""
        if not hasattr(self, "_proposer_cache"):
            from hmr.sam3_boxes import ProposerError, proposer_from_environment
            try:
                self._proposer_cache = proposer_from_environment()
            except ProposerError as exc:
                self._proposer_cache = None
                self.statusBar().showMessage(str(exc), 10000)
        return self._proposer_cache

    def propose_boxes(self, proposer=None) -> list[int]:
        """Fill in player boxes from the proposer; boxes over existing players are skipped."""
        from courtstudio.players import box_iou
        proposer = proposer or self._proposer()
        if proposer is None:
            self.statusBar().showMessage("No box proposer is configured (SAM3 is an optional "
                                         "extra; set COURTSTUDIO_SAM3_CHECKPOINT): draw the "
                                         "boxes by hand", 8000)
            return []
        ann = self.doc.annotation(self._fid)
        boxes = [q.box_xyxy for q in proposer.propose(self.doc.frames.image(
            self.doc.current_frame)) if all(box_iou(q.box_xyxy, p.box_xyxy) < 0.5
                                            for p in ann.players)]
        ids = self.doc.add_players(self._fid, boxes)
        self.statusBar().showMessage(f"{proposer.name} proposed {len(ids)} new player box(es)",
                                     6000)
        return ids

    def mark_flight(self, part: str) -> None:
        """Record this frame as the flight's start, middle or end; the third mark fits it."""
        self._flight_draft[part] = self._fid
        if len(self._flight_draft) == 3:
            d, self._flight_draft = self._flight_draft, {}
            self.doc.add_ball_flight(d["start"], d["middle"], d["end"])
        else:
            self.statusBar().showMessage(
                "Flight: " + ", ".join(f"{k} = {v}" for k, v in self._flight_draft.items())
                + "; mark the other frames", 6000)
            self.refresh()

    def _draw_flight(self, cam, ann) -> None:
        """The fitted arc over this frame, and how far the fit is from this frame's click."""
        from annotation_ui.overlay_items import FLIGHT
        flight, info = self.doc.ball_flight_at(self.doc.current_index)
        if flight is None:
            text = info or ("draft: " + ", ".join(f"{k} {v}" for k, v in
                                                  self._flight_draft.items())
                            if self._flight_draft else "no flight through this frame")
            self.ball_panel.set_flight_text(text, False)
            return
        P = self.doc.project
        t_end = P.index_of(info.end) / P.fps
        arc = flight.position(np.linspace(flight.t0, t_end, 80))
        here = flight.position([self.doc.current_index / P.fps])[0]
        text = (f"flight {info.start} .. {info.end}: {'ok' if flight.ok else flight.message}; "
                f"fit RMS {flight.rms_m * 100:.1f} cm; here ({here[0]:.2f}, {here[1]:.2f}, "
                f"{here[2]:.2f}) m")
        if cam is not None:
            from geometry.projection import project_polyline
            self.overlay.polylines(project_polyline(cam, arc, 0.1), FLIGHT, 1.5, dashed=True)
            uv = cam.project(here[None])[0]
            if np.all(np.isfinite(uv)):
                self.overlay.marker(uv, "circle", FLIGHT, 6, 2.0)
                b = ann.ball
                if b is not None and b.visible and b.uv is not None:
                    text += f"; {np.linalg.norm(uv - np.array(b.uv)):.1f} px from the click"
        self.ball_panel.set_flight_text(text, True)

    def propagate_dialog(self, cancel_after: int | None = None) -> list:
        """Carry the annotated frames' keypoints through the project and recalibrate every
        frame (saved edits first: propagation reads the frames' current clicks)."""
        from courtstudio.propagate import propagate_project
        if self.doc.undo_stack.read_only:  # propagation writes PROJECT/propagation
            raise ValueError(f"read-only: {self.doc.undo_stack.read_only}")
        total = self.doc.frame_count
        dlg = QProgressDialog("Propagating court keypoints...", "Cancel", 0, total, self)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)

        class Cancelled(Exception):
            pass

        def progress(done, n):
            dlg.setValue(done)
            if dlg.wasCanceled() or (cancel_after is not None and done >= cancel_after):
                raise Cancelled()
        records = []
        try:
            records = propagate_project(self.doc.project, store=self.doc.frames,
                                        progress=progress, annotation_of=self.doc.annotation)
            flagged = sum(r["status"] == "flagged" for r in records)
            self.statusBar().showMessage(f"Propagated {len(records)} frames; {flagged} "
                                         "flagged for review", 10000)
        except Cancelled:
            self.statusBar().showMessage("Propagation cancelled; done frames are kept and a "
                                         "new run resumes", 8000)
        finally:
            dlg.close()
            self.doc.reload_propagation()
        return records

    def show_shortcuts(self):
        ShortcutsDialog(self.shortcut_table, self).exec()

    # ------------------------------------------------------------------ export
    def export_dialog(self, all_frames: bool):
        out = QFileDialog.getExistingDirectory(self, "Export scenes to")
        if out:
            self.export_to(out, all_frames)

    def export_to(self, out_dir, all_frames: bool, cancel_after: int | None = None,
                  force: bool = False) -> list:
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
            if self.ask("Export into this folder?", f"{exc.folder} is not empty and is not a "
                        "CourtStudio export: files with the same names will be replaced.",
                        ["Export anyway", "Cancel"]) != "Export anyway":
                return []
            return self.export_to(out_dir, all_frames, cancel_after, force=True)
        dlg.close()
        ok = sum(s.status == "ok" for s in summaries)
        self.statusBar().showMessage(f"Exported {ok} of {len(frames)} frame(s) to {out_dir}",
                                     8000)
        return summaries

    # ----------------------------------------------------------------- refresh
    def _frame_changed(self, index: int):
        frame = self.doc.current_frame
        img = self.doc.frames.image(frame)
        self._image = img
        shown = self.view_adjust.apply(img)
        self.view.set_pixmap(bgr_to_pixmap(shown))
        self.loupe.set_image(shown)
        self.timeline.set_current(index)
        with self.tools.quiet():  # one refresh below, not one per tool change
            self.tools.set_keypoint(None)
            self.tools.advance(self.doc.spec(), self.doc.annotation(frame.id).points)
        # show the frame first: the doctor and the ball's 1-sigma follow its first repaint
        self._diagnosis_pending = True
        self._diagnosis_token += 1
        token = self._diagnosis_token
        self.refresh()
        if not self.view.isVisible():  # no repaint will come
            QTimer.singleShot(0, self, lambda: self._diagnose_now(token))
        QTimer.singleShot(DIAGNOSIS_FALLBACK_MS, self, lambda: self._diagnose_now(token))

    def _frame_shown(self):
        if self._diagnosis_pending:
            token = self._diagnosis_token
            QTimer.singleShot(0, self, lambda: self._diagnose_now(token))

    def finish_deferred(self) -> None:
        """Run the deferred doctor now if it is pending (screenshots: nothing is left out)."""
        self._diagnose_now(self._diagnosis_token)

    def _diagnose_now(self, token: int):
        """The deferred doctor of the frame shown (skipped if the annotator moved on)."""
        if self.doc is not None and self._diagnosis_pending and token == self._diagnosis_token:
            self._diagnosis_pending = False
            self.refresh()

    def _annotation_changed(self, frame_id: str):
        index = self.doc.project.index_of(frame_id)
        self.timeline.set_status(index, self.doc.frame_status(index))
        if frame_id == self._fid:
            if not self._dragging:  # an edit of the frame shown: its doctor runs now
                self._diagnosis_pending = False
            self.refresh()

    def _ranges_changed(self):
        self.timeline.set_statuses([self.doc.frame_status(i)
                                    for i in range(self.doc.frame_count)],
                                   self.doc.current_index)
        self.refresh()

    def _update_title(self):
        name = self.doc.project.name if self.doc else "no project"
        ro = " (read-only)" if self.read_only_reason else ""
        self.setWindowTitle(f"CourtStudio - {name}{ro}[*]")
        self.setWindowModified(bool(self.doc and self.doc.is_dirty))

    def _hovered(self, u: float, v: float):
        if self.doc is None:
            return
        points = self.doc.annotation(self._fid).points
        marks = [(p, CLICK) for p in points.values() if abs(p[0] - u) < 12 and abs(p[1] - v) < 12]
        r = HOVER_PX * self.view.pixels_per_screen_px()
        near = [(float(np.hypot(p[0] - u, p[1] - v)), n) for n, p in points.items()]
        hover = min((d, n) for d, n in near)[1] if near and min(near)[0] <= r else None
        if hover != self._hover_kp and not self._dragging:
            self._hover_kp = hover
            self.refresh()
        self.loupe.set_cursor(u, v, marks)
        self.loupe.hovered = True
        self.statusBar().showMessage(f"({u:.1f}, {v:.1f})")

    def refresh(self, panels_now: bool = False):
        """Redraw the overlays and panels of the current frame from the document. During a
        drag the panels are updated at most every PANEL_DRAG_MS (the last state always
        shows: a timer updates them after the last move), the overlays on every call."""
        if self.doc is None:
            return
        frame = self.doc.current_frame
        spec = self.doc.spec(frame)
        ann = self.doc.annotation(frame.id)
        diagnose = not (self._dragging or self._diagnosis_pending)
        state = self.doc.camera_state(frame.id, diagnose=diagnose)
        cam = state.camera
        self.overlay.begin()  # items are updated in place; end() drops the unused ones
        self.overlay.screen_scale = self.view.transform().m11()
        if cam is not None:
            draw_court(self.overlay, cam, spec, state.inherited or state.propagated is not None)
        draw_clicks(self.overlay, ann, spec, None if state.inherited else state.calibration,
                    self.tools.keypoint if self.tools.tool == "court" else None,
                    self._hover_kp if self.tools.tool == "court" else None)
        ball, ball_msg = lift_frame_ball(state, spec, ann, uncertainty=diagnose)
        plane = ann.ball.plane if ann.ball and ann.ball.plane else spec.default_plane
        draw_ball(self.overlay, ann, cam, spec.plane_z(plane), ball)
        draw_players(self.overlay, ann, self.tools.player_id)
        self._draw_flight(cam, ann)
        self._draw_meshes(ann, cam)
        self.overlay.end()
        if not self._panels_due(panels_now):
            return
        world = self._world_players(ann, spec, cam)
        grounds = {}
        for p in ann.players:
            if p.id in world:
                grounds[p.id] = world[p.id].ground_xy
            elif cam is not None:
                g = box_ground_point(cam, p.box_xyxy, spec.player_plane_z())
                grounds[p.id] = None if g is None else g[:2]
        self.court_panel.update_state(spec, ann, state, self.tools.keypoint,
                                      self.doc.current_index, self.doc.frame_count)
        self.ball_panel.update_state(spec, ann, ball, ball_msg)
        self.players_panel.update_state(
            ann, grounds, self.tools.player_id, {pid: w.scale for pid, w in world.items()},
            "SAM3" if os.environ.get("COURTSTUDIO_SAM3_CHECKPOINT") else None)
        ball_world = None if ball is None else ball.world
        self.topdown.set_scene(spec, ball_world, list(grounds.items()),
                               None if cam is None else cam.camera_centre_world)
        if self.result_tabs.currentWidget() is self.orbit:
            players = []
            for pid, g in grounds.items():
                w = world.get(pid)
                ground = None if g is None else np.array([g[0], g[1], spec.player_plane_z()])
                players.append(OrbitPlayer(pid, ground, None if w is None else w.vertices_world,
                                           None if w is None else
                                           self.doc.player_mesh(ann.player(pid).mesh).faces))
            self.orbit.set_scene(spec, cam, ball_world, players)
        if not self.loupe.hovered and cam is not None and self.tools.keypoint is not None:
            pred = cam.project(spec.keypoints[self.tools.keypoint][None])[0]
            if np.all(np.isfinite(pred)):
                self.loupe.show_at(*pred)
        self.statusBar().showMessage(
            f"Frame {self.doc.current_index + 1}/{self.doc.frame_count} {frame.id} | "
            f"{self.tools.tool}" + (f": next {self.tools.keypoint}"
                                    if self.tools.tool == "court" and self.tools.keypoint else ""))
        self._update_title()

    def _panels_due(self, now: bool) -> bool:
        """Whether this refresh updates the panels: always, except during a drag less than
        PANEL_DRAG_MS after the last update (then a timer updates them when it is due)."""
        elapsed_ms = (time.monotonic() - self._panels_at) * 1e3
        if now or not self._dragging or elapsed_ms >= PANEL_DRAG_MS:
            self._panel_timer.stop()
            self._panels_at = time.monotonic()
            return True
        if not self._panel_timer.isActive():
            self._panel_timer.start(max(1, round(PANEL_DRAG_MS - elapsed_ms)))
        return False

    def _draw_meshes(self, ann, cam) -> None:
        """Players with a mesh: their silhouettes over the frame (a frame's first drawing
        leaves new silhouettes to the deferred pass)."""
        if cam is None:
            return
        for p in ann.players:
            if p.mesh is None:
                continue
            try:
                draw_mesh(self.overlay, p.mesh, self.doc.player_mesh(p.mesh), cam,
                          allow_stale=self._dragging, cached_only=self._diagnosis_pending)
            except ValueError as exc:
                self.statusBar().showMessage(f"Player {p.id}: {exc}", 6000)

    def _world_players(self, ann, spec, cam) -> dict:
        """Players with a mesh placed in the world (rescaled)."""
        out = {}
        if cam is None:
            return out
        for p in ann.players:
            if p.mesh is None:
                continue
            try:
                out[p.id] = world_player(cam, self.doc.player_mesh(p.mesh),
                                         p.lowest_vertex_height_m, spec.player_plane_z())
            except ValueError as exc:
                self.statusBar().showMessage(f"Player {p.id}: {exc}", 6000)
        return out

    def resizeEvent(self, event):
        super().resizeEvent(event)
        sizes = self.main_split.sizes()  # keep the side panel's width, the canvas the rest
        if sum(sizes) > SIDE_PX + 200 and sizes[1] > SIDE_PX + 40:
            self.main_split.setSizes([sum(sizes) - SIDE_PX, SIDE_PX])

    # ------------------------------------------------------------------- misc
    def _ask_user(self, title: str, text: str, buttons: list[str]) -> str:
        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setText(text)
        made = {box.addButton(b, QMessageBox.ButtonRole.AcceptRole if i == 0 else
                              QMessageBox.ButtonRole.RejectRole): b for i, b in enumerate(buttons)}
        box.exec()
        return made.get(box.clickedButton(), buttons[-1])


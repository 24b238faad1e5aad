"""The main window's menus and shortcuts (one table; Help > Shortcuts lists it) and its
Open recent menu: a mixin of MainWindow (annotation_ui/main_window.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from annotation_ui.dialogs import ShortcutsDialog
from annotation_ui.panels import PANELS

MAX_RECENT = 8
# actions that change the project: disabled while it is open read-only
WRITING_ACTIONS = (
    "Save",
    "Undo",
    "Redo",
    "Delete keypoint / player",
    "Flag frame for review",
    "Ball not visible",
    "Propagate court keypoints",
    "Copy previous frame's keypoints",
    "Keypoint occluded / estimated",
    "Detect broadcast graphics",
)


class MenuActions:
    """Builds ``menuBar()`` from one table into ``actions_by_name`` and ``shortcut_table``."""

    def _build_actions(self):
        """Menus and shortcuts from one table; Help > Shortcuts lists the same table."""
        spec = [
            (
                "&File",
                [
                    ("New project...", "Ctrl+N", self.new_project_dialog),
                    ("Open project...", "Ctrl+O", self.open_project_dialog),
                    ("Open sample project", None, self.open_sample),
                    ("Preferences...", None, self.preferences_dialog),
                    ("Save", "Ctrl+S", self.save),
                    ("Export current frame...", "Ctrl+Shift+E", lambda: self.export_dialog(False)),
                    ("Export all frames...", "Ctrl+E", lambda: self.export_dialog(True)),
                    ("Quit", "Ctrl+Q", self.close),
                ],
            ),
            (
                "&Edit",
                [
                    ("Undo", "Ctrl+Z", self.undo),
                    ("Redo", "Ctrl+Shift+Z;Ctrl+Y", self.redo),
                    ("Delete keypoint / player", "Delete;Backspace", self.delete_selected),
                    (
                        "Copy previous frame's keypoints",
                        "Ctrl+Shift+V",
                        self.copy_previous_keypoints,
                    ),
                    ("Keypoint occluded / estimated", "O", self.cycle_point_flag),
                    (
                        "Flag frame for review",
                        "F",
                        lambda: self._edit(self.doc.toggle_flag, self._fid),
                    ),
                ],
            ),
            (
                "&Tools",
                [
                    *((p.action_text, p.shortcut, lambda t=p.id: self.set_tool(t)) for p in PANELS),
                    (
                        "Detect broadcast graphics",
                        "Ctrl+Shift+G",
                        lambda: self.masks_tool.detect_graphics(),
                    ),
                    ("Next keypoint", "Tab;]", lambda: self.advance_keypoint(1)),
                    ("Previous keypoint", "Shift+Tab;[", lambda: self.advance_keypoint(-1)),
                    ("Ball not visible", "N", self.toggle_ball_not_visible),
                ],
            ),
            (
                "F&rame",
                [
                    ("Next frame", "Right;D", lambda: self.step(1)),
                    ("Previous frame", "Left;A", lambda: self.step(-1)),
                    ("Forward 10 frames", "PgDown", lambda: self.step(10)),
                    ("Back 10 frames", "PgUp", lambda: self.step(-10)),
                    ("First frame", "Home", lambda: self.go_to(0)),
                    ("Go to frame...", "Ctrl+G", self.go_to_frame_dialog),
                    ("Next flagged frame", "Ctrl+Right", lambda: self.go_to_flagged(1)),
                    ("Previous flagged frame", "Ctrl+Left", lambda: self.go_to_flagged(-1)),
                    ("Last frame", "End", lambda: self.go_to(10**9)),
                    ("Propagate court keypoints", "Ctrl+P", self.propagate_dialog),
                ],
            ),
            (
                "&View",
                [
                    ("Fit frame", "0", lambda: self.view.fit()),
                    ("Zoom in", "=;+", lambda: self.view.zoom(1.25)),
                    ("Zoom out", "-", lambda: self.view.zoom(0.8)),
                    ("Hide overlays", "H", self.toggle_overlays),
                    ("Brightness / contrast / gamma...", "Ctrl+B", self.view_adjust_dialog),
                ],
            ),
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

    def show_shortcuts(self):
        ShortcutsDialog(self.shortcut_table, self).exec()

    def _remember(self, root: Path):
        recent = [str(root)] + [
            p for p in self.settings.value("recent", [], list) if p != str(root)
        ]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._fill_recent()

    def _fill_recent(self):
        self.recent_menu.clear()
        for p in self.settings.value("recent", [], list):
            act = self.recent_menu.addAction(p)
            act.triggered.connect(lambda checked=False, path=p: self.open_project(path))

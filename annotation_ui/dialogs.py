"""Dialogs: new project, keyboard shortcuts."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from court_specs import SpecError, available_specs, load_spec


def path_row(edit: QLineEdit, on_browse) -> QWidget:
    """A path field with its Browse... button (on_browse fills the field)."""
    row = QWidget()
    lay = QHBoxLayout(row)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(edit)
    browse = QPushButton("Browse...")
    browse.clicked.connect(lambda checked=False: on_browse())
    lay.addWidget(browse)
    return row


def ok_cancel(dialog: QDialog) -> QDialogButtonBox:
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    )
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


class NewProjectDialog(QDialog):
    """Source (an image folder or a video file), sport, project folder. kind: the choice to
    start from ('images', the default, or the last one used)."""

    def __init__(self, parent=None, kind: str = "images"):
        super().__init__(parent)
        self.setWindowTitle("New project")
        self.from_images = QRadioButton("Image folder")
        self.from_video = QRadioButton("Video file")
        (self.from_video if kind == "video" else self.from_images).setChecked(True)
        self.source = QLineEdit()
        self.sport = QComboBox()
        try:
            sports = available_specs()
        except SpecError as exc:  # the user's spec folder is gone (File > Preferences)
            self._add_disabled("(court specs folder not found: see File > Preferences)", str(exc))
            sports = []
        for sid in sports:
            try:
                self.sport.addItem(load_spec(sid).name, sid)
            except SpecError as exc:  # a broken user spec: listed, not selectable
                self._add_disabled(f"{sid} (invalid spec)", str(exc))
        self.folder = QLineEdit()
        kind_row = QHBoxLayout()
        kind_row.addWidget(self.from_images)
        kind_row.addWidget(self.from_video)
        form = QFormLayout()
        form.addRow("Frames from", kind_row)
        form.addRow("Source", path_row(self.source, self._browse_source))
        form.addRow("Sport", self.sport)
        form.addRow("Project folder", path_row(self.folder, self._browse_folder))
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(ok_cancel(self))

    def _add_disabled(self, text: str, tooltip: str) -> None:
        """A sport entry that is listed but cannot be chosen (its reason in the tooltip)."""
        self.sport.addItem(text, None)
        item = self.sport.model().item(self.sport.count() - 1)
        item.setEnabled(False)
        item.setToolTip(tooltip)

    def _browse_source(self):
        if self.from_video.isChecked():
            path, _ = QFileDialog.getOpenFileName(
                self, "Video", "", "Videos (*.mp4 *.mov *.avi *.mkv);;All (*)"
            )
        else:
            path = QFileDialog.getExistingDirectory(self, "Image folder")
        if path:
            self.source.setText(path)

    def _browse_folder(self):
        path = QFileDialog.getExistingDirectory(self, "Project folder")
        if path:
            self.folder.setText(path)

    def values(self) -> dict:
        return {
            "kind": "video" if self.from_video.isChecked() else "images",
            "source": self.source.text().strip(),
            "sport": self.sport.currentData(),
            "folder": self.folder.text().strip(),
        }


def folder_entries(folder) -> set[str] | None:
    """The names in folder, or None when it does not exist (before creating a project)."""
    p = Path(folder)
    return {e.name for e in p.iterdir()} if p.is_dir() else None


def remove_created(folder, before: set[str] | None) -> None:
    """Undo a failed project creation: remove the folder if it did not exist before
    (``before`` is None), else only the entries created in it since ``before``."""
    p = Path(folder)
    if not p.is_dir():
        return
    if before is None:
        shutil.rmtree(p, ignore_errors=True)
        return
    for e in p.iterdir():
        if e.name not in before:
            if e.is_dir() and not e.is_symlink():
                shutil.rmtree(e, ignore_errors=True)
            else:
                e.unlink(missing_ok=True)


class ShortcutsDialog(QDialog):
    def __init__(self, shortcuts: list[tuple[str, str]], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        table = QTableWidget(len(shortcuts), 2)
        table.setHorizontalHeaderLabels(["action", "keys"])
        table.verticalHeader().setVisible(False)
        for row, (action, keys) in enumerate(shortcuts):
            table.setItem(row, 0, QTableWidgetItem(action))
            table.setItem(row, 1, QTableWidgetItem(keys))
        table.resizeColumnsToContents()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Space + drag, right or middle drag: pan. Wheel: zoom."))
        lay.addWidget(table)
        lay.addWidget(buttons)
        self.resize(460, 560)
        self.table = table

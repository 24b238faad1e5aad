"""Widget setters that touch a widget only when its content changes.

The panels are refreshed from the document on every mouse move of a drag; a Qt setter
called with the value already shown still schedules a repaint (and for a label a relayout of
its panel), so unchanged values are skipped here and a table's cells are updated in place."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem


def set_text(label: QLabel, text: str) -> None:
    if label.text() != text:
        label.setText(text)


def fill_table(
    table: QTableWidget, rows: list[list[str]], colors: list[QColor | None] | None = None
) -> None:
    """Show ``rows`` (one list of cell texts per row) in ``table``, each row in its colour
    (None: the default text colour); cells already showing their text and colour are left
    alone."""
    if table.rowCount() != len(rows):
        table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        color = colors[r] if colors else None
        for c, text in enumerate(cells):
            item = table.item(r, c)
            if item is None:
                item = QTableWidgetItem(text)
                if color is not None:
                    item.setForeground(QBrush(color))
                table.setItem(r, c, item)
                continue
            if item.text() != text:
                item.setText(text)
            want = QBrush(color) if color is not None else QBrush()
            if item.foreground() != want:
                item.setForeground(want)

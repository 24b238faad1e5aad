"""The Court panel: a top-down court diagram highlighting the next keypoint, the keypoint list
with residuals, the camera's uncertainty, the doctor's suggestions, static-camera ranges."""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from annotation_ui.court_plan import plan_transform, plan_view
from annotation_ui.widget_updates import fill_table
from courtstudio.editing.tool_state import keypoint_order
from geometry.doctor import FitQuality
from geometry.model_selection import lens_corner_shift_px, lens_determined

MIN_DIAGRAM_PX = QSize(230, 170)
ELEVATED_OFFSET_PX = 9.0
HIT_PX = 9.0
SUSPECT_TEXT = QColor(220, 0, 200)  # a suspect click's row in the residual table


class CourtDiagram(QWidget):
    """Top-down court as the broadcast camera sees it (annotation_ui.court_plan): end view far
    baseline at the top; side view near sideline at the bottom. Click a keypoint to make it
    current."""

    keypoint_clicked = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.spec = None
        self.clicked: set[str] = set()
        self.current: str | None = None
        self.suspects: set[str] = set()
        self.view: str | None = None
        self._state = None
        self._pixmap = None  # (key, QPixmap): the last rendering
        # big enough to click every keypoint (issue 10: it was 51x95 px on a laptop)
        self.setMinimumSize(MIN_DIAGRAM_PX)

    def set_state(self, spec, clicked, current, suspects=(), view=None):
        """view: 'end' | 'side' (the frame's convention), None for the spec's."""
        state = (
            spec.id if spec else None,
            tuple(sorted(clicked)),
            current,
            tuple(sorted(suspects)),
            view,
        )
        self.spec, self.clicked, self.current = spec, set(clicked), current
        self.suspects = set(suspects)
        self.view = view
        if state != self._state:  # a drag changes none of these: no repaint per move
            self._state = state
            self.update()

    def _transform(self):
        s = self.spec
        extent = np.vstack(
            [np.array(list(s.keypoints.values()))[:, :2], [[0.0, 0.0], [s.length_m, s.width_m]]]
        )
        return plan_transform(s, extent, self.width(), self.height(), 14.0, self.view)

    def _keypoint_positions(self):
        """{name: QPointF widget px}. A point above the surface (net top, post top) is drawn
        ELEVATED_OFFSET_PX up from its base with a stem, one below it (the floor under a
        table) as far down, so none sits on the point at the same (x, y) (net centre top
        over the net centre, etc.)."""
        t = self._transform()
        out = {}
        for n, p in self.spec.keypoints.items():
            q = t(p)
            if abs(p[2]) > 1e-6:
                q = QPointF(q.x(), q.y() - np.sign(p[2]) * ELEVATED_OFFSET_PX)
            out[n] = q
        return out

    def paintEvent(self, event):
        """Blit the diagram drawn once per state and size (the panel around it repaints on
        every mouse move of a drag; the diagram does not change then)."""
        if self.spec is None:
            return
        key = (self._state, self.width(), self.height(), self.devicePixelRatioF())
        if self._pixmap is None or self._pixmap[0] != key:
            ratio = self.devicePixelRatioF()
            pix = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
            pix.setDevicePixelRatio(ratio)
            self._render(pix)
            self._pixmap = (key, pix)
        qp = QPainter(self)
        qp.drawPixmap(0, 0, self._pixmap[1])
        qp.end()

    def _render(self, device):
        qp = QPainter(device)
        qp.setRenderHint(QPainter.RenderHint.Antialiasing)
        qp.fillRect(self.rect(), QColor(40, 70, 55))
        t = self._transform()
        qp.setPen(QPen(QColor(230, 230, 230), 1.2))
        for pl in self.spec.lines.values():
            pts = [t(p) for p in pl]
            for a, b in zip(pts[:-1], pts[1:]):
                qp.drawLine(a, b)
        for name, pos in self._keypoint_positions().items():
            z = self.spec.keypoints[name][2]
            elevated = z > 1e-6
            if abs(z) > 1e-6:  # the stem to where it stands
                qp.setPen(QPen(QColor(170, 170, 170), 1))
                qp.drawLine(pos, QPointF(pos.x(), pos.y() + np.sign(z) * ELEVATED_OFFSET_PX))
            if name == self.current:
                qp.setPen(QPen(QColor(255, 255, 255), 2))
                qp.setBrush(Qt.BrushStyle.NoBrush)
                qp.drawEllipse(pos, 8, 8)
            color = (
                QColor(255, 60, 255)
                if name in self.suspects
                else (QColor(255, 70, 70) if name in self.clicked else QColor(150, 150, 150))
            )
            qp.setPen(QPen(color, 1))
            qp.setBrush(QBrush(color) if name in self.clicked else Qt.BrushStyle.NoBrush)
            r = 4.0
            if elevated:
                qp.drawRect(QRectF(pos.x() - r, pos.y() - r, 2 * r, 2 * r))
            else:
                qp.drawEllipse(pos, r, r)
        qp.end()

    def mousePressEvent(self, event):
        if self.spec is None:
            return
        p = event.position()
        best, best_d = None, HIT_PX
        for name, pos in self._keypoint_positions().items():
            d = float(np.hypot(pos.x() - p.x(), pos.y() - p.y()))
            if d < best_d:
                best, best_d = name, d
        if best is not None:
            self.keypoint_clicked.emit(best)


LENS_MODELS = (
    ("auto", "Lens: auto"),
    ("simple", "Lens: pinhole"),
    ("simple_k1", "Lens: k1"),
    ("simple_k1k2", "Lens: k1 + k2"),
)


class CourtPanel(QWidget):
    apply_suggestion = Signal(dict)  # mapping
    remove_keypoint = Signal(str)
    set_static_range = Signal(int, int)
    lens_model_changed = Signal(str)
    refine_lines = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.diagram = CourtDiagram()
        self.view_hint = QLabel("")
        self.view_hint.setWordWrap(True)
        self.view_hint.setVisible(False)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["keypoint", "residual px", "LOO px", "paint px"])
        self.table.horizontalHeaderItem(2).setToolTip(
            "leave-one-out: distance from where the camera solved without this click "
            "projects its keypoint; a large value means this click is the wrong one"
        )
        self.table.horizontalHeaderItem(3).setToolTip(
            "distance from the click to the crossing of the painted lines found near it in "
            "the frame; '-' where no painted line through the keypoint was found"
        )
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(
            self.table.fontMetrics().height() + 6
        )  # compact rows: more of them on a laptop
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setMinimumHeight(60)  # the lens row must not push a laptop window taller
        self.suggestion = QLabel("")
        self.suggestion.setWordWrap(True)
        self.apply_button = QPushButton("Apply suggested relabelling")
        self.apply_button.setVisible(False)
        self._mapping = {}
        self.apply_button.clicked.connect(lambda: self.apply_suggestion.emit(self._mapping))
        self.range_first = QSpinBox()
        self.range_last = QSpinBox()
        self.range_button = QPushButton("Reuse this camera for frames")
        self.range_button.clicked.connect(
            lambda: self.set_static_range.emit(self.range_first.value(), self.range_last.value())
        )
        self.lens = QComboBox()
        for key, label in LENS_MODELS:
            self.lens.addItem(label, key)
        self.lens.setToolTip(
            "auto: the richest lens the clicks determine (chosen on "
            "held-out clicks); pinhole: no distortion"
        )
        self.lens.currentIndexChanged.connect(
            lambda i: self.lens_model_changed.emit(self.lens.itemData(i))
        )
        self.refine_button = QPushButton("Refine on lines")
        self.refine_button.setToolTip(
            "fit the camera to the painted court lines as well as the "
            "clicks (kept only when it is better)"
        )
        self.refine_button.clicked.connect(self.refine_lines.emit)
        self.refine_result = QLabel("")
        self.refine_result.setWordWrap(True)
        self.refine_result.setVisible(False)
        lens_row = QHBoxLayout()
        lens_row.addWidget(self.lens)
        lens_row.addWidget(self.refine_button)
        rng = QHBoxLayout()
        rng.addWidget(self.range_button)
        rng.addWidget(self.range_first)
        rng.addWidget(QLabel("to"))
        rng.addWidget(self.range_last)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(3)
        lay.addWidget(self.diagram, 2)
        lay.addWidget(self.view_hint)
        lay.addWidget(self.summary)
        lay.addLayout(lens_row)
        lay.addWidget(self.refine_result)
        lay.addWidget(self.table, 3)
        lay.addWidget(self.suggestion)
        lay.addWidget(self.apply_button)
        lay.addLayout(rng)

    def update_state(self, spec, ann, state, current, frame_index, frame_count):
        cal = state.calibration
        suspects = cal.suspects if cal is not None else []
        centre = state.camera.camera_centre_world if state.camera is not None else None
        view = plan_view(spec, centre)
        self.diagram.set_state(spec, ann.points, current, suspects, view)
        side = view == "side"
        self.view_hint.setVisible(side)
        if side:
            self.view_hint.setText(
                "<small>Side view (camera beyond the near sideline, docs/frames.md): "
                "<i>far</i> = the end on the left, <i>near</i> = the end on the right, "
                "<i>left</i> = the near sideline (bottom), <i>right</i> = the far "
                "sideline.</small>"
            )
        for sb in (self.range_first, self.range_last):
            sb.setRange(0, max(0, frame_count - 1))
        if self.range_last.value() < frame_index:
            self.range_last.setValue(min(frame_count - 1, frame_index + 25))
        if not self.range_first.hasFocus():
            self.range_first.setValue(frame_index)
        self.range_button.setEnabled(cal is not None and not state.inherited)
        self.refine_button.setEnabled(cal is not None and not state.inherited)
        text = refinement_text(cal.refinement if cal is not None and not state.inherited else None)
        self.refine_result.setText(text)
        self.refine_result.setVisible(bool(text))
        if cal is None and state.camera is not None:
            self.summary.setText(
                f"<b>f = {state.camera.K[0, 0]:.0f} px</b>, camera "
                f"{html.escape(state.message)}. Click keypoints here to calibrate this "
                f"frame itself. Next: <b>{current or '-'}</b>"
            )
        elif cal is None:
            self.summary.setText(
                f"<b>No camera</b>: {html.escape(state.message)}. Next: <b>{current or '-'}</b>"
            )
        else:
            K = cal.camera.K
            c = cal.camera.camera_centre_world
            sc = cal.fit.camera_centre_sigma_m
            src = f" (static camera of {state.source_frame_id})" if state.inherited else ""
            self.summary.setText(
                f"<b>f = {K[0, 0]:.0f} px</b> &plusmn; {cal.fit.focal_sigma_pct:.2f} %{src}<br>"
                f"camera ({c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f}) m &plusmn; ({sc[0]:.2f}, "
                f"{sc[1]:.2f}, {sc[2]:.2f}) m<br>RMS {cal.fit.rms_px:.2f} px over "
                f"{len(cal.names)} points, lens {lens_text(cal)}"
                + (" <b>(poor)</b>" if cal.quality == FitQuality.POOR else "")
                + f". Next: <b>{current or '-'}</b>"
            )
        names = [n for n in keypoint_order(spec) if n in ann.points]
        res = dict(zip(cal.names, cal.fit.residuals_px)) if cal and not state.inherited else {}
        loo = dict(zip(cal.names, cal.loo.residual_px)) if cal and not state.inherited else {}
        paint = paint_distances_px(cal) if cal and not state.inherited else {}
        fill_table(
            self.table,
            [
                [
                    n,
                    f"{res[n]:.2f}" if n in res else "-",
                    f"{loo[n]:.2f}" if n in loo and np.isfinite(loo[n]) else "-",
                    f"{paint[n]:.1f}" if n in paint else "-",
                ]
                for n in names
            ],
            [SUSPECT_TEXT if n in suspects else None for n in names],
        )
        if state.inherited:
            fixes = []
        else:
            fixes = list(cal.fixes) if cal is not None else list(state.fixes)
        self.suggestion.setText(
            fixes[0].message
            if fixes
            else (
                "Suspect click: "
                + ", ".join(
                    n + (f" ({paint[n]:.1f} px off its painted lines)" if n in paint else "")
                    for n in suspects
                )
                if suspects
                else ""
            )
        )
        self._mapping = fixes[0].mapping if fixes else {}
        self.apply_button.setVisible(bool(self._mapping))

    def set_lens_model(self, model: str) -> None:
        """Show the lens model without emitting lens_model_changed."""
        i = self.lens.findData(model)
        if i >= 0:
            self.lens.blockSignals(True)
            self.lens.setCurrentIndex(i)
            self.lens.blockSignals(False)

    def selected_keypoint(self) -> str | None:
        row = self.table.currentRow()
        item = self.table.item(row, 0) if row >= 0 else None
        return item.text() if item else None


def lens_text(cal) -> str:
    """'pinhole' or 'k1 -0.123' (and k2) for the summary; a lens whose displacement at the
    image corner is within its own 1-sigma is marked not determined
    (geometry.model_selection.lens_determined)."""
    k = cal.fit.model.n_radial
    if not k:
        return "pinhole"
    d = cal.camera.dist
    text = " ".join(f"k{i + 1} {d[i]:+.3f}" for i in range(k))
    if not lens_determined(cal.fit):
        shift, sigma = lens_corner_shift_px(cal.fit)
        text += (
            f" <b>(not determined: {shift:.0f} &plusmn; {sigma:.0f} px at the corner; "
            "try Lens: pinhole)</b>"
        )
    return text


def refinement_text(rep: dict | None) -> str:
    """The line refinement's result for the panel: support and residuals before -> after."""
    if not rep:
        return ""

    def f(v, unit=""):
        return "-" if v is None else f"{v:.2f}{unit}"

    head = "<b>Refined on lines</b>" if rep["accepted"] else f"<b>Not refined</b>: {rep['reason']}"
    n = len(rep.get("masks") or ())
    masked = f"; none looked for under {n} mask{'s' if n != 1 else ''}" if n else ""
    return (
        f"{head}<br>line support {f(rep['support_before'])} &rarr; "
        f"{f(rep['support_after'])}, line residual {f(rep['line_rms_before_px'], ' px')} "
        f"&rarr; {f(rep['line_rms_after_px'], ' px')}<br>click RMS "
        f"{f(rep['click_rms_before_px'], ' px')} &rarr; "
        f"{f(rep['click_rms_after_px'], ' px')} ({rep['samples']} samples on "
        f"{rep['lines_used']} lines, lens {rep['model']}"
        f"{masked})"
    )


def paint_distances_px(cal) -> dict[str, float]:
    """name -> distance (px) from the click to its painted crossing, for the clicks the
    doctor could check against the frame's painted lines (none without a frame)."""
    return {n: float(np.hypot(*d)) for n, d in (cal.paint_offsets_px or {}).items()}

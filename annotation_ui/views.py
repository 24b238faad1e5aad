"""The result views: a top-down court with the ball and players at their world positions,
and an orbitable 3D view (CPU-rendered by exporters.orbit_view)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from annotation_ui.court_plan import plan_transform, plan_view
from annotation_ui.qimage import bgr_to_qimage
from exporters.orbit_view import OrbitPlayer, orbit_camera, render_orbit_view


class TopDownView(QWidget):
    """The court from above as the camera sees it (annotation_ui.court_plan): end view far
    baseline at the top; side view near sideline at the bottom."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.spec = None
        self.ball = None
        self.ball_height = None
        self.players: list[tuple[int, np.ndarray]] = []
        self.camera_xy = None
        self.camera_centre = None
        self.setMinimumSize(150, 110)

    def set_scene(self, spec, ball_world, players, camera_centre=None):
        self.spec, self.ball = spec, ball_world
        self.players = [(pid, np.asarray(g, float)[:2]) for pid, g in players if g is not None]
        self.camera_xy = None if camera_centre is None else camera_centre[:2]
        self.camera_centre = camera_centre
        self.update()

    def paintEvent(self, event):
        qp = QPainter(self)
        qp.setRenderHint(QPainter.RenderHint.Antialiasing)
        qp.fillRect(self.rect(), QColor(45, 80, 60))
        if self.spec is None:
            qp.end()
            return
        s = self.spec
        m = 0.12 * max(s.length_m, s.width_m)
        t = plan_transform(
            s,
            [[-m, -m], [s.length_m + m, s.width_m + m]],
            self.width(),
            self.height(),
            0.0,
            plan_view(s, self.camera_centre),
        )
        qp.fillRect(QRectF(t((0, 0)), t((s.length_m, s.width_m))).normalized(), QColor(60, 90, 130))
        qp.setPen(QPen(QColor(235, 235, 235), 1.2))
        for pl in s.lines.values():
            pts = [t(p) for p in pl]
            for a, b in zip(pts[:-1], pts[1:]):
                qp.drawLine(a, b)
        for pl in s.net_box_world()[-1:]:
            qp.setPen(QPen(QColor(60, 140, 255), 2.5))
            qp.drawLine(t(pl[0]), t(pl[-1]))
        for pid, g in self.players:
            qp.setPen(QPen(QColor(80, 200, 255), 2))
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.drawEllipse(t(g), 6, 6)
            qp.drawText(t(g) + QPointF(8, -6), f"P{pid}")
        if self.ball is not None:
            qp.setPen(QPen(QColor(255, 0, 255), 1.5))
            qp.setBrush(QBrush(QColor(230, 240, 40)))
            qp.drawEllipse(t(self.ball), 4.5, 4.5)
            qp.drawText(t(self.ball) + QPointF(7, 12), f"{self.ball[2]:.2f} m")
        qp.end()


class OrbitView(QWidget):
    """Drag to orbit, wheel to zoom. Re-rendered on demand at the widget's size."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.azimuth = np.deg2rad(25.0)
        self.elevation = np.deg2rad(28.0)
        self.distance = None
        self.spec = None
        self.kw = {}
        self._drag = None
        self._image = None
        self.setMinimumSize(150, 110)

    def set_scene(self, spec, frame_camera, ball_world, players: list[OrbitPlayer]):
        if self.spec is None or spec.id != self.spec.id:
            self.distance = 2.2 * max(spec.length_m, spec.width_m)
        self.spec = spec
        self.kw = dict(frame_camera=frame_camera, ball_world=ball_world, players=players)
        self._render()

    def _render(self):
        if self.spec is None or self.width() < 10 or self.height() < 10:
            return
        view = orbit_camera(
            self.spec, self.azimuth, self.elevation, self.distance, (self.width(), self.height())
        )
        self._image = bgr_to_qimage(render_orbit_view(self.spec, view, **self.kw))
        self.update()

    def render_image(self):
        return self._image

    def resizeEvent(self, event):
        self._render()

    def paintEvent(self, event):
        qp = QPainter(self)
        if self._image is not None:
            qp.drawImage(0, 0, self._image)
        else:
            qp.fillRect(self.rect(), QColor(48, 40, 36))
        qp.end()

    def mousePressEvent(self, event):
        self._drag = event.position()

    def mouseMoveEvent(self, event):
        if self._drag is None:
            return
        d = event.position() - self._drag
        self._drag = event.position()
        self.azimuth -= d.x() * 0.01
        self.elevation = float(
            np.clip(self.elevation + d.y() * 0.01, np.deg2rad(3), np.deg2rad(88))
        )
        self._render()

    def mouseReleaseEvent(self, event):
        self._drag = None

    def wheelEvent(self, event):
        if self.distance is not None:
            self.distance *= 0.85 if event.angleDelta().y() > 0 else 1 / 0.85
            self._render()

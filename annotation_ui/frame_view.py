"""The frame canvas: the image with overlays, zoom (wheel, at the cursor) and pan (middle or
right drag, or Space + left drag). Left-button events are reported in image pixels (uv) to
the active tool; the view computes no geometry.

Every mouse handler also runs QGraphicsView's own, so Qt's record of the last mouse position
(its zoom anchor) is current; the wheel zoom additionally pins the scene point under the
event's position itself, so the pixel under the cursor stays there whatever the platform
reports as the cursor position (tests/test_gui_edges.py offscreen, tests/test_gui_xvfb.py
under a real X server).

The frame is painted as the scene background from a copy scaled once per zoom level: while
the annotator drags a keypoint only the overlays change, and the already-scaled frame is
blitted instead of rescaling a full-resolution image on every mouse move. (Qt's own background
cache was re-rendered whole after every overlay change, 15-20 ms on a 1080p frame.)"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from annotation_ui.coords import scene_to_uv

ZOOM_STEP = 1.25
MAX_ZOOM = 64.0


class FrameView(QGraphicsView):
    pressed = Signal(float, float, object)  # u, v, Qt.KeyboardModifiers
    dragged = Signal(float, float)
    released = Signal(float, float)
    hovered = Signal(float, float)
    zoomed = Signal()
    painted = Signal()  # after each repaint of the canvas (the frame and overlays are shown)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        # a few dozen overlay items rebuilt on every edit: a BSP index costs more than it saves
        self.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.pixmap = QPixmap()
        self._scaled: tuple | None = None  # (pixmap key, scale, the frame scaled to it)
        self.setRenderHints(QPainter.RenderHint.Antialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # the scene is padded around the frame (set_pixmap): scrollbars would only mislead;
        # pan with Space / right / middle drag
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._panning = None
        self._left_down = False
        self._space = False
        self._fitted = True
        self._wheel_anchor = None  # (viewport point, scene point) of the last wheel zoom

    # --------------------------------------------------------------- content
    def set_pixmap(self, pixmap: QPixmap) -> None:
        same_size = pixmap.size() == self.pixmap.size()
        self.pixmap = pixmap
        # room around the frame, so any pixel (an edge or corner too) can be brought under
        # the cursor: the wheel zoom keeps it there, a pan can centre it
        pad = float(max(pixmap.width(), pixmap.height()))
        self.scene().setSceneRect(
            QRectF(-pad, -pad, pixmap.width() + 2 * pad, pixmap.height() + 2 * pad)
        )
        self._scaled = None
        self.viewport().update()
        if not same_size or self._fitted:
            self.fit()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, QColor(128, 128, 128))
        if self.pixmap.isNull():
            return
        scale = self.transform().m11()
        if scale >= 1.0:  # magnified: nearest pixels, only the exposed part is drawn
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawPixmap(self.image_rect(), self.pixmap, QRectF(self.pixmap.rect()))
            return
        key = (self.pixmap.cacheKey(), scale)
        if self._scaled is None or self._scaled[:2] != key:  # smooth, once per zoom level
            w = max(1, round(self.pixmap.width() * scale))
            h = max(1, round(self.pixmap.height() * scale))
            self._scaled = key + (
                self.pixmap.scaled(
                    w,
                    h,
                    Qt.AspectRatioMode.IgnoreAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                ),
            )
        small = self._scaled[2]
        top_left = self.mapFromScene(0.0, 0.0)
        painter.save()
        painter.resetTransform()  # viewport pixels: the scaled copy is blitted 1:1
        painter.drawPixmap(top_left, small)
        painter.restore()

    def paintEvent(self, event):
        super().paintEvent(event)
        self.painted.emit()

    def image_rect(self) -> QRectF:
        return QRectF(0, 0, self.pixmap.width(), self.pixmap.height())

    def fit(self) -> None:
        before = self.transform().m11()
        self.fitInView(self.image_rect(), Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() != before:
            self.zoomed.emit()
        self._fitted = True
        self._wheel_anchor = None

    def zoom(self, factor: float, anchor_view_px: QPointF | None = None) -> None:
        """Scale by factor; with anchor_view_px (viewport pixels) the scene point there stays
        there (as far as the scroll range allows: a frame smaller than the viewport is
        centred)."""
        scale = self.transform().m11() * factor
        if not 0.02 <= scale <= MAX_ZOOM:
            return
        pinned, at = None, None
        if anchor_view_px is not None:
            at = anchor_view_px.toPoint()
            kept = self._wheel_anchor
            # successive notches at one cursor position keep the first notch's scene point
            # (integer scroll steps never accumulate into a drift)
            pinned = kept[1] if kept is not None and kept[0] == at else self.mapToScene(at)
            pinned = QPointF(pinned)
            self._wheel_anchor = (at, pinned)
        self.scale(factor, factor)
        self._fitted = False
        if pinned is not None and at is not None:  # scroll: the pinned point under the anchor
            d = self.mapFromScene(pinned) - at
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + d.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() + d.y())
        self.zoomed.emit()

    def pixels_per_screen_px(self) -> float:
        """Image pixels under one screen pixel (for hit-test radii)."""
        return 1.0 / max(self.transform().m11(), 1e-9)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self._fitted:
            self.fit()

    # ---------------------------------------------------------------- input
    def _uv(self, event) -> tuple[float, float]:
        return scene_to_uv(self.mapToScene(event.position().toPoint()))

    def wheelEvent(self, event):
        """One notch (120) zooms by ZOOM_STEP; a touchpad's finer steps zoom in proportion."""
        dy = event.angleDelta().y()
        if dy:
            self.zoom(ZOOM_STEP ** (dy / 120.0), event.position())
        event.accept()

    def mousePressEvent(self, event):
        super().mousePressEvent(event)  # Qt's bookkeeping (press point, anchor)
        event.accept()
        b = event.button()
        if b in (Qt.MouseButton.MiddleButton, Qt.MouseButton.RightButton) or (
            b == Qt.MouseButton.LeftButton and self._space
        ):
            self._panning = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            return
        if b == Qt.MouseButton.LeftButton:
            self._left_down = True
            # a drag redraws the overlays on every move: plain lines until the release
            self.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            u, v = self._uv(event)
            self.pressed.emit(u, v, event.modifiers())

    def mouseMoveEvent(self, event):
        super().mouseMoveEvent(event)  # keeps Qt's last mouse scene point (its anchor) current
        event.accept()
        if self._wheel_anchor is not None and self._wheel_anchor[0] != event.position().toPoint():
            self._wheel_anchor = None
        if self._panning is not None:
            d = event.position() - self._panning
            self._panning = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(d.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(d.y()))
            self._fitted = False
            return
        u, v = self._uv(event)
        self.hovered.emit(u, v)
        if self._left_down:
            self.dragged.emit(u, v)

    def mouseReleaseEvent(self, event):
        super().mouseReleaseEvent(event)
        event.accept()
        if self._panning is not None:
            self._panning = None
            self.unsetCursor()
            return
        if event.button() == Qt.MouseButton.LeftButton and self._left_down:
            self._left_down = False
            self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            u, v = self._uv(event)
            self.released.emit(u, v)

    def keyPressEvent(self, event):
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event):
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            return
        super().keyReleaseEvent(event)

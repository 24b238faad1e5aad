"""The frame canvas: the image with overlays, zoom (wheel, at the cursor) and pan (middle or
right drag, or Space + left drag). Left-button events are reported in image pixels (uv) to
the active tool; the view computes no geometry.

The frame is painted as the scene background with Qt's background cache: while the annotator
drags a keypoint only the overlays change, and the already-scaled frame is blitted instead of
rescaling a full-resolution image on every mouse move."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
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

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        # a few dozen overlay items rebuilt on every edit: a BSP index costs more than it saves
        self.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.pixmap = QPixmap()
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setRenderHints(QPainter.RenderHint.Antialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._panning = None
        self._left_down = False
        self._space = False
        self._fitted = True

    # --------------------------------------------------------------- content
    def set_pixmap(self, pixmap: QPixmap) -> None:
        same_size = pixmap.size() == self.pixmap.size()
        self.pixmap = pixmap
        self.scene().setSceneRect(QRectF(0, 0, pixmap.width(), pixmap.height()))
        self.resetCachedContent()
        self.viewport().update()
        if not same_size or self._fitted:
            self.fit()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, QColor(128, 128, 128))
        if not self.pixmap.isNull():
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform,
                                  self.transform().m11() < 1.0)
            painter.drawPixmap(QRectF(0, 0, self.pixmap.width(), self.pixmap.height()),
                               self.pixmap, QRectF(self.pixmap.rect()))

    def fit(self) -> None:
        self.fitInView(self.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        self._fitted = True

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.02 <= scale <= MAX_ZOOM:
            self.scale(factor, factor)
            self._fitted = False

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
        self.zoom(ZOOM_STEP if event.angleDelta().y() > 0 else 1 / ZOOM_STEP)

    def mousePressEvent(self, event):
        b = event.button()
        if b in (Qt.MouseButton.MiddleButton, Qt.MouseButton.RightButton) or \
                (b == Qt.MouseButton.LeftButton and self._space):
            self._panning = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            return
        if b == Qt.MouseButton.LeftButton:
            self._left_down = True
            u, v = self._uv(event)
            self.pressed.emit(u, v, event.modifiers())

    def mouseMoveEvent(self, event):
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
        if self._panning is not None:
            self._panning = None
            self.unsetCursor()
            return
        if event.button() == Qt.MouseButton.LeftButton and self._left_down:
            self._left_down = False
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

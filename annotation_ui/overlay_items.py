"""Overlay items on the frame canvas, built from the document (geometry comes from
geometry/; this module only draws). Lines use cosmetic pens and markers ignore the view
transform, so both keep their on-screen size at any zoom."""

from __future__ import annotations

import cv2
import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainterPath,
    QPen,
    QPixmap,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
)

from annotation_ui.coords import uv_polyline, uv_to_scene
from geometry.projection import densify_all, project_polylines
from geometry.rays import ground_projection_polyline
from geometry.triangle_fill import triangles_union_mask

COURT = QColor(255, 230, 60)
NET = QColor(60, 140, 255)
CLICK = QColor(255, 40, 40)
PROJ = QColor(40, 255, 80)
SUSPECT = QColor(255, 60, 255)
BALL = QColor(255, 0, 255)
PLAYER = QColor(80, 200, 255)
SELECTED = QColor(255, 255, 255)
NEXT = QColor(255, 255, 255)
FLIGHT = QColor(255, 150, 40)


def _pen(color, width=1.5, dashed=False) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class OverlayLayer:
    """Owns the overlay items of one scene.

    A redraw is ``begin()``, the draw calls, ``end()``. Items are kept between redraws and
    matched by kind and order: an item whose drawing did not change is not touched (Qt
    repaints nothing for it), one that changed is updated in place (setPath, setPos, ...),
    and only a changed number of items creates or removes any. While a keypoint is dragged
    only the court lines, the dragged click and the projections change, so Qt repaints only
    their regions and no QGraphicsItem is created per mouse move. ``clear`` removes them all.
    ``items`` lists the items of the last redraw."""

    def __init__(self, scene):
        self.scene = scene
        self.items: list[QGraphicsItem] = []
        self.visible = True  # View > Hide overlays (H)
        self.screen_scale = 1.0  # screen px per image px (label placement)
        self._placed: list[QRectF] = []  # this redraw's label boxes, screen px
        self._pool: dict[str, list[QGraphicsItem]] = {}  # kind -> items, in drawing order
        self._used: dict[str, int] = {}  # kind -> items taken in this redraw
        self._extra: list[QGraphicsItem] = []  # items made by callers (``_add``): not reused

    def clear(self) -> None:
        self.begin()
        self.end()

    def begin(self) -> None:
        """Start a redraw: the items drawn until ``end`` replace the previous redraw's."""
        self._used = {k: 0 for k in self._pool}
        self._placed.clear()
        for it in self._extra:
            self.scene.removeItem(it)
        self._extra.clear()

    def end(self) -> None:
        """Remove the previous redraw's items that this one did not draw again."""
        self.items = []
        for kind, pool in self._pool.items():
            n = self._used.get(kind, 0)
            for it in pool[n:]:
                self.scene.removeItem(it)
            del pool[n:]
            self.items += pool
        self.items += self._extra

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        for it in self.items:
            it.setVisible(visible)

    def _take(self, kind: str, make, key, z: float):
        """The next item of ``kind`` (made by ``make()`` when the pool is short) and whether
        it must be (re)drawn: False when it already shows ``key`` at ``z``."""
        pool = self._pool.setdefault(kind, [])
        i = self._used.get(kind, 0)
        self._used[kind] = i + 1
        if i < len(pool):
            item = pool[i]
            if item.isVisible() != self.visible:
                item.setVisible(self.visible)
            if getattr(item, "_overlay_key", None) == (key, z):
                return item, False
        else:
            item = make()
            item.setVisible(self.visible)
            self.scene.addItem(item)
            pool.append(item)
        item._overlay_key = (key, z)
        item.setZValue(z)
        return item, True

    def _add(self, item, z=1.0):
        """Add an item made by the caller (removed at the next redraw, never reused)."""
        item.setZValue(z)
        item.setVisible(self.visible)
        self.scene.addItem(item)
        self._extra.append(item)
        self.items.append(item)
        return item

    def polylines(self, runs, color, width=1.5, dashed=False, z=1.0):
        runs = [np.asarray(r, float) for r in runs]
        look = (color.rgba(), width, dashed)
        key = look + (tuple((r.shape, r.tobytes()) for r in runs),)
        item, redraw = self._take("path", QGraphicsPathItem, key, z)
        if redraw:
            path = QPainterPath()
            for run in runs:
                if len(run) >= 2:
                    path.addPolygon(uv_polyline(run))
            item.setPath(path)
            if getattr(item, "_overlay_look", None) != look:
                item._overlay_look = look
                item.setPen(_pen(color, width, dashed))
        return item

    def marker(self, uv, shape, color, size=7.0, width=1.5, z=3.0, fill=False):
        look = (shape, color.rgba(), size, width, fill)
        key = look + (float(uv[0]), float(uv[1]))
        item, redraw = self._take("marker", _marker_item, key, z)
        if redraw and getattr(item, "_overlay_look", None) == look:
            item.setPos(uv_to_scene(*uv))  # the same marker moved (a projection in a drag)
        elif redraw:
            item._overlay_look = look
            path = QPainterPath()
            s = size
            if shape == "cross":
                path.moveTo(-s, 0)
                path.lineTo(s, 0)
                path.moveTo(0, -s)
                path.lineTo(0, s)
            elif shape == "circle":
                path.addEllipse(QRectF(-s, -s, 2 * s, 2 * s))
            item.setPath(path)
            item.setPen(_pen(color, width))
            item.setBrush(QBrush(color) if fill else QBrush())
            item.setPos(uv_to_scene(*uv))
        return item

    def label(self, uv, text, color, dx=8, dy=-18, z=4.0):
        """Text anchored at pixel uv, offset (dx, dy) screen pixels, constant size."""
        key = (text, color.rgba(), dx, dy, float(uv[0]), float(uv[1]))
        item, redraw = self._take("label", _label_item, key, z)
        if redraw:
            item.setText(text)
            item.setBrush(QBrush(color))
            item.setPos(uv_to_scene(*uv))
            item.setTransform(QTransform.fromTranslate(dx, dy))
        return item

    def placed_label(self, uv, text, color, z=4.0):
        """A label that avoids the labels already placed in this redraw: the first free
        spot of LABEL_SPOTS around the anchor (screen px); a spot away from the anchor gets
        a leader line to it. Returns the label item."""
        fm = QFontMetricsF(_label_font())
        w, h = fm.horizontalAdvance(text) + 2, fm.height()
        ax, ay = float(uv[0]) * self.screen_scale, float(uv[1]) * self.screen_scale
        spots = label_spots(w, h)
        for i, (dx, dy) in enumerate(spots):  # noqa: B007 - i is read after the loop
            box = QRectF(ax + dx, ay + dy, w, h)
            if not any(box.intersects(b) for b in self._placed):
                break
        else:
            i, (dx, dy) = 0, spots[0]
            box = QRectF(ax + dx, ay + dy, w, h)
        self._placed.append(box)
        if i >= LEADER_FROM:
            ex = dx if dx > 0 else dx + w  # the label's edge nearest the anchor
            key = (color.rgba(), ex, dy + h / 2, float(uv[0]), float(uv[1]))
            line, redraw = self._take("leader", _leader_item, key, z)
            if redraw:
                line.setLine(0.0, 0.0, ex, dy + h / 2)
                line.setPen(_pen(color, 1.0))
                line.setPos(uv_to_scene(*uv))
        return self.label(uv, text, color, dx, dy, z)

    def rect(self, box, color, width=1.5, z=2.0):
        x0, y0, x1, y1 = (float(c) for c in box)
        item, redraw = self._take(
            "rect", QGraphicsRectItem, ((x0, y0, x1, y1), color.rgba(), width), z
        )
        if redraw:
            item.setRect(QRectF(uv_to_scene(x0, y0), uv_to_scene(x1, y1)))
            item.setPen(_pen(color, width))
        return item

    def pixmap(self, pixmap: QPixmap, x0: float, y0: float, scale: float, z=0.5):
        """A pixmap whose top-left corner is at scene point (x0, y0), scaled by ``scale``."""
        key = (pixmap.cacheKey(), float(x0), float(y0), scale)
        item, redraw = self._take("pixmap", QGraphicsPixmapItem, key, z)
        if redraw:
            item.setPixmap(pixmap)
            item.setPos(float(x0), float(y0))
            item.setScale(scale)
        return item


def _marker_item() -> QGraphicsPathItem:
    item = QGraphicsPathItem()
    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    return item


def _label_item() -> QGraphicsSimpleTextItem:
    item = QGraphicsSimpleTextItem()
    item.setFont(_label_font())
    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    return item


def _leader_item() -> QGraphicsLineItem:
    item = QGraphicsLineItem()
    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    return item


def _label_font() -> QFont:
    f = QFont()
    f.setPointSizeF(8.5)
    return f


LEADER_FROM = 4  # spots from this index on are away from the anchor: a leader line


def label_spots(w: float, h: float) -> list[tuple[float, float]]:
    """Top-left offsets (screen px) of a w x h label around its anchor, in order of
    preference: the four beside it, then further out (with a leader line)."""
    near = [(8.0, -h - 2), (8.0, 4.0), (-w - 8, -h - 2), (-w - 8, 4.0)]
    far = []
    for k in (1, 2, 3, 4):
        d = 14.0 * k
        far += [
            (8.0 + d, -h - 2 - d),
            (8.0 + d, 4.0 + d),
            (-w - 8 - d, -h - 2 - d),
            (-w - 8 - d, 4.0 + d),
        ]
    return near + far


_DENSE: dict[str, tuple] = {}


def _dense_court(spec, step_m: float):
    """The spec's lines and net box, densified once per spec and step."""
    key = (spec.id, step_m)
    if key not in _DENSE:
        _DENSE[key] = (
            densify_all(list(spec.lines.values()), step_m),
            densify_all(spec.net_box_world(), step_m),
        )
    return _DENSE[key]


def draw_court(layer: OverlayLayer, camera, spec, inherited: bool) -> None:
    # straight lines stay straight without lens distortion: a few points per line suffice
    lines, net = _dense_court(spec, 0.25 if camera.has_distortion else 4.0)
    layer.polylines(project_polylines(camera, *lines), COURT, 1.5, dashed=inherited)
    layer.polylines(project_polylines(camera, *net), NET, 2.0, dashed=inherited)


def draw_clicks(
    layer: OverlayLayer, ann, spec, calibration, current: str | None, hovered: str | None = None
) -> None:
    """Each click (a cross; hollow circle when flagged occluded/estimated) and its
    projection. Labels (decluttered: placed apart, with leader lines where they would
    collide) only for the current keypoint, the hovered one and the suspects."""
    suspects = set(calibration.suspects) if calibration is not None else set()
    flags = getattr(ann, "point_flags", {})
    names = list(ann.points)
    projected = {}
    if calibration is not None and names:  # one projection for all the clicks
        projected = dict(
            zip(
                names,
                calibration.camera.project(np.array([spec.keypoints[n] for n in names], float)),
            )
        )
    for name, uv in ann.points.items():
        color = SUSPECT if name in suspects else CLICK
        width = 2.5 if name == current else 1.5
        layer.marker(uv, "cross", color, 7, width)
        if name in flags:  # occluded / estimated: not used by the calibration
            layer.marker(uv, "circle", color, 9, 1.0)
        if calibration is not None:
            proj = projected[name]
            if np.all(np.isfinite(proj)):
                layer.marker(proj, "circle", PROJ, 2.5, 1.0, fill=True)
                layer.polylines([np.array([uv, proj])], PROJ, 1.0)
    # current first, then hovered, then suspects: the most wanted labels get the best spots
    wanted = [
        n
        for n in dict.fromkeys([current, hovered, *sorted(suspects)])
        if n is not None and n in ann.points
    ]
    for name in wanted:
        text = ("? " if name in suspects else "") + name
        if name in flags:
            text += f" ({flags[name]})"
        layer.placed_label(ann.points[name], text, SUSPECT if name in suspects else CLICK)
    if current is not None and current not in ann.points and calibration is not None:
        pred = calibration.camera.project(np.asarray(spec.keypoints[current], float)[None])[0]
        if np.all(np.isfinite(pred)):
            layer.marker(pred, "circle", NEXT, 9, 1.0)
            layer.placed_label(pred, f"next: {current}", NEXT)


def draw_ball(layer: OverlayLayer, ann, camera, plane_z: float, result) -> None:
    b = ann.ball
    if b is None or not b.visible or b.uv is None:
        return
    layer.marker(b.uv, "circle", BALL, 9, 2.0)
    if camera is None:
        return
    try:
        line = ground_projection_polyline(camera, b.uv, plane_z, samples=64)
    except ValueError:
        return
    layer.polylines([line], BALL, 1.5, dashed=b.ground_uv is None)
    if result is not None:
        g = result.uv_ground_snapped
        layer.marker(g, "circle", BALL, 4, 1.5, fill=True)
        layer.polylines([np.array([b.uv, g])], BALL, 1.0)
        layer.label(b.uv, f"{result.height_m:.2f} m", BALL, dx=12, dy=-22)


_SILHOUETTES: dict[tuple, QPixmap] = {}
SILHOUETTE_SCALE = 2  # rendered at half resolution: fast, and a fill needs no more


_LAST_SILHOUETTE: dict[str, tuple] = {}


def mesh_silhouette(
    mesh_key: str, mesh, camera, allow_stale: bool = False, cached_only: bool = False
):
    """(pixmap, (x0, y0)): a translucent silhouette of a camera-frame mesh (projected
    triangles) over its bounding box, at 1 / SILHOUETTE_SCALE resolution; (x0, y0) is the box's
    top-left image pixel. Cached by mesh and intrinsics (extrinsics do not move it). With
    allow_stale (during a keypoint drag, when the focal length shifts a little each step) the
    mesh's last silhouette is reused; the release redraws it exactly. None when out of view,
    or with cached_only when it has not been drawn for this camera yet."""
    key = (mesh_key, camera.K.tobytes(), camera.dist.tobytes(), camera.image_size)
    hit = _SILHOUETTES.get(key)
    if hit is None and allow_stale:
        hit = _LAST_SILHOUETTE.get(mesh_key)
    if hit is not None or cached_only:
        return hit
    w, h = camera.image_size
    uv = cv2.projectPoints(mesh.vertices_cam, np.zeros(3), np.zeros(3), camera.K, camera.dist)[
        0
    ].reshape(-1, 2)
    x0, y0 = (max(0, int(np.floor(c))) for c in uv.min(axis=0))
    x1, y1 = min(w - 1, int(np.ceil(uv[:, 0].max()))), min(h - 1, int(np.ceil(uv[:, 1].max())))
    if x1 <= x0 or y1 <= y0:
        return None
    sc = SILHOUETTE_SCALE
    sw, sh = (x1 - x0) // sc + 1, (y1 - y0) // sc + 1
    rel = (uv - [x0, y0] + 0.5) / sc  # mask pixel coordinates of the box
    mask = np.zeros((sh, sw), np.uint8)
    if len(mesh.faces):  # the union of the triangles (fillPoly's parity drops overlaps)
        mask[triangles_union_mask(rel[mesh.faces], (sh, sw))] = 255
    else:  # vertices without faces (no SMPL-X model given): dots
        pts = np.round(rel).astype(int)
        ok = (pts[:, 0] >= 0) & (pts[:, 0] < sw) & (pts[:, 1] >= 0) & (pts[:, 1] < sh)
        mask[pts[ok, 1], pts[ok, 0]] = 255
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    rgba = np.zeros((sh, sw, 4), np.uint8)
    rgba[..., 0], rgba[..., 1], rgba[..., 2] = 255, 200, 80  # BGRA: light blue
    rgba[..., 3] = (mask // 255) * 110
    img = QImage(rgba.data, sw, sh, 4 * sw, QImage.Format.Format_ARGB32).copy()
    if len(_SILHOUETTES) > 64:
        _SILHOUETTES.clear()
    _SILHOUETTES[key] = _LAST_SILHOUETTE[mesh_key] = (QPixmap.fromImage(img), (x0, y0))
    return _SILHOUETTES[key]


def draw_mesh(
    layer: OverlayLayer, mesh_key: str, mesh, camera, allow_stale=False, cached_only=False
) -> None:
    sil = mesh_silhouette(mesh_key, mesh, camera, allow_stale, cached_only)
    if sil is None:
        return
    pixmap, (x0, y0) = sil
    # (x0, y0): the top-left corner of pixel (x0, y0) in the scene
    layer.pixmap(pixmap, x0, y0, SILHOUETTE_SCALE, 0.5)


def draw_players(layer: OverlayLayer, ann, selected: int | None) -> None:
    for p in ann.players:
        color = SELECTED if p.id == selected else PLAYER
        layer.rect(p.box_xyxy, color, 2.5 if p.id == selected else 1.5)
        layer.label((p.box_xyxy[0], p.box_xyxy[1]), f"Player {p.id}", color, dx=2, dy=-18)

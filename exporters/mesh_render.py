"""Player meshes rendered into a frame with its calibrated camera.

Backends: pyrender offscreen through EGL (``PYOPENGL_PLATFORM=egl``; Mesa's software EGL works
without a GPU), or a CPU fallback that fills shaded triangles in depth order with OpenCV, used
when pyrender or EGL is unavailable. Both honour the OpenCV camera exactly: pixel (0, 0) is the
centre of the top-left pixel, where OpenGL's pixel centres sit at +0.5.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import cv2
import numpy as np

from geometry.camera import Camera

LIGHT_DIR_WORLD = np.array([0.3, 0.2, 0.93]) / np.linalg.norm([0.3, 0.2, 0.93])
_backend_error: str | None = None


@dataclass
class RenderMesh:
    """vertices_world (V, 3) metres, faces (F, 3), rgb in [0, 1]."""

    vertices_world: np.ndarray
    faces: np.ndarray
    rgb: tuple = (0.85, 0.62, 0.5)


def _pyrender():
    """The pyrender module with EGL, or None (the reason kept in _backend_error)."""
    global _backend_error
    if _backend_error is not None:
        return None
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    try:
        if not hasattr(np, "infty"):  # pyrender 0.1.45 still uses it; numpy 2 removed it
            np.infty = np.inf
        import pyrender

        return pyrender
    except Exception as exc:  # noqa: BLE001 - missing module, missing EGL, driver errors
        _backend_error = f"{type(exc).__name__}: {exc}"
        return None


def backend(prefer: str = "auto") -> str:
    """'pyrender' when available (and not refused), else 'cpu'."""
    if prefer == "cpu":
        return "cpu"
    return "pyrender" if _pyrender() is not None else "cpu"


def render_meshes(
    image: np.ndarray,
    camera: Camera,
    meshes: list[RenderMesh],
    prefer: str = "auto",
    alpha: float = 1.0,
    occluders: list[RenderMesh] = (),
) -> np.ndarray:
    """Composite meshes over image (h, w, 3) uint8 BGR; returns a new image. Occlusion between
    meshes is resolved. The image has no depth of its own, so scene geometry that stands in
    front of a player (a table-tennis table) is passed as ``occluders``: where an occluder is
    nearer, the image shows through."""
    w, h = camera.image_size
    if image.ndim != 3 or image.shape[:2] != (h, w) or image.shape[2] != 3:
        # a caller's mismatch, not a backend failure: it must not switch the backend off
        raise ValueError(
            f"the image is {image.shape[1] if image.ndim > 1 else '?'}x{image.shape[0]} "
            f"but the camera is for {w}x{h}"
        )
    if not meshes:
        return image.copy()
    if backend(prefer) == "pyrender":
        try:
            rgba, seg = _pyrender_layers(camera, meshes, occluders)
        except Exception as exc:  # noqa: BLE001 - EGL can fail at context creation
            global _backend_error
            _backend_error = f"{type(exc).__name__}: {exc}"
        else:
            return _composite(image, rgba, seg, alpha)
    return _render_cpu(image, camera, meshes, alpha, occluders)


RENDER_BOX_MARGIN_PX = 2
RENDER_BOX_STEP_PX = 64  # box sizes rounded up to this: fewer framebuffer reallocations
_renderer: list = []  # one OffscreenRenderer, its viewport resized per render


def render_box(camera: Camera, meshes) -> tuple[int, int, int, int] | None:
    """(x0, y0, w, h) pixels: the window of the image the meshes can cover (their projected
    vertices' box plus a margin, sizes rounded up to RENDER_BOX_STEP_PX; it may reach past
    the image), or None when a vertex is not in front of the camera (the whole frame is
    rendered). The box is that of the pinhole projection by K, which is what pyrender draws
    (it applies no lens distortion): pixels outside it get no coverage, as each triangle lies
    inside the box of its corners."""
    V = np.concatenate([np.asarray(m.vertices_world, float).reshape(-1, 3) for m in meshes])
    if len(V) == 0:
        return None
    pc = camera.world_to_cam(V)
    if np.any(pc[:, 2] <= 0.05):  # at or behind znear
        return None
    # pyrender draws with K alone (no lens distortion): the box is the pinhole one
    uv = pc[:, :2] / pc[:, 2:] * np.diag(camera.K)[:2] + camera.K[:2, 2]
    if not np.all(np.isfinite(uv)):
        return None
    lo = np.floor(uv.min(axis=0)).astype(int) - RENDER_BOX_MARGIN_PX
    hi = np.ceil(uv.max(axis=0)).astype(int) + RENDER_BOX_MARGIN_PX + 1
    w, h = camera.image_size
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [w, h])
    if np.any(hi <= lo):
        return (0, 0, 0, 0)
    size = -(-(hi - lo) // RENDER_BOX_STEP_PX) * RENDER_BOX_STEP_PX
    size = np.minimum(size, [w, h])
    lo = np.minimum(lo, np.array([w, h]) - size)  # keep a rounded-up box inside the image
    return int(lo[0]), int(lo[1]), int(size[0]), int(size[1])


def _pyrender_layers(camera: Camera, meshes, occluders=()):
    """(rgba, seg): the meshes rendered by pyrender at the camera's image size, (h, w, 4)
    uint8 RGBA with the multisample-resolved coverage as alpha, and with occluders the
    segmentation (h, w, 3) uint8 (white: a mesh pixel no occluder hides), else None.
    Only the window the meshes can cover (render_box) is rendered, with the principal point
    moved by its corner (an integer shift: the same rasterisation); the rest is empty."""
    import trimesh

    pyrender = _pyrender()
    w, h = camera.image_size
    box = render_box(camera, meshes) or (0, 0, w, h)
    x0, y0, bw, bh = box
    rgba_full = np.zeros((h, w, 4), np.uint8)
    seg_full = np.zeros((h, w, 3), np.uint8) if occluders else None
    if bw == 0 or bh == 0:  # every mesh outside the image
        return rgba_full, seg_full
    scene = pyrender.Scene(bg_color=[0, 0, 0, 0], ambient_light=[0.35, 0.35, 0.35])
    nodes = []
    for m in meshes:
        tm = trimesh.Trimesh(m.vertices_world, m.faces, process=False)
        mat = pyrender.MetallicRoughnessMaterial(
            baseColorFactor=[*m.rgb, 1.0], metallicFactor=0.0, roughnessFactor=0.8
        )
        nodes.append(scene.add(pyrender.Mesh.from_trimesh(tm, material=mat, smooth=True)))
    K = camera.K
    cam = pyrender.IntrinsicsCamera(
        fx=K[0, 0],
        fy=K[1, 1],
        cx=K[0, 2] + 0.5 - x0,
        cy=K[1, 2] + 0.5 - y0,
        znear=0.05,
        zfar=1000.0,
    )
    pose = np.eye(4)
    pose[:3, :3] = camera.R.T @ np.diag([1.0, -1.0, -1.0])  # OpenCV -> OpenGL camera axes
    pose[:3, 3] = camera.camera_centre_world
    scene.add(cam, pose=pose)
    light = np.eye(4)
    z = -LIGHT_DIR_WORLD
    x = np.cross([0.0, 0.0, 1.0], z)
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-9 else np.array([1.0, 0, 0])
    light[:3, :3] = np.column_stack([x, np.cross(z, x), -z])
    scene.add(pyrender.DirectionalLight(intensity=3.0), pose=light)
    if not _renderer:
        _renderer.append(pyrender.OffscreenRenderer(bw, bh))
    r = _renderer[0]
    r.viewport_width, r.viewport_height = bw, bh
    # Composite with the multisample-resolved alpha (coverage), not depth > 0: the depth
    # read back is MSAA sample 0, at (0.375, 0.125) of the pixel, which would shift every
    # silhouette by (+0.125, -0.375) px.
    rgba, _ = r.render(scene, flags=pyrender.RenderFlags.RGBA)
    window = (slice(y0, y0 + bh), slice(x0, x0 + bw))
    rgba_full[window] = rgba
    if occluders:
        seg_map = {n: (255, 255, 255) for n in nodes}
        for o in occluders:  # nodes missing from the map are skipped, so occluders are black
            seg_map[
                scene.add(
                    pyrender.Mesh.from_trimesh(
                        trimesh.Trimesh(o.vertices_world, o.faces, process=False)
                    )
                )
            ] = (0, 0, 0)
        seg, _ = r.render(scene, flags=pyrender.RenderFlags.SEG, seg_node_map=seg_map)
        seg_full[window] = seg
    return rgba_full, seg_full


def _composite(image: np.ndarray, rgba: np.ndarray, seg, alpha: float) -> np.ndarray:
    """image (h, w, 3) BGR under the rendered layer rgba (h, w, 4) RGBA at opacity alpha;
    pixels seg marks black (an occluder is nearer) show the image. A new image."""
    out = image.copy()
    # composite only inside the box of covered pixels: outside it alpha is 0 and the image is
    # unchanged (float64 over a whole 1080p frame cost ~0.15 s per render)
    rows = np.flatnonzero(rgba[..., 3].any(axis=1))
    cols = np.flatnonzero(rgba[..., 3].any(axis=0))
    if not len(rows):
        return out
    box = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
    a = (rgba[box][..., 3:4].astype(np.float64) / 255.0) * alpha
    if seg is not None:
        a = a * (seg[box][..., :1] > 0)  # a player pixel hidden by an occluder shows the image
    bgr = rgba[box][..., 2::-1].astype(np.float64)
    out[box] = np.clip(a * bgr + (1 - a) * image[box], 0, 255).astype(np.uint8)
    return out


def _render_cpu(image, camera: Camera, meshes, alpha, occluders=()):
    out = image.copy()
    tris, depths, colors = [], [], []
    for m, is_occluder in [(m, False) for m in meshes] + [(o, True) for o in occluders]:
        V = np.asarray(m.vertices_world, float)
        F = np.asarray(m.faces)
        depth = camera.world_to_cam(V)[:, 2]
        uv = camera.project(V)
        ok = np.all(depth[F] > 0.05, axis=1) & np.all(
            np.isfinite(uv[F]).reshape(len(F), -1), axis=1
        )
        F = F[ok]
        tri = V[F]
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-12
        shade = 0.35 + 0.65 * np.abs(n @ LIGHT_DIR_WORLD)
        bgr = np.array(m.rgb[::-1]) * 255
        tris.append(uv[F])
        depths.append(depth[F].mean(axis=1))
        # an occluder's colour is NaN: it repaints the original image, not a colour
        colors.append(np.full((len(F), 3), np.nan) if is_occluder else shade[:, None] * bgr)
    T = np.concatenate(tris)
    order = np.argsort(-np.concatenate(depths))
    C = np.concatenate(colors)
    layer = out.copy()
    for i in order:  # far to near (painter's algorithm)
        pts = [np.round(T[i] * 16).astype(np.int32)]
        if np.isnan(C[i, 0]):
            # the mask covers only the triangle's pixel box (a full-frame mask per triangle
            # cost 14 s per frame); a whole-pixel shift keeps the rasterisation identical
            x0, y0 = np.maximum(pts[0].min(axis=0) >> 4, 0)
            x1, y1 = np.minimum((pts[0].max(axis=0) >> 4) + 2, layer.shape[1::-1])
            if x1 <= x0 or y1 <= y0:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(mask, [pts[0] - np.array([x0, y0], np.int32) * 16], 255, cv2.LINE_8, 4)
            box = (slice(y0, y1), slice(x0, x1))
            layer[box][mask > 0] = image[box][mask > 0]
        else:
            cv2.fillPoly(layer, pts, tuple(float(c) for c in C[i]), cv2.LINE_AA, 4)
    if alpha >= 1.0:
        return layer
    return cv2.addWeighted(layer, alpha, out, 1 - alpha, 0)

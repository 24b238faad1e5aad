"""Viewing rays, ray-plane intersection and the ball tool's analytic lifting.

The ball tool (CourtSI section 3): the annotator clicks the ball; the ball's ray X(l) = C + l d
(eq. 1) is drawn as its *ground projection* on a horizontal plane z = z0; the annotator clicks
where the ball's ground point lies on that line; the ball is the point of the ray above it.

The ground projection of the ray lies in the vertical plane through C that contains d. That
plane passes through the camera centre, so its image is a straight line (in ideal, undistorted
pixels): ``l = K^-T R (d x e_z)``. Snapping the second click onto ``l`` and intersecting its ray
with the plane gives the ground point G exactly; the ball is ``C + l d`` with
``l = (G - C)_xy . d_xy / |d_xy|^2``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry.arrays import as_array
from geometry.camera import Camera
from geometry.errors import GeometryError

PARALLEL_EPS = 1e-9
VERTICAL_EPS = 1e-9


def pixel_rays_world(camera: Camera, uv) -> tuple[np.ndarray, np.ndarray]:
    """Viewing rays of pixels (CourtSI eq. 1).

    uv: (N, 2) pixels (distorted, as clicked). Returns origin (3,) = camera centre, metres,
    world frame, and directions (N, 3) unit vectors, world frame, pointing away from the camera
    (lambda > 0 is in front).
    """
    uv = camera.undistort_uv(as_array("uv", uv, (None, 2)))
    hom = np.concatenate([uv, np.ones((len(uv), 1))], axis=1)
    d_cam = hom @ np.linalg.inv(camera.K).T
    d_world = d_cam @ camera.R
    d_world /= np.linalg.norm(d_world, axis=1, keepdims=True)
    return camera.camera_centre_world, d_world


def intersect_rays_with_plane(origin, directions, plane_z: float) -> tuple[np.ndarray, np.ndarray]:
    """Points where rays meet the horizontal plane z = plane_z.

    origin: (3,) metres; directions: (N, 3). Returns points (N, 3) metres and lambdas (N,)
    (distance along the unit ray). Raises GeometryError if a ray is parallel to the plane or
    meets it behind the camera (lambda <= 0).
    """
    o = as_array("origin", origin, (3,))
    d = as_array("directions", directions, (None, 3))
    dz = d[:, 2]
    if np.any(np.abs(dz) < PARALLEL_EPS):
        raise GeometryError(f"ray parallel to the plane z = {plane_z:g}: it never meets it")
    lam = (plane_z - o[2]) / dz
    if np.any(lam <= 0):
        raise GeometryError(
            f"the ray meets the plane z = {plane_z:g} behind the camera "
            "(the pixel is above the horizon)"
        )
    return o + lam[:, None] * d, lam


def ground_projection_line(camera: Camera, uv_ball) -> np.ndarray:
    """(3,) homogeneous image line (ideal pixels) of the ball ray's vertical plane, |(a, b)| = 1.

    Raises GeometryError when the ray is vertical (the ball is straight below/above the camera).
    """
    _, d = pixel_rays_world(camera, as_array("uv_ball", uv_ball, (2,))[None])
    n_world = np.cross(d[0], [0.0, 0.0, 1.0])
    if np.linalg.norm(n_world) < VERTICAL_EPS:
        raise GeometryError("the ball ray is vertical: its ground projection is a point")
    line = np.linalg.inv(camera.K).T @ (camera.R @ n_world)
    return line / np.hypot(line[0], line[1])


def snap_to_line(uv, line) -> np.ndarray:
    """Orthogonal projection of pixel uv (2,) onto homogeneous line (3,), |(a, b)| = 1."""
    p = as_array("uv", uv, (2,))
    dist = line[0] * p[0] + line[1] * p[1] + line[2]
    return p - dist * line[:2]


@dataclass(frozen=True)
class BallLift:
    """A lifted ball. world: (3,) metres; ground_world: (3,) its foot point on the plane;
    height_m above the plane; uv_ground_snapped: (2,) the second click snapped onto the line."""

    world: np.ndarray
    ground_world: np.ndarray
    height_m: float
    uv_ground_snapped: np.ndarray
    plane_z: float


def lift_ball(camera: Camera, uv_ball, uv_ground, plane_z: float = 0.0) -> BallLift:
    """Lift a ball from its pixel and the pixel of its ground point (snapped onto the line).

    uv_ball, uv_ground: (2,) pixels. plane_z: height of the projection plane, metres (court
    surface 0; table tennis: table top 0 or floor -0.76). Raises GeometryError for a vertical
    ball ray, a ground click above the horizon, or a ground point behind the camera.
    """
    uv_b = as_array("uv_ball", uv_ball, (2,))
    uv_g = as_array("uv_ground", uv_ground, (2,))
    line = ground_projection_line(camera, uv_b)
    g_ideal = snap_to_line(camera.undistort_uv(uv_g[None])[0], line)
    C, d = pixel_rays_world(camera, uv_b[None])
    d = d[0]
    # The snapped point is in ideal pixels: build its ray without distortion.
    dg = np.linalg.inv(camera.K) @ np.array([g_ideal[0], g_ideal[1], 1.0]) @ camera.R
    dg /= np.linalg.norm(dg)
    try:
        G, _ = intersect_rays_with_plane(C, dg[None], plane_z)
    except GeometryError as exc:
        raise GeometryError(f"ground click: {exc}") from None
    G = G[0]
    dxy = d[:2]
    lam = float((G[:2] - C[:2]) @ dxy / (dxy @ dxy))
    if lam <= 0:
        raise GeometryError(
            "the ground click lies behind the camera along the ball ray: "
            "click the ball's ground point on the drawn line"
        )
    X = C + lam * d
    snapped = _distort_ideal(camera, g_ideal)
    return BallLift(
        world=X,
        ground_world=G,
        height_m=float(X[2] - plane_z),
        uv_ground_snapped=snapped,
        plane_z=float(plane_z),
    )


def _distort_ideal(camera: Camera, uv_ideal: np.ndarray) -> np.ndarray:
    if not camera.has_distortion:
        return uv_ideal.copy()
    ray = np.linalg.inv(camera.K) @ np.array([uv_ideal[0], uv_ideal[1], 1.0])
    p_world = camera.cam_to_world(ray[None])
    return camera.project(p_world)[0]


def ground_projection_polyline(
    camera: Camera, uv_ball, plane_z: float = 0.0, samples: int = 256
) -> np.ndarray:
    """The image of the ball ray's ground projection, clipped to the image: (M, 2) pixels.

    Ordered from the camera's foot point (or the image border) toward the horizon. Only the
    half-line in front of the foot point, on the plane in front of the camera, is kept. Empty
    (0, 2) when none of it is visible.
    """
    line = ground_projection_line(camera, uv_ball)
    w, h = camera.image_size
    ends = _clip_line_to_rect(
        line, -0.5 - 0.1 * w, -0.5 - 0.1 * h, w - 0.5 + 0.1 * w, h - 0.5 + 0.1 * h
    )
    if ends is None:
        return np.zeros((0, 2))
    C, d = pixel_rays_world(camera, np.asarray(uv_ball, float)[None])
    dxy = d[0, :2]
    t = np.linspace(0.0, 1.0, samples)[:, None]
    pts = ends[0] + t * (ends[1] - ends[0])
    hom = np.concatenate([pts, np.ones((samples, 1))], axis=1)
    rays = hom @ np.linalg.inv(camera.K).T @ camera.R
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = (plane_z - C[2]) / rays[:, 2]
    ok = np.isfinite(lam) & (lam > 0)
    G = C + lam[:, None] * rays
    s = (G[:, :2] - C[:2]) @ dxy
    ok &= s >= 0
    if not np.any(ok):
        return np.zeros((0, 2))
    G = G[ok]
    order = np.argsort(s[ok])
    uv = camera.project(G[order])
    keep = camera.in_image(uv) & np.all(np.isfinite(uv), axis=1)
    return uv[keep]


def _clip_line_to_rect(line, x0, y0, x1, y1) -> np.ndarray | None:
    """Intersections of homogeneous line (3,) with a rectangle: (2, 2) or None."""
    a, b, c = line
    pts = []
    if abs(b) > 1e-12:
        for x in (x0, x1):
            y = -(a * x + c) / b
            if y0 - 1e-9 <= y <= y1 + 1e-9:
                pts.append((x, y))
    if abs(a) > 1e-12:
        for y in (y0, y1):
            x = -(b * y + c) / a
            if x0 - 1e-9 <= x <= x1 + 1e-9:
                pts.append((x, y))
    if len(pts) < 2:
        return None
    pts = np.array(pts)
    i, j = np.unravel_index(
        np.argmax(np.linalg.norm(pts[:, None] - pts[None], axis=2)), (len(pts), len(pts))
    )
    if i == j:
        return None
    return np.array([pts[i], pts[j]])

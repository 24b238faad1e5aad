"""Cameras in OpenCV's FileStorage YAML (readable by cv::FileStorage in C++ and Python)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from geometry.camera import Camera
from safe_io.atomic import atomic_path


def write_opencv_yaml(camera: Camera, path) -> Path:
    """Write image_width, image_height, camera_matrix, distortion_coefficients, rotation_matrix,
    rvec, tvec and camera_centre_world (metres, world frame), atomically."""
    path = Path(path)
    with atomic_path(path, suffix=".yaml") as tmp:
        fs = cv2.FileStorage(str(tmp), cv2.FILE_STORAGE_WRITE)
        fs.write("image_width", int(camera.image_size[0]))
        fs.write("image_height", int(camera.image_size[1]))
        fs.write("camera_matrix", camera.K)
        fs.write("distortion_coefficients", camera.dist.reshape(1, -1))
        fs.write("rotation_matrix", camera.R)
        fs.write("rvec", camera.rvec.reshape(3, 1))
        fs.write("tvec", camera.t.reshape(3, 1))
        fs.write("camera_centre_world", camera.camera_centre_world.reshape(3, 1))
        fs.release()
    return path


def read_opencv_yaml(path) -> Camera:
    """Read a camera written by write_opencv_yaml (or any file with those node names)."""
    fs = cv2.FileStorage(str(path), cv2.FILE_STORAGE_READ)
    if not fs.isOpened():
        raise ValueError(f"{path}: cannot open as OpenCV FileStorage")
    try:
        size = (int(fs.getNode("image_width").real()), int(fs.getNode("image_height").real()))
        K = fs.getNode("camera_matrix").mat()
        R = fs.getNode("rotation_matrix").mat()
        t = fs.getNode("tvec").mat()
        dist = fs.getNode("distortion_coefficients").mat()
    finally:
        fs.release()
    for name, m in (("camera_matrix", K), ("rotation_matrix", R), ("tvec", t)):
        if m is None:
            raise ValueError(f"{path}: node {name} missing")
    return Camera(
        K=K, R=R, t=t.ravel(), image_size=size, dist=np.zeros(5) if dist is None else dist.ravel()
    )

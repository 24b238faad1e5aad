"""Creating projects: from a folder of images or from a video file.

A project is self-contained (it is handed from annotator to annotator, and a project file may
only name paths inside its folder): images and videos from elsewhere are brought into
``frames/`` (a hard link when the file system allows it, else a copy).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from court_specs import available_specs
from courtstudio.io.frames import VideoReader
from courtstudio.io.project import (
    FORMAT_VERSION,
    PROJECT_FILE,
    PROJECT_FORMAT,
    FrameRef,
    Project,
    ProjectError,
)
from courtstudio.io.project_paths import safe_frame_id

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def _ref(root: Path, path: Path) -> str:
    """The media file's path relative to the project folder; a file outside it is first
    linked (or copied) into ``frames/`` under a name not yet taken."""
    path = path.resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        pass
    dest_dir = root / "frames"
    dest_dir.mkdir(parents=True, exist_ok=True)
    name = safe_frame_id(path.stem) + path.suffix.lower()
    dest, n = dest_dir / name, 1
    while dest.exists() or dest.is_symlink():
        dest, n = dest_dir / f"{Path(name).stem}_{n}{path.suffix.lower()}", n + 1
    try:
        os.link(path, dest)
    except OSError:
        shutil.copyfile(path, dest)
    return dest.relative_to(root).as_posix()


def _new(root, sport: str, name: str | None) -> tuple[Path, str]:
    root = Path(root)
    if sport not in available_specs():
        raise ProjectError(f"unknown sport {sport!r}; available: {', '.join(available_specs())}")
    if (root / PROJECT_FILE).exists():
        raise ProjectError(f"{root / PROJECT_FILE}: a project already exists here; open it instead")
    root.mkdir(parents=True, exist_ok=True)
    return root, name or root.name


def new_project_from_images(root, image_folder, sport: str, name: str | None = None) -> Project:
    """A project whose frames are the images in ``image_folder`` (sorted by name)."""
    root, name = _new(root, sport, name)
    folder = Path(image_folder)
    images = (
        sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if folder.is_dir()
        else []
    )
    if not images:
        raise ProjectError(f"{folder}: no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
    frames = [FrameRef(safe_frame_id(p.stem), _ref(root, p), sport) for p in images]
    ids = [f.id for f in frames]
    if len(set(ids)) != len(ids):
        frames = [FrameRef(f"{i:06d}_{f.id}", f.image, sport) for i, f in enumerate(frames)]
    project = Project(
        root=root,
        name=name,
        sport=sport,
        frames=frames,
        raw={"format": PROJECT_FORMAT, "format_version": FORMAT_VERSION},
    )
    project.save()
    return project


def new_project_from_video(
    root, video, sport: str, name: str | None = None, step: int = 1
) -> Project:
    """A project with every ``step``-th frame of ``video`` (frame ids ``<stem>_<index>``)."""
    root, name = _new(root, sport, name)
    video = Path(video)
    reader = VideoReader(video)
    count = reader.frame_count
    reader.close()
    if count <= 0:
        raise ProjectError(f"{video}: the video reports no frames")
    ref = _ref(root, video)
    stem = safe_frame_id(video.stem)
    frames = [
        FrameRef(f"{stem}_{i:06d}", None, sport, ref, i) for i in range(0, count, max(1, step))
    ]
    project = Project(
        root=root,
        name=name,
        sport=sport,
        frames=frames,
        raw={"format": PROJECT_FORMAT, "format_version": FORMAT_VERSION},
    )
    project.save()
    return project

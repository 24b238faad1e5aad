"""Headless reconstruction of a project (the main job before the GUI, and the CLI's export):
every frame with a camera is exported (courtstudio.export.export_scenes) and summarised, with errors
against ground truth where the project has it."""

from __future__ import annotations

from pathlib import Path

from courtstudio.editing.document import AnnotationDocument
from courtstudio.export.export_scenes import ExportStatus, FrameSummary, export_coco, export_frames
from courtstudio.io.package_data import sample_project_dir
from courtstudio.io.project import Project

SAMPLE_PROJECT = sample_project_dir()


def reconstruct_project(
    project: Project, out_dir, log=print, force: bool = False, overlay_format: str = "png"
) -> list[FrameSummary]:
    """Export every frame (export_frames: refuses a non-empty folder that is not a previous
    export unless ``force``)."""
    doc = AnnotationDocument(project)

    def progress(done, total, s):
        log(summary_line(s))
        return True

    return export_frames(
        doc, project.frames, out_dir, progress, force=force, overlay_format=overlay_format
    )


def export_project_coco(project: Project, out_dir: Path) -> list[Path]:
    return export_coco(AnnotationDocument(project), project.frames, out_dir)


def summary_line(s: FrameSummary) -> str:
    if s.status != ExportStatus.OK:
        out = f"{s.frame_id:<22} {s.sport:<14} {s.status}: {s.message}"
        return out + (f" (removed its previous {', '.join(s.removed)})" if s.removed else "")
    out = f"{s.frame_id:<22} {s.sport:<14} f={s.focal_px:7.1f}px rms={s.rms_px:5.2f}px"
    if s.focal_error_pct is not None:
        out += f" (f error {s.focal_error_pct:+.2f}%)"
    if s.ball_world is not None:
        out += " ball=({:.2f}, {:.2f}, {:.2f}) m".format(*s.ball_world)
        if s.ball_error_cm is not None:
            out += " (error {:+.1f}, {:+.1f}, {:+.1f} cm)".format(*s.ball_error_cm)
    if s.player_pelvis_error_cm:
        out += " players: pelvis error " + ", ".join(
            f"P{pid} {e:.1f} cm" for pid, e in sorted(s.player_pelvis_error_cm.items())
        )
    return out

"""The per-clip stages of a dataset build, each a pure function of its inputs and folders.

    prepare -> propagate -> [players] -> export -> qa        (per clip)
    merge                                                     (once, over every clip's qa)

Every stage returns a ``StageResult`` and writes only its own folder under
``OUT/clips/<clip>/<stage>/`` (``stage_dirs.StageDir``); a stage whose provenance digest
matches the finished folder is not run again. ``prepare`` makes the clip's working project:
for a video clip a new project over the video with the reference clicks as annotations; for
an annotated project a copy that shares the media by hard links (the user's project is read,
never written). ``players`` runs SAM3 and PromptHMR on the exported frames and needs a GPU;
without one it is skipped with a note and the scenes carry no meshes.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Callable

from courtstudio.dataset.manifest import Clip, QAOptions
from courtstudio.dataset.stage_dirs import StageDir, file_digest, provenance_digest, tree_digest

CLIP_STAGES = ("prepare", "propagate", "players", "export", "qa")


class StageStatus(StrEnum):
    """What one (clip, stage) task did (report.json's ``tasks[].status``)."""

    DONE = "done"
    CACHED = "cached"  # nothing it reads changed: the finished folder is kept
    SKIPPED = "skipped"  # not applicable (``note`` says why, e.g. no GPU)
    FAILED = "failed"
    NOT_RUN = "not_run"  # an earlier stage of the clip failed


@dataclass
class StageResult:
    """What one (clip, stage) task did."""

    clip: str
    stage: str
    status: StageStatus
    digest: str | None = None
    seconds: float = 0.0
    note: str = ""
    counts: dict = field(default_factory=dict)


def tool_version() -> str:
    from courtstudio import __version__

    return __version__


def clip_dir(out_root, clip_id: str) -> Path:
    return Path(out_root) / "clips" / clip_id


def stage_provenance(
    stage: str, clip: Clip, qa: QAOptions, upstream: dict[str, str | None]
) -> dict:
    """What a (clip, stage) result depends on: its inputs' digests, the upstream stages'
    digests, the tool version and the parameters."""
    return {
        "stage": stage,
        "clip": clip.id,
        "tool_version": tool_version(),
        "params": _stage_params(stage, clip, qa),
        "inputs": _input_digests(stage, clip),
        "upstream": upstream,
    }


NO_GPU_NOTE = (
    "no GPU in this cluster: players need SAM3 and PromptHMR on a CUDA GPU; the "
    "scenes carry no player meshes"
)


def skip_reason(stage: str, clip: Clip, out_root, gpus: Callable[[], int]) -> str | None:
    """Why a stage does not apply to this clip (None: it runs). ``gpus()`` counts the
    cluster's GPUs (asked only for the players stage: it may start the cluster)."""
    if stage == "players" and gpus() == 0:
        return NO_GPU_NOTE
    if stage == "propagate":
        project = working_project(Path(out_root), clip)
        sports = {f.sport for f in project.frames}
        if len(sports) > 1:
            return (
                "frames of several sports (" + ", ".join(sorted(sports)) + "): nothing to "
                "propagate; each frame keeps its own calibration"
            )
        from courtstudio.pipeline.propagate import project_references

        if not project_references(project):
            return "no frame with at least 4 clicked court keypoints: nothing to propagate"
    return None


def finished_result(stage: str, clip: Clip, out_root, provenance: dict) -> StageResult | None:
    """The cached result when the stage's folder was made from exactly these inputs."""
    digest = provenance_digest(provenance)
    if StageDir(clip_dir(out_root, clip.id), stage).finished_digest() == digest:
        return StageResult(clip.id, stage, StageStatus.CACHED, digest)
    return None


def run_clip_stage(
    stage: str, clip: Clip, out_root, qa: QAOptions, provenance: dict
) -> StageResult:
    """Run one stage of one clip (in a worker process, or in-process when serial) and swap
    its folder in. Raises on failure; the driver retries and then reports."""
    from courtstudio.dataset.executors import limit_task_threads

    limit_task_threads()
    t0 = time.perf_counter()
    sd = StageDir(clip_dir(out_root, clip.id), stage)
    sd.clip_dir.mkdir(parents=True, exist_ok=True)
    sd.clean_leftovers()
    digest = provenance_digest(provenance)
    work = sd.partial_dir(digest)
    counts = _RUNNERS[stage](clip, work, Path(out_root), qa, provenance["params"])
    sd.commit(work, provenance)
    return StageResult(
        clip.id, stage, StageStatus.DONE, digest, time.perf_counter() - t0, counts=counts or {}
    )


def _stage_params(stage: str, clip: Clip, qa: QAOptions) -> dict:
    if stage == "export":
        return {"export_every": clip.export_every or qa.export_every}
    if stage == "qa":
        return {"seed": qa.seed, "per_image": qa.per_image, "options": qa.extra}
    return {}


def _input_digests(stage: str, clip: Clip) -> dict:
    """Digests of the files outside OUT that the stage reads (upstream stages are covered by
    their own digests)."""
    if stage != "prepare":
        return {}
    if clip.video is not None:
        d = {"video": file_digest(clip.video)}
        d.update({f"reference_{r.frame}": file_digest(r.points) for r in clip.references})
        return d
    return {"project": tree_digest(clip.project)}


# ------------------------------------------------------------------------------ prepare
def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:  # another filesystem, or links not allowed: a real copy
        shutil.copy2(src, dst)


def _prepare(clip: Clip, work: Path, out_root: Path, qa: QAOptions, params: dict) -> dict:
    from courtstudio.io.points_file import load_points_file
    from courtstudio.io.project import FrameAnnotation, load_project
    from courtstudio.io.project_new import new_project_from_video

    shutil.rmtree(work / "project", ignore_errors=True)
    root = work / "project"
    if clip.video is not None:
        # the video is linked into the project's frames/ (copied across filesystems)
        project = new_project_from_video(root, clip.video, clip.sport, name=clip.id)
        for ref in clip.references:
            if ref.frame >= len(project.frames):
                raise ValueError(
                    f"{clip.id}: reference frame {ref.frame} is outside the "
                    f"video's {len(project.frames)} frames"
                )
            size, points = load_points_file(ref.points)
            fid = project.frames[ref.frame].id
            project.save_annotation(FrameAnnotation(fid, tuple(size), dict(points)))
    else:
        load_project(clip.project)  # refuses an unsafe project before anything is copied
        for p in sorted(clip.project.rglob("*")):
            rel = p.relative_to(clip.project)
            if rel.parts[0] in (".courtstudio", "propagation") or not p.is_file():
                continue
            _link_or_copy(p, root / rel)
        project = load_project(root)
    # the scenes name their match and clip (the QA split unit and provenance)
    project.raw.update(match_id=clip.match, clip_id=clip.id)
    project.save()
    return {"frames": len(project.frames), "references": len(clip.references)}


def working_project(out_root: Path, clip: Clip):
    """The clip's project for the stages after prepare: with players where they ran."""
    from courtstudio.io.project import load_project

    cdir = clip_dir(out_root, clip.id)
    players = cdir / "players" / "project"
    return load_project(players if players.is_dir() else cdir / "prepare" / "project")


# ---------------------------------------------------------------------------- propagate
def _propagate(clip: Clip, work: Path, out_root: Path, qa: QAOptions, params: dict) -> dict:
    from court_specs import load_spec
    from courtstudio.pipeline.propagate import (
        ProjectFrames,
        iter_records,
        project_references,
        propagate,
        summary,
    )
    from safe_io.atomic import write_json_atomic

    project = working_project(out_root, clip)
    refs = project_references(project)
    if not refs:
        raise ValueError(f"{clip.id}: no frame with at least 4 clicked court keypoints")
    propagate(ProjectFrames(project), load_spec(clip.sport), refs, work, keep_records=False)
    rep = summary(iter_records(work / "cameras.jsonl"))
    write_json_atomic(work / "summary.json", rep)
    return dict(rep["counts"])


# ------------------------------------------------------------------------------ players
def _players(clip: Clip, work: Path, out_root: Path, qa: QAOptions, params: dict) -> dict:
    from courtstudio.dataset.players_stage import add_players

    shutil.rmtree(work / "project", ignore_errors=True)
    src = clip_dir(out_root, clip.id) / "prepare" / "project"
    for p in sorted(src.rglob("*")):
        if p.is_file():
            _link_or_copy(p, work / "project" / p.relative_to(src))
    return add_players(
        work / "project",
        clip_dir(out_root, clip.id) / "propagate",
        export_frames_of(clip, qa, out_root, work / "project"),
    )


# ------------------------------------------------------------------------------- export
def export_frames_of(clip: Clip, qa: QAOptions, out_root: Path, project_root=None) -> list:
    """Every ``export_every``-th frame plus every frame with an annotation file."""
    from courtstudio.io.project import load_project

    project = load_project(project_root) if project_root else working_project(out_root, clip)
    step = clip.export_every or qa.export_every
    return [
        f
        for i, f in enumerate(project.frames)
        if i % step == 0 or project.has_annotation_file(f.id)
    ]


def _export(clip: Clip, work: Path, out_root: Path, qa: QAOptions, params: dict) -> dict:
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.export.export_scenes import export_frames

    project = working_project(out_root, clip)
    doc = AnnotationDocument(
        project, propagation_path=clip_dir(out_root, clip.id) / "propagate" / "cameras.jsonl"
    )
    frames = export_frames_of(clip, qa, out_root)
    shutil.rmtree(work / "scenes", ignore_errors=True)  # an interrupted attempt's files
    summaries = export_frames(doc, frames, work / "scenes", overlay=False, glb=False)
    counts: dict = {}
    for s in summaries:
        counts[s.status] = counts.get(s.status, 0) + 1
    return counts


# ----------------------------------------------------------------------------------- qa
def _qa(clip: Clip, work: Path, out_root: Path, qa: QAOptions, params: dict) -> dict:
    from courtstudio.dataset.qa_stage import clip_candidates

    return clip_candidates(clip_dir(out_root, clip.id) / "export" / "scenes", work, clip, qa)


_RUNNERS = {
    "prepare": _prepare,
    "propagate": _propagate,
    "players": _players,
    "export": _export,
    "qa": _qa,
}

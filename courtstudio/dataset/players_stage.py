"""The players stage of a dataset build: SAM3 boxes and PromptHMR meshes on the frames that
will be exported, placed by the lowest-vertex correction with the players standing.

Runs only where a CUDA GPU is (the driver gives the task a GPU resource); the models come
from the same settings as the app (courtstudio/io/settings.py: the settings file, or
COURTSTUDIO_SAM3_CHECKPOINT, COURTSTUDIO_PROMPTHMR_DIR in the task's environment).
An automatic build has no annotator to type each lowest vertex's height: it uses 0 m
(a player on the ground), which is right for a standing or running player and wrong for one
in the air; the build report counts the players placed this way (``players_assumed_ground``)
so a reviewer can tell.
"""

from __future__ import annotations

from pathlib import Path


def add_players(
    project_root: Path, propagation_dir: Path, frames, proposer=None, runner=None, settings=None
) -> dict:
    """Propose boxes, run HMR and place every player on ``frames`` of the project at
    ``project_root`` (written in place: it is the stage's own copy). ``proposer`` has
    ``propose(image_bgr) -> [Proposal(box_xyxy, score)]`` and ``runner`` has
    ``run(image_bgr, boxes_xyxy (N, 4), camera) -> PromptHMRResult``; both default to the
    SAM3 and PromptHMR models of ``settings`` (courtstudio.io.settings.Settings, default:
    loaded where the task runs)."""
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.io.project import load_project
    from courtstudio.io.settings import Settings

    if settings is None and (proposer is None or runner is None):
        settings = Settings.load()
    if proposer is None:
        from hmr.sam3_boxes import ProposerError, Sam3BoxProposer

        if not settings.sam3_checkpoint:
            raise ProposerError("players need SAM3: set COURTSTUDIO_SAM3_CHECKPOINT")
        proposer = Sam3BoxProposer(settings.sam3_checkpoint, settings.sam3_bpe)
    if runner is None:
        from hmr.prompthmr_runner import PromptHMRRunner

        runner = PromptHMRRunner(settings.prompthmr_dir)
    doc = AnnotationDocument(
        load_project(project_root), propagation_path=Path(propagation_dir) / "cameras.jsonl"
    )
    counts = {"frames": 0, "players": 0, "players_assumed_ground": 0, "no_camera": 0}
    for frame in frames:
        camera = doc.camera_state(frame.id, diagnose=False).camera
        if camera is None:
            counts["no_camera"] += 1
            continue
        image = doc.frames.image(frame)
        boxes = [tuple(float(c) for c in p.box_xyxy) for p in proposer.propose(image)]
        if not boxes:
            continue
        ids = doc.add_players(frame.id, boxes)
        people = runner.run(image, boxes, camera).people
        doc.import_people(
            frame.id, [(pid, box, mesh) for pid, box, mesh in zip(ids, boxes, people)]
        )
        for pid in ids[: len(people)]:
            doc.set_player_height(frame.id, pid, 0.0)
        counts["frames"] += 1
        counts["players"] += len(people)
        counts["players_assumed_ground"] += len(people)
    doc.save()
    return counts

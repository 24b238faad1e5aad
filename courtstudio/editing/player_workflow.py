"""The players workflow of the app, Qt-free: track boxes through a video, propose boxes, run
PromptHMR, import a PromptHMR result, build a template body. Each step edits the document
through its undo stack and returns what it did plus a one-line message for the status bar;
the window (annotation_ui/window_players.py) only asks for files and shows the messages.

The models come from the user's ``Settings`` (courtstudio/io/settings.py), handed in.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Callable, ContextManager

from courtstudio.editing.document import AnnotationDocument
from courtstudio.io.settings import Settings
from courtstudio.pipeline.live_calibration import box_ground_point

NO_PROPOSER = (
    "No box proposer is configured (SAM3 is an optional extra; set "
    "COURTSTUDIO_SAM3_CHECKPOINT): draw the boxes by hand"
)
_UNSET = object()


class PlayerWorkflow:
    """One per settings: the box proposer and the PromptHMR runner are built once, when first
    used (the settings changed: make a new one)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._proposer = _UNSET
        self._hmr_runner = None

    # ------------------------------------------------------------------- boxes
    def proposer(self):
        """The configured box proposer (SAM3), or None when none is configured. Raises
        ProposerError (hmr.sam3_boxes) once when one is configured but unusable; later calls
        give None."""
        if self._proposer is _UNSET:
            self._proposer = None
            if self.settings.sam3_checkpoint:
                from hmr.sam3_boxes import Sam3BoxProposer

                self._proposer = Sam3BoxProposer(
                    self.settings.sam3_checkpoint, self.settings.sam3_bpe
                )
        return self._proposer

    def propose_boxes(self, doc: AnnotationDocument, proposer) -> tuple[list[int], str]:
        """New players for the proposer's boxes on the current frame (one undo step); boxes
        over existing players (IoU >= 0.5) are skipped. Returns (new player ids, message)."""
        from courtstudio.pipeline.players import box_iou

        fid = doc.current_frame.id
        ann = doc.annotation(fid)
        boxes = [
            q.box_xyxy
            for q in proposer.propose(doc.frames.image(doc.current_frame))
            if all(box_iou(q.box_xyxy, p.box_xyxy) < 0.5 for p in ann.players)
        ]
        ids = doc.add_players(fid, boxes)
        return ids, f"{proposer.name} proposed {len(ids)} new player box(es)"

    def track_players(self, doc: AnnotationDocument, tracker=None) -> tuple[int, str]:
        """Player boxes on every frame of a video project from the tracker (SAM3's video
        predictor by default), prompted on the current frame; tracker ids become player ids
        (+1, so ids start at 1). One undo step per frame. Returns (boxes added, message)."""
        frame = doc.current_frame
        if frame.video is None:
            raise ValueError("tracking needs a video project (frames from one video)")
        if tracker is None:
            from hmr.sam3_boxes import Sam3VideoTracker

            ckpt = self.settings.sam3_checkpoint
            if not ckpt:
                raise ValueError("set the SAM3 checkpoint in File > Preferences first")
            tracker = Sam3VideoTracker(ckpt, self.settings.sam3_bpe)
        size = doc.frames.image_size(frame)
        by_index = {f.index: f.id for f in doc.project.frames if f.video == frame.video}
        added = 0
        per_frame: dict[str, list] = {}
        for b in tracker.track(doc.project.video_path(frame), size, frame.index):
            if b.frame_index in by_index:
                per_frame.setdefault(by_index[b.frame_index], []).append(b)
        for fid, boxes in per_frame.items():
            added += doc.set_tracked_boxes(fid, {b.track_id + 1: b.box_xyxy for b in boxes})
        return added, f"Tracked {added} boxes over {len(per_frame)} frames"

    # ------------------------------------------------------------------ meshes
    def import_hmr(self, doc: AnnotationDocument, path) -> tuple[list[int], str]:
        """Import a PromptHMR image-demo result into the current frame's players (one undo
        step). Returns (player ids, message)."""
        from courtstudio.pipeline.players import match_people_to_players
        from hmr.prompthmr import load_image_output

        fid = doc.current_frame.id
        state = doc.camera_state(fid)
        if state.camera is None:
            raise ValueError("calibrate the court first: the meshes are placed with its camera")
        result = load_image_output(path, smplx_model=self.settings.smplx_dir or None)
        ann = doc.annotation(fid)
        matches = match_people_to_players(
            state.camera, result.people, {p.id: p.box_xyxy for p in ann.players}
        )
        ids = doc.import_people(fid, [(pid, box, result.people[i]) for pid, i, box in matches])
        return ids, (
            f"Imported {len(ids)} people: players {', '.join(map(str, ids))}. Give "
            "each one's lowest-vertex height to place it."
        )

    def run_prompthmr(self, doc: AnnotationDocument) -> list[int]:
        """PromptHMR on the current frame's boxes with its calibrated K (GPU machines); one
        undo step. Returns the player ids given meshes."""
        from hmr.prompthmr_runner import PromptHMRRunner

        fid = doc.current_frame.id
        state = doc.camera_state(fid)
        if state.camera is None:
            raise ValueError("calibrate the court first: PromptHMR is given its K")
        ann = doc.annotation(fid)
        if not ann.players:
            raise ValueError("draw (or propose) the player boxes first")
        if self._hmr_runner is None:
            self._hmr_runner = PromptHMRRunner(self.settings.prompthmr_dir)
        res = self._hmr_runner.run(
            doc.frames.image(doc.current_frame), [p.box_xyxy for p in ann.players], state.camera
        )
        return doc.import_people(
            fid, [(p.id, p.box_xyxy, m) for p, m in zip(ann.players, res.people)]
        )

    def template_body(
        self,
        doc: AnnotationDocument,
        pid: int,
        stature_m: float,
        busy: Callable[[], ContextManager] = nullcontext,
    ) -> None:
        """An Anny body for a player without an HMR result (feet from the box), standing on
        the player plane (lowest-vertex height 0 m). ``busy()`` wraps the slow build (the
        window shows a wait cursor)."""
        from courtstudio.pipeline.players import template_player

        fid = doc.current_frame.id
        state = doc.camera_state(fid)
        p = doc.annotation(fid).player(pid)
        if state.camera is None or p is None:
            raise ValueError("calibrate the court and draw the player's box first")
        spec = doc.spec()
        foot = box_ground_point(state.camera, p.box_xyxy, spec.player_plane_z())
        if foot is None:
            raise ValueError("the box's feet are not on the court in front of the camera")
        with busy():
            mesh = template_player(
                state.camera, foot, stature_m, cache_dir=self.settings.anny_cache_dir
            )
        doc.import_people(fid, [(pid, p.box_xyxy, mesh)])
        doc.set_player_height(fid, pid, 0.0)

"""The annotation document: everything an annotator edits in an open project.

Qt-free. Views read it and listen to its signals; every edit is a command on its undo stack
(a before/after snapshot of the one frame annotation, or of the project's camera ranges), so
undo/redo, autosave and the GUI tests need no window.

Signals:
    frame_changed(index)            the current frame moved
    annotation_changed(frame_id)    a frame's clicks, ball, players or flags changed
    ranges_changed()                static-camera ranges changed
    saved()                         everything was written to disk
    flight_draft_changed()          the ball-flight draft changed (the flights did not)
    masks.changed()                 the project's registration masks changed (mask_layer.py)

Player edits are in document_players.py, static-camera ranges, ball flights and the flight
draft in document_lists.py (mixins of this class).
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

from court_specs import CourtSpec, load_spec
from courtstudio.editing.document_lists import ProjectLists
from courtstudio.editing.document_players import PlayerEdits, store_person_mesh  # noqa: F401
from courtstudio.editing.events import Signal
from courtstudio.editing.mask_layer import ProjectMasks
from courtstudio.editing.undo import Command, UndoStack
from courtstudio.io.frames import FrameStore
from courtstudio.io.project import (
    POINT_FLAGS,
    BallAnnotation,
    FrameAnnotation,
    FrameRef,
    Project,
    ProjectError,
    check_recovered_state,
    parse_annotation,
)
from courtstudio.pipeline.live_calibration import CalibrationCache, CameraState
from courtstudio.pipeline.propagation_report import frame_note
from courtstudio.pipeline.propagation_status import WITH_CAMERA, PropagationStatus
from geometry.camera import Camera
from hmr.person_mesh import PersonMesh


class AnnotationDocument(PlayerEdits, ProjectLists):
    def __init__(
        self,
        project: Project,
        frames: FrameStore | None = None,
        propagation_path: Path | None = None,
    ):
        """propagation_path: the cameras.jsonl whose cameras frames without their own clicks
        take (default PROJECT/propagation/cameras.jsonl; a dataset build keeps its own)."""
        self.project = project
        self.propagation_path = (
            Path(propagation_path)
            if propagation_path is not None
            else project.root / "propagation" / "cameras.jsonl"
        )
        self.frames = frames or FrameStore(project)
        self.undo_stack = UndoStack()
        self.calibrations = CalibrationCache()
        self._ann: dict[str, FrameAnnotation] = {}
        self._meshes: dict[str, PersonMesh] = {}
        self._propagation: dict[int, dict] | None = None
        self._dirty: set[str] = set()
        self._ranges_dirty = False
        self._journal_frames: dict[str, None] = {}  # edited since the last journal_records
        self._journal_ranges = False
        self._flight_draft: dict[str, str] = {}  # ProjectLists.mark_ball_flight
        self.current_index = 0
        self.frame_changed = Signal("frame_changed")
        self.annotation_changed = Signal("annotation_changed")
        self.ranges_changed = Signal("ranges_changed")
        self.saved = Signal("saved")
        self.flight_draft_changed = Signal("flight_draft_changed")
        # registration masks (PROJECT/propagation/masks.json), edited on the same undo stack
        self.masks = ProjectMasks(project.root, self.undo_stack, self._mask_image_size)
        # a refinement on the lines was made under the masks of its time: an edit of the
        # masks drops it (not a change of the proposals alone)
        self.masks.boxes_changed.connect(self.calibrations.forget_refined)

    def _mask_image_size(self) -> tuple[int, int]:
        """The frame size (w, h) px masks are drawn in: the first frame's, as propagation
        uses."""
        if not self.project.frames:
            raise ProjectError("the project has no frames")
        return self.frames.image_size(self.project.frames[0])

    # ------------------------------------------------------------------ reading
    @property
    def frame_count(self) -> int:
        return len(self.project.frames)

    @property
    def current_frame(self) -> FrameRef:
        return self.project.frames[self.current_index]

    def spec(self, frame: FrameRef | None = None) -> CourtSpec:
        return load_spec((frame or self.current_frame).sport)

    def annotation(self, frame_id: str) -> FrameAnnotation:
        """The frame's annotation (read-only: edit through the methods below)."""
        ann = self._ann.get(frame_id)
        if ann is None:
            ann = self.project.load_annotation(frame_id)
            if ann is None:
                frame = self.project.frame(frame_id)
                ann = FrameAnnotation(frame_id, self.frames.image_size(frame))
            self._ann[frame_id] = ann
        return ann

    def has_annotation_file(self, frame_id: str) -> bool:
        return frame_id in self._ann or self.project.has_annotation_file(frame_id)

    def camera_state(self, frame_id: str, diagnose: bool = True) -> CameraState:
        """The frame's own calibration, else its static-camera range's source camera."""
        frame = self.project.frame(frame_id)
        ann = self.annotation(frame_id)
        image = self._doctor_image(frame, diagnose)
        own = self.calibrations.solve(
            frame_id, load_spec(frame.sport), ann, diagnose, image, self._masks_for(image)
        )
        if own.calibration is not None or ann.points:
            return own
        index = self.project.index_of(frame_id)
        prop = self.propagation().get(index)
        if prop is not None and prop["status"] in WITH_CAMERA and "K" in prop:
            cam = Camera.from_dict(prop, f"propagation record of frame {index}")
            return CameraState(None, frame_note(prop), propagated=cam)
        rng = self.project.camera_range_of(index)
        if rng is not None and rng.source != frame_id:
            src = self.calibrations.solve(
                rng.source, load_spec(frame.sport), self.annotation(rng.source), diagnose
            )
            if src.calibration is not None:
                return CameraState(src.calibration, f"static camera of {rng.source}", rng.source)
        if prop is not None and prop["status"] == PropagationStatus.FLAGGED:
            # flagged without a camera: why, before what clicking here would do
            return dataclasses.replace(own, message=f"{frame_note(prop)}; {own.message}")
        return own

    def _doctor_image(self, frame, diagnose: bool):
        """The frame's image for the doctor's paint check (None while not diagnosing, before
        4 clicks, or when the frame cannot be read: the doctor then uses the clicks alone)."""
        if not diagnose or len(self.annotation(frame.id).calibration_points) < 4:
            return None
        try:
            return self.frames.image(frame)
        except (ProjectError, ValueError, OSError):
            return None

    def refine_on_lines(self, frame_id: str) -> CameraState:
        """Refine the frame's own calibration on its painted lines (live_calibration), none
        looked for under the project's masks when the frame has the size they were drawn
        at (a score bug's letters are not court paint)."""
        frame = self.project.frame(frame_id)
        image = self.frames.image(frame)
        return self.calibrations.refine_on_lines(
            frame_id,
            load_spec(frame.sport),
            self.annotation(frame_id),
            image,
            self._masks_for(image),
        )

    def _masks_for(self, image) -> list:
        """The project's masks for a frame image (none for another size, or no image)."""
        if image is None:
            return []
        h, w = image.shape[:2]
        return self.masks.boxes if self.masks.image_size == (w, h) else []

    def propagation(self) -> dict[int, dict]:
        """The project's propagation results (PROJECT/propagation/cameras.jsonl) by frame
        index; read once, re-read after reload_propagation()."""
        if self._propagation is None:
            from courtstudio.pipeline.propagate import read_done

            self._propagation = read_done(self.propagation_path)
        return self._propagation

    def reload_propagation(self) -> None:
        self._propagation = None
        self.ranges_changed.emit()

    @property
    def is_dirty(self) -> bool:
        return bool(self._dirty) or self._ranges_dirty or self.masks.dirty

    @property
    def has_journal_state(self) -> bool:
        """Unsaved edits (unsaved registration masks too), or a ball-flight draft (journaled,
        never saved): what the autosave journal must hold."""
        return self.is_dirty or bool(self._flight_draft)

    # ---------------------------------------------------------------- navigation
    def go_to(self, index: int) -> None:
        index = max(0, min(self.frame_count - 1, int(index)))
        if index != self.current_index:
            self.current_index = index
            self.frame_changed.emit(index)

    def step(self, delta: int) -> None:
        self.go_to(self.current_index + delta)

    # --------------------------------------------------------------------- edits
    def _set_state(self, frame_id: str, state: dict) -> None:
        self._ann[frame_id] = parse_annotation(copy.deepcopy(state), f"{frame_id} (edit)")
        self._dirty.add(frame_id)
        self._journal_frames[frame_id] = None
        self.annotation_changed.emit(frame_id)

    def _edit(self, frame_id: str, text: str, mutate, merge_key=None) -> None:
        ann = self.annotation(frame_id)
        before = ann.to_json()
        work = parse_annotation(copy.deepcopy(before), frame_id)
        mutate(work)
        after = work.to_json()
        if after == before:
            return
        self.undo_stack.push(
            Command(text, lambda s, f=frame_id: self._set_state(f, s), before, after, merge_key)
        )

    def set_keypoint(self, frame_id: str, name: str, uv, drag: bool = False) -> None:
        """Place or move a keypoint click (uv pixels). Successive drag moves merge."""
        if name not in self.spec(self.project.frame(frame_id)).keypoints:
            raise ProjectError(f"{self.spec().id} has no keypoint {name!r}")
        u, v = float(uv[0]), float(uv[1])
        w, h = self.annotation(frame_id).image_size
        if not (-0.5 <= u <= w - 0.5 and -0.5 <= v <= h - 0.5):
            raise ProjectError(f"({u:.1f}, {v:.1f}) is outside the {w}x{h} frame")

        def m(a: FrameAnnotation):
            a.points[name] = (u, v)

        self._edit(
            frame_id,
            f"Move {name}" if drag else f"Place {name}",
            m,
            ("kp", frame_id, name) if drag else None,
        )

    def remove_keypoint(self, frame_id: str, name: str) -> None:
        def m(a: FrameAnnotation):
            a.points.pop(name, None)
            a.point_flags.pop(name, None)

        self._edit(frame_id, f"Remove {name}", m)

    def set_point_flag(self, frame_id: str, name: str, flag: str | None) -> None:
        """Mark a click 'occluded' or 'estimated' (None: a seen click again). A flagged click
        is kept and drawn but left out of the calibration (FrameAnnotation.
        calibration_points)."""
        if flag is not None and flag not in POINT_FLAGS:
            raise ProjectError(f"point flag: expected one of {', '.join(POINT_FLAGS)}")
        if name not in self.annotation(frame_id).points:
            raise ProjectError(f"{name} is not clicked on this frame")

        def m(a: FrameAnnotation):
            if flag is None:
                a.point_flags.pop(name, None)
            else:
                a.point_flags[name] = flag

        self._edit(frame_id, f"{name}: {flag or 'seen'}", m)

    def previous_keypoint_frame(self, frame_id: str) -> str | None:
        """The nearest earlier frame with keypoint clicks and the same image size, or None."""
        size = self.annotation(frame_id).image_size
        for i in range(self.project.index_of(frame_id) - 1, -1, -1):
            fid = self.project.frames[i].id
            if self.has_annotation_file(fid):
                ann = self.annotation(fid)
                if ann.points and tuple(ann.image_size) == tuple(size):
                    return fid
        return None

    def copy_previous_keypoints(self, frame_id: str) -> tuple[str, int]:
        """Copy the keypoint clicks (and their occluded/estimated flags) of the nearest
        earlier frame with clicks onto this frame, in one undo step; clicks already on this
        frame are kept. Returns (source frame id, keypoints copied)."""
        src = self.previous_keypoint_frame(frame_id)
        if src is None:
            raise ProjectError("no earlier frame of this size has keypoint clicks to copy")
        source = self.annotation(src)
        new = [n for n in source.points if n not in self.annotation(frame_id).points]
        if not new:
            raise ProjectError(f"every keypoint of {src} is already clicked here")

        def m(a: FrameAnnotation):
            for n in new:
                u, v = source.points[n]
                a.points[n] = (float(u), float(v))
                if n in source.point_flags:
                    a.point_flags[n] = source.point_flags[n]

        self._edit(frame_id, f"Copy {len(new)} keypoints from {src}", m)
        return src, len(new)

    def apply_relabelling(self, frame_id: str, mapping: dict[str, str]) -> None:
        """Rename clicks as the calibration doctor suggested (one undo step)."""

        def m(a: FrameAnnotation):
            old, old_flags = dict(a.points), dict(a.point_flags)
            for src in mapping:
                a.points.pop(src, None)
                a.point_flags.pop(src, None)
            for src, dst in mapping.items():
                if src in old:
                    a.points[dst] = old[src]
                if src in old_flags:
                    a.point_flags[dst] = old_flags[src]

        self._edit(frame_id, "Apply suggested relabelling", m)

    def set_ball_pixel(self, frame_id: str, uv) -> None:
        """The ball's pixel; the ground click is cleared (it belongs to the old ray)."""

        def m(a: FrameAnnotation):
            plane = a.ball.plane if a.ball else None
            a.ball = BallAnnotation(True, (float(uv[0]), float(uv[1])), None, plane)

        self._edit(frame_id, "Place ball", m)

    def set_ball_ground(self, frame_id: str, uv, drag: bool = False) -> None:
        def m(a: FrameAnnotation):
            if a.ball is None or a.ball.uv is None:
                raise ProjectError("click the ball before its ground point")
            a.ball = BallAnnotation(True, a.ball.uv, (float(uv[0]), float(uv[1])), a.ball.plane)

        self._edit(
            frame_id, "Place ball ground point", m, ("ball_ground", frame_id) if drag else None
        )

    def set_ball_not_visible(self, frame_id: str, not_visible: bool = True) -> None:
        def m(a: FrameAnnotation):
            plane = a.ball.plane if a.ball else None
            a.ball = BallAnnotation(False, None, None, plane) if not_visible else None

        self._edit(frame_id, "Ball not visible" if not_visible else "Ball visible", m)

    def clear_ball(self, frame_id: str) -> None:
        self._edit(frame_id, "Clear ball", lambda a: setattr(a, "ball", None))

    def set_ball_plane(self, frame_id: str, plane: str) -> None:
        spec = self.spec(self.project.frame(frame_id))
        spec.plane_z(plane)  # KeyError names the planes

        def m(a: FrameAnnotation):
            b = a.ball or BallAnnotation(True)
            a.ball = BallAnnotation(b.visible, b.uv, b.ground_uv, plane)

        self._edit(frame_id, f"Ball plane: {plane}", m)

    def toggle_flag(self, frame_id: str, flag: str = "review") -> None:
        def m(a: FrameAnnotation):
            if flag in a.flags:
                a.flags.remove(flag)
            else:
                a.flags.append(flag)

        self._edit(frame_id, f"Toggle {flag}", m)

    # --------------------------------------------------------------------- undo
    def undo(self) -> bool:
        return self.undo_stack.undo()

    def redo(self) -> bool:
        return self.undo_stack.redo()

    def end_drag(self) -> None:
        """Close the current merge run (mouse released)."""
        self.undo_stack.break_merge()

    # --------------------------------------------------------------- save/recover

    def unsaved_state(self) -> dict:
        """Everything not yet saved, as JSON (what a compacted autosave journal holds)."""
        lists = (
            self._project_lists()
            if self._ranges_dirty
            else {"camera_ranges": None, "ball_flights": None}
        )
        return {
            "annotations": {fid: self._ann[fid].to_json() for fid in sorted(self._dirty)},
            **lists,
            "flight_draft": dict(self._flight_draft) or None,
            "propagation_masks": self.masks.unsaved(),
        }

    def journal_records(self) -> list[dict]:
        """The autosave records of the edits since the last call (courtstudio/editing/autosave.py):
        ``{"frame", "annotation"}`` per frame changed, ``{"camera_ranges", "ball_flights",
        "flight_draft"}`` when those changed, ``{"propagation_masks"}`` when the masks did.
        Costs what the edited frames cost, not the unsaved total."""
        records: list[dict] = [
            {"frame": fid, "annotation": self._ann[fid].to_json()} for fid in self._journal_frames
        ]
        if self._journal_ranges:
            records.append(self._project_lists())
        masks = self.masks.journal_record()
        if masks is not None:
            records.append(masks)
        self.drop_journal_records()
        return records

    def drop_journal_records(self) -> None:
        """Forget the edits not yet journaled (a compaction or a save covers them)."""
        self._journal_frames.clear()
        self._journal_ranges = False
        self.masks.journal_pending = False

    def restore_unsaved_state(self, state: dict) -> None:
        """Apply a recovered journal (one undo step per frame; the result is unsaved)."""
        check_recovered_state(self.project, state, "autosave journal")
        for fid, data in state.get("annotations", {}).items():
            self.project.frame(fid)
            rec = parse_annotation(data, f"autosave: {fid}")
            before = self.annotation(fid).to_json()
            self.undo_stack.push(
                Command(
                    f"Recover {fid}", lambda s, f=fid: self._set_state(f, s), before, rec.to_json()
                )
            )
        flights = state.get("ball_flights")
        if flights is not None:
            before = [(b.start, b.middle, b.end) for b in self.project.ball_flights]
            self.undo_stack.push(
                Command(
                    "Recover ball flights", self._set_flights, before, [tuple(f) for f in flights]
                )
            )
        ranges = state.get("camera_ranges")
        if ranges is not None:
            before = [(r.first, r.last, r.source) for r in self.project.camera_ranges]
            after = [(r["first"], r["last"], r["source"]) for r in ranges]
            self.undo_stack.push(
                Command("Recover static camera ranges", self._set_ranges, before, after)
            )
        draft = state.get("flight_draft")
        if draft:
            before = self._flight_state()
            self.undo_stack.push(
                Command(
                    "Recover ball flight draft",
                    self._set_flight_state,
                    before,
                    {**before, "draft": dict(draft)},
                )
            )
        if state.get("propagation_masks") is not None:
            self.masks.restore(state["propagation_masks"])

    def save(self) -> list[Path]:
        """Write every changed annotation and the project file, atomically."""
        written = []
        for fid in sorted(self._dirty):
            ann = self._ann[fid]
            path = self.project.annotation_path(fid)
            if ann.is_empty and not path.exists():
                continue
            self.project.save_annotation(ann)
            written.append(path)
        if self._ranges_dirty:
            self.project.save()
            written.append(self.project.path)
        written += self.masks.save()
        self._dirty.clear()
        self._journal_frames.clear()
        self._ranges_dirty = self._journal_ranges = False
        self.undo_stack.set_clean()
        self.saved.emit()
        return written

    def frame_status(self, index: int) -> dict:
        """What is annotated on frame ``index``: court / ball / players / flagged / static."""
        frame = self.project.frames[index]
        loaded = self.has_annotation_file(frame.id)
        ann = self.annotation(frame.id) if loaded else None
        rng = self.project.camera_range_of(index)
        prop = self.propagation().get(index, {})
        return {
            "court": bool(ann and len(ann.points) >= 4)
            or prop.get("status") in (PropagationStatus.OK, PropagationStatus.STATIC),
            "meshes": bool(ann and any(p.mesh for p in ann.players)),
            "ball": bool(
                ann
                and ann.ball is not None
                and (not ann.ball.visible or ann.ball.ground_uv is not None)
            ),
            "players": bool(ann and ann.players),
            "flagged": bool(ann and ann.flags) or prop.get("status") == PropagationStatus.FLAGGED,
            "static": rng is not None,
        }

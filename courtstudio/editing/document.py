"""The annotation document: everything an annotator edits in an open project.

Qt-free. Views read it and listen to its signals; every edit is a command on its undo stack
(a before/after snapshot of the one frame annotation, or of the project's camera ranges), so
undo/redo, autosave and the GUI tests need no window.

Signals:
    frame_changed(index)            the current frame moved
    annotation_changed(frame_id)    a frame's clicks, ball, players or flags changed
    ranges_changed()                static-camera ranges changed
    saved()                         everything was written to disk
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

import numpy as np

from court_specs import CourtSpec, load_spec
from courtstudio.editing.events import Signal
from courtstudio.io.frames import FrameStore
from courtstudio.io.player_ids import new_player_ids
from courtstudio.pipeline.live_calibration import CalibrationCache, CameraState, lift_frame_ball
from courtstudio.pipeline.propagation_status import WITH_CAMERA, PropagationStatus
from courtstudio.io.project import (POINT_FLAGS, BallAnnotation, BallFlightMarks, CameraRange,
                                 FrameAnnotation, FrameRef,
                                 PlayerAnnotation, Project, ProjectError,
                                 check_recovered_state, parse_annotation)
from courtstudio.editing.undo import Command, UndoStack
from geometry.camera import Camera
from hmr.person_mesh import PersonMesh


def store_person_mesh(project: Project, frame_id: str, pid: int, mesh: PersonMesh) -> str:
    """Write a mesh once under meshes/<frame id>/, named by its content (so an annotation,
    its undo history and the autosave journal can all refer to it); returns the path relative
    to the project."""
    digest = hashlib.sha1(mesh.vertices_cam.astype(np.float32).tobytes()
                          + mesh.faces.astype(np.int32).tobytes()).hexdigest()[:12]
    rel = f"meshes/{frame_id}/player_{int(pid)}_{digest}.npz"
    path = project.inside(rel, f"frame {frame_id!r} mesh")
    if not path.exists():
        mesh.save_npz(path)
    return rel


class AnnotationDocument:
    def __init__(self, project: Project, frames: FrameStore | None = None,
                 propagation_path: Path | None = None):
        """propagation_path: the cameras.jsonl whose cameras frames without their own clicks
        take (default PROJECT/propagation/cameras.jsonl; a dataset build keeps its own)."""
        self.project = project
        self.propagation_path = Path(propagation_path) if propagation_path is not None \
            else project.root / "propagation" / "cameras.jsonl"
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
        self.current_index = 0
        self.frame_changed = Signal("frame_changed")
        self.annotation_changed = Signal("annotation_changed")
        self.ranges_changed = Signal("ranges_changed")
        self.saved = Signal("saved")

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
        return frame_id in self._ann or self.project.annotation_path(frame_id).exists()

    def camera_state(self, frame_id: str, diagnose: bool = True) -> CameraState:
        """The frame's own calibration, else its static-camera range's source camera."""
        frame = self.project.frame(frame_id)
        ann = self.annotation(frame_id)
        own = self.calibrations.solve(frame_id, load_spec(frame.sport), ann, diagnose)
        if own.calibration is not None or ann.points:
            return own
        index = self.project.index_of(frame_id)
        prop = self.propagation().get(index)
        if prop is not None and prop["status"] in WITH_CAMERA and "K" in prop:
            cam = Camera.from_dict(prop, f"propagation record of frame {index}")
            return CameraState(None, f"propagated from frame {prop.get('reference')} "
                                     f"({prop['status']}, RMS {prop['rms_px']:.2f} px)",
                               propagated=cam)
        rng = self.project.camera_range_of(index)
        if rng is not None and rng.source != frame_id:
            src = self.calibrations.solve(rng.source, load_spec(frame.sport),
                                          self.annotation(rng.source), diagnose)
            if src.calibration is not None:
                return CameraState(src.calibration, f"static camera of {rng.source}",
                                   rng.source)
        return own

    def refine_on_lines(self, frame_id: str) -> CameraState:
        """Refine the frame's own calibration on its painted lines (live_calibration)."""
        frame = self.project.frame(frame_id)
        return self.calibrations.refine_on_lines(frame_id, load_spec(frame.sport),
                                                 self.annotation(frame_id),
                                                 self.frames.image(frame))

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
        return bool(self._dirty) or self._ranges_dirty

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
        self.undo_stack.push(Command(text, lambda s, f=frame_id: self._set_state(f, s),
                                     before, after, merge_key))

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
        self._edit(frame_id, f"Move {name}" if drag else f"Place {name}", m,
                   ("kp", frame_id, name) if drag else None)

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
        self._edit(frame_id, "Place ball ground point", m,
                   ("ball_ground", frame_id) if drag else None)

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

    def next_player_id(self) -> int:
        """The id of a new player in the current frame (courtstudio.io.player_ids)."""
        return self._new_player_ids(self.current_frame.id, 1)[0]

    def set_player_box(self, frame_id: str, pid: int, box_xyxy, drag: bool = False) -> None:
        x0, y0, x1, y1 = (float(c) for c in box_xyxy)
        box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        if box[2] - box[0] < 2 or box[3] - box[1] < 2:
            raise ProjectError("a player box must be at least 2 px wide and high")

        def m(a: FrameAnnotation):
            old = a.player(pid)
            h = old.lowest_vertex_height_m if old else None
            mesh = old.mesh if old else None
            a.players = [p for p in a.players if p.id != pid] + [PlayerAnnotation(pid, box, h,
                                                                                  mesh)]
            a.players.sort(key=lambda p: p.id)
        self._edit(frame_id, f"Player {pid} box", m, ("box", frame_id, pid) if drag else None)

    def remove_player(self, frame_id: str, pid: int) -> None:
        def m(a: FrameAnnotation):
            a.players = [p for p in a.players if p.id != pid]
        self._edit(frame_id, f"Remove player {pid}", m)

    def set_player_height(self, frame_id: str, pid: int, height_m: float | None) -> None:
        def m(a: FrameAnnotation):
            p = a.player(pid)
            if p is None:
                raise ProjectError(f"no player {pid} in frame {frame_id}")
            p.lowest_vertex_height_m = None if height_m is None else float(height_m)
        self._edit(frame_id, f"Player {pid} height", m)

    def set_player_mesh(self, frame_id: str, pid: int, mesh: PersonMesh | None) -> None:
        """Attach a mesh (camera frame of this frame) to a player. The mesh is stored once,
        content-addressed, under meshes/<frame id>/, so undo and autosave can refer to it."""
        rel = None
        if mesh is not None:
            rel = self._store_mesh(frame_id, pid, mesh)

        def m(a: FrameAnnotation):
            p = a.player(pid)
            if p is None:
                raise ProjectError(f"no player {pid} in frame {frame_id}: draw its box first")
            p.mesh = rel
        self._edit(frame_id, f"Player {pid} mesh", m)

    def set_tracked_boxes(self, frame_id: str, boxes: dict) -> int:
        """Boxes {player id: xyxy} from a tracker, in one undo step: existing players keep
        their mesh and height and get the new box; returns how many boxes were set."""
        def m(a: FrameAnnotation):
            for pid, box in boxes.items():
                p = a.player(pid)
                if p is None:
                    a.players.append(PlayerAnnotation(pid, tuple(float(c) for c in box)))
                else:
                    p.box_xyxy = tuple(float(c) for c in box)
            a.players.sort(key=lambda p: p.id)
        if boxes:
            self._edit(frame_id, f"Track {len(boxes)} players", m)
        return len(boxes)

    def _new_player_ids(self, frame_id: str, count: int) -> list[int]:
        return new_player_ids((p.id for p in self.annotation(frame_id).players), count)

    def add_players(self, frame_id: str, boxes: list) -> list[int]:
        """New players (next free ids) for boxes xyxy, in one undo step; returns their ids."""
        ids = self._new_player_ids(frame_id, len(boxes))

        def m(a: FrameAnnotation):
            for pid, box in zip(ids, boxes):
                a.players.append(PlayerAnnotation(pid, tuple(float(c) for c in box)))
        if boxes:
            self._edit(frame_id, f"Add {len(boxes)} proposed players", m)
        return ids

    def import_people(self, frame_id: str, assignments: list[tuple[int | None, tuple,
                                                                   PersonMesh]]) -> list[int]:
        """Attach HMR people to players in one undo step: (player id or None for a new player,
        box xyxy used for a new player, mesh). Returns the player ids."""
        fresh = iter(self._new_player_ids(frame_id, sum(a[0] is None for a in assignments)))
        plan = []
        for pid, box, mesh in assignments:
            if pid is None:
                pid = next(fresh)
            plan.append((pid, box, self._store_mesh(frame_id, pid, mesh)))

        def m(a: FrameAnnotation):
            for pid, box, rel in plan:
                p = a.player(pid)
                if p is None:
                    a.players.append(PlayerAnnotation(pid, tuple(float(c) for c in box),
                                                      None, rel))
                else:
                    p.mesh = rel
            a.players.sort(key=lambda p: p.id)
        self._edit(frame_id, f"Import {len(plan)} HMR people", m)
        return [pid for pid, _, _ in plan]

    def _store_mesh(self, frame_id: str, pid: int, mesh: PersonMesh) -> str:
        rel = store_person_mesh(self.project, frame_id, pid, mesh)
        self._meshes[rel] = mesh
        return rel

    def player_mesh(self, rel: str | None) -> PersonMesh | None:
        """The PersonMesh stored at ``rel`` (cached); None for None."""
        if rel is None:
            return None
        if rel not in self._meshes:
            self._meshes[rel] = PersonMesh.load_npz(self.project.mesh_path(rel))
        return self._meshes[rel]

    def toggle_flag(self, frame_id: str, flag: str = "review") -> None:
        def m(a: FrameAnnotation):
            if flag in a.flags:
                a.flags.remove(flag)
            else:
                a.flags.append(flag)
        self._edit(frame_id, f"Toggle {flag}", m)

    # static-camera ranges (project level)
    def _set_ranges(self, ranges: list) -> None:
        self.project.camera_ranges = [CameraRange(*r) for r in ranges]
        self._ranges_dirty = self._journal_ranges = True
        self.ranges_changed.emit()

    def set_camera_range(self, first: int, last: int, source_frame_id: str) -> None:
        """Frames first..last reuse source_frame_id's calibration."""
        first, last = sorted((int(first), int(last)))
        if not (0 <= first and last < self.frame_count):
            raise ProjectError(f"frames {first}..{last} are outside 0..{self.frame_count - 1}")
        self.project.frame(source_frame_id)
        before = [(r.first, r.last, r.source) for r in self.project.camera_ranges]
        after = before + [(first, last, source_frame_id)]
        self.undo_stack.push(Command(f"Static camera {first}..{last}", self._set_ranges,
                                     before, after))

    def remove_camera_range_at(self, index: int) -> None:
        before = [(r.first, r.last, r.source) for r in self.project.camera_ranges]
        after = [r for r in before if not (r[0] <= index <= r[1])]
        if after != before:
            self.undo_stack.push(Command("Remove static camera range", self._set_ranges,
                                         before, after))

    # ball flights (project level)
    def _set_flights(self, flights: list) -> None:
        self.project.ball_flights = [BallFlightMarks(*f) for f in flights]
        self._ranges_dirty = self._journal_ranges = True
        self.ranges_changed.emit()

    def add_ball_flight(self, start: str, middle: str, end: str) -> None:
        """A flight from the balls lifted on three frames (ordered by frame index)."""
        idx = sorted((self.project.index_of(f), f) for f in (start, middle, end))
        if len({i for i, _ in idx}) != 3:
            raise ProjectError("a flight needs three different frames")
        before = [(b.start, b.middle, b.end) for b in self.project.ball_flights]
        after = before + [tuple(f for _, f in idx)]
        self.undo_stack.push(Command("Add ball flight", self._set_flights, before, after))

    def remove_ball_flight_at(self, index: int) -> None:
        before = [(b.start, b.middle, b.end) for b in self.project.ball_flights]
        after = [b for b in before if not (self.project.index_of(b[0]) <= index
                                           <= self.project.index_of(b[2]))]
        if after != before:
            self.undo_stack.push(Command("Remove ball flight", self._set_flights, before,
                                         after))

    def ball_flight_at(self, index: int):
        """(BallFlight, marks) for the flight covering frame ``index``, or (None, message)."""
        from geometry.ballistics import fit_flight
        for b in self.project.ball_flights:
            idx = [self.project.index_of(f) for f in (b.start, b.middle, b.end)]
            if not idx[0] <= index <= idx[2]:
                continue
            pts = []
            for fid in (b.start, b.middle, b.end):
                frame = self.project.frame(fid)
                res, msg = lift_frame_ball(self.camera_state(fid), load_spec(frame.sport),
                                           self.annotation(fid), uncertainty=False)
                if res is None:
                    return None, f"flight frame {fid}: {msg}"
                pts.append(res.world)
            return fit_flight(np.array(idx) / self.project.fps, np.array(pts)), b
        return None, ""

    # --------------------------------------------------------------------- undo
    def undo(self) -> bool:
        return self.undo_stack.undo()

    def redo(self) -> bool:
        return self.undo_stack.redo()

    def end_drag(self) -> None:
        """Close the current merge run (mouse released)."""
        self.undo_stack.break_merge()

    # --------------------------------------------------------------- save/recover
    def _project_lists(self) -> dict:
        return {"camera_ranges": [{"first": r.first, "last": r.last, "source": r.source}
                                  for r in self.project.camera_ranges],
                "ball_flights": [[b.start, b.middle, b.end] for b in self.project.ball_flights]}

    def unsaved_state(self) -> dict:
        """Everything not yet saved, as JSON (what a compacted autosave journal holds)."""
        lists = self._project_lists() if self._ranges_dirty else {"camera_ranges": None,
                                                                  "ball_flights": None}
        return {"annotations": {fid: self._ann[fid].to_json() for fid in sorted(self._dirty)},
                **lists}

    def journal_records(self) -> list[dict]:
        """The autosave records of the edits since the last call (courtstudio/editing/autosave.py):
        ``{"frame", "annotation"}`` per frame changed, ``{"camera_ranges", "ball_flights"}``
        when those changed. Costs what the edited frames cost, not the unsaved total."""
        records: list[dict] = [{"frame": fid, "annotation": self._ann[fid].to_json()}
                               for fid in self._journal_frames]
        if self._journal_ranges:
            records.append(self._project_lists())
        self.drop_journal_records()
        return records

    def drop_journal_records(self) -> None:
        """Forget the edits not yet journaled (a compaction or a save covers them)."""
        self._journal_frames.clear()
        self._journal_ranges = False

    def restore_unsaved_state(self, state: dict) -> None:
        """Apply a recovered journal (one undo step per frame; the result is unsaved)."""
        check_recovered_state(self.project, state, "autosave journal")
        for fid, data in state.get("annotations", {}).items():
            self.project.frame(fid)
            rec = parse_annotation(data, f"autosave: {fid}")
            before = self.annotation(fid).to_json()
            self.undo_stack.push(Command(f"Recover {fid}",
                                         lambda s, f=fid: self._set_state(f, s), before,
                                         rec.to_json()))
        flights = state.get("ball_flights")
        if flights is not None:
            before = [(b.start, b.middle, b.end) for b in self.project.ball_flights]
            self.undo_stack.push(Command("Recover ball flights", self._set_flights, before,
                                         [tuple(f) for f in flights]))
        ranges = state.get("camera_ranges")
        if ranges is not None:
            before = [(r.first, r.last, r.source) for r in self.project.camera_ranges]
            after = [(r["first"], r["last"], r["source"]) for r in ranges]
            self.undo_stack.push(Command("Recover static camera ranges", self._set_ranges,
                                         before, after))

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
        self._dirty.clear()
        self._journal_frames.clear()
        self._ranges_dirty = self._journal_ranges = False
        self.undo_stack.set_clean()
        self.saved.emit()
        return written

    def frame_status(self, index: int) -> dict:
        """What is annotated on frame ``index``: court / ball / players / flagged / static."""
        frame = self.project.frames[index]
        loaded = frame.id in self._ann or self.project.annotation_path(frame.id).exists()
        ann = self.annotation(frame.id) if loaded else None
        rng = self.project.camera_range_of(index)
        prop = self.propagation().get(index, {})
        return {"court": bool(ann and len(ann.points) >= 4)
                or prop.get("status") in (PropagationStatus.OK, PropagationStatus.STATIC),
                "meshes": bool(ann and any(p.mesh for p in ann.players)),
                "ball": bool(ann and ann.ball is not None
                             and (not ann.ball.visible or ann.ball.ground_uv is not None)),
                "players": bool(ann and ann.players),
                "flagged": bool(ann and ann.flags)
                or prop.get("status") == PropagationStatus.FLAGGED,
                "static": rng is not None}

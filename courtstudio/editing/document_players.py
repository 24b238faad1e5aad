"""The annotation document's player edits: boxes, heights, meshes, tracked and proposed
players, HMR imports (a mixin of ``AnnotationDocument``, courtstudio/editing/document.py).

Meshes are stored once per content under ``PROJECT/meshes/<frame id>/`` so an annotation, its
undo history and the autosave journal can all refer to them by path.
"""

from __future__ import annotations

import hashlib

import numpy as np

from courtstudio.io.player_ids import new_player_ids
from courtstudio.io.project import FrameAnnotation, PlayerAnnotation, Project, ProjectError
from hmr.person_mesh import PersonMesh


def store_person_mesh(project: Project, frame_id: str, pid: int, mesh: PersonMesh) -> str:
    """Write a mesh once under meshes/<frame id>/, named by its content (so an annotation,
    its undo history and the autosave journal can all refer to it); returns the path relative
    to the project."""
    digest = hashlib.sha1(
        mesh.vertices_cam.astype(np.float32).tobytes() + mesh.faces.astype(np.int32).tobytes()
    ).hexdigest()[:12]
    rel = f"meshes/{frame_id}/player_{int(pid)}_{digest}.npz"
    path = project.inside(rel, f"frame {frame_id!r} mesh")
    if not path.exists():
        mesh.save_npz(path)
    return rel


class PlayerEdits:
    """Player edits over ``self.annotation`` / ``self._edit`` / ``self._meshes`` of the
    document (one undo step each)."""

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
            a.players = [p for p in a.players if p.id != pid] + [
                PlayerAnnotation(pid, box, h, mesh)
            ]
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

    def import_people(
        self, frame_id: str, assignments: list[tuple[int | None, tuple, PersonMesh]]
    ) -> list[int]:
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
                    a.players.append(PlayerAnnotation(pid, tuple(float(c) for c in box), None, rel))
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

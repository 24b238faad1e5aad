"""The project: a folder with a versioned project file, frames, per-frame annotations.

Layout (docs/formats.md)::

    PROJECT/courtstudio_project.json   {"format": "courtstudio.project", "format_version": 1,
                                        "name", "sport", "frames": [{"id", "image", "sport"?}]}
    PROJECT/frames/...                 images the project refers to (paths relative to PROJECT)
    PROJECT/annotations/<id>.json      one per annotated frame (FrameAnnotation)
    PROJECT/truth/<id>.json            optional ground truth (synthetic frames)

The annotation file is a superset of the points file, so it can be passed to
``courtstudio calibrate --points``. Loading validates and names the bad field; unknown keys are
kept; saves are atomic; a newer format_version is refused without touching the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from court_specs import available_specs
from courtstudio.io.annotation_file import (  # noqa: F401
    ANNOTATION_FORMAT,
    POINT_FLAGS,
    BallAnnotation,
    FrameAnnotation,
    PlayerAnnotation,
    _pixel,
    load_annotation,
    parse_annotation,
)
from courtstudio.io.file_schemas import (
    PROJECT_SCHEMA,
    RECOVERED_STATE_SCHEMA,
    check_schema,
)
from courtstudio.io.points_file import InputError, read_json
from courtstudio.io.project_format import (  # noqa: F401
    FORMAT_VERSION,
    ProjectError,
    _check_version,
)
from courtstudio.io.project_paths import (
    bounded_int,
    check_frame_id,
    check_project_folders,
    resolve_inside,
)
from safe_io.atomic import write_json_atomic

PROJECT_FILE = "courtstudio_project.json"
PROJECT_FORMAT = "courtstudio.project"


@dataclass
class FrameRef:
    """A frame: an image file, or frame ``index`` of a ``video`` (paths relative to the
    project folder, inside it)."""

    id: str
    image: str | None
    sport: str
    video: str | None = None
    index: int | None = None


@dataclass(frozen=True)
class CameraRange:
    """Frames first..last (project frame indices, inclusive) reuse frame ``source``'s camera
    (a static camera). A frame with its own court points uses its own calibration."""

    first: int
    last: int
    source: str


@dataclass(frozen=True)
class BallFlightMarks:
    """A ball flight between a hit and the next bounce or hit: the frames (ids) where the
    annotator lifted the ball at its start, middle and end."""

    start: str
    middle: str
    end: str


@dataclass
class Project:
    root: Path
    name: str
    sport: str
    frames: list[FrameRef]
    raw: dict = field(default_factory=dict, repr=False)
    camera_ranges: list[CameraRange] = field(default_factory=list)
    ball_flights: list[BallFlightMarks] = field(default_factory=list)
    fps: float = 25.0

    @property
    def path(self) -> Path:
        return self.root / PROJECT_FILE

    def frame(self, frame_id: str) -> FrameRef:
        return self.frames[self.index_of(frame_id)]

    def inside(self, rel: str, where: str) -> Path:
        """``root / rel``, refusing a path that leaves the project (also through a link)."""
        return resolve_inside(self.root, rel, f"{self.path}: {where}", ProjectError)

    def image_path(self, frame: FrameRef) -> Path:
        if frame.image is None:
            raise ProjectError(f"{self.path}: frame {frame.id!r} is a video frame, not an image")
        return self.inside(frame.image, f"frame {frame.id!r} image")

    def video_path(self, frame: FrameRef) -> Path:
        return self.inside(frame.video, f"frame {frame.id!r} video")

    def mesh_path(self, rel: str) -> Path:
        """A player's mesh file (an annotation's ``players[].mesh``)."""
        return self.inside(rel, "player mesh")

    def index_of(self, frame_id: str) -> int:
        """Position of a frame, from an id table built once (the app asks on every edit, and
        a video project has thousands of frames)."""
        table = self.__dict__.get("_index")
        if table is None or len(table) != len(self.frames):
            table = self.__dict__["_index"] = {f.id: i for i, f in enumerate(self.frames)}
        try:
            return table[frame_id]
        except KeyError:
            raise ProjectError(f"{self.path}: no frame {frame_id!r}") from None

    def camera_range_of(self, index: int) -> CameraRange | None:
        """The static-camera range containing frame ``index`` (the last defined wins)."""
        for r in reversed(self.camera_ranges):
            if r.first <= index <= r.last:
                return r
        return None

    def annotation_path(self, frame_id: str) -> Path:
        """``annotations/<id>.json``; a bad id (or a linked folder) never yields a path
        outside the project, whatever is in memory."""
        check_frame_id(frame_id, f"{self.path}: frame id", ProjectError)
        # no resolve() here: the timeline asks for every frame; the folder was checked at
        # load, a link in it is checked where it is read or written
        return self.root / "annotations" / f"{frame_id}.json"

    def has_annotation_file(self, frame_id: str) -> bool:
        """Whether ``annotations/<id>.json`` exists: one listing of the folder, kept current
        by save_annotation (the project is locked while open, and nothing here deletes
        annotation files), instead of a stat per frame each time the timeline is drawn."""
        listed = self.__dict__.get("_annotation_files")
        if listed is None:
            listed = self.__dict__["_annotation_files"] = _listed_annotations(self.root)
        return f"{frame_id}.json" in listed

    def truth_path(self, frame_id: str) -> Path:
        check_frame_id(frame_id, f"{self.path}: frame id", ProjectError)
        return self.inside(f"truth/{frame_id}.json", f"frame {frame_id!r} truth")

    def load_annotation(self, frame_id: str) -> FrameAnnotation | None:
        checked = self.__dict__.get("_checked_annotations", {}).pop(frame_id, None)
        if checked is not None:  # parsed by load_project, handed out once
            return checked
        p = self.annotation_path(frame_id)
        if not p.exists():
            return None
        if p.is_symlink():  # the folder was checked at load; a link in it is checked here
            self.inside(f"annotations/{frame_id}.json", f"frame {frame_id!r} annotation")
        return load_annotation(p)

    def save_annotation(self, ann: FrameAnnotation) -> None:
        self.index_of(ann.frame_id)  # only frames of this project have annotation files
        self.annotation_path(ann.frame_id)  # checks the id
        write_json_atomic(
            self.inside(f"annotations/{ann.frame_id}.json", f"frame {ann.frame_id!r} annotation"),
            ann.to_json(),
        )
        listed = self.__dict__.get("_annotation_files")
        if listed is not None:
            listed.add(f"{ann.frame_id}.json")

    def to_json(self) -> dict:
        out = dict(self.raw)
        frames = []
        for f in self.frames:
            d = {"id": f.id}
            if f.image is not None:
                d["image"] = f.image
            else:
                d.update({"video": f.video, "index": f.index})
            if f.sport != self.sport:
                d["sport"] = f.sport
            frames.append(d)
        out.update(
            {
                "format": PROJECT_FORMAT,
                "format_version": FORMAT_VERSION,
                "name": self.name,
                "sport": self.sport,
                "frames": frames,
                "camera_ranges": [
                    {"first": r.first, "last": r.last, "source": r.source}
                    for r in self.camera_ranges
                ],
                "ball_flights": [
                    {"start": b.start, "middle": b.middle, "end": b.end} for b in self.ball_flights
                ],
                "fps": self.fps,
            }
        )
        return out

    def save(self) -> None:
        write_json_atomic(self.path, self.to_json())


def _check_sport(sport: str, where: str, known: frozenset | None = None) -> str:
    """A bundled spec id: a project never names a spec file (it would be read from anywhere).
    ``known``: available_specs(), when the caller checks many frames."""
    if sport not in (known or available_specs()):
        raise ProjectError(
            f"{where}: unknown sport {sport[:80]!r} (a bundled spec id is "
            f"expected); available: {', '.join(available_specs())}"
        )
    return sport


def _check_frame_path(root: Path, rel, where: str, checked: set) -> None:
    if isinstance(rel, str) and rel in checked:  # a video's thousands of frames name one file
        return
    resolve_inside(root, rel, where, ProjectError)  # syntax first, then where it resolves
    checked.add(rel)


def load_project(root) -> Project:
    """Open a project folder (or its project file); raise ProjectError naming the bad field.
    The file's structure, types and ranges are checked against schema/project.schema.json;
    what spans fields or the disk is checked here."""
    root = Path(root)
    path = root if root.is_file() else root / PROJECT_FILE
    root = path.parent
    try:
        data = read_json(path, "project file")
    except InputError as exc:
        raise ProjectError(str(exc)) from None
    _check_version(data, path, PROJECT_FORMAT)
    check_schema(data, PROJECT_SCHEMA, str(path), ProjectError)
    check_project_folders(root, ProjectError)
    name = data.get("name", root.name)
    sport = _check_sport(data["sport"], f"{path}: field sport")
    if not data["frames"]:
        raise ProjectError(f"{path}: field frames: the project has no frames")
    known = frozenset(available_specs())
    frames, seen, folded, checked = [], set(), set(), set()
    for i, fr in enumerate(data["frames"]):
        where = f"{path}: field frames[{i}]"
        fid, image, video, index = fr["id"], fr.get("image"), fr.get("video"), fr.get("index")
        check_frame_id(fid, f"{where}.id", ProjectError)
        if fid.casefold() in folded:  # one annotation file on a case-insensitive disk
            raise ProjectError(
                f"{where}.id: duplicate frame id {fid!r} (ids must differ in more than letter case)"
            )
        seen.add(fid)
        folded.add(fid.casefold())
        if video is not None:
            _check_frame_path(root, video, f"{where}.video", checked)
            if index is None:
                raise ProjectError(f"{where}.index: a video frame needs its frame index")
            image, index = None, int(index)
        else:
            _check_frame_path(root, image, f"{where}.image", checked)
        fsport = _check_sport(fr.get("sport", sport), f"{where}.sport", known)
        frames.append(FrameRef(fid, image, fsport, video, index))
    ranges = []
    for i, r in enumerate(data.get("camera_ranges", [])):
        where = f"{path}: field camera_ranges[{i}]"
        if not r["first"] <= r["last"] < len(frames):
            raise ProjectError(
                f"{where}: frames {r['first']}..{r['last']} are not in the "
                f"project (0..{len(frames) - 1})"
            )
        if r["source"] not in seen:
            raise ProjectError(f"{where}.source: no frame {r['source'][:60]!r}")
        ranges.append(CameraRange(int(r["first"]), int(r["last"]), r["source"]))
    flights = []
    for i, b in enumerate(data.get("ball_flights", [])):
        for k in ("start", "middle", "end"):
            if b[k] not in seen:
                raise ProjectError(
                    f"{path}: field ball_flights[{i}].{k}: no frame {b[k][:60]!r} in this project"
                )
        flights.append(BallFlightMarks(b["start"], b["middle"], b["end"]))
    project = Project(
        root=root,
        name=name,
        sport=sport,
        frames=frames,
        raw=data,
        camera_ranges=ranges,
        ball_flights=flights,
        fps=float(data.get("fps", 25.0)),
    )
    project.__dict__["_checked_annotations"] = _check_annotations(project)
    return project


def _check_annotations(project: Project) -> dict[str, FrameAnnotation]:
    """Parse every frame's annotation file now, so a bad one fails the open (naming the file
    and field) instead of a later save; its mesh paths must stay inside the project."""
    names = _listed_annotations(project.root)
    project.__dict__["_annotation_files"] = names
    out = {}
    for f in project.frames:
        if f"{f.id}.json" in names:
            ann = project.load_annotation(f.id)
            for i, p in enumerate(ann.players):
                if p.mesh is not None:
                    resolve_inside(
                        project.root,
                        p.mesh,
                        f"{project.annotation_path(f.id)}: field players[{i}].mesh",
                        ProjectError,
                    )
            out[f.id] = ann
    return out


def _listed_annotations(root: Path) -> set[str]:
    """The file names in ``root/annotations`` (empty when the folder does not exist)."""
    folder = root / "annotations"
    try:
        return {e.name for e in os.scandir(folder)}
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise ProjectError(f"{folder}: cannot list ({exc.strerror})") from None


def check_recovered_state(project: Project, state: dict, where: str) -> None:
    """Validate a recovery journal's unsaved state (what ``restore_unsaved_state`` applies)
    as strictly as the project's own files: schema/recovered_state.schema.json, then every
    annotation is keyed by a frame of this project and carries that frame's id, mesh paths
    stay inside the project, ranges, flights and the flight draft name this project's frames. Raises
    ProjectError naming ``where`` and the field."""
    check_schema(state, RECOVERED_STATE_SCHEMA, where, ProjectError)
    ids = {f.id for f in project.frames}
    for fid, data in state.get("annotations", {}).items():
        if fid not in ids:
            raise ProjectError(
                f"{where}: field annotations.{fid[:60]}: not a frame of this project"
            )
        ann = parse_annotation(data, f"{where}: annotations.{fid}", frame_id=fid)
        for p in ann.players:
            if p.mesh is not None:
                project.inside(p.mesh, f"{where}: annotations.{fid} mesh")
    n = len(project.frames)
    for i, r in enumerate(state.get("camera_ranges") or []):
        w = f"{where}: field camera_ranges[{i}]"
        first = bounded_int(r["first"], f"{w}.first", ProjectError, 0, n - 1)
        bounded_int(r["last"], f"{w}.last", ProjectError, first, n - 1)
        if r["source"] not in ids:
            raise ProjectError(f"{w}.source: no frame {r['source'][:60]!r} in this project")
    for i, b in enumerate(state.get("ball_flights") or []):
        for f in b:
            if f not in ids:
                raise ProjectError(
                    f"{where}: field ball_flights[{i}]: no frame {f[:60]!r} in this project"
                )
    if state.get("propagation_masks") is not None:  # the image bounds: ProjectMasks.restore
        from courtstudio.io.masks_file import check_mask_boxes

        check_mask_boxes(state["propagation_masks"], f"{where}: field propagation_masks")
    for part, f in (state.get("flight_draft") or {}).items():
        if f not in ids:
            raise ProjectError(
                f"{where}: field flight_draft.{part}: no frame {f[:60]!r} in this project"
            )

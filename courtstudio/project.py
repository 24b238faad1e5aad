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

from dataclasses import dataclass, field
from pathlib import Path

from court_specs import SpecError, available_specs, load_spec
from courtstudio.points_file import InputError, parse_image_size, parse_points, read_json
from exporters.atomic import write_json_atomic

PROJECT_FILE = "courtstudio_project.json"
PROJECT_FORMAT = "courtstudio.project"
ANNOTATION_FORMAT = "courtstudio.annotation"
FORMAT_VERSION = 1


class ProjectError(InputError):
    """A project or annotation file is malformed; the message names the file and field."""


@dataclass
class FrameRef:
    """A frame: an image file, or frame ``index`` of a ``video`` (paths relative to the
    project folder, or absolute)."""

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
class PlayerAnnotation:
    """A player box (px, xyxy) with a stable id (Player N), and the annotated height of the
    mesh's lowest vertex when known."""

    id: int
    box_xyxy: tuple[float, float, float, float]
    lowest_vertex_height_m: float | None = None
    mesh: str | None = None  # a PersonMesh .npz, relative to the project folder


@dataclass
class BallAnnotation:
    """The ball tool's two clicks (px) and the projection plane's name."""

    visible: bool
    uv: tuple[float, float] | None = None
    ground_uv: tuple[float, float] | None = None
    plane: str | None = None


@dataclass
class FrameAnnotation:
    frame_id: str
    image_size: tuple[int, int]
    points: dict[str, tuple[float, float]] = field(default_factory=dict)
    ball: BallAnnotation | None = None
    players: list[PlayerAnnotation] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def is_empty(self) -> bool:
        return not self.points and self.ball is None and not self.players and not self.flags

    def player(self, pid: int) -> PlayerAnnotation | None:
        return next((p for p in self.players if p.id == pid), None)

    def to_json(self) -> dict:
        out = dict(self.raw)
        out.update({"format": ANNOTATION_FORMAT, "format_version": FORMAT_VERSION,
                    "frame_id": self.frame_id, "image_size": list(self.image_size),
                    "points": {k: list(v) for k, v in self.points.items()}})
        out.pop("ball", None)
        out["players"] = [{"id": p.id, "box_xyxy": list(p.box_xyxy),
                           **({"lowest_vertex_height_m": p.lowest_vertex_height_m}
                              if p.lowest_vertex_height_m is not None else {}),
                           **({"mesh": p.mesh} if p.mesh is not None else {})}
                          for p in self.players]
        out["flags"] = list(self.flags)
        if self.ball is not None:
            b = {"visible": self.ball.visible}
            if self.ball.uv is not None:
                b["uv"] = list(self.ball.uv)
            if self.ball.ground_uv is not None:
                b["ground_uv"] = list(self.ball.ground_uv)
            if self.ball.plane is not None:
                b["plane"] = self.ball.plane
            out["ball"] = b
        return out


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


    def image_path(self, frame: FrameRef) -> Path:
        if frame.image is None:
            raise ProjectError(f"{self.path}: frame {frame.id!r} is a video frame, not an image")
        return self.root / frame.image

    def video_path(self, frame: FrameRef) -> Path:
        return self.root / frame.video

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
        return self.root / "annotations" / f"{frame_id}.json"

    def truth_path(self, frame_id: str) -> Path:
        return self.root / "truth" / f"{frame_id}.json"

    def load_annotation(self, frame_id: str) -> FrameAnnotation | None:
        p = self.annotation_path(frame_id)
        return load_annotation(p) if p.exists() else None

    def save_annotation(self, ann: FrameAnnotation) -> None:
        write_json_atomic(self.annotation_path(ann.frame_id), ann.to_json())

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
        out.update({"format": PROJECT_FORMAT, "format_version": FORMAT_VERSION,
                    "name": self.name, "sport": self.sport, "frames": frames,
                    "camera_ranges": [{"first": r.first, "last": r.last, "source": r.source}
                                      for r in self.camera_ranges],
                    "ball_flights": [{"start": b.start, "middle": b.middle, "end": b.end}
                                     for b in self.ball_flights],
                    "fps": self.fps})
        return out

    def save(self) -> None:
        write_json_atomic(self.path, self.to_json())


def _check_version(data: dict, path: Path, fmt: str) -> None:
    if data.get("format") != fmt:
        raise ProjectError(f"{path}: field format: expected {fmt!r}, got {data.get('format')!r}")
    v = data.get("format_version")
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ProjectError(f"{path}: field format_version: expected a positive integer")
    if v > FORMAT_VERSION:
        raise ProjectError(f"{path}: format_version {v} is newer than this CourtStudio reads "
                           f"({FORMAT_VERSION}); upgrade CourtStudio. The file was not changed")


def _check_sport(sport, where: str) -> str:
    if not isinstance(sport, str):
        raise ProjectError(f"{where}: expected a sport id string")
    try:
        load_spec(sport)
    except SpecError:
        raise ProjectError(f"{where}: unknown sport {sport!r}; available: "
                           f"{', '.join(available_specs())}") from None
    return sport


def load_project(root) -> Project:
    """Open a project folder (or its project file); raise ProjectError naming the bad field."""
    root = Path(root)
    path = root if root.is_file() else root / PROJECT_FILE
    root = path.parent
    try:
        data = read_json(path, "project file")
    except InputError as exc:
        raise ProjectError(str(exc)) from None
    _check_version(data, path, PROJECT_FORMAT)
    name = data.get("name", root.name)
    sport = _check_sport(data.get("sport"), f"{path}: field sport")
    frames_raw = data.get("frames")
    if not isinstance(frames_raw, list):
        raise ProjectError(f"{path}: field frames: expected a list")
    frames, seen = [], set()
    for i, fr in enumerate(frames_raw):
        where = f"{path}: field frames[{i}]"
        if not isinstance(fr, dict):
            raise ProjectError(f"{where}: expected an object")
        fid, image = fr.get("id"), fr.get("image")
        if not isinstance(fid, str) or not fid or "/" in fid or fid.startswith("."):
            raise ProjectError(f"{where}.id: expected a non-empty file-safe string")
        if fid in seen:
            raise ProjectError(f"{where}.id: duplicate frame id {fid!r}")
        seen.add(fid)
        video, index = fr.get("video"), fr.get("index")
        if video is not None:
            if not isinstance(video, str) or not video:
                raise ProjectError(f"{where}.video: expected a path relative to the project")
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise ProjectError(f"{where}.index: expected a frame number >= 0")
            image = None
        elif not isinstance(image, str) or not image:
            raise ProjectError(f"{where}.image: expected a path relative to the project")
        fsport = _check_sport(fr.get("sport", sport), f"{where}.sport")
        frames.append(FrameRef(fid, image, fsport, video, index))
    ranges = []
    for key in ("camera_ranges", "ball_flights"):
        if not isinstance(data.get(key, []), list):
            raise ProjectError(f"{path}: field {key}: expected a list")
    for i, r in enumerate(data.get("camera_ranges", [])):
        where = f"{path}: field camera_ranges[{i}]"
        if not isinstance(r, dict) or not all(isinstance(r.get(k), int) for k in ("first",
                                                                                  "last")):
            raise ProjectError(f"{where}: expected {{first, last, source}}")
        if not 0 <= r["first"] <= r["last"] < len(frames):
            raise ProjectError(f"{where}: frames {r['first']}..{r['last']} are not in the "
                               f"project (0..{len(frames) - 1})")
        if not isinstance(r.get("source"), str) or r["source"] not in seen:
            raise ProjectError(f"{where}.source: no frame {r.get('source')!r}")
        ranges.append(CameraRange(r["first"], r["last"], r["source"]))
    flights = []
    for i, b in enumerate(data.get("ball_flights", [])):
        where = f"{path}: field ball_flights[{i}]"
        if not isinstance(b, dict) or any(not isinstance(b.get(k), str) or b[k] not in seen
                                          for k in ("start", "middle", "end")):
            raise ProjectError(f"{where}: expected {{start, middle, end}} frame ids of this "
                               "project")
        flights.append(BallFlightMarks(b["start"], b["middle"], b["end"]))
    fps = data.get("fps", 25.0)
    if not isinstance(fps, (int, float)) or fps <= 0:
        raise ProjectError(f"{path}: field fps: expected frames per second > 0")
    return Project(root=root, name=name, sport=sport, frames=frames, raw=data,
                   camera_ranges=ranges, ball_flights=flights, fps=float(fps))


def load_annotation(path) -> FrameAnnotation:
    path = Path(path)
    try:
        data = read_json(path, "annotation file")
    except InputError as exc:
        raise ProjectError(str(exc)) from None
    return parse_annotation(data, path)


def parse_annotation(data: dict, path) -> FrameAnnotation:
    """Validate an annotation record (``path`` names it in errors)."""
    _check_version(data, path, ANNOTATION_FORMAT)
    fid = data.get("frame_id")
    if not isinstance(fid, str):
        raise ProjectError(f"{path}: field frame_id: expected a string")
    try:
        size = parse_image_size(data.get("image_size"), f"{path}: field image_size")
        points = parse_points(data.get("points", {}), f"{path}: field points")
    except InputError as exc:
        raise ProjectError(str(exc)) from None
    ball = None
    b = data.get("ball")
    if b is not None:
        if not isinstance(b, dict) or not isinstance(b.get("visible"), bool):
            raise ProjectError(f"{path}: field ball.visible: expected true or false")
        uv = gu = None
        try:
            if "uv" in b:
                uv = parse_points({"uv": b["uv"]}, f"{path}: field ball")["uv"]
            if "ground_uv" in b:
                gu = parse_points({"ground_uv": b["ground_uv"]}, f"{path}: field ball")[
                    "ground_uv"]
        except InputError as exc:
            raise ProjectError(str(exc)) from None
        if b["visible"] and uv is None:
            raise ProjectError(f"{path}: field ball.uv: a visible ball needs its pixel")
        plane = b.get("plane")
        if plane is not None and not isinstance(plane, str):
            raise ProjectError(f"{path}: field ball.plane: expected a plane name")
        ball = BallAnnotation(b["visible"], uv, gu, plane)
    players, ids = [], set()
    for i, pl in enumerate(data.get("players", [])):
        where = f"{path}: field players[{i}]"
        if not isinstance(pl, dict) or not isinstance(pl.get("id"), int) or pl["id"] < 1:
            raise ProjectError(f"{where}.id: expected a player number >= 1")
        if pl["id"] in ids:
            raise ProjectError(f"{where}.id: duplicate player {pl['id']}")
        ids.add(pl["id"])
        box = pl.get("box_xyxy")
        if (not isinstance(box, list) or len(box) != 4
                or not all(isinstance(c, (int, float)) for c in box)
                or not (box[0] < box[2] and box[1] < box[3])):
            raise ProjectError(f"{where}.box_xyxy: expected [x0, y0, x1, y1] with x0 < x1, "
                               "y0 < y1")
        h = pl.get("lowest_vertex_height_m")
        if h is not None and not isinstance(h, (int, float)):
            raise ProjectError(f"{where}.lowest_vertex_height_m: expected metres")
        mesh = pl.get("mesh")
        if mesh is not None and (not isinstance(mesh, str) or not mesh):
            raise ProjectError(f"{where}.mesh: expected a path relative to the project")
        players.append(PlayerAnnotation(pl["id"], tuple(float(c) for c in box), h, mesh))
    flags = data.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise ProjectError(f"{path}: field flags: expected a list of strings")
    return FrameAnnotation(fid, size, points, ball, players, list(flags), raw=data)

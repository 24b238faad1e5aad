"""The per-frame annotation file (``annotations/<id>.json``, docs/formats.md): its records
(FrameAnnotation with its players and ball), reading one and validating one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from courtstudio.io.file_schemas import ANNOTATION_SCHEMA, check_schema
from courtstudio.io.points_file import InputError, read_json
from courtstudio.io.project_format import FORMAT_VERSION, ProjectError, _check_version
from courtstudio.io.project_paths import check_frame_id, relative_path_problem

ANNOTATION_FORMAT = "courtstudio.annotation"


POINT_FLAGS = ("occluded", "estimated")  # FrameAnnotation.point_flags values


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
    # {keypoint name: 'occluded' | 'estimated'}: a click placed where the point should be but
    # cannot be seen; kept and drawn, left out of the calibration (calibration_points)
    point_flags: dict[str, str] = field(default_factory=dict)

    @property
    def calibration_points(self) -> dict[str, tuple[float, float]]:
        """The clicks the calibration uses: every click not flagged occluded / estimated."""
        return {n: uv for n, uv in self.points.items() if n not in self.point_flags}

    @property
    def is_empty(self) -> bool:
        return not self.points and self.ball is None and not self.players and not self.flags

    def player(self, pid: int) -> PlayerAnnotation | None:
        return next((p for p in self.players if p.id == pid), None)

    def to_json(self) -> dict:
        out = dict(self.raw)
        out.update(
            {
                "format": ANNOTATION_FORMAT,
                "format_version": FORMAT_VERSION,
                "frame_id": self.frame_id,
                "image_size": list(self.image_size),
                "points": {k: list(v) for k, v in self.points.items()},
            }
        )
        out.pop("ball", None)
        out["players"] = [
            {
                "id": p.id,
                "box_xyxy": list(p.box_xyxy),
                **(
                    {"lowest_vertex_height_m": p.lowest_vertex_height_m}
                    if p.lowest_vertex_height_m is not None
                    else {}
                ),
                **({"mesh": p.mesh} if p.mesh is not None else {}),
            }
            for p in self.players
        ]
        out["flags"] = list(self.flags)
        out.pop("point_flags", None)
        flags = {n: f for n, f in self.point_flags.items() if n in self.points}
        if flags:
            out["point_flags"] = flags
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


def load_annotation(path) -> FrameAnnotation:
    """An annotation file; its ``frame_id`` must be the file's stem (``<id>.json``)."""
    path = Path(path)
    try:
        data = read_json(path, "annotation file")
    except InputError as exc:
        raise ProjectError(str(exc)) from None
    return parse_annotation(data, path, frame_id=path.stem)


def _pixel(uv: list | None) -> tuple[float, float] | None:
    return None if uv is None else (float(uv[0]), float(uv[1]))


def parse_annotation(data: dict, path, frame_id: str | None = None) -> FrameAnnotation:
    """Validate an annotation record (``path`` names it in errors); ``frame_id``: the id
    the record must carry (its file's stem, or its frame in a recovery journal). The record's
    structure, types and ranges are checked against schema/annotation.schema.json; what spans
    fields is checked here."""
    if not isinstance(data, dict):
        raise ProjectError(f"{path}: expected a JSON object")
    _check_version(data, path, ANNOTATION_FORMAT)
    check_schema(data, ANNOTATION_SCHEMA, str(path), ProjectError)
    fid = check_frame_id(data["frame_id"], f"{path}: field frame_id", ProjectError)
    if frame_id is not None and fid != frame_id:
        raise ProjectError(f"{path}: field frame_id: {fid!r} is not this file's frame {frame_id!r}")
    w, h = (int(v) for v in data["image_size"])  # whole numbers (the schema's integers)
    points = {name: _pixel(uv) for name, uv in data.get("points", {}).items()}
    ball = None
    b = data.get("ball")
    if b is not None:
        if b["visible"] and "uv" not in b:
            raise ProjectError(f"{path}: field ball.uv: a visible ball needs its pixel")
        ball = BallAnnotation(
            b["visible"], _pixel(b.get("uv")), _pixel(b.get("ground_uv")), b.get("plane")
        )
    players, ids = [], set()
    for i, pl in enumerate(data.get("players", [])):
        where = f"{path}: field players[{i}]"
        pid = int(pl["id"])
        if pid in ids:
            raise ProjectError(f"{where}.id: duplicate player {pid}")
        ids.add(pid)
        box = [float(c) for c in pl["box_xyxy"]]
        if not (box[0] < box[2] and box[1] < box[3]):
            raise ProjectError(f"{where}.box_xyxy: expected [x0, y0, x1, y1] with x0 < x1, y0 < y1")
        h_m = pl.get("lowest_vertex_height_m")
        mesh = pl.get("mesh")
        if mesh is not None and relative_path_problem(mesh):
            raise ProjectError(f"{where}.mesh: {relative_path_problem(mesh)}")
        players.append(
            PlayerAnnotation(
                pid, (box[0], box[1], box[2], box[3]), None if h_m is None else float(h_m), mesh
            )
        )
    pflags = data.get("point_flags", {})
    return FrameAnnotation(
        fid,
        (w, h),
        points,
        ball,
        players,
        list(data.get("flags", [])),
        raw=data,
        point_flags={k: v for k, v in pflags.items() if k in points},
    )

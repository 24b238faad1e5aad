"""The world-grounded scene file: one JSON per frame, bulk arrays in an HDF5 file beside it.

Format ``courtstudio.scene`` version 1 (docs/formats.md, schema/scene.schema.json). Saving is
atomic (HDF5 first, then the JSON that refers to it). Loading validates against the schema and
reports the path of the first bad field (``players[1].joints_world.head``); keys this version
does not know are kept and written back on save.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import metadata, resources
from pathlib import Path

import h5py
import numpy as np

from geometry.camera import Camera
from geometry.errors import GeometryError
from safe_io.atomic import atomic_path, write_json_atomic
from safe_io.validation import (
    MAX_ABS_PIXEL,
    MAX_ABS_WORLD_M,
    check_finite_array,
    check_regular_file,
    first_schema_error,
    read_json_file,
)

SCENE_FORMAT = "courtstudio.scene"
SCENE_FORMAT_VERSION = 1
FRAME_CONVENTION = "courtsi-v1"
JOINT_NAMES = ("pelvis", "head", "left_hand", "right_hand", "left_foot", "right_foot")
# a file of the package (pyproject.toml package-data), found the way an installed wheel has it
SCHEMA_PATH = Path(str(resources.files("exporters").joinpath("schema", "scene.schema.json")))


def _tool_version() -> str:
    """The installed package's version (pyproject.toml), for the files' provenance."""
    try:
        return metadata.version("courtstudio")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


TOOL_VERSION = _tool_version()
MAX_MESH_VERTICES = 2_000_000  # per player, checked from the HDF5 dataset shape before reading
MAX_MESH_FACES = 4_000_000


class BallStatus(StrEnum):
    """The scene file's optional ``ball.status`` (the schema's enum; docs/formats.md)."""

    NOT_ANNOTATED = "not_annotated"  # nobody looked
    NOT_VISIBLE = "not_visible"  # marked absent or occluded
    IMAGE_ONLY = "image_only"  # a pixel, no 3D
    IN_3D = "3d"  # lifted or flight-fitted


class SceneError(ValueError):
    """A scene file is missing, malformed or inconsistent; names the file and the field."""


@dataclass
class BallRecord:
    """The ball. uv, ground_uv: (2,) px; world: (3,) m; sigma_world_m: (3,) 1-sigma, m."""

    visible: bool
    uv: np.ndarray | None = None
    ground_uv: np.ndarray | None = None
    world: np.ndarray | None = None
    height_m: float | None = None
    sigma_world_m: np.ndarray | None = None
    plane: str = "court"
    method: str = "ray_ground_projection"
    status: BallStatus | None = None  # optional (older files have none)


@dataclass
class PlayerRecord:
    """A player. box_xyxy: (4,) px; joints_world: name -> (3,) m (empty without a mesh);
    ground_world: (3,) m, the box's bottom-centre on the court; vertices_world: (V, 3) m;
    faces: (F, 3) int; scale: the rescale factor applied about the camera centre."""

    id: int
    box_xyxy: np.ndarray
    joints_world: dict[str, np.ndarray] = field(default_factory=dict)
    ground_world: np.ndarray | None = None
    vertices_world: np.ndarray | None = None
    faces: np.ndarray | None = None
    scale: float | None = None
    lowest_vertex_height_m: float | None = None
    source: str = ""
    role: str | None = None  # optional: athlete | other
    facing_world: np.ndarray | None = None  # optional (3,) unit horizontal vector


@dataclass
class Scene:
    """One frame's reconstruction. camera_info: the calibration's JSON (diagnostics included)."""

    frame_id: str
    image: str
    image_size: tuple[int, int]
    spec_id: str
    camera: Camera
    camera_info: dict = field(default_factory=dict)
    ball: BallRecord = field(default_factory=lambda: BallRecord(visible=False))
    players: list[PlayerRecord] = field(default_factory=list)
    frame_index: int | None = None
    frame_phrase: str = ""
    world_convention: str = ""  # 'end_on' | 'side_on' (docs/frames.md); '' = not recorded
    provenance: dict = field(default_factory=dict)
    match_id: str | None = None  # optional ids (QA splits), and the spec's version
    clip_id: str | None = None
    spec_version: int | str | None = None
    time_s: float | None = None  # optional: the frame's time in its project (index / fps)
    raw: dict = field(default_factory=dict, repr=False)  # as loaded: unknown keys survive


def _vec(a) -> list[float]:
    return [float(v) for v in np.asarray(a, float).ravel()]


def _merge(old, new):
    """new over old, recursively for dicts; keeps old's keys that new lacks."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = dict(old)
        for k, v in new.items():
            out[k] = _merge(old.get(k), v)
        return out
    return new


def scene_to_json(scene: Scene, hdf5_name: str | None) -> dict:
    """The JSON record of a scene. hdf5_name: file name of the HDF5 beside it (meshes)."""
    cam = {**scene.camera_info, **scene.camera.to_dict()}
    b = scene.ball
    ball = {"visible": bool(b.visible)}
    if b.visible:
        ball.update(
            {
                "uv": _vec(b.uv),
                "world": _vec(b.world),
                "height_m": float(b.height_m),
                "plane": b.plane,
                "method": b.method,
            }
        )
        if b.ground_uv is not None:
            ball["ground_uv"] = _vec(b.ground_uv)
        if b.sigma_world_m is not None:
            ball["sigma_world_m"] = _vec(b.sigma_world_m)
    if b.status is not None:
        ball["status"] = b.status
    players_raw = {p.get("id"): p for p in scene.raw.get("players", []) if isinstance(p, dict)}
    players = []
    for p in scene.players:
        rec = {"id": int(p.id), "box_xyxy": _vec(p.box_xyxy), "mesh": None, "source": p.source}
        if p.joints_world:
            rec["joints_world"] = {k: _vec(v) for k, v in p.joints_world.items()}
        if p.ground_world is not None:
            rec["ground_world"] = _vec(p.ground_world)
        if p.vertices_world is not None:
            if hdf5_name is None:
                raise SceneError("a player has a mesh but no HDF5 file name was given")
            rec["mesh"] = {
                "hdf5": hdf5_name,
                "vertices_world": f"/players/{p.id}/vertices_world",
                "faces": f"/players/{p.id}/faces",
            }
        if p.scale is not None:
            rec["scale"] = float(p.scale)
        if p.lowest_vertex_height_m is not None:
            rec["lowest_vertex_height_m"] = float(p.lowest_vertex_height_m)
        if p.role is not None:
            rec["role"] = p.role
        if p.facing_world is not None:
            rec["facing_world"] = _vec(p.facing_world)
        players.append(_merge(players_raw.get(p.id, {}), rec))
    prov = {
        "tool": "courtstudio",
        "version": TOOL_VERSION,
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **scene.provenance,
    }
    frame = {"id": scene.frame_id, "image": scene.image, "image_size": list(scene.image_size)}
    if scene.frame_index is not None:
        frame["frame_index"] = int(scene.frame_index)
    frame.update(
        {
            k: str(v)
            for k, v in (("match_id", scene.match_id), ("clip_id", scene.clip_id))
            if v is not None
        }
    )
    if scene.time_s is not None:
        frame["time_s"] = float(scene.time_s)
    fresh = {
        "format": SCENE_FORMAT,
        "format_version": SCENE_FORMAT_VERSION,
        "frame": frame,
        "court": {
            "spec_id": scene.spec_id,
            "frame_convention": FRAME_CONVENTION,
            "frame_phrase": scene.frame_phrase,
            **({"world_convention": scene.world_convention} if scene.world_convention else {}),
            **({} if scene.spec_version is None else {"spec_version": scene.spec_version}),
        },
        "camera": cam,
        "ball": ball,
        "players": players,
        "provenance": prov,
    }
    out = _merge({k: v for k, v in scene.raw.items() if k != "players"}, fresh)
    out["players"] = players
    return out


def save_scene(scene: Scene, json_path) -> Path:
    """Write ``<name>.json`` (and ``<name>.h5`` when players have meshes), atomically."""
    json_path = Path(json_path)
    has_mesh = any(p.vertices_world is not None for p in scene.players)
    h5_name = json_path.with_suffix(".h5").name if has_mesh else None
    if has_mesh:
        with atomic_path(json_path.with_suffix(".h5")) as tmp:
            with h5py.File(tmp, "w") as f:
                f.attrs["format"] = SCENE_FORMAT
                f.attrs["format_version"] = SCENE_FORMAT_VERSION
                for p in scene.players:
                    if p.vertices_world is None:
                        continue
                    g = f.create_group(f"players/{p.id}")
                    g.create_dataset(
                        "vertices_world",
                        data=np.asarray(p.vertices_world, np.float32),
                        compression="gzip",
                        compression_opts=4,
                    )
                    g.create_dataset(
                        "faces",
                        data=np.asarray(p.faces, np.int32),
                        compression="gzip",
                        compression_opts=4,
                    )
    write_json_atomic(json_path, scene_to_json(scene, h5_name))
    return json_path


def validate_scene_json(data, where: str = "scene") -> None:
    """Raise SceneError naming the first bad field of a scene record."""
    if not isinstance(data, dict):
        raise SceneError(f"{where}: expected a JSON object")
    if (
        data.get("format") == SCENE_FORMAT
        and isinstance(data.get("format_version"), int)
        and data["format_version"] > SCENE_FORMAT_VERSION
    ):
        raise SceneError(
            f"{where}: format_version {data['format_version']} is newer than this "
            f"CourtStudio reads ({SCENE_FORMAT_VERSION}); upgrade CourtStudio"
        )
    problem = first_schema_error(SCHEMA_PATH, data)
    if problem:
        raise SceneError(f"{where}: {problem}")


def _check_magnitudes(data: dict, where: str) -> None:
    """Refuse absurd magnitudes: pixels beyond MAX_ABS_PIXEL, world coordinates (metres)
    beyond MAX_ABS_WORLD_M. Fields are named by path."""

    def chk(value, field, limit, shape=None):
        check_finite_array(value, f"{where}: field {field}", SceneError, shape, limit)

    cam, fr, b = data["camera"], data["frame"], data["ball"]
    chk(fr["image_size"], "frame.image_size", MAX_ABS_PIXEL)
    chk(cam["image_size"], "camera.image_size", MAX_ABS_PIXEL)
    chk(cam["K"], "camera.K", MAX_ABS_PIXEL)
    chk(cam["dist"], "camera.dist", MAX_ABS_WORLD_M)
    for k in ("t", "camera_centre_world", "camera_centre_sigma_m"):
        if k in cam:
            chk(cam[k], f"camera.{k}", MAX_ABS_WORLD_M)
    for k in ("rms_px", "focal_sigma_pct"):
        if k in cam:
            chk(cam[k], f"camera.{k}", MAX_ABS_PIXEL)
    for k in ("uv", "ground_uv"):
        if k in b:
            chk(b[k], f"ball.{k}", MAX_ABS_PIXEL)
    for k in ("world", "height_m", "sigma_world_m"):
        if k in b:
            chk(b[k], f"ball.{k}", MAX_ABS_WORLD_M)
    for i, p in enumerate(data["players"]):
        chk(p["box_xyxy"], f"players[{i}].box_xyxy", MAX_ABS_PIXEL)
        for k, v in p.get("joints_world", {}).items():
            chk(v, f"players[{i}].joints_world.{k}", MAX_ABS_WORLD_M)
        for k in ("ground_world", "lowest_vertex_height_m", "scale"):
            if k in p:
                chk(p[k], f"players[{i}].{k}", MAX_ABS_WORLD_M)


def load_scene(json_path, load_meshes: bool = True) -> Scene:
    """Load and validate a scene (and, with ``load_meshes``, its meshes from the HDF5 file
    beside it: a command that needs no mesh never opens it). Raises SceneError naming the file
    and the field: schema, non-finite or absurd numbers (pixels <= 1e6, metres <= 1e4), mesh
    files outside the scene's folder, HDF5 datasets of the wrong shape or over the size
    limits (checked before reading)."""
    json_path = Path(json_path)
    data = read_json_file(json_path, SceneError, "scene file")
    validate_scene_json(data, str(json_path))
    _check_magnitudes(data, str(json_path))
    try:
        camera = Camera.from_dict(data["camera"], "camera")
    except GeometryError as exc:
        raise SceneError(f"{json_path}: field {exc}") from None
    fr = data["frame"]
    b = data["ball"]
    status = None if b.get("status") is None else BallStatus(b["status"])  # schema-checked
    ball = BallRecord(visible=b["visible"], status=status)
    if b["visible"]:
        ball = BallRecord(
            visible=True,
            uv=np.array(b["uv"], float),
            ground_uv=np.array(b["ground_uv"], float) if "ground_uv" in b else None,
            world=np.array(b["world"], float),
            height_m=float(b["height_m"]),
            sigma_world_m=np.array(b["sigma_world_m"], float) if "sigma_world_m" in b else None,
            plane=b.get("plane", "court"),
            method=b["method"],
            status=status,
        )
    players = []
    ids = set()
    for i, p in enumerate(data["players"]):
        if p["id"] in ids:
            raise SceneError(f"{json_path}: field players[{i}].id: duplicate player id {p['id']}")
        ids.add(p["id"])
        V = F = None
        mesh = p.get("mesh")
        if mesh and load_meshes:
            V, F = _read_mesh(json_path, mesh, f"players[{i}].mesh")
        players.append(
            PlayerRecord(
                id=p["id"],
                box_xyxy=np.array(p["box_xyxy"], float),
                joints_world={k: np.array(v, float) for k, v in p.get("joints_world", {}).items()},
                ground_world=np.array(p["ground_world"], float) if "ground_world" in p else None,
                vertices_world=V,
                faces=F,
                scale=p.get("scale"),
                lowest_vertex_height_m=p.get("lowest_vertex_height_m"),
                source=p.get("source", ""),
                role=p.get("role"),
                facing_world=np.array(p["facing_world"], float) if "facing_world" in p else None,
            )
        )
    return Scene(
        frame_id=fr["id"],
        image=fr["image"],
        image_size=tuple(fr["image_size"]),
        spec_id=data["court"]["spec_id"],
        camera=camera,
        camera_info=data["camera"],
        ball=ball,
        players=players,
        frame_index=fr.get("frame_index"),
        frame_phrase=data["court"].get("frame_phrase", ""),
        world_convention=data["court"].get("world_convention", ""),
        match_id=fr.get("match_id"),
        clip_id=fr.get("clip_id"),
        time_s=fr.get("time_s"),
        spec_version=data["court"].get("spec_version"),
        provenance={
            k: v
            for k, v in data["provenance"].items()
            if k not in ("tool", "version", "created_utc")
        },
        raw=data,
    )


def _dataset(f, name: str, shape_ok, max_rows: int, kind: str, where: str, h5_name: str):
    """The checked (shape, dtype) dataset ``name`` of an open HDF5 file, read only when its
    declared shape is (N, 3) with N <= max_rows and its dtype numeric of ``kind`` ('f' or 'i')."""
    try:
        link = f.get(name, getlink=True)
    except (KeyError, ValueError, TypeError):
        link = None
    if isinstance(link, h5py.ExternalLink):
        raise SceneError(f"{where}: {name!r} links to another file; refused")
    obj = f.get(name)
    if not isinstance(obj, h5py.Dataset):
        raise SceneError(f"{where}: dataset {name!r} is not in {h5_name}")
    if obj.external or obj.is_virtual:
        raise SceneError(f"{where}: dataset {name!r} stores its data in other files; refused")
    shape, dtype = obj.shape, obj.dtype
    if shape is None or len(shape) != 2 or shape[1] != 3:
        raise SceneError(f"{where}: expected ({'V' if kind == 'f' else 'F'}, 3), got {shape}")
    if shape[0] > max_rows:
        raise SceneError(f"{where}: {shape[0]} rows, over the limit of {max_rows}")
    if dtype.kind not in (("f", "i", "u") if kind == "f" else ("i", "u")):
        raise SceneError(
            f"{where}: expected {'numbers' if kind == 'f' else 'integers'}, got {dtype}"
        )
    return np.asarray(obj[()], np.float64 if kind == "f" else np.int64)


def _read_mesh(json_path: Path, mesh: dict, where: str):
    name = mesh["hdf5"]
    if not name or Path(name).name != name or name in (".", ".."):
        raise SceneError(
            f"{json_path}: field {where}.hdf5: expected a file name beside the "
            f"scene file, got {name!r}"
        )
    h5_path = json_path.parent / name
    try:
        check_regular_file(h5_path, SceneError, "scene HDF5 file")
    except SceneError as exc:
        raise SceneError(f"{json_path}: field {where}.hdf5: cannot open {exc}") from None
    try:
        with h5py.File(h5_path, "r") as f:
            V = _dataset(
                f,
                mesh["vertices_world"],
                None,
                MAX_MESH_VERTICES,
                "f",
                f"{json_path}: field {where}.vertices_world",
                h5_path.name,
            )
            F = _dataset(
                f,
                mesh["faces"],
                None,
                MAX_MESH_FACES,
                "i",
                f"{json_path}: field {where}.faces",
                h5_path.name,
            )
    except SceneError:
        raise
    except (OSError, KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise SceneError(
            f"{json_path}: field {where}.hdf5: cannot read {h5_path} "
            f"({' '.join(str(exc).split())[:200]})"
        ) from None
    check_finite_array(
        V, f"{json_path}: field {where}.vertices_world", SceneError, max_abs=MAX_ABS_WORLD_M
    )
    if F.size and (F.min() < 0 or F.max() >= len(V)):
        raise SceneError(
            f"{json_path}: field {where}.faces: expected (F, 3) indices into {len(V)} vertices"
        )
    return V, F

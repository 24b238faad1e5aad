"""Scene sources for the QA generator: folders of scene files, their spec, wording and ids.

A source is a folder holding ``scene.json`` files (at any depth: an export folder) or one scene
file. Project folders are exported to scene files by the caller (``courtstudio qa generate``
uses the regular export path) before they reach this module.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from court_specs import CourtSpec, load_spec
from exporters.scene import Scene, load_scene

WORDING_PATH = Path(str(resources.files("qa").joinpath("data", "wording.json")))
DEFAULT_MARGINS = {"left_right_m": 0.30, "nearest_m": 0.30, "zone_m": 0.25, "height_m": 0.10}


class QASourceError(ValueError):
    """A QA source is missing or holds no usable scene."""


@dataclass
class Wording:
    """Per-sport nouns and display names (qa/data/wording.json) and ambiguity margins (m)."""

    ball: str
    surface: str
    player_ground: str
    sport: str
    line_names: dict[str, str]
    zone_names: dict[str, str]
    margins: dict[str, float]
    frame_phrase: str = ""
    three_point_zones: tuple[str, ...] = ()  # basketball: zones behind the three-point line
    side_on: bool = False  # the side-on world frame: the spec's near/far ends are right/left

    @property
    def near(self) -> str:
        """The half beyond the net line (x > net): 'near' end-on, 'right' side-on."""
        return "right" if self.side_on else "near"

    @property
    def far(self) -> str:
        return "left" if self.side_on else "far"

    def _ends(self, text: str) -> str:
        if not self.side_on:
            return text
        return re.sub(
            r"\b(near|far)\b", lambda m: "right-hand" if m.group(1) == "near" else "left-hand", text
        )

    def line(self, name: str) -> str:
        return self._ends(self.line_names.get(name, "the " + name.replace("_", " ")))

    def zone(self, name: str, label: str = "") -> str:
        return self._ends(self.zone_names.get(name, "the " + (label or name.replace("_", " "))))


@lru_cache(maxsize=1)
def _wording_file() -> dict:
    return json.loads(WORDING_PATH.read_text(encoding="utf-8"))["sports"]


def wording_for(spec: CourtSpec, frame_phrase: str = "", side_on: bool = False) -> Wording:
    """The wording of a spec's sport: the spec's own qa_wording over the file's entry; a
    sport in neither gets generic nouns."""
    w = {**_wording_file().get(spec.id, {}), **spec.raw.get("qa_wording", {})}
    return Wording(
        ball=w.get("ball_noun", "ball"),
        surface=w.get("surface_noun", "court"),
        player_ground=w.get("player_ground_noun", "court"),
        sport=w.get("sport_noun", spec.name.lower()),
        line_names=w.get("line_names", {}),
        zone_names=w.get("zone_names", {}),
        margins={**DEFAULT_MARGINS, **w.get("ambiguity_margins", {})},
        frame_phrase=frame_phrase or spec.frame_phrase,
        three_point_zones=tuple(w.get("three_point_zones", ())),
        side_on=side_on,
    )


@dataclass
class QAScene:
    """A scene ready for questions. athletes: the players that get numbered boxes, ordered
    left to right in the image; serial numbers are their 1-based positions."""

    path: Path
    scene: Scene
    spec: CourtSpec
    wording: Wording
    match_id: str
    clip_id: str
    frame_index: int
    athletes: list = field(default_factory=list)

    @property
    def sport(self) -> str:
        return self.spec.id

    @property
    def image_path(self) -> str:
        return self.scene.image


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-") or "x"


def _ids(scene: Scene, path: Path) -> tuple[str, str, int]:
    """(match id, clip id, frame index): the scene's optional frame.match_id / clip_id, else
    the exporting project's name (provenance.project), else the folder above the frame's."""
    fr = scene.raw.get("frame", {})
    match = fr.get("match_id") or scene.provenance.get("project") or path.parent.parent.name
    clip = fr.get("clip_id") or (
        scene.image.split("#")[0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if "#frame=" in scene.image
        else scene.frame_id
    )
    idx = scene.frame_index if scene.frame_index is not None else 0
    return _slug(match), _slug(clip), int(idx)


def is_athlete(raw_player: dict) -> bool:
    return raw_player.get("role", "athlete") == "athlete"


def is_side_on(scene: Scene, spec: CourtSpec) -> bool:
    """The scene's world frame is the side-on one: its court.world_convention where recorded,
    else the spec's broadcast view (docs/frames.md)."""
    conv = scene.raw.get("court", {}).get("world_convention")
    if conv in ("side_on", "end_on"):
        return conv == "side_on"
    return spec.raw.get("broadcast_view") == "side"


def qa_scene(path: Path) -> QAScene:
    scene = load_scene(path)
    spec = load_spec(scene.spec_id)
    raw_players = {p.get("id"): p for p in scene.raw.get("players", [])}
    athletes = [p for p in scene.players if is_athlete(raw_players.get(p.id, {}))]
    athletes.sort(key=lambda p: (float(p.box_xyxy[0] + p.box_xyxy[2]), p.id))
    match, clip, idx = _ids(scene, path)
    return QAScene(
        path=path,
        scene=scene,
        spec=spec,
        wording=wording_for(spec, scene.frame_phrase, is_side_on(scene, spec)),
        match_id=match,
        clip_id=clip,
        frame_index=idx,
        athletes=athletes,
    )


def find_scene_files(source) -> list[Path]:
    """Scene JSON files of a source (a scene file, or a folder searched recursively)."""
    src = Path(source)
    if src.is_file():
        return [src]
    if not src.is_dir():
        raise QASourceError(f"{src}: no such file or folder")
    out = []
    for p in sorted(src.rglob("*.json")):
        try:
            with open(p, encoding="utf-8") as fh:
                head = fh.read(200)
        except (OSError, UnicodeDecodeError):
            continue
        if '"courtstudio.scene"' in head:
            out.append(p)
    return out


def box_serials(qs: QAScene) -> dict[int, int]:
    """player id -> serial number drawn on the image (1..N)."""
    return {p.id: i + 1 for i, p in enumerate(qs.athletes)}


def player_boxes(qs: QAScene) -> np.ndarray:
    """(N, 4) xyxy pixels of the athletes in serial order."""
    return np.array([p.box_xyxy for p in qs.athletes], float).reshape(-1, 4)

"""The candidate-question record and the small builders every question family uses.

``Candidate.values`` has one row per Monte-Carlo draw (row 0 = the answer); see qa/questions.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qa.entities import PlayerEntity
from qa.templates import KINDS

UP = np.array([0.0, 0.0, 1.0])


@dataclass
class Candidate:
    kind: str
    fields: dict
    values: np.ndarray
    labels: list[str] | None = None
    margin_m: float = float("inf")
    margin_key: str | None = None  # which sport margin applies
    points: dict = field(default_factory=dict)  # nominal 3D quantities behind the answer
    key: tuple = ()

    @property
    def category(self) -> str:
        return KINDS[self.kind][0]

    @property
    def answer_type(self) -> str:
        return KINDS[self.kind][1]


def _name(pl: PlayerEntity) -> str:
    return f"Player {pl.serial}"


def _v(a) -> list[float]:
    return [round(float(x), 4) for x in np.asarray(a).ravel()]


def _lateral(pl: PlayerEntity, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(left offset, forward offset) of target (n, 3) in pl's own horizontal frame, metres."""
    f = pl.facing
    left = np.cross(UP, f)
    d = (target - pl.position()) * np.array([1.0, 1.0, 0.0])
    return (d * left).sum(1), (d * f).sum(1)


def _choice(kind, fields, idx, labels, margin, margin_key, points, key) -> Candidate:
    return Candidate(
        kind, fields, np.asarray(idx, int), labels, float(margin), margin_key, points, key
    )


def _num(kind, fields, values, points, key) -> Candidate:
    return Candidate(kind, fields, np.asarray(values, float), None, float("inf"), None, points, key)


def _rank(dists: np.ndarray, largest: bool = False) -> tuple[np.ndarray, float]:
    """Per draw the index of the smallest (largest) of (n, k) distances; the nominal gap."""
    order = np.argsort(-dists if largest else dists, axis=1)
    d0 = np.sort(dists[0])
    gap = (d0[-1] - d0[-2]) if largest else (d0[1] - d0[0])
    return order[:, 0], float(gap)

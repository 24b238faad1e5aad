"""Scoring predictions the way CourtSI-Bench does (reimplemented from its published protocol).

Protocol (Visionary-Laboratory/CourtSI, protocol/CourtSI-Bench, Apache-2.0; see docs/qa.md):

* An answer string is parsed, in this order, as a float (Python ``float()``), a choice letter
  (surrounding parentheses and spaces removed, one of A-D), or a 3-tuple "(x, y, z)" whose 2nd
  and 3rd parts must each contain a space (", " separators). Anything else does not parse.
* A prediction that does not parse, or parses to another type than the answer, scores 0.
* Floats: exact match when the category name contains "counting", otherwise T-MRA: the mean
  over theta in numpy.arange(0.50, 1.00, 0.05) (10 thresholds) of
  ``(|pred - gt| - 0.15) / (gt + 1e-8) < 1 - theta``; 0.15 m is the allowance.
* Letters: exact match. Tuples: LocA, 1 when the 3D distance is < 0.30 m.
* Per category: the mean of its items; overall: the mean over all items; both x100.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

CATEGORIES: tuple[str, ...] = (
    "distance_measurement_camera_object",
    "distance_measurement_height",
    "distance_measurement_object_line",
    "distance_measurement_object_object",
    "spatial_counting_ball",
    "spatial_counting_player",
    "localization",
    "relational_reasoning_ball_zone",
    "relational_reasoning_ball_player",
    "relational_reasoning_camera_player",
    "relational_reasoning_player_zone",
    "relational_reasoning_player_player",
    "relational_reasoning_player_line",
)
CHOICE_LETTERS = ("A", "B", "C", "D")
MRA_ALLOWANCE_M = 0.15
MRA_THRESHOLDS = np.arange(0.5, 1.0, 0.05)  # 0.50 .. 0.95, the protocol's exact float values
LOCA_THRESHOLD_M = 0.30


class ScoreError(ValueError):
    """A prediction file is malformed (a ground-truth answer that does not parse, a bad item)."""


def _choice(text: str) -> str | None:
    s = text.strip("()").strip()
    return s if s in CHOICE_LETTERS else None


def _triple(text: str) -> tuple[float, float, float] | None:
    parts = text.strip("()").split(",")
    if len(parts) != 3 or any(" " not in p for p in parts[1:]):
        return None
    try:
        return tuple(float(p) for p in parts)  # type: ignore[return-value]
    except ValueError:
        return None


def parse_answer(text) -> float | str | tuple[float, float, float]:
    """A float, a choice letter 'A'..'D', or an (x, y, z) tuple; ValueError when none fits.

    JSON numbers are accepted as floats (as the protocol's float() does); other non-strings
    raise TypeError."""
    try:
        return float(text)
    except ValueError:
        pass
    letter = _choice(text)
    if letter is not None:
        return letter
    triple = _triple(text)
    if triple is not None:
        return triple
    raise ValueError(f"unable to parse answer {text!r}")


def mra(pred: float, gt: float, allowance_m: float = MRA_ALLOWANCE_M) -> float:
    """Thresholded mean relative accuracy in [0, 1] (10 thresholds, so multiples of 0.1)."""
    rel = (abs(pred - gt) - allowance_m) / (gt + 1e-8)
    return float(np.count_nonzero(rel < 1.0 - MRA_THRESHOLDS)) / len(MRA_THRESHOLDS)


def loca(pred, gt, threshold_m: float = LOCA_THRESHOLD_M) -> tuple[float, float]:
    """(1.0 if the 3D distance < threshold else 0.0, the distance in metres)."""
    d = float(np.sqrt(sum((float(p) - float(g)) ** 2 for p, g in zip(pred, gt))))
    return (1.0 if d < threshold_m else 0.0), d


def score_item(answer, prediction, category: str) -> float:
    """One item's score in [0, 1]. Raises ValueError/TypeError when the ANSWER does not parse."""
    gt = parse_answer(answer)
    try:
        pred = parse_answer(prediction)
    except (ValueError, TypeError):
        return 0.0
    if type(pred) is not type(gt):
        return 0.0
    if isinstance(gt, float):
        if "counting" in category:
            return float(pred == gt)
        return mra(pred, gt)
    if isinstance(gt, str):
        return float(pred == gt)
    return loca(pred, gt)[0]


@dataclass
class ScoreReport:
    """Per-category and overall accuracy, x100; counts per category; per-item scores."""

    per_category: dict[str, float]
    counts: dict[str, int]
    overall: float
    n_items: int
    item_scores: list[float]

    def to_dict(self) -> dict:
        return {**self.per_category, "overall": self.overall}


def score_items(items: list) -> ScoreReport:
    """Score a CourtSI-Bench prediction list: dicts with ``answer``, ``vlm_answer``,
    ``category``. Categories are reported in the protocol's order, unknown ones after."""
    if not isinstance(items, list):
        raise ScoreError("expected a JSON list of items")
    total: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    scores = []
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            raise ScoreError(f"item {i}: expected an object")
        for key in ("answer", "vlm_answer", "category"):
            if key not in it:
                raise ScoreError(f"item {i}: missing {key!r}")
        cat = it["category"]
        if not isinstance(cat, str):
            raise ScoreError(f"item {i}: category must be a string")
        try:
            s = score_item(it["answer"], it["vlm_answer"], cat)
        except (ValueError, TypeError) as exc:
            raise ScoreError(f"item {i}: answer does not parse ({exc})") from None
        total[cat] += s
        count[cat] += 1
        scores.append(s)
    order = {c: k for k, c in enumerate(CATEGORIES)}
    cats = sorted(total, key=lambda c: order.get(c, len(CATEGORIES)))
    per = {c: total[c] / count[c] * 100.0 for c in cats}  # the protocol's order of operations
    n = sum(count.values())
    overall = sum(total.values()) / n * 100.0 if n else 0.0
    return ScoreReport(per, {c: count[c] for c in cats}, overall, n, scores)


_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TRIPLE_RE = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*\)")
_LETTER_RE = re.compile(r"(?<![A-Za-z])\(?([ABCD])\)?(?![A-Za-z])")
_NUM_RE = re.compile(_NUM)


def extract_answer(free_text, answer) -> str:
    """The last answer-shaped span of a free-form reply, shaped like the ground truth ``answer``
    (NOT part of the protocol; ``qa score --extract``): for a tuple answer the last "(x, y, z)"
    rewritten with ", " separators, for a letter the last standalone A-D, for a number the last
    number. Returns the text unchanged when nothing fits (it then scores 0)."""
    if not isinstance(free_text, str):
        return free_text
    gt = parse_answer(answer)
    if isinstance(gt, tuple):
        hits = _TRIPLE_RE.findall(free_text)
        return f"({hits[-1][0]}, {hits[-1][1]}, {hits[-1][2]})" if hits else free_text
    if isinstance(gt, str):
        hits = _LETTER_RE.findall(free_text)
        return hits[-1] if hits else free_text
    hits = _NUM_RE.findall(free_text)
    return hits[-1] if hits else free_text

"""Filtering, balancing and formatting candidates into QA items.

Filters (each counted in ``FilterStats``; docs/qa.md):
* ``degenerate``: a distance answer under 0.05 m (T-MRA divides by the answer);
* ``margin``: a left/right, nearest, zone or height question whose nominal margin is under the
  sport's ambiguity margin (qa/data/wording.json);
* ``mc_agreement``: a choice or count whose answer holds in fewer than 95 % of the draws;
* ``sigma``: a number whose draws' 1-sigma exceeds half the strictest T-MRA tolerance,
  0.5 * (0.15 m + 0.05 * answer), or a location whose 3D 1-sigma exceeds 0.15 m (half LocA's
  0.30 m);
* ``quota``: left over once the image has its ``per_image`` items.

Each question about the same entities is generated once (one paraphrase is drawn at selection),
and near-identical frames are skipped before questions are asked (qa/generate.py).

Balancing: greedy, per image, always taking the least-used category of the sport, then the
least-used template of that category, then the least-used answer bin (log-binned distances, or
the correct letter); the correct option's letter is the least-used letter of the category for
that many options.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from qa.questions import Candidate
from qa.templates import KINDS, MULTI_FRAME_SUFFIX, SUFFIX

MC_AGREEMENT = 0.95
SIGMA_FRACTION = 0.5
MRA_ALLOWANCE_M = 0.15
MRA_STRICTEST = 0.05
LOCA_SIGMA_M = 0.15
MIN_DISTANCE_M = 0.05
LOG_BIN_EDGES_M = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
LETTERS = "ABCD"


@dataclass
class FilterStats:
    """Candidates removed per filter, and kept."""

    removed: Counter = field(default_factory=Counter)
    candidates: int = 0
    kept: int = 0

    def to_dict(self) -> dict:
        return {"candidates": self.candidates, "kept": self.kept, "removed": dict(self.removed)}


def numeric_sigma_bound(answer_m: float) -> float:
    """The largest 1-sigma (m) a numeric answer may have: half the strictest T-MRA tolerance."""
    return SIGMA_FRACTION * (MRA_ALLOWANCE_M + MRA_STRICTEST * abs(answer_m))


def uncertainty(c: Candidate) -> dict:
    """{'agreement': fraction} for choices and counts, {'sigma_m': ...} for numbers and
    locations; empty without draws."""
    v = c.values
    if len(v) < 2:
        return {}
    if c.answer_type in ("choice", "int"):
        return {"agreement": float(np.mean(v[1:] == v[0]))}
    if c.answer_type == "tuple":
        return {"sigma_m": float(np.sqrt(np.var(v[1:], axis=0).sum()))}
    return {"sigma_m": float(np.std(v[1:]))}


def rejection(c: Candidate, margins: dict) -> str | None:
    """The first filter a candidate fails, or None."""
    v0 = c.values[0]
    if c.answer_type == "float" and round(float(v0), 2) < MIN_DISTANCE_M:
        return "degenerate"
    if c.margin_key is not None and c.margin_m < margins[c.margin_key]:
        return "margin"
    u = uncertainty(c)
    if "agreement" in u and u["agreement"] < MC_AGREEMENT:
        return "mc_agreement"
    if "sigma_m" in u:
        bound = LOCA_SIGMA_M if c.answer_type == "tuple" else numeric_sigma_bound(float(v0))
        if u["sigma_m"] > bound:
            return "sigma"
    return None


def answer_bin(c: Candidate) -> str:
    """The balancing bin of a candidate's answer: log-binned metres, the count, or the label."""
    v0 = c.values[0]
    if c.answer_type == "float":
        return f"d{int(np.searchsorted(LOG_BIN_EDGES_M, float(v0)))}"
    if c.answer_type == "int":
        return f"n{int(v0)}"
    if c.answer_type == "tuple":
        return "xyz"
    return f"l{int(v0)}"


def format_number(v: float) -> str:
    return f"{round(float(v), 2) + 0.0:.2f}"


class Balancer:
    """Usage counters across the whole run (categories per sport, templates, bins, letters)."""

    def __init__(
        self,
        rng: np.random.Generator,
        max_per_category: int | None = None,
        max_per_template: int | None = None,
    ):
        """max_per_category: items per (sport, category); max_per_template: items per
        (sport, template); None: no quota."""
        self.rng = rng
        self.used: Counter = Counter()
        self.max_cat = max_per_category
        self.max_tpl = max_per_template

    def _open(self, c: Candidate, sport: str) -> bool:
        if self.max_cat is not None and self.used[(("cat", sport), c.category)] >= self.max_cat:
            return False
        if self.max_tpl is not None:
            n = len(KINDS[c.kind][2])
            return any(
                self.used[(("tpl", sport), f"{c.kind}.{i}")] < self.max_tpl for i in range(n)
            )
        return True

    def _least(self, keys: list, tag) -> int:
        counts = np.array([self.used[(tag, k)] for k in keys], float)
        best = np.flatnonzero(counts == counts.min())
        return int(self.rng.choice(best))

    def pick(self, pool: list[Candidate], sport: str, n: int) -> list[tuple[Candidate, str]]:
        """Up to n (candidate, template id) from pool, one paraphrase per question."""
        out = []
        pool = list(pool)
        while len(out) < n:
            pool = [c for c in pool if self._open(c, sport)]
            if not pool:
                break
            cats = sorted({c.category for c in pool})
            cat = cats[self._least(cats, ("cat", sport))]
            in_cat = [c for c in pool if c.category == cat]
            kinds = sorted({c.kind for c in in_cat})
            kind = kinds[self._least(kinds, ("kind", sport))]
            in_kind = [c for c in in_cat if c.kind == kind]
            bins = sorted({answer_bin(c) for c in in_kind})
            b = bins[self._least(bins, ("bin", cat))]
            choices = [c for c in in_kind if answer_bin(c) == b]
            c = choices[int(self.rng.integers(len(choices)))]
            tids = [f"{kind}.{i}" for i in range(len(KINDS[kind][2]))]
            if self.max_tpl is not None:
                tids = [t for t in tids if self.used[(("tpl", sport), t)] < self.max_tpl]
            tid = tids[self._least(tids, "template")]
            for key in (
                (("cat", sport), cat),
                (("kind", sport), kind),
                (("bin", cat), b),
                ("template", tid),
                (("tpl", sport), tid),
            ):
                self.used[key] += 1
            pool.remove(c)
            out.append((c, tid))
        return out

    def options(self, c: Candidate) -> tuple[list[str], str]:
        """The shown options (correct one at the least-used letter) and the correct letter."""
        labels = c.labels
        correct = labels[int(c.values[0])]
        others = list(dict.fromkeys(lb for lb in labels if lb != correct))
        n_opt = min(4, 1 + len(others))
        distract = [others[i] for i in self.rng.permutation(len(others))[: n_opt - 1]]
        tag = ("letter", c.category, n_opt)  # balanced per category and option count
        slot = self._least(list(range(n_opt)), tag)
        self.used[(tag, slot)] += 1
        shown = distract[:slot] + [correct] + distract[slot:]
        return shown, LETTERS[slot]


def render(c: Candidate, template_id: str, balancer: Balancer) -> tuple[str, str, list | None]:
    """(question, answer, shown options) of a candidate with the given template."""
    kind, i = template_id.rsplit(".", 1)
    text = KINDS[kind][2][int(i)].format(**c.fields)
    text = text[0].upper() + text[1:]
    options = None
    v0 = c.values[0]
    if c.answer_type == "float":
        answer = format_number(v0)
    elif c.answer_type == "int":
        answer = str(int(round(float(v0))))
    elif c.answer_type == "tuple":
        answer = "(" + ", ".join(format_number(x) for x in v0) + ")"
    else:
        options, answer = balancer.options(c)
        text += "\n" + "\n".join(f"{LETTERS[k]}. {o}" for k, o in enumerate(options))
        return text + "\n" + SUFFIX["choice"].strip(), answer, options
    return text + MULTI_FRAME_SUFFIX.get(c.kind, SUFFIX[c.answer_type]), answer, options

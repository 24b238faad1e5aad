"""``qa generate``: scene files in, CourtSI-format benchmark and training set out.

Writes into the output folder:
  bench.json          [{"image_id", "question", "answer", "category"}]   (CourtSI-Bench)
  train.json          LLaMA-Factory sharegpt records, one QA pair each
  dataset_info.json   registers train.json for LLaMA-Factory
  images/             the frames with numbered player boxes
  items.jsonl         provenance per item (scene, frame, spec, template, 3D quantities,
                      margin, uncertainty, split)
  summary.json        counts per split/sport/category, answer distributions, filter counts
"""

from __future__ import annotations

import json
import time
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from court_specs import SpecError
from exporters.scene import SceneError
from qa.entities import build_entities
from qa.images import FrameReadError, read_scene_frame, thumbnail, write_marked
from qa.multiframe import clip_pairs, clip_serials, clip_triples, flight_candidates, pair_candidates
from qa.questions import candidates
from qa.scenes import QAScene, QASourceError, find_scene_files, player_boxes, qa_scene
from qa.select import Balancer, FilterStats, rejection, render, uncertainty
from safe_io.atomic import write_json_atomic, write_text_atomic

DATASET_NAME = "courtstudio_qa"
NEAR_DUPLICATE_GREY = 2.0  # mean |difference| of 32x18 grey thumbnails (0..255) within a clip


@dataclass
class GenerateOptions:
    seed: int = 0
    per_image: int = 30
    split_by: str = "match"  # match | clip | frame
    bench_fraction: float = 0.2
    samples: int = 64  # Monte-Carlo draws per scene (0: no uncertainty filter)
    multi_frame: bool = True  # the multi-frame extension (pairs of frames of one clip)
    max_per_category: int | None = None  # quota per (sport, category)
    max_per_template: int | None = None  # quota per (sport, template)
    per_pair: int = 4
    near_duplicate_grey: float = NEAR_DUPLICATE_GREY


def split_units(units: list[str], fraction: float, seed: int) -> set[str]:
    """The units (matches, clips or frames) that go to the benchmark: a seeded hash order,
    round(fraction * N) of them, at least one and at most N - 1 when there are two or more."""
    uniq = sorted(set(units))
    if not uniq:
        return set()
    order = sorted(uniq, key=lambda u: zlib.crc32(f"{seed}:{u}".encode()))
    k = int(round(fraction * len(uniq)))
    if len(uniq) >= 2:
        k = min(max(k, 1), len(uniq) - 1)
    return set(order[:k])


def _unit(qs: QAScene, split_by: str) -> str:
    if split_by == "match":
        return qs.match_id
    if split_by == "clip":
        return f"{qs.match_id}/{qs.clip_id}"
    return f"{qs.match_id}/{qs.clip_id}/{qs.frame_index}/{qs.scene.frame_id}"


def image_name(qs: QAScene, taken: set) -> str:
    """``{sport}_{match}_frame_{clip}_{frame:04d}.jpg`` (CourtSI's naming), made unique."""
    base = f"{qs.sport}_{qs.match_id}_frame_{qs.clip_id}_{qs.frame_index:04d}"
    name, k = f"{base}.jpg", 1
    while name in taken:
        k += 1
        name = f"{base}_{k}.jpg"
    taken.add(name)
    return name


def load_sources(sources) -> tuple[list[QAScene], list[dict]]:
    """QA scenes of every scene file under the sources, and the files skipped (with why)."""
    scenes, skipped = [], []
    for src in sources:
        files = find_scene_files(src)
        if not files:
            raise QASourceError(f"{src}: holds no scene files (courtstudio.scene JSON)")
        for f in files:
            try:
                scenes.append(qa_scene(f))
            except (SceneError, SpecError, ValueError) as exc:
                skipped.append({"scene": str(f), "reason": " ".join(str(exc).split())})
    return scenes, skipped


def generate(sources, out_dir, opts: GenerateOptions | None = None) -> dict:
    """Generate the datasets from scene sources (scene files or folders of them)."""
    opts = opts or GenerateOptions()
    if (
        opts.per_image < 1
        or opts.samples < 0
        or not 0.0 <= opts.bench_fraction <= 1.0
        or any(q is not None and q < 1 for q in (opts.max_per_category, opts.max_per_template))
    ):
        raise ValueError(
            "need --per-image >= 1, --samples >= 0, 0 <= --bench-fraction <= 1 and quotas >= 1"
        )
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    scenes, skipped = load_sources(sources)
    if not scenes:
        raise QASourceError("no usable scene: " + "; ".join(s["reason"] for s in skipped[:3]))
    bench_units = split_units(
        [_unit(q, opts.split_by) for q in scenes], opts.bench_fraction, opts.seed
    )
    balancer = Balancer(
        np.random.default_rng(opts.seed), opts.max_per_category, opts.max_per_template
    )
    stats = FilterStats()
    items, taken = [], set()
    thumbs: dict[str, list[np.ndarray]] = defaultdict(list)
    n_images = 0
    ents_cache: dict = {}

    def ents_for(qs: QAScene):
        if qs.path not in ents_cache:
            ident = f"{qs.match_id}/{qs.clip_id}/{qs.frame_index}/{qs.scene.frame_id}"
            rng = np.random.default_rng([opts.seed, zlib.crc32(ident.encode())])
            ents_cache[qs.path] = build_entities(qs, opts.samples, rng)
        return ents_cache[qs.path]

    for qs in scenes:
        try:
            frame = read_scene_frame(qs.path, qs.image_path)
        except FrameReadError as exc:
            skipped.append({"scene": str(qs.path), "reason": str(exc)})
            continue
        thumb = thumbnail(frame)
        clip_key = f"{qs.match_id}/{qs.clip_id}"
        if any(
            float(np.mean(np.abs(thumb - t))) < opts.near_duplicate_grey for t in thumbs[clip_key]
        ):
            stats.removed["near_duplicate_frame"] += 1
            continue
        thumbs[clip_key].append(thumb)
        picked = _filter_and_pick(
            candidates(qs, ents_for(qs)),
            qs.wording.margins,
            balancer,
            stats,
            qs.sport,
            opts.per_image,
        )
        if not picked:
            continue
        name = image_name(qs, taken)
        write_marked(out_dir / "images" / name, frame, player_boxes(qs))
        n_images += 1
        split = "bench" if _unit(qs, opts.split_by) in bench_units else "train"
        image_id = f"images/{name}"
        for c, tid in picked:
            question, answer, options = render(c, tid, balancer)
            items.append(_provenance(qs, c, tid, split, image_id, question, answer, options))
            items[-1]["item_id"] = f"q{len(items):06d}"
    if opts.multi_frame:
        items += _multi_frame(
            scenes, ents_for, balancer, stats, out_dir, opts, bench_units, taken, len(items)
        )
    stats.kept = len(items)
    write_dataset_files(out_dir, items)
    summary = _summary(items, stats, skipped, n_images, time.perf_counter() - t0, opts)
    write_json_atomic(out_dir / "summary.json", summary)
    return summary


def bench_record(it: dict) -> dict:
    """A CourtSI-Bench item from a provenance item (multi-frame ones add ``image_ids``)."""
    rec = {
        "image_id": it["image_id"],
        "question": it["question"],
        "answer": it["answer"],
        "category": it["category"],
    }
    if "image_ids" in it:
        rec["image_ids"] = it["image_ids"]
    return rec


def train_record(it: dict) -> dict:
    """A LLaMA-Factory sharegpt record (one QA pair; one <image> per image)."""
    images = it.get("image_ids", [it["image_id"]])
    return {
        "messages": [
            {"role": "user", "content": "<image>" * len(images) + it["question"]},
            {"role": "assistant", "content": it["answer"]},
        ],
        "images": images,
    }


def write_dataset_files(out_dir: Path, items: list[dict]) -> None:
    """The dataset of ``items`` in out_dir: bench/train JSON (write_datasets), the
    LLaMA-Factory dataset_info.json naming the train files, and items.jsonl (the provenance
    items, one per line). Every file atomic."""
    write_datasets(out_dir, items)
    sharegpt = {
        "formatting": "sharegpt",
        "columns": {"messages": "messages", "images": "images"},
        "tags": {
            "role_tag": "role",
            "content_tag": "content",
            "user_tag": "user",
            "assistant_tag": "assistant",
        },
    }
    write_json_atomic(
        out_dir / "dataset_info.json",
        {
            DATASET_NAME: {"file_name": "train.json", **sharegpt},
            DATASET_NAME + "_multi_frame": {"file_name": "train_multi_frame.json", **sharegpt},
        },
    )
    write_text_atomic(
        out_dir / "items.jsonl", "".join(json.dumps(it, allow_nan=False) + "\n" for it in items)
    )


def write_datasets(out_dir: Path, items: list[dict]) -> None:
    """bench.json, train.json and their _multi_frame twins from the items' splits."""
    for suffix, multi in (("", False), ("_multi_frame", True)):
        its = [it for it in items if ("image_ids" in it) == multi]
        if multi and not its and not (out_dir / "bench_multi_frame.json").exists():
            continue
        write_json_atomic(
            out_dir / f"bench{suffix}.json",
            [bench_record(it) for it in its if it["split"] == "bench"],
        )
        write_json_atomic(
            out_dir / f"train{suffix}.json",
            [train_record(it) for it in its if it["split"] == "train"],
        )


def _filter_and_pick(cands, margins, balancer, stats, sport, n) -> list:
    pool = []
    stats.candidates += len(cands)
    for c in cands:
        why = rejection(c, margins)
        if why:
            stats.removed[why] += 1
        else:
            pool.append(c)
    picked = balancer.pick(pool, sport, n)
    stats.removed["quota"] += len(pool) - len(picked)
    return picked


def _multi_frame(
    scenes, ents_for, balancer, stats, out_dir, opts, bench_units, taken, n_before
) -> list[dict]:
    """Items of the multi-frame extension: pairs of frames, and triples along one ball flight.
    Their images are numbered by player id across the clip."""
    serials = clip_serials(scenes)
    written: dict = {}
    items = []
    groups = [
        (
            pair,
            pair_candidates(
                pair[0],
                ents_for(pair[0]),
                pair[1],
                ents_for(pair[1]),
                serials[(pair[0].match_id, pair[0].clip_id, pair[0].sport)],
            ),
        )
        for pair in clip_pairs(scenes)
    ]
    groups += [
        (tri, flight_candidates(tri, tuple(ents_for(q) for q in tri)))
        for tri in clip_triples(scenes)
    ]
    for frames, cands in groups:
        a = frames[0]
        key = (a.match_id, a.clip_id, a.sport)
        picked = _filter_and_pick(cands, a.wording.margins, balancer, stats, a.sport, opts.per_pair)
        sides = {_unit(q, opts.split_by) in bench_units for q in frames}
        if not picked or len(sides) != 1:  # frames on both sides of a frame split: dropped
            continue
        ids = []
        for qs in frames:
            if qs.path not in written:
                try:
                    frame = read_scene_frame(qs.path, qs.image_path)
                except FrameReadError:
                    break
                name = "mf_" + image_name(qs, taken)
                numbers = [serials[key][p.id] for p in qs.athletes]
                write_marked(out_dir / "images" / name, frame, player_boxes(qs), numbers)
                written[qs.path] = f"images/{name}"
            ids.append(written[qs.path])
        if len(ids) != len(frames):
            continue
        split = "bench" if sides.pop() else "train"
        for c, tid in picked:
            question, answer, options = render(c, tid, balancer)
            it = _provenance(a, c, tid, split, ids[0], question, answer, options)
            it.update(
                {
                    "image_ids": ids,
                    "scene_files": [str(q.path) for q in frames],
                    "frame_ids": [q.scene.frame_id for q in frames],
                    "item_id": f"q{n_before + len(items) + 1:06d}",
                }
            )
            items.append(it)
    return items


def _provenance(qs, c, tid, split, image_id, question, answer, options) -> dict:
    v0 = c.values[0]
    value = [float(x) for x in v0] if np.ndim(v0) else float(v0)
    return {
        "split": split,
        "image_id": image_id,
        "question": question,
        "answer": answer,
        "category": c.category,
        "kind": c.kind,
        "template_id": tid,
        "answer_type": c.answer_type,
        "options": options,
        "scene_file": str(qs.path),
        "frame_id": qs.scene.frame_id,
        "frame_index": qs.frame_index,
        "match_id": qs.match_id,
        "clip_id": qs.clip_id,
        "sport": qs.sport,
        "spec_id": qs.spec.id,
        "spec_version": qs.scene.raw.get("court", {}).get(
            "spec_version", qs.spec.raw.get("format_version")
        ),
        "player_ids": {str(i + 1): p.id for i, p in enumerate(qs.athletes)},
        "value": value,
        "points": c.points,
        "margin_m": None if c.margin_key is None else round(c.margin_m, 4),
        "margin_required_m": None if c.margin_key is None else qs.wording.margins[c.margin_key],
        "uncertainty": uncertainty(c),
    }


def _summary(items, stats, skipped, n_images, seconds, opts) -> dict:
    per = defaultdict(Counter)
    answers = defaultdict(Counter)
    for it in items:
        per[it["split"]][it["category"]] += 1
        per["sport:" + it["split"]][it["sport"]] += 1
        if it["answer_type"] == "choice":
            answers[it["category"]][it["answer"]] += 1
        elif it["answer_type"] == "int":
            answers[it["category"]][f"n={it['answer']}"] += 1
        elif it["answer_type"] == "float":
            v = float(it["answer"])
            edges = [0.25, 0.5, 1, 2, 4, 8, 16, 32]
            lo = max([0] + [e for e in edges if v >= e])
            answers[it["category"]][f">={lo}m"] += 1
        else:
            answers[it["category"]]["xyz"] += 1
    return {
        "n_images": n_images,
        "n_items": len(items),
        "n_bench": sum(1 for it in items if it["split"] == "bench"),
        "n_train": sum(1 for it in items if it["split"] == "train"),
        "seconds": round(seconds, 3),
        "filters": stats.to_dict(),
        "per_split": {k: dict(v) for k, v in per.items()},
        "answer_distribution": {k: dict(sorted(v.items())) for k, v in answers.items()},
        "skipped_scenes": skipped,
        "options": {
            "seed": opts.seed,
            "per_image": opts.per_image,
            "split_by": opts.split_by,
            "bench_fraction": opts.bench_fraction,
            "samples": opts.samples,
            "max_per_category": opts.max_per_category,
            "max_per_template": opts.max_per_template,
        },
    }

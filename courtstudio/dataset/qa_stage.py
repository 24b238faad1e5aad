"""The QA stages of a dataset build: questions per clip, then one merge over every clip.

Per clip the QA generator (package ``qa``) runs over the clip's exported scenes with the
build's options and keeps every item it selects (``items.jsonl``: question, answer and
provenance); the split is not decided there, since a split by match needs every match. The
merge stage decides it once for the whole build (``qa.generate.split_units`` over the
manifest's match ids, with its seed and bench fraction, so no match is in both sets), moves
each clip's marked images under ``images/<clip>/`` and writes ``train.json``, ``bench.json``
(and their ``_multi_frame`` twins), ``dataset_info.json`` and ``items.jsonl``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from courtstudio.dataset.manifest import Clip, QAOptions
from courtstudio.dataset.stage_dirs import StageDir, provenance_digest


def clip_candidates(scenes_dir: Path, work: Path, clip: Clip, qa: QAOptions) -> dict:
    """QA items for one clip's scenes into ``work/qa`` (items.jsonl, images/, summary)."""
    from qa.generate import GenerateOptions, generate

    shutil.rmtree(work / "qa", ignore_errors=True)
    if not any(scenes_dir.glob("*/scene.json")):
        (work / "qa").mkdir(parents=True)
        return {"items": 0, "note": "no frame of this clip has a camera: no scene, no QA"}
    opts = GenerateOptions(
        seed=qa.seed, per_image=qa.per_image, split_by="match", bench_fraction=0.0, **qa.extra
    )
    summary = generate([scenes_dir], work / "qa", opts)
    return {"items": int(summary.get("items", 0)) if isinstance(summary, dict) else 0}


def merge_clips(clips: list[Clip], out: Path, qa: QAOptions, qa_digests: dict) -> dict:
    """Gather every clip's QA into OUT/dataset, split by match. Reused when no clip's QA
    changed and the split options are the same."""
    from qa.generate import split_units, write_dataset_files
    from qa.review import read_items
    from safe_io.atomic import write_json_atomic

    sd = StageDir(out, "dataset")
    provenance = {
        "stage": "merge",
        "clips": {c.id: qa_digests[c.id] for c in clips},
        "matches": {c.id: c.match for c in clips},
        "seed": qa.seed,
        "bench_fraction": qa.bench_fraction,
    }
    digest = provenance_digest(provenance)
    if sd.finished_digest() == digest:
        return {**json.loads((sd.final / "counts.json").read_text()), "cached": True}
    work = sd.partial_dir(digest)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    bench_matches = split_units([c.match for c in clips], qa.bench_fraction, qa.seed)
    items = []
    for clip in clips:
        src = out / "clips" / clip.id / "qa" / "qa"
        for img in sorted((src / "images").glob("*")):
            dst = work / "images" / clip.id / img.name
            dst.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(img, dst)
            except OSError:
                shutil.copy2(img, dst)
        prefix = f"images/{clip.id}/"
        for it in read_items(src) if (src / "items.jsonl").exists() else []:
            it["image_id"] = prefix + Path(it["image_id"]).name
            if "image_ids" in it:
                it["image_ids"] = [prefix + Path(p).name for p in it["image_ids"]]
            it.update(
                match_id=clip.match,
                clip_id=clip.id,
                split="bench" if clip.match in bench_matches else "train",
                item_id=f"{clip.id}/{it.get('item_id', len(items))}",
            )
            items.append(it)
    write_dataset_files(work, items)
    train_m = {it["match_id"] for it in items if it["split"] == "train"}
    bench_m = {it["match_id"] for it in items if it["split"] == "bench"}
    assert not train_m & bench_m  # one split per match, by construction
    counts = {
        "clips": len(clips),
        "items": len(items),
        "train": sum(it["split"] == "train" for it in items),
        "bench": sum(it["split"] == "bench" for it in items),
        "train_matches": len(train_m),
        "bench_matches": len(bench_m),
    }
    write_json_atomic(work / "counts.json", counts)
    sd.commit(work, provenance)
    return counts

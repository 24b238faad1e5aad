"""The QA stages of a dataset build: questions per clip, then one merge over every clip.

Per clip the QA generator (package ``qa``) runs over the clip's exported scenes with the
build's options; it splits by match, so every item of a clip lands in the training set or in
the benchmark as its match does, the same way in every clip of that match. The merge stage
then only gathers: it concatenates the clips' ``train.json`` and ``bench.json``, moves each
clip's marked images under ``images/<clip>/``, writes one ``dataset_info.json`` and checks
that no match is in both sets.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from courtstudio.dataset.manifest import Clip, QAOptions
from courtstudio.dataset.stage_dirs import StageDir, provenance_digest


def clip_candidates(scenes_dir: Path, work: Path, clip: Clip, qa: QAOptions) -> dict:
    """QA for one clip's scenes into ``work`` (bench.json, train.json, items.jsonl, images/)."""
    from qa.generate import GenerateOptions, generate
    shutil.rmtree(work / "qa", ignore_errors=True)
    opts = GenerateOptions(seed=qa.seed, per_image=qa.per_image, split_by="match",
                           match_of=lambda scene: clip.match, **qa.extra)
    res = generate([scenes_dir], work / "qa", opts)
    return {"train": res.train_count, "bench": res.bench_count, "images": res.image_count}


def _read_list(path: Path) -> list:
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of QA items")
    return data


def merge_clips(clips: list[Clip], out: Path, qa: QAOptions, qa_digests: dict) -> dict:
    """Gather every clip's QA into OUT/dataset (train.json, bench.json, dataset_info.json,
    items.jsonl, images/<clip>/). Reused when no clip's QA changed."""
    from exporters.atomic import write_json_atomic
    sd = StageDir(out, "dataset")
    provenance = {"stage": "merge", "clips": {c.id: qa_digests[c.id] for c in clips}}
    digest = provenance_digest(provenance)
    if sd.finished_digest() == digest:
        return {**json.loads((sd.final / "counts.json").read_text()), "cached": True}
    work = sd.partial_dir(digest)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    train, bench, matches = [], [], {"train": set(), "bench": set()}
    with open(work / "items.jsonl", "w") as items_out:
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
            for rec in _read_list(src / "train.json"):
                rec["images"] = [prefix + Path(p).name for p in rec.get("images", [])]
                train.append(rec)
                matches["train"].add(clip.match)
            for rec in _read_list(src / "bench.json"):
                rec["image_id"] = prefix + Path(rec["image_id"]).name
                bench.append(rec)
                matches["bench"].add(clip.match)
            if (src / "items.jsonl").exists():
                for line in (src / "items.jsonl").read_text().splitlines():
                    if line.strip():
                        items_out.write(json.dumps({"clip": clip.id, "match": clip.match,
                                                    **json.loads(line)}) + "\n")
    both = matches["train"] & matches["bench"]
    if both:
        raise ValueError(f"matches in both the training set and the benchmark: "
                         f"{', '.join(sorted(both))}")
    write_json_atomic(work / "train.json", train)
    write_json_atomic(work / "bench.json", bench)
    info_src = next((out / "clips" / c.id / "qa" / "qa" / "dataset_info.json" for c in clips
                     if (out / "clips" / c.id / "qa" / "qa" / "dataset_info.json").exists()),
                    None)
    if info_src is not None:
        shutil.copy2(info_src, work / "dataset_info.json")
    counts = {"clips": len(clips), "train": len(train), "bench": len(bench),
              "train_matches": len(matches["train"]), "bench_matches": len(matches["bench"])}
    write_json_atomic(work / "counts.json", counts)
    sd.commit(work, provenance)
    return counts

"""The dataset build driver: plans the (clip, stage) tasks of a manifest, runs them on an
executor (Ray or serial) as their inputs become ready, retries failures, shows progress with
an ETA, and writes the build report (OUT/report.json and OUT/report.txt).

One failing clip never stops the others: its later stages are reported as not run, and the
merge uses every clip whose QA finished.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from courtstudio.dataset.manifest import Manifest
from courtstudio.dataset.stages import (
    CLIP_STAGES,
    StageResult,
    StageStatus,
    finished_result,
    run_clip_stage,
    skip_reason,
    stage_provenance,
)

MAX_ATTEMPTS = 3
ALL_STAGES = CLIP_STAGES + ("merge",)


@dataclass
class BuildReport:
    out: str
    executor: str
    seconds: float = 0.0
    results: list = field(default_factory=list)  # StageResult as dicts
    failures: list = field(default_factory=list)  # {clip, stage, attempts, error}
    merge: dict = field(default_factory=dict)

    def per_stage(self) -> dict:
        rows: dict = {}
        for r in self.results:
            row = rows.setdefault(
                r["stage"], {"tasks": 0, **{str(s): 0 for s in StageStatus}, "seconds": 0.0}
            )
            row["tasks"] += 1
            row[r["status"]] = row.get(r["status"], 0) + 1
            row["seconds"] += r["seconds"]
        return rows

    def to_json(self) -> dict:
        return {
            "out": self.out,
            "executor": self.executor,
            "seconds": round(self.seconds, 3),
            "stages": self.per_stage(),
            "failures": self.failures,
            "merge": self.merge,
            "tasks": self.results,
        }

    def to_text(self) -> str:
        lines = [f"dataset build in {self.out} ({self.executor}): {self.seconds:.1f} s"]
        lines.append(
            f"{'stage':<10} {'tasks':>5} {'done':>5} {'cached':>6} {'skipped':>7} "
            f"{'failed':>6} {'not run':>7} {'time s':>8}"
        )
        for stage in ALL_STAGES:
            row = self.per_stage().get(stage)
            if row:
                lines.append(
                    f"{stage:<10} {row['tasks']:>5} {row['done']:>5} "
                    f"{row['cached']:>6} {row['skipped']:>7} {row['failed']:>6} "
                    f"{row['not_run']:>7} {row['seconds']:>8.1f}"
                )
        for f in self.failures:
            lines.append(
                f"FAILED {f['clip']}/{f['stage']} after {f['attempts']} attempts: {f['error']}"
            )
        notes = sorted(
            {
                f"{r['stage']}: {r['note']}"
                for r in self.results
                if r["status"] == StageStatus.SKIPPED and r["note"]
            }
        )
        lines += [f"note: {n}" for n in notes]
        if self.merge:
            lines.append(
                "merged: "
                + ", ".join(
                    f"{k} {v}" for k, v in self.merge.items() if not isinstance(v, (dict, list))
                )
            )
        return "\n".join(lines)


def _plan(manifest: Manifest, stages: tuple[str, ...]) -> list[tuple[str, str]]:
    tasks = []
    for clip in manifest.clips:
        for stage in CLIP_STAGES:
            if stage == "players" and not clip.players:
                continue
            if stage in stages:
                tasks.append((clip.id, stage))
    return tasks


def build_dataset(
    manifest: Manifest,
    out,
    start_executor: Callable[[], object],
    stages: tuple[str, ...] = ALL_STAGES,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> BuildReport:
    """Run the build; returns the report (also written to OUT/report.json and .txt).

    start_executor() gives the executor (executors.make_executor); it is called only when
    a task has to run, so a rerun with nothing changed starts no cluster."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    report = BuildReport(str(out), "nothing to run: every task was finished")
    started: list = []

    def executor():
        if not started:
            started.append(start_executor())
            report.executor = started[0].describe()
            if log:
                log(f"running on {report.executor}")
        return started[0]

    clips = {c.id: c for c in manifest.clips}
    tasks = _plan(manifest, stages)
    order = {cid: [s for c, s in tasks if c == cid] for cid in clips}
    digests: dict[str, dict[str, str | None]] = {cid: {} for cid in clips}
    attempts: dict[tuple[str, str], int] = {}
    running: dict = {}
    bar = _progress_bar(len(tasks) + ("merge" in stages), progress)

    def submit(cid: str, stage: str) -> None:
        """Start the stage, or take its finished folder when nothing it reads changed (and
        go on with the clip's next stage)."""
        clip = clips[cid]
        while stage is not None:
            why = skip_reason(stage, clip, out, lambda: executor().gpus)
            if why is not None:
                report.results.append(
                    asdict(StageResult(cid, stage, StageStatus.SKIPPED, note=why))
                )
                digests[cid][stage] = None
                bar.update(1)
                stage = next_stage(cid, stage)
                continue
            prov = stage_provenance(stage, clip, manifest.qa, dict(digests[cid]))
            done = finished_result(stage, clip, out, prov)
            if done is None:
                break
            report.results.append(asdict(done))
            digests[cid][stage] = done.digest
            bar.update(1)
            stage = next_stage(cid, stage)
        if stage is None:
            return
        ex = executor()
        attempts[(cid, stage)] = attempts.get((cid, stage), 0) + 1
        # the players stage gets here only where the cluster has a GPU (skip_reason)
        h = ex.submit(
            run_clip_stage, stage, clip, str(out), manifest.qa, prov, gpu=stage == "players"
        )
        running[h] = (cid, stage)

    def next_stage(cid: str, stage: str | None) -> str | None:
        todo = order[cid]
        i = -1 if stage is None else todo.index(stage)
        return todo[i + 1] if i + 1 < len(todo) else None

    for cid in clips:
        first = next_stage(cid, None)
        if first:
            submit(cid, first)
    try:
        while running:
            h, result, exc = executor().wait_one(list(running))
            cid, stage = running.pop(h)
            if exc is not None:
                if attempts[(cid, stage)] < MAX_ATTEMPTS:
                    submit(cid, stage)
                    continue
                msg = " ".join(str(exc).split()) or type(exc).__name__
                report.failures.append(
                    {
                        "clip": cid,
                        "stage": stage,
                        "attempts": attempts[(cid, stage)],
                        "error": f"{type(exc).__name__}: {msg}"[:500],
                        "traceback": "".join(traceback.format_exception(exc))[-4000:],
                    }
                )
                report.results.append(asdict(StageResult(cid, stage, StageStatus.FAILED, note=msg)))
                bar.update(1)
                rest = order[cid][order[cid].index(stage) + 1 :]
                for s in rest:
                    report.results.append(
                        asdict(StageResult(cid, s, StageStatus.NOT_RUN, note=f"{stage} failed"))
                    )
                    bar.update(1)
                continue
            report.results.append(asdict(result))
            digests[cid][stage] = result.digest
            bar.update(1)
            nxt = next_stage(cid, stage)
            if nxt:
                submit(cid, nxt)
        if "merge" in stages:
            report.merge = _merge(manifest, out, report, digests)
            bar.update(1)
    finally:
        bar.close()
        if started:
            started[0].shutdown()
    report.seconds = time.perf_counter() - t0
    from safe_io.atomic import write_json_atomic, write_text_atomic

    write_json_atomic(out / "report.json", report.to_json())
    write_text_atomic(out / "report.txt", report.to_text() + "\n")
    return report


def _merge(manifest: Manifest, out: Path, report: BuildReport, digests: dict) -> dict:
    from courtstudio.dataset.qa_stage import merge_clips

    t0 = time.perf_counter()
    ready = [c for c in manifest.clips if digests[c.id].get("qa")]
    try:
        res = merge_clips(ready, out, manifest.qa, {c.id: digests[c.id]["qa"] for c in ready})
        status = StageStatus.CACHED if res.pop("cached", False) else StageStatus.DONE
        report.results.append(
            asdict(StageResult("*", "merge", status, seconds=time.perf_counter() - t0))
        )
        return res
    except Exception as exc:  # reported, like any task
        msg = " ".join(str(exc).split())
        report.failures.append(
            {
                "clip": "*",
                "stage": "merge",
                "attempts": 1,
                "error": f"{type(exc).__name__}: {msg}"[:500],
            }
        )
        report.results.append(asdict(StageResult("*", "merge", StageStatus.FAILED, note=msg)))
        return {}


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, show: bool):
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="task", file=sys.stderr, desc="dataset build", dynamic_ncols=True)


def load_report(out) -> dict:
    return json.loads((Path(out) / "report.json").read_text())

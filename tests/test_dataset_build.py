"""`courtstudio dataset build`: manifests, stages with provenance, Ray and serial runs,
resume after a kill, failures that do not stop the other clips."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from courtstudio.cli import main
from courtstudio.dataset.build import build_dataset
from courtstudio.dataset.executors import SerialExecutor, make_executor
from courtstudio.dataset.manifest import ManifestError, load_manifest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PROJECT = ROOT / "samples" / "sample_project"
STAGES = ("prepare", "propagate", "export")


def _clip(folder: Path, sport: str, seed: int, frames: int = 16) -> None:
    assert (
        main(
            [
                "synth-clip",
                "--sport",
                sport,
                "--frames",
                str(frames),
                "--size",
                "480",
                "270",
                "--seed",
                str(seed),
                "-o",
                str(folder / f"{sport}.avi"),
                "--points",
                str(folder / f"{sport}_ref.json"),
            ]
        )
        == 0
    )


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> Path:
    """Two tiny synthetic clips (tennis, badminton) with their reference clicks."""
    folder = tmp_path_factory.mktemp("clips")
    _clip(folder, "tennis", 3)
    _clip(folder, "badminton", 6)
    return folder


def _manifest(folder: Path, **extra) -> Path:
    data = {
        "clips": [
            {
                "id": "t1",
                "sport": "tennis",
                "video": "tennis.avi",
                "match": "m1",
                "references": [{"frame": 0, "points": "tennis_ref.json"}],
                "export_every": 5,
            },
            {
                "id": "b1",
                "sport": "badminton",
                "video": "badminton.avi",
                "match": "m2",
                "references": [{"frame": 0, "points": "badminton_ref.json"}],
                "export_every": 5,
            },
        ],
        "qa": {"seed": 1},
    }
    data.update(extra)
    path = folder / "manifest.json"
    path.write_text(json.dumps(data))
    return path


def _statuses(report) -> dict:
    return {(r["clip"], r["stage"]): r["status"] for r in report.results}


# ------------------------------------------------------------------------- manifests
@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d.pop("clips"), "clips"),
        (lambda d: d["clips"][1].update(id="../evil"), "clips[1].id"),
        (lambda d: d["clips"][0].update(sport="quidditch"), "clips[0].sport"),
        (lambda d: d["clips"][0].update(video="missing.avi"), "clips[0].video"),
        (lambda d: d["clips"][1].update(references=[]), "clips[1].references"),
        (lambda d: d["clips"][0]["references"][0].update(frame=-1), "clips[0].references[0].frame"),
        (lambda d: d["clips"][1].update(id="t1"), "clips[1].id"),
        (lambda d: d["clips"][0].update(project="p"), "clips[0]"),
        (lambda d: d["qa"].update(bench_fraction=2), "qa.bench_fraction"),
    ],
)
def test_a_malformed_manifest_exits_2_with_one_line_naming_the_field(
    clips, tmp_path, capsys, mutate, field
):
    data = json.loads(_manifest(clips).read_text())
    mutate(data)
    bad = clips / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["dataset", "build", str(bad), "-o", str(tmp_path / "out"), "--serial"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and str(bad) in err[0], err
    assert not (tmp_path / "out").exists()


def test_yaml_manifests_and_non_finite_numbers(clips):
    y = clips / "m.yaml"
    y.write_text(
        "clips:\n  - {id: t1, sport: tennis, video: tennis.avi,\n"
        "     references: [{frame: 0, points: tennis_ref.json}]}\n"
        "qa: {bench_fraction: .nan}\n"
    )
    with pytest.raises(ManifestError, match=r"qa\.bench_fraction.*finite"):
        load_manifest(y)
    y.write_text(y.read_text().replace(".nan", "0.25"))
    m = load_manifest(y)
    assert m.clips[0].video == clips / "tennis.avi" and m.qa.bench_fraction == 0.25
    assert m.clips[0].match == "t1"  # a clip is its own match unless told


# ---------------------------------------------------------------------------- serial
def test_a_whole_build_merges_qa_split_by_match(clips, tmp_path):
    """Two video clips and an annotated project (the sample: four sports, no propagation)
    through every stage; the merge splits by match and keeps the items' provenance."""
    data = json.loads(_manifest(clips).read_text())
    user_project = tmp_path / "user_project"
    shutil.copytree(SAMPLE_PROJECT, user_project, ignore=shutil.ignore_patterns(".courtstudio"))
    before = {
        p: (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
        for p in user_project.rglob("*")
    }
    data["clips"].append(
        {"id": "sample", "sport": "tennis", "project": str(user_project), "match": "m3"}
    )
    data["qa"].update(bench_fraction=0.34, samples=16)
    (clips / "m_all.json").write_text(json.dumps(data))
    report = build_dataset(
        load_manifest(clips / "m_all.json"), tmp_path / "out", SerialExecutor, progress=False
    )
    assert not report.failures, report.failures
    st = _statuses(report)
    assert st[("sample", "propagate")] == "skipped" and st[("*", "merge")] == "done"
    ds = tmp_path / "out/dataset"
    items = [json.loads(x) for x in (ds / "items.jsonl").read_text().splitlines()]
    assert items and {it["clip_id"] for it in items} <= {"t1", "b1", "sample"}
    split = {}
    for it in items:
        assert split.setdefault(it["match_id"], it["split"]) == it["split"]
        assert (ds / it["image_id"]).is_file() and it["image_id"].startswith(
            f"images/{it['clip_id']}/"
        )
    bench = json.loads((ds / "bench.json").read_text())
    train = json.loads((ds / "train.json").read_text())
    assert len(bench) + len(train) == sum("image_ids" not in it for it in items)
    assert set(json.loads((ds / "dataset_info.json").read_text())) >= {"courtstudio_qa"}
    assert report.merge["items"] == len(items)
    # the scenes carry the manifest's match and clip ids
    scene = json.loads(
        next((tmp_path / "out/clips/b1/export/scenes").glob("*/scene.json")).read_text()
    )
    assert scene["frame"]["match_id"] == "m2" and scene["frame"]["clip_id"] == "b1"
    # the user's project was read, never written
    after = {
        p: (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
        for p in user_project.rglob("*")
    }
    assert after == before


def test_without_ray_the_build_runs_serially_and_says_so(clips, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    said = []
    ex = make_executor(None, 2, said.append)
    assert isinstance(ex, SerialExecutor) and "serially" in said[0]
    report = build_dataset(
        load_manifest(_manifest(clips)), tmp_path / "out", lambda: ex, STAGES, progress=False
    )
    assert not report.failures, report.failures
    assert set(_statuses(report).values()) == {"done"}
    for cid, sport in (("t1", "tennis"), ("b1", "badminton")):
        scenes = sorted((tmp_path / f"out/clips/{cid}/export/scenes").glob("*/scene.json"))
        assert [p.parent.name for p in scenes] == [f"{sport}_0000{i:02d}" for i in (0, 5, 10, 15)]
    prop = (tmp_path / "out/clips/t1/propagate/cameras.jsonl").read_text().splitlines()
    assert len(prop) == 16
    for stage in STAGES:
        prov = json.loads((tmp_path / f"out/clips/b1/{stage}/provenance.json").read_text())
        assert prov["stage"] == stage and len(prov["digest"]) == 64
    rep = json.loads((tmp_path / "out/report.json").read_text())
    assert rep["stages"]["propagate"]["done"] == 2
    assert "prepare" in (tmp_path / "out/report.txt").read_text()

    # nothing changed: nothing runs, no executor is started
    def no_executor():
        raise AssertionError("a rerun with nothing changed must not start an executor")

    again = build_dataset(
        load_manifest(_manifest(clips)), tmp_path / "out", no_executor, STAGES, progress=False
    )
    assert set(_statuses(again).values()) == {"cached"}

    # a changed reference redoes that clip's stages only
    ref = json.loads((clips / "badminton_ref.json").read_text())
    name = next(iter(ref["points"]))
    ref["points"][name][0] += 0.5
    changed = clips / "badminton_ref_changed.json"
    changed.write_text(json.dumps(ref))
    data = json.loads(_manifest(clips).read_text())
    data["clips"][1]["references"][0]["points"] = changed.name
    (clips / "manifest2.json").write_text(json.dumps(data))
    third = build_dataset(
        load_manifest(clips / "manifest2.json"),
        tmp_path / "out",
        SerialExecutor,
        STAGES,
        progress=False,
    )
    st = _statuses(third)
    assert {st[("b1", s)] for s in STAGES} == {"done"}
    assert {st[("t1", s)] for s in STAGES} == {"cached"}


def test_a_failing_clip_is_retried_reported_and_does_not_stop_the_others(clips, tmp_path, capsys):
    data = json.loads(_manifest(clips).read_text())
    data["clips"][0]["references"][0]["frame"] = 500  # outside the 16-frame video
    (clips / "m_fail.json").write_text(json.dumps(data))
    code = main(
        [
            "dataset",
            "build",
            str(clips / "m_fail.json"),
            "-o",
            str(tmp_path / "out"),
            "--serial",
            "--quiet",
            "--stages",
            *STAGES,
        ]
    )
    assert code == 1
    rep = json.loads((tmp_path / "out/report.json").read_text())
    assert [(f["clip"], f["stage"], f["attempts"]) for f in rep["failures"]] == [
        ("t1", "prepare", 3)
    ]
    assert "reference frame 500" in rep["failures"][0]["error"]
    st = {(r["clip"], r["stage"]): r["status"] for r in rep["tasks"]}
    assert st[("t1", "propagate")] == "not_run" and st[("b1", "export")] == "done"
    assert "FAILED t1/prepare" in capsys.readouterr().out


def test_a_killed_build_resumes_without_redoing_finished_tasks(clips, tmp_path, capsys):
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "courtstudio",
        "dataset",
        "build",
        str(_manifest(clips)),
        "-o",
        str(out),
        "--serial",
        "--quiet",
        "--stages",
        *STAGES,
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    marker = out / "clips/t1/propagate/provenance.json"
    while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert marker.exists(), "the build never finished a propagation"
    # the resume in-process (the killed run above is the separate process)
    assert main(cmd[3:]) == 0, capsys.readouterr().err
    rep = json.loads((out / "report.json").read_text())
    st = {(r["clip"], r["stage"]): r["status"] for r in rep["tasks"]}
    assert st[("t1", "prepare")] == "cached" and st[("t1", "propagate")] == "cached"
    assert all(v in ("cached", "done") for v in st.values())
    assert not list(out.glob("clips/*/.*.old-*")), "swap leftovers are cleaned"
    assert len((out / "clips/b1/propagate/cameras.jsonl").read_text().splitlines()) == 16


# ------------------------------------------------------------------------------- ray
@pytest.mark.timeout(600)
def test_a_local_ray_cluster_of_two_cpus_builds_two_clips(clips, tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is an optional extra ([scale])")
    from courtstudio.dataset.executors import TASK_THREADS_ENV, RayExecutor

    before = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", TASK_THREADS_ENV, "PYTHONPATH")}
    try:
        ex = RayExecutor(None, 2)
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Ray cannot start a local cluster here: {exc}")
    assert ex.workers == 2 and ray.is_initialized()
    # the tasks run one thread each and import this checkout; the driver's environment is as
    # it was
    for name in ("OMP_NUM_THREADS", TASK_THREADS_ENV):
        _, value, err = ex.wait_one([ex.submit(os.getenv, name)])
        assert err is None and value == "1", (name, value, err)
    _, path, _ = ex.wait_one([ex.submit(os.getenv, "PYTHONPATH")])
    assert str(ROOT) in path.split(os.pathsep)
    assert {k: os.environ.get(k) for k in before} == before
    report = build_dataset(
        load_manifest(_manifest(clips)), tmp_path / "out", lambda: ex, STAGES, progress=False
    )
    assert not ray.is_initialized(), "the build shuts its cluster down"
    assert not report.failures, report.failures
    assert set(_statuses(report).values()) == {"done"} and "Ray" in report.executor
    for cid in ("t1", "b1"):
        assert len(list((tmp_path / f"out/clips/{cid}/export/scenes").glob("*/scene.json"))) == 4
    shutil.rmtree(tmp_path / "out")


def test_the_serial_executor_checks_for_a_gpu_only_when_a_stage_needs_one(clips, tmp_path):
    asked = []

    def gpu_check() -> bool:
        asked.append(1)
        return False

    ex = SerialExecutor(gpu=gpu_check)
    report = build_dataset(
        load_manifest(_manifest(clips)), tmp_path / "out", lambda: ex, ("prepare",), progress=False
    )
    assert set(_statuses(report).values()) == {"done"}
    assert asked == [], "no stage of this build needs a GPU: torch is not imported to ask"
    assert ex.gpus == 0 and ex.gpus == 0 and asked == [1], "asked once, when first needed"
    assert SerialExecutor(gpu=True).gpus == 1 and SerialExecutor().gpus == 0

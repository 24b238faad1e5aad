"""Shared fixtures: seeded synthetic broadcast cameras with known ground truth."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any Qt import
# Anny's first model build takes ~35 s; keep its cache beside the venv across test runs
os.environ.setdefault(
    "ANNY_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".venv", "anny_cache")
)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from court_specs import load_spec  # noqa: E402
from court_specs.model import PAPER_SIX  # noqa: E402
from courtstudio.synth.synthetic import sample_broadcast_camera  # noqa: E402

IMAGE_SIZE = (1920, 1080)


@pytest.fixture(autouse=True, scope="session")
def _synthetic_images_once():
    """Synthetic textures and frames computed once per worker (tests/synth_memo.py: the
    same bytes and generator states as the real calls)."""
    from tests import synth_memo

    with pytest.MonkeyPatch.context() as mp:
        synth_memo.install(mp.setattr)
        yield


def _fsync_without_waiting_for_the_disk(fd) -> None:
    """os.fsync in the test processes: the descriptor is still checked (a closed or bad one
    raises as fsync would), but nothing waits for the disk."""
    os.fstat(fd if isinstance(fd, int) else fd.fileno())


@pytest.fixture(autouse=True, scope="session")
def _no_disk_flush_waits():
    """Saves are atomic and fsynced (safe_io/atomic.py, the journal, the lock, dataset
    stages): ~2700 file and folder flushes per run, 2-5 ms each on a shared disk, 7-14 s of
    waiting and nothing a test can observe (a power cut is not simulated). The test processes
    skip the wait; the order of replace and folder fsync is checked by test_atomic's own spy,
    and the kill -9 harnesses' child processes keep the real fsync."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "fsync", _fsync_without_waiting_for_the_disk)
        if hasattr(os, "fdatasync"):
            mp.setattr(os, "fdatasync", _fsync_without_waiting_for_the_disk)
        yield


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    """The app's settings and sample copy go to a per-test folder, never the real home."""
    monkeypatch.setenv("COURTSTUDIO_HOME", str(tmp_path / "courtstudio_home"))


def open_main_window(qtbot, answer: str = "Discard"):
    """The app's main window, shown offscreen at 1400x860; every question it asks is
    answered with ``answer``."""
    from annotation_ui.main_window import MainWindow

    win = MainWindow()
    win.ask = lambda title, text, buttons: answer
    qtbot.addWidget(win)
    win.resize(1400, 860)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def window(qtbot):
    return open_main_window(qtbot)


@pytest.fixture
def sample_root(tmp_path):
    """A copy of the bundled sample: opening a project writes its lock file."""
    import shutil
    from pathlib import Path

    from courtstudio.export.reconstruct import SAMPLE_PROJECT

    return Path(
        shutil.copytree(
            SAMPLE_PROJECT,
            tmp_path / "sample_project",
            ignore=shutil.ignore_patterns(".courtstudio"),
        )
    )


@pytest.fixture
def project(sample_root):
    """The bundled sample loaded from a copy (tests edit and save it)."""
    from courtstudio.io.project import load_project

    return load_project(sample_root)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def tennis():
    return load_spec("tennis")


def true_clicks(spec, camera, names=PAPER_SIX):
    """{name: (2,) px} exact projections of the named keypoints."""
    uv = camera.project(np.array([spec.keypoints[n] for n in names]))
    return dict(zip(names, uv))


@pytest.fixture
def tennis_camera(tennis):
    return sample_broadcast_camera(tennis, IMAGE_SIZE, np.random.default_rng(7))


# -- the suite never writes into the source tree --------------------------------------------------
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NOT_SOURCE = {
    ".git",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".import_linter_cache",
    "build",
    "dist",
    "out",
    ".hypothesis",
}


def _source_tree_entries() -> set[str]:
    """Every file and folder under the repository, minus caches and build output."""
    found = set()
    for folder, dirs, files in os.walk(_SOURCE_ROOT):
        dirs[:] = [d for d in dirs if d not in _NOT_SOURCE and not d.endswith(".egg-info")]
        rel = os.path.relpath(folder, _SOURCE_ROOT)
        found.update(os.path.join(rel, name) for name in dirs + files)
    return found


# Tests that take several seconds each (measured with --durations on 2 cores; the Anny module
# builds its body model once, ~35 s the first time). They still run in `make test` and CI;
# `make test-fast` (-m "not slow") leaves them out. Listed here rather than decorated in place
# while other branches edit those files; the package restructure moves them into the files.
SLOW_TESTS = (
    "tests/test_anny.py::",
    "tests/test_wheel.py::",
    "tests/test_click_noise.py::test_clean_frames_at_real_click_noise_have_no_suspects",
    "tests/test_click_noise.py::test_noise_estimate_tracks_the_true_noise_within_its_bounds",
    "tests/test_cli.py::test_reconstruct_sample_and_export",
    "tests/test_gui.py::test_screenshot_command",
    "tests/test_journal.py::test_kill_9_harness_loses_no_acknowledged_edit",
    "tests/test_uncertainty_and_rescale.py::test_ball_sigma_matches_monte_carlo",
    "tests/test_propagation.py::test_two_references_and_resume",
    "tests/test_propagation.py::test_pan_tilt_zoom_from_one_reference",
    "tests/test_gui_trust.py::test_headless_bad_project_exits_2_with_one_line",
    "tests/test_qa_generate.py::",
    "tests/test_labelling.py::test_full_model_on_correct_clicks_suggests_no_relabelling",
)


# Modules whose module-scoped fixture is expensive (a reconstructed sample, a fuzz corpus, an X
# server, a SMPL-X stand-in, scene files): one xdist worker runs the whole module, so the
# fixture is built once per run, not once per worker. Long tests that wait (Ray, kill tests)
# stay ungrouped so that the two workers share them.
MODULE_GROUPS = (
    "tests/test_qa_generate.py",
    "tests/test_fuzz_cli.py",
    "tests/test_gui_xvfb.py",
    "tests/test_smplx_body.py",
    "tests/test_untrusted_cli.py",
    "tests/test_qa_questions.py",
)


# Modules whose tests take the longest (CPU, or waiting for a Ray cluster, a kill, a child
# process), measured with --durations on 2 cores, longest first. xdist hands the ungrouped
# tests out in collection order (after the groups, which go first, largest first): these
# modules run first so that the two workers end on the many short tests, not one worker on a
# long test while the other idles. Each module's own order is kept (its module-scoped
# fixtures are built once per worker).
LONG_MODULES_FIRST = (
    "tests/test_dataset_build.py",
    "tests/test_propagation.py",
    "tests/test_gui.py",
    "tests/test_labelling.py",
    "tests/test_click_noise.py",
    "tests/test_gui_trust.py",
    "tests/test_export_manifest.py",
    "tests/test_cli.py",
    "tests/test_propagation_refine.py",
    "tests/test_propagation_lens.py",
    "tests/test_gui_masks.py",
    "tests/test_uncertainty_and_rescale.py",
    "tests/test_journal.py",
    "tests/test_line_refine.py",
    "tests/test_gui_edges.py",
    "tests/test_masks.py",
    "tests/test_propagation_speed.py",
)


def _long_modules_first(items):
    rank = {module: k for k, module in enumerate(LONG_MODULES_FIRST)}
    keyed = sorted(
        enumerate(items),
        key=lambda ki: (rank.get(ki[1].nodeid.split("::", 1)[0], len(rank)), ki[0]),
    )
    items[:] = [item for _, item in keyed]


# The tests that import torch (directly through tests/lazy_torch.py, or in PromptHMR, SMPL-X,
# Anny and SAM3 code, or hmr.devices): one xdist group, so one worker pays torch's import
# (~2.5 s CPU) and the other never does. The group also keeps each module's expensive
# module-scoped fixture (the Anny body, the SMPL-X stand-in, the fuzz corpus) built once.
TORCH_TESTS = (
    "tests/test_anny.py::",
    "tests/test_smplx_body.py::",
    "tests/test_fuzz_cli.py::",
    "tests/test_prompthmr.py::",
    "tests/test_prompthmr_runner.py::",
    "tests/test_sam3_boxes.py::",
    "tests/test_gui_players.py::test_import_prompthmr_result_matches_players",
    "tests/test_gui_players.py::test_template_body_and_preferences",
    # serial dataset builds ask hmr.devices.cuda_available (torch) for the GPU stages
    "tests/test_dataset_build.py::test_without_ray_the_build_runs_serially_and_says_so",
    "tests/test_dataset_build.py::test_a_failing_clip_is_retried_reported_and_does_not_stop_the_",
    "tests/test_dataset_build.py::test_a_killed_build_resumes_without_redoing_finished_tasks",
)


def pytest_collection_modifyitems(config, items):
    _long_modules_first(items)
    for item in items:
        if item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
        if item.nodeid.startswith(TORCH_TESTS):
            item.add_marker(pytest.mark.xdist_group("torch"))
        module = item.nodeid.split("::", 1)[0]
        if module in MODULE_GROUPS and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(os.path.basename(module)[:-3]))
    _xdist_groups_on_structured_node_ids(config, items)


def _xdist_groups_on_structured_node_ids(config, items):
    """`--dist loadgroup` on pytest >= 9.2: pytest-xdist 3.8 gives a grouped test its group by
    appending ``@group`` to ``item._nodeid``, which pytest 9.2 no longer reads (node ids are
    structured, ``item._id``), so every group was silently split across the workers
    (pytest-dev/pytest-xdist#1386, fix pending in #1388). Same suffix, on the field pytest
    reads; a no-op where xdist's own suffix took effect."""
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
        if not names or item.nodeid.rfind("@") > item.nodeid.rfind("]"):
            continue
        item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(names))}")


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        session.config._source_before = _source_tree_entries()


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "_source_before", None)
    if before is None:
        return
    new = sorted(_source_tree_entries() - before)
    if new:
        print(f"\nFAILED: the tests wrote into the source tree: {new[:10]}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

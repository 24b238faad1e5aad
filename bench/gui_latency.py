"""GUI latency, offscreen (issue 3): click-to-overlay and frame stepping.

- click-to-overlay: drag one keypoint with real mouse events on the canvas (press, moves of
  about a pixel, release); per move the time until the event queue is drained: the edit, the
  re-solve, every overlay and panel redrawn and the canvas repainted (a move after which no
  canvas repaint came gets one forced inside the timing, and is counted). Also the mouse
  release, which adds the calibration doctor, and the same drag measured the way this bench
  did before 2026-11-30 evening (document edits, a forced repaint, so the canvas was painted
  twice and antialiased). Target: median under 16 ms.
- frame step: a 1920x1080 video project (synthetic broadcast frames, MJPG), stepping to the
  next frame (decode, pixmap, overlays, panels, repaint), and seeking +-10 frames. Target:
  median under 50 ms.

- a 10,000-frame project with 1,000 unsaved frames (issue 8): the same drag, stepping to the
  next frame and to the next annotated frame (1,000 of the frames carry the sample's tennis
  clicks, ball and players; the 1,000 unsaved ones are those, flagged in this session).
  Each annotated frame has its own clicks (the sample's, jittered by 0.5 px), so no frame
  reuses another's cached calibration or ball. A step is timed until the end of the canvas's
  first repaint of the new frame; the doctor and the ball's 1-sigma run after it (also timed,
  until they are shown). Targets: drag < 16 ms, step < 50 ms (medians).
- edit journaling: the autosave cost of one edit (append + fdatasync) with 1 / 100 / 1,000 /
  15,000 unsaved frames, against rewriting the whole unsaved state (what version 1 of the
  journal did on every edit). Target: < 2 ms whatever the number.

- real frames (issue 10): ``--real FOLDER`` (the dev set layout, /work/devset: frames/ and
  annotations/, footage kept out of git): every frame with at least 13 hand clicks opened in
  the app, and one of its keypoints dragged with real mouse events on the canvas (press, 40
  moves of about a pixel, release). Per move: the re-solve, overlays, panels, loupe and the
  canvas repaint. Target: median under 16 ms per move. The release (lens selection, doctor,
  ball 1-sigma) is timed apart.

Run: ``QT_QPA_PLATFORM=offscreen python bench/gui_latency.py`` (``--only big`` or
``--only journal`` for one part; ``--real FOLDER --only real`` for the real frames). Fixed
seeds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from gui_latency_projects import make_video, many_frame_project, real_project  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from annotation_ui.main_window import MainWindow  # noqa: E402
from courtstudio.export.reconstruct import SAMPLE_PROJECT  # noqa: E402
from courtstudio.io.project_new import new_project_from_video  # noqa: E402


def stats(ts):
    ts = np.array(ts) * 1e3
    return f"{np.median(ts):.1f} | {np.percentile(ts, 90):.1f}"


def stats_note(ts):
    """median / p90 ms, for a note column."""
    ts = np.array(ts) * 1e3
    return f"{np.median(ts):.1f} / {np.percentile(ts, 90):.1f}"


class PaintWatch:
    """Counts the canvas repaints (FrameView.painted) and notes when each ended (wall clock
    and this process's CPU time)."""

    def __init__(self, win):
        self.ends: list[tuple[float, float]] = []
        win.view.painted.connect(self._painted)

    @property
    def count(self) -> int:
        return len(self.ends)

    def _painted(self):
        self.ends.append((time.perf_counter(), time.process_time()))


def timed_drag(app, win, uv0, moves: int = 200) -> tuple[list[float], list[float], int]:
    """Drag the click at pixel uv0 with real mouse events on the canvas (press, ``moves``
    moves of about a pixel, release), as the annotator does. Per move: seconds from the
    move until the event queue is drained (the edit, the re-solve, overlays, panels and the
    canvas repainted), and this process's CPU seconds; and the number of moves after which
    no canvas repaint came (then one is forced inside the timing)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from annotation_ui.coords import uv_to_scene

    vp = win.view.viewport()
    watch = PaintWatch(win)
    start = win.view.mapFromScene(uv_to_scene(*uv0))
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    app.processEvents()
    wall, cpu, unpainted = [], [], 0
    p = start
    for i in range(moves):
        p = start + QPoint(round(3 * float(np.sin(i / 6))), (i % 5) - 2)
        n = watch.count
        t0, c0 = time.perf_counter(), time.process_time()
        QTest.mouseMove(vp, p)
        app.processEvents()
        if watch.count == n:  # nothing was repainted: count the repaint anyway
            unpainted += 1
            vp.repaint()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, p)
    app.processEvents()
    return wall, cpu, unpainted


def forced_repaint_drag(app, win, fid: str, uv0, moves: int = 200) -> list[float]:
    """The drag as this bench measured it before 2026-11-30 evening: the edit through the
    document (no mouse press, so the overlays stay antialiased), a forced canvas repaint,
    then the event queue drained (which repaints the canvas a second time). Kept to compare
    with the earlier rows."""
    u0, v0 = uv0
    out = []
    win._dragging = True
    for i in range(moves):
        t0 = time.perf_counter()
        win.doc.set_keypoint(
            fid, "near_left_corner", (u0 + 0.5 * np.sin(i / 5), v0 + 0.1 * i % 3), drag=True
        )
        win.view.viewport().repaint()
        app.processEvents()
        out.append(time.perf_counter() - t0)
    win._dragging = False
    win.doc.end_drag()
    win.refresh()
    app.processEvents()
    return out


def timed_step(app, win, watch: PaintWatch, delta: int = 1) -> tuple[float, float, float]:
    """Seconds from a frame step until (a) the end of the canvas's first repaint showing
    the new frame, (b) the event queue is drained and the deferred doctor has run; and
    (c) this process's CPU seconds until (a)."""
    n = watch.count
    t0, c0 = time.perf_counter(), time.process_time()
    win.step(delta)
    app.processEvents()
    while (watch.count == n or win._diagnosis_pending) and time.perf_counter() - t0 < 5.0:
        app.processEvents()
    app.processEvents()  # the doctor's redraw
    t_done = time.perf_counter()
    if watch.count > n:  # the first repaint after the step
        return watch.ends[n][0] - t0, t_done - t0, watch.ends[n][1] - c0
    return t_done - t0, t_done - t0, time.process_time() - c0


def big_project(app, tmp: Path) -> list[str]:
    """Drag and step in a 10,000-frame project with 1,000 unsaved frames."""
    root = many_frame_project(tmp / "big", 10_000)
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1600, 960)
    win.show()
    app.processEvents()
    t0 = time.perf_counter()
    win.open_project(root, recover=False)
    app.processEvents()
    t_open = time.perf_counter() - t0
    doc = win.doc
    for i in range(0, 10_000, 10):  # 1,000 unsaved frames
        doc.toggle_flag(f"f{i:05d}")
    app.processEvents()
    assert len(doc.unsaved_state()["annotations"]) == 1000
    fid = doc.current_frame.id
    # the timeline repaints the edited column
    drag, drag_cpu, unpainted = timed_drag(app, win, doc.annotation(fid).points["near_left_corner"])
    doc.end_drag()
    win.refresh()
    app.processEvents()
    watch = PaintWatch(win)
    step, step_annotated, step_done, step_cpu = [], [], [], []
    rng = np.random.default_rng(3)
    for _ in range(80):
        win.go_to(int(rng.integers(0, 990)) * 10 + 1)  # a frame without annotation
        app.processEvents()
        step.append(timed_step(app, win, watch)[1])
        win.go_to(int(rng.integers(0, 999)) * 10 + 9)  # the frame before an annotated one
        app.processEvents()
        while win._diagnosis_pending:
            app.processEvents()
        # to an annotated frame: calibration, ball, players; then the doctor, ball 1-sigma
        shown, done, cpu = timed_step(app, win, watch)
        step_annotated.append(shown)
        step_done.append(done)
        step_cpu.append(cpu)
    paint = []
    for _ in range(20):
        t0 = time.perf_counter()
        win.timeline.repaint()
        paint.append(time.perf_counter() - t0)
    win.close_project()
    return [
        f"| 10,000 frames, 1,000 unsaved: drag a keypoint (+ journal, timeline) | "
        f"{stats(drag)} | < 16 ms median | mouse events; CPU per move (median / p90) "
        f"{stats_note(drag_cpu)} "
        f"ms; moves without a repaint: {unpainted} |",
        f"| 10,000 frames, 1,000 unsaved: next frame (not annotated) | {stats(step)} | "
        "< 50 ms median | 1920x1080 JPEG decode |",
        f"| 10,000 frames, 1,000 unsaved: next frame, annotated, until shown (court, ball, "
        f"players) | {stats(step_annotated)} | < 50 ms median | first visit; each frame "
        f"its own clicks; CPU until shown (median / p90) {stats_note(step_cpu)} ms |",
        f"| 10,000 frames, 1,000 unsaved: next frame, annotated, until the doctor and ball "
        f"1-sigma are shown too | {stats(step_done)} | - | the doctor runs after the "
        "frame's first repaint |",
        f"| 10,000 frames: whole timeline repaint | {stats(paint)} | - | |",
        f"| 10,000 frames: open the project (1,000 annotation files) | {t_open * 1e3:.0f} "
        "| - | - | |",
    ]


def journal_cost(tmp: Path) -> list[str]:
    """The autosave cost of one edit against the number of unsaved frames."""
    import courtstudio.editing.autosave as autosave_mod
    from courtstudio.editing.autosave import Autosave
    from courtstudio.editing.document import AnnotationDocument
    from courtstudio.io.project import load_project
    from safe_io.atomic import write_json_atomic

    tiny = np.zeros((36, 64, 3), np.uint8)
    root = many_frame_project(tmp / "journal", 15_000, annotated_every=0, image=tiny)
    doc = AnnotationDocument(load_project(root))
    auto = Autosave(doc)
    doc.undo_stack.changed.disconnect(auto.write)  # journaled by hand below, to time it
    ids = [f.id for f in doc.project.frames]
    rows = []
    syncs: list[float] = []
    real_sync = autosave_mod._datasync

    def timed_sync(fd):  # the device's share: the same for any number of frames
        t0 = time.perf_counter()
        real_sync(fd)
        syncs.append(time.perf_counter() - t0)

    autosave_mod._datasync = timed_sync
    dirty = 0
    rng = np.random.default_rng(4)
    for n in (1, 100, 1000, 15_000):
        for fid in ids[dirty:n]:
            doc.set_player_box(fid, 1, (10, 5, 30, 30))
        dirty = n
        auto.compact()
        append, rewrite = [], []
        syncs.clear()
        for i in range(200 if n < 15_000 else 60):
            fid = ids[int(rng.integers(n))]
            doc.set_player_box(fid, 1, (10 + i % 7, 5, 30, 30))
            k = len(syncs)
            t0 = time.perf_counter()
            auto.write()
            if len(syncs) > k:  # (an edit that changed nothing journals nothing)
                append.append(time.perf_counter() - t0)
            if i < 20:  # the version-1 journal: the whole unsaved state on every edit
                t0 = time.perf_counter()
                write_json_atomic(tmp / "v1_autosave.json", doc.unsaved_state())
                rewrite.append(time.perf_counter() - t0)
        cpu = np.array(append) - np.array(syncs)
        rows.append(
            f"| edit journaling, {n:,} unsaved frames: append + fdatasync | "
            f"{stats(append)} | < 2 ms | of which fdatasync {stats(syncs)}, the rest "
            f"{stats(cpu)}; rewrite all (v1): {stats(rewrite)} ms |"
        )
    autosave_mod._datasync = real_sync
    doc.undo_stack.changed.connect(auto.write)
    auto.close()
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=["small", "big", "journal", "real"])
    ap.add_argument("--real", type=Path, help="a dev set folder (frames/, annotations/)")
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    tmp = Path(tempfile.mkdtemp())
    os.environ["COURTSTUDIO_HOME"] = str(tmp / "home")
    rows = []
    if args.only in (None, "journal"):
        rows += journal_cost(tmp)
    if args.only in (None, "big"):
        rows += big_project(app, tmp)
    if args.only in (None, "small"):
        rows = small_projects(app, tmp) + rows
    if args.real is not None and args.only in (None, "real"):
        rows += real_frames(app, tmp, args.real)
    print("| operation | median ms | p90 ms | target | note |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(r)
    shutil.rmtree(tmp, ignore_errors=True)


def small_projects(app, tmp: Path) -> list[str]:
    shutil.copytree(SAMPLE_PROJECT, tmp / "sample")
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1600, 960)
    win.show()
    app.processEvents()
    win.open_project(tmp / "sample", recover=False)
    doc = win.doc
    fid = doc.current_frame.id
    u0, v0 = doc.annotation(fid).points["near_left_corner"]
    release = []
    drag, drag_cpu, unpainted = timed_drag(app, win, (u0, v0))
    win.undo()
    app.processEvents()
    old_method = forced_repaint_drag(app, win, fid, (u0, v0))
    for i in range(50):
        doc.set_keypoint(fid, "near_left_corner", (u0 + 0.3 * (i % 4), v0), drag=True)
        t0 = time.perf_counter()
        doc.end_drag()
        win.refresh()  # what releasing the mouse triggers: the doctor runs
        win.view.viewport().repaint()
        app.processEvents()
        release.append(time.perf_counter() - t0)
    win.close_project()

    video = tmp / "clip.avi"
    make_video(video)
    project = new_project_from_video(tmp / "video_project", video, "tennis")
    win.open_project(project.root, recover=False)
    step, seek = [], []
    watch = PaintWatch(win)
    for _ in range(100):
        step.append(timed_step(app, win, watch)[1])
    rng = np.random.default_rng(2)
    for _ in range(60):
        t0 = time.perf_counter()
        win.go_to(int(rng.integers(0, 110)))
        timed_step(app, win, watch, 10)
        seek.append(time.perf_counter() - t0)
    win.close_project()
    return [
        f"| drag a keypoint: re-solve + redraw overlays and panels + repaint | "
        f"{stats(drag)} | < 16 ms median | sample project, mouse events; CPU per move "
        f"(median / p90) {stats_note(drag_cpu)} ms; moves without a repaint: {unpainted} |",
        f"| the same drag measured the old way (document edit + forced repaint, "
        f"antialiased, the canvas painted twice) | {stats(old_method)} | - | |",
        f"| release the drag: + calibration doctor | {stats(release)} | - | |",
        f"| next frame, 1920x1080 MJPG video (decode, overlays, repaint) | {stats(step)} | "
        "< 50 ms median | |",
        f"| seek: jump to a random frame, then +10 | {stats(seek)} | - | |",
    ]


def real_frames(app, tmp: Path, folder: Path) -> list[str]:
    """Drag a keypoint with real mouse events on every real frame with 13+ clicks."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from annotation_ui.coords import uv_to_scene

    root = real_project(tmp / "real", folder)
    win = MainWindow()
    win.ask = lambda *a: "Discard"
    win.resize(1600, 960)
    win.show()
    app.processEvents()
    win.open_project(root, recover=False)
    doc, vp = win.doc, win.view.viewport()
    rng = np.random.default_rng(5)
    drag, release, release_doctor, per_frame, clicks, cpu = [], [], [], [], [], []
    watch, unpainted = PaintWatch(win), 0
    for index in range(doc.frame_count):
        win.go_to(index)
        app.processEvents()
        while win._diagnosis_pending:  # the frame's doctor has run before the drag starts
            app.processEvents()
        fid = doc.current_frame.id
        pts = doc.annotation(fid).points
        clicks.append(len(pts))
        name = sorted(pts)[int(rng.integers(len(pts)))]
        start = win.view.mapFromScene(uv_to_scene(*pts[name]))
        QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
        app.processEvents()
        this = []
        for i in range(40):
            p = start + QPoint(round(3 * float(np.sin(i / 6))), (i % 5) - 2)
            n = watch.count
            t0, c0 = time.perf_counter(), time.process_time()
            QTest.mouseMove(vp, p)
            app.processEvents()
            if watch.count == n:  # nothing was repainted: count the repaint anyway
                unpainted += 1
                vp.repaint()
            this.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        n = watch.count
        t0 = time.perf_counter()
        QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, p)
        app.processEvents()
        if watch.count == n:
            vp.repaint()
        release.append(time.perf_counter() - t0)
        while win._diagnosis_pending:  # the doctor (painted-line check) follows the repaint
            app.processEvents()
        release_doctor.append(time.perf_counter() - t0)
        drag += this
        per_frame.append(np.median(this) * 1e3)
        win.undo()
    win.close_project()
    worst = max(per_frame)
    return [
        (
            f"| real frames ({len(clicks)} frames, {min(clicks)}-{max(clicks)} clicks): drag "
            f"a keypoint, per mouse move | {stats(drag)} | < 16 ms median | worst frame "
            f"median {worst:.1f} ms; this process's CPU time per move (median / p90) "
            f"{stats_note(cpu)} ms; "
            f"moves without a repaint: {unpainted}; {folder.name} |"
        ),
        (
            f"| real frames: release the drag, until the drop is shown (lens selection) "
            f"| {stats(release)} | - | |"
        ),
        (
            f"| real frames: release the drag, until the doctor is shown too (leave-one-out, "
            f"painted-line check; it follows the repaint) | {stats(release_doctor)} | - | |"
        ),
    ]


if __name__ == "__main__":
    main()

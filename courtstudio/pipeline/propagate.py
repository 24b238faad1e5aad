"""Carry annotated court keypoints from reference frames through a clip and recalibrate every
frame (issue 5; docs/propagation.md).

1. Shots: a jump in the colour histogram between consecutive frames is a cut. A cut ends a
   propagation run and is flagged; runs never cross it.
2. Each frame takes the nearest reference in its shot (so between two references each half
   propagates from its own end) and is registered *directly* to it (geometry.plane_motion):
   the previous frame's homography predicts, the residual is measured, errors do not chain.
3. The reference's clicked keypoints are transferred by that homography (exact for every point
   under pan/tilt/zoom about a fixed point) and the frame is recalibrated, warm-started.
4. Status: "reference"; "static" (the image did not move: the reference camera is reused);
   "ok"; or "flagged" with a reason (cut, registration failed, residual above the threshold,
   court lines that no longer lie on the painted lines, too few keypoints in view, no
   reference in the shot).

Results stream to ``cameras.jsonl`` (one JSON line per frame, written as soon as the frame is
done), so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from court_specs import CourtSpec
from courtstudio.pipeline.propagate_frame import (
    FrameCamera,
    Options,
    Reference,
    RefState,
    Tracker,
    make_ref_state,
)
from courtstudio.pipeline.propagation_ahead import Upcoming
from courtstudio.pipeline.propagation_backoff import RefinementBackoff
from courtstudio.pipeline.propagation_backward import BackwardRetry, Held, kept_for_retry, sound

__all__ = [
    "FrameCamera",
    "Frames",
    "Reference",
    "SHARED_TOL_PX",
    "frame_mask",
    "propagate",
    "propagate_project",
    "share_centre",
    "summary",
]
from courtstudio.pipeline import propagation_checkpoint
from courtstudio.pipeline.propagate_sources import (  # noqa: F401
    ProjectFrames,
    ProjectSource,
    VideoFrames,
    VideoSource,
    project_masks,
    save_project_masks,
)
from courtstudio.pipeline.propagation_checkpoint import (
    StateError,
    load_scan_state,
    remove_scan_states,
    state_name,
)
from courtstudio.pipeline.propagation_cpus import (  # noqa: F401
    REGISTER_AHEAD_CPUS,
    register_ahead_by_default,
)
from courtstudio.pipeline.propagation_finish import finish_shots
from courtstudio.pipeline.propagation_frames import Frames, _read, frame_mask  # noqa: F401
from courtstudio.pipeline.propagation_progress import (  # noqa: F401
    RESUME_EVERY,
    ProgressBar,
    ResumeProgress,
    print_progress,
)
from courtstudio.pipeline.propagation_records import (  # noqa: F401
    MAX_JSONL_BYTES,
    STATUSES,
    check_record,
    iter_records,
    read_done,
    write_jsonl_atomic,
)
from courtstudio.pipeline.propagation_scan import FrameScan, opencv_threads
from courtstudio.pipeline.propagation_shots import (  # noqa: F401
    SHARED_TOL_PX,
    _misassigned,
    _shots,
    share_centre,
)
from courtstudio.pipeline.propagation_status import PropagationStatus as Status
from courtstudio.pipeline.propagation_store import LightView, RecordWriter, open_index

FLAG_RMS_PX = 3.0
NOT_TRIED = (  # a frame of a shot without a reference that the backoff skipped
    "no reference in this shot; not registered (the frames before it in this shot failed "
    "to register to any reference: tried every few frames)"
)


def _references(frames, spec, refs: list[Reference], dense, masks=()) -> dict[int, RefState]:
    """The references' states; masks: the user's boxes (their painted lines are not looked
    for there)."""
    states = {}
    for r in refs:
        img = _read(frames, r.frame)
        if img is None:
            raise ValueError(f"reference frame {r.frame} cannot be read")
        states[r.frame] = make_ref_state(spec, r, img, frame_mask(frames, r.frame), dense, masks)
    return states


@opencv_threads(1)  # OpenCV's own worker threads off for the whole pass
def _pass(
    frames,
    spec,
    refs: list[Reference],
    lo: int,
    hi: int,
    done: dict,
    emit,
    options: Options,
    states=None,
    passed: Callable[[int], None] | None = None,
    scan_state: dict | None = None,
) -> list:
    """One decode pass over frames lo..hi - 1 (in order): the cut scan, and every frame not
    in done registered, recalibrated and verified; each record goes to emit as soon as it is
    made, and each frame in done to ``passed`` (its index) as the pass reads past it. A frame
    takes the nearest reference in its shot as far as the pass knows it (a cut found later is
    repaired by propagate). scan_state: {"path": where the scan saves its state (None: not
    saved), "resume": (a saved ScanState, cut flag of a frame before it) or None, "report":
    a dict the scan fills (propagation_checkpoint)}. Returns the screen-fixed graphics boxes
    found."""
    tracker = Tracker(
        spec, frames.size, states or _references(frames, spec, refs, None, options.masks), options
    )
    by_frame = {r.frame: r for r in refs}
    ref_frames = sorted(by_frame)
    if lo > 0:
        rec = done.get(lo - 1)
        if rec and rec.get("H_from_reference") and rec.get("reference") in tracker.states:
            st = tracker.states[rec["reference"]]
            st.last_H, st.last_frame = np.array(rec["H_from_reference"]), lo - 1
    shot_start = lo if lo == 0 else -1  # -1: the shot may have begun before this pass

    def reference_of(i: int) -> int | None:
        """The reference frame i takes (the nearest in its shot; None: none in it)."""
        before = [f for f in ref_frames if shot_start <= f <= i]
        after = [f for f in ref_frames if f > i]
        a = before[-1] if before else None
        b = after[0] if after else None
        if a is None and b is None:
            return None
        return a if b is None or (a is not None and i - a <= b - i) else b

    def upcoming(sc) -> Upcoming | None:
        """The next frame, when the pass will register it to a reference in this shot."""
        if sc is None or sc.cut or sc.image is None or sc.index in done or sc.index in by_frame:
            return None
        r = reference_of(sc.index)
        if r is None:
            return None
        return Upcoming(sc.index, sc.mask, sc.prepared, sc.graphics, tracker.states[r])

    refined = [False]  # the last frame processed was refined on its lines
    backward = BackwardRetry()  # frames that failed, for a retry from a sound one after them
    # in a shot without a reference, registration is tried less often once its frames fail
    # one after another (the backoff of step 6's refinements: after 6 failures in a row,
    # 1, 2, 4, then at most 8 frames skipped between tries; a cut starts afresh)
    unreferenced = RefinementBackoff()
    ss = scan_state or {}
    # A source that decodes ahead on its own thread (a video) also reduces its frames there
    # while it keeps ahead; the rest of the scan then runs here, in line: a third Python
    # thread's hand-offs of the GIL cost more than its work saved (docs/propagation.md
    # "Speed"). Other sources (a project's images, a video read without decoding ahead) are
    # read and scanned on the scan thread.
    ahead = getattr(frames, "decodes_ahead", False)
    set_preparer = getattr(frames, "set_preparer", None) if ahead else None
    scan = FrameScan(
        frames,
        lo,
        hi,
        options.detect_graphics,
        threaded=set_preparer is None,
        want_line_gray=lambda: refined[0],
        checkpoint=ss.get("path"),
        resume=ss.get("resume"),
        checkpoint_every=ss.get("every", propagation_checkpoint.CHECKPOINT_EVERY),
    )
    scan.report = ss.get("report", scan.report)
    if set_preparer is not None:
        set_preparer(scan.prepare_ahead)
    scanned = iter(scan)  # read, reduced, cut-tested and graphics-scanned ahead, on its own
    nxt = next(scanned, None)  # thread; one frame is looked at ahead (propagation_ahead)
    try:
        while nxt is not None:
            sc, nxt = nxt, next(scanned, None)
            i, img, p, cut = sc.index, sc.image, sc.prepared, sc.cut
            tracker.graphics = sc.graphics
            tracker.upcoming = None
            if img is not None:
                tracker.offer_line_gray(img, sc.line_gray)
            if cut:
                shot_start = i
                tracker.reset_motion()
                backward.clear()
                unreferenced = RefinementBackoff()
            elif sc.graphics_changed:
                for rec in tracker.retry_pending():
                    emit(rec, bool(done.get(rec.frame, {}).get("cut")))
                    backward.recovered(rec.frame)
            if i in done:
                rec = done[i]
                if rec.get("H_from_reference") and rec.get("reference") in tracker.states:
                    st = tracker.states[rec["reference"]]
                    st.last_H, st.last_frame = np.array(rec["H_from_reference"]), i
                if passed is not None:
                    passed(i)
                continue
            if i in by_frame:
                st = tracker.states[i]
                st.last_H, st.last_frame = np.eye(3), i
                emit(
                    FrameCamera(
                        i,
                        Status.REFERENCE,
                        st.camera,
                        st.rms_px,
                        reference=i,
                        H=np.eye(3),
                        points=by_frame[i].points,
                        evidence=st.evidence,
                        uncertainty={
                            "extrapolation_gain": st.gain,
                            "predicted_px": st.predicted_px,
                            "predicted_at": st.predicted_at,
                        },
                    ),
                    cut,
                )
                for earlier, c in backward.retry(tracker, i, st, np.eye(3), p):
                    emit(earlier, c)
                continue
            if img is None:
                emit(FrameCamera(i, Status.FLAGGED, reason="the frame cannot be decoded"), cut)
                continue
            r = reference_of(i)
            tracker.upcoming = upcoming(nxt)
            if r is None:  # the view may still be a reference's (after a replay)
                r = min(ref_frames, key=lambda f: abs(f - i))
                if not unreferenced.should_try(i):  # its last frames all failed
                    refined[0] = False
                    emit(FrameCamera(i, Status.FLAGGED, reason=NOT_TRIED, reference=r), cut)
                    continue
                rec = tracker.process(i, img, sc.mask, tracker.states[r], p)
                refined[0] = tracker.took_line_gray(img)
                unreferenced.record(i, rec.status != Status.FLAGGED or sound(rec))
                if rec.status == Status.FLAGGED:
                    rec.reason = (
                        "no reference in this shot"
                        + (" (starts at a cut)" if cut else "")
                        + f"; {rec.reason}"
                    )
                emit(rec, cut)
                continue
            st = tracker.states[r]
            rec = tracker.process(i, img, sc.mask, st, p)
            refined[0] = tracker.took_line_gray(img)
            emit(rec, cut)
            if kept_for_retry(rec):
                backward.hold(Held(i, img, sc.mask, st, p, cut))
            elif sound(rec):  # the frames that failed just before it, retried from it
                for earlier, c in backward.retry(tracker, i, st, rec.H, p):
                    emit(earlier, c)
    finally:
        tracker.close()
        scanned.close()  # the scan thread stopped and joined, as a finished loop leaves it
        if set_preparer is not None:
            set_preparer(None)
    return scan.graphics_boxes()


def propagate(
    frames: Frames,
    spec: CourtSpec,
    references: list[Reference],
    out_dir,
    flag_rms_px: float = FLAG_RMS_PX,
    shared_centre: bool = True,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    frames_source=None,
    snap: bool = False,
    masks=(),
    detect_graphics: bool = True,
    line_refiner=None,
    register_ahead: bool | None = None,
    keep_records: bool = True,
) -> list[dict] | None:
    """Calibrate every frame of the clip; returns the cameras.jsonl records (frame order).

    One decode pass (the cut scan folded in); every record is appended to
    OUT/cameras.jsonl as soon as it is made, with any number of workers (workers > 1 split
    the clip into contiguous ranges, one process each, which send their records to this
    one; frames_source, picklable and called to open the frames in a worker, is then
    required). A killed run resumes: frames already recorded are not redone. masks: user
    boxes [x0, y0, x1, y1] (full-resolution px) never used for registration.
    line_refiner: see Options. register_ahead: start each next frame's registration on a
    worker thread while this frame is verified (the same records either way; None: where
    each pass has REGISTER_AHEAD_CPUS CPUs of its own, register_ahead_by_default). Returns
    records, or None with keep_records=False (read OUT/cameras.jsonl with iter_records: an
    hour-long clip's records as dicts would take a gigabyte; the run itself keeps them in
    the file, propagation_store); the summary's extras (reference quality, graphics boxes)
    are in propagate.last_extras."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "cameras.jsonl"
    n = frames.count
    refs = sorted(references, key=lambda r: r.frame)
    for r in refs:
        if not 0 <= r.frame < n:
            raise ValueError(f"reference frame {r.frame} is outside the clip (0..{n - 1})")
    if register_ahead is None:
        register_ahead = register_ahead_by_default(workers)
    options = Options(
        flag_rms_px,
        snap,
        tuple(tuple(m) for m in masks),
        detect_graphics,
        line_refiner,
        register_ahead,
    )
    states = _references(frames, spec, refs, None, options.masks)
    # the records stay in the file; the index knows where (propagation_store)
    done = open_index(path, n, MAX_JSONL_BYTES)
    finished = len(done)
    graphics: list = []
    resumed = ResumeProgress(progress, finished, n)
    scan_report: dict = {}  # what became of a saved scan state (propagation_checkpoint)
    with RecordWriter(done) as writer:

        def emit(rec: FrameCamera, cut: bool = False):
            nonlocal finished
            if isinstance(rec, FrameCamera):
                rec.cut = rec.cut or cut
                d = rec.to_json()
            else:
                d = rec
            if d["frame"] not in done:
                finished += 1
            writer.append(d)
            if progress:
                progress(min(finished, n), n)

        ranges = _ranges(refs, n, workers)
        if workers > 1 and frames_source is not None and len(ranges) > 1:
            graphics = _run_workers(
                frames_source, spec, refs, ranges, done, options, emit, resumed, scan_report
            )
        else:
            state_path = out_dir / state_name(0)
            saved = _usable_scan_state(state_path, done, 0, n, options, scan_report)
            graphics = _pass(
                frames,
                spec,
                refs,
                0,
                n,
                done.copy(),
                emit,
                options,
                states,
                resumed.passed,
                {
                    "path": state_path,
                    "resume": None if saved is None else (saved, _cut_of(done)),
                    "report": scan_report,
                },
            )
        shots = _shots(LightView(done), n)
        for lo, hi, in_shot in _misassigned(LightView(done), shots, refs):
            if not in_shot:
                for i in range(lo, hi):
                    emit(
                        FrameCamera(
                            i,
                            Status.FLAGGED,
                            reason="no reference in this shot",
                            cut=bool(done.light(i).get("cut")),
                        )
                    )
                continue
            _pass(
                frames,
                spec,
                in_shot,
                lo,
                hi,
                done.without(lo, hi),
                emit,
                options,
                {r.frame: states[r.frame] for r in in_shot},
            )
    records = finish_shots(done, n, spec, frames.size, flag_rms_px, shared_centre, keep_records)
    remove_scan_states(out_dir)  # every frame done: nothing to resume
    propagate.last_extras = {
        **({"scan_state": scan_report} if scan_report else {}),
        "reference_quality": [states[r.frame].quality() for r in refs],
        "graphics_boxes": graphics,
        "masks": [list(m) for m in masks],
    }
    return records


propagate.last_extras = {}


def _usable_scan_state(path: Path, done, lo: int, hi: int, options: Options, report: dict):
    """The scan state saved at path when the pass over frames lo..hi-1 of a resumed run can
    start its scan from it: every frame from lo to the saved one has a record. None when
    there is none or it is unusable (the reason in report["state_unused"])."""
    if not path.exists() and not path.is_symlink():
        return None
    try:
        state = load_scan_state(path, done.n, options.detect_graphics)
    except StateError as exc:
        report["state_unused"] = str(exc)
        return None
    missing = np.flatnonzero(done.offset[lo:hi] < 0)
    first_missing = lo + (int(missing[0]) if len(missing) else hi - lo)
    if not lo < state.frame <= first_missing:
        report["state_unused"] = (
            f"saved before frame {state.frame}, but frame {first_missing} has no record"
            if state.frame > first_missing
            else f"saved before frame {state.frame}, outside frames {lo}-{hi - 1}"
        )
        return None
    return state


def _cut_of(done):
    """The cut flag of a frame from its record (frames a resumed scan passes over)."""
    return lambda i: bool(done.light(i).get("cut"))


def _ranges(refs: list[Reference], n: int, workers: int) -> list[tuple[int, int]]:
    """Contiguous frame ranges, one per worker: the references split into groups, the
    boundaries half-way between groups."""
    k = max(1, min(workers, len(refs)))
    groups = [g for g in np.array_split(np.arange(len(refs)), k) if len(g)]
    bounds = [0]
    for g0, g1 in zip(groups[:-1], groups[1:]):
        bounds.append((refs[g0[-1]].frame + refs[g1[0]].frame) // 2 + 1)
    bounds.append(n)
    return list(zip(bounds[:-1], bounds[1:]))


def _worker(frames_source, spec_ref, refs, lo, hi, done, options, queue, scan) -> None:
    """A worker process: one pass over lo..hi - 1, every record sent to the parent at once
    (and, every RESUME_EVERY frames, how many frames already done it has read past). scan:
    (where its scan saves its state, every how many frames, a saved ScanState to start from
    or None); what became of it is sent back."""
    try:
        from court_specs import load_spec

        frames = frames_source()
        count = [0]
        report: dict = {}

        def passed(_i: int) -> None:
            count[0] += 1
            if count[0] % RESUME_EVERY == 0:
                queue.put(("passed", RESUME_EVERY))

        boxes = _pass(
            frames,
            load_spec(spec_ref),
            refs,
            lo,
            hi,
            done,
            lambda rec, cut=False: queue.put(
                ("record", rec.to_json() | ({"cut": True} if cut or rec.cut else {}))
            ),
            options,
            passed=passed,
            scan_state={
                "path": scan[0],
                "every": scan[1],
                "resume": None if scan[2] is None else (scan[2], _cut_of(done)),
                "report": report,
            },
        )
        queue.put(("scan_state", (lo, hi, report)))
        queue.put(("done", boxes))
    except Exception as exc:  # reported to the parent, which raises it
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def _run_workers(
    frames_source, spec, refs, ranges, done, options, emit, resumed, scan_report
) -> list:
    """The worker processes' passes, one per range; each saves its own scan state
    (propagation_checkpoint.state_name) and a resumed one starts from it; scan_report gets
    what became of each range's, by range."""
    import multiprocessing as mp
    import queue as queue_mod

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = []
    out_dir = Path(done.path).parent
    every = propagation_checkpoint.CHECKPOINT_EVERY
    reports: dict = {}
    for lo, hi in ranges:
        sub = done.within(lo - 1, hi)
        path = out_dir / state_name(lo)
        report = reports.setdefault((lo, hi), {})
        saved = _usable_scan_state(path, done, lo, hi, options, report)
        procs.append(
            ctx.Process(
                target=_worker,
                args=(
                    frames_source,
                    spec.source or spec.id,
                    refs,
                    lo,
                    hi,
                    sub,
                    options,
                    q,
                    (path, every, saved),
                ),
                daemon=True,
            )
        )
    for p in procs:
        p.start()
    running, boxes, error = len(procs), [], None
    try:
        while running:
            try:
                kind, payload = q.get(timeout=1.0)
            except queue_mod.Empty:
                if not any(p.is_alive() for p in procs):
                    error = error or "a worker died"
                    break
                continue
            if kind == "record":
                emit(payload)
            elif kind == "passed":
                resumed.passed_many(payload)
            elif kind == "scan_state":
                reports[payload[:2]].update(payload[2])
            elif kind == "done":
                boxes += payload
                running -= 1
            else:
                error, running = payload, running - 1
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    for (lo, hi), report in reports.items():
        if report:
            scan_report[f"frames {lo}-{hi - 1}"] = report
    if error:
        raise RuntimeError(f"propagation worker failed: {error}")
    return boxes


def summary(records) -> dict:
    """Counts, cuts, flagged frames with reasons of records (any iterable of cameras.jsonl
    dicts, read once: a list, or iter_records of a run's file); the last run's reference
    quality (each reference's own residual and line evidence: a bad reference is reported
    here once) and the screen-fixed graphics it masked."""
    counts: dict[str, int] = {}
    flagged, cuts, frames = [], [], 0
    for r in records:
        frames += 1
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        if r["status"] == Status.FLAGGED:
            flagged.append({"frame": r["frame"], "reason": r.get("reason", "")})
        if r.get("cut"):
            cuts.append(r["frame"])
    return {
        "frames": frames,
        "counts": counts,
        "cuts": cuts,
        "flagged": flagged,
        **propagate.last_extras,
    }


def project_references(project, annotation_of=None) -> list[Reference]:
    """Every frame of the project annotated with at least 4 court keypoints."""
    refs = []
    for i, f in enumerate(project.frames):
        ann = annotation_of(f.id) if annotation_of else project.load_annotation(f.id)
        if ann is not None and len(ann.points) >= 4:
            refs.append(Reference(i, dict(ann.points)))
    return refs


def propagate_project(
    project,
    references=None,
    store=None,
    progress=None,
    annotation_of=None,
    flag_rms_px: float = FLAG_RMS_PX,
    masks=(),
    workers: int = 1,
    snap: bool = False,
    project_masks_boxes=None,
) -> list[dict]:
    """Propagate through a project (one sport): writes PROJECT/propagation/cameras.jsonl and
    summary.json; the app's Frame > Propagate and `batch-propagate PROJECT` both call this.
    masks: extra boxes besides the project's (masks.json). project_masks_boxes: the
    project's masks in place of masks.json (the app passes its masks, saved or not, as it
    passes its clicks through annotation_of). A run with other references or masks than the
    saved one starts afresh."""
    from court_specs import load_spec
    from safe_io.atomic import write_json_atomic

    sports = {f.sport for f in project.frames}
    if len(sports) != 1:
        raise ValueError(
            f"propagation needs one sport per project; this one has {', '.join(sorted(sports))}"
        )
    refs = references if references is not None else project_references(project, annotation_of)
    if not refs:
        raise ValueError("no reference: annotate at least 4 court keypoints on a frame")
    frames = ProjectFrames(project, store, annotation_of)  # its size bounds masks.json
    own = (
        project_masks(project, frames.size)
        if project_masks_boxes is None
        else [list(map(float, m)) for m in project_masks_boxes]
    )
    all_masks = own + [list(map(float, m)) for m in masks]
    out = project.root / "propagation"
    fingerprint = [
        [r.frame, sorted((k, [round(v[0], 3), round(v[1], 3)]) for k, v in r.points.items())]
        for r in refs
    ]
    if all_masks:
        fingerprint.append(["masks", all_masks])
    summary_path = out / "summary.json"
    if summary_path.exists():
        try:
            old = json.loads(summary_path.read_text()).get("references")
        except ValueError:
            old = None
        if old != fingerprint and (out / "cameras.jsonl").exists():
            (out / "cameras.jsonl").unlink()
    elif (out / "cameras.jsonl").exists() and references is not None:
        (out / "cameras.jsonl").unlink()  # results of unknown references
    records = propagate(
        frames,
        load_spec(sports.pop()),
        refs,
        out,
        flag_rms_px=flag_rms_px,
        progress=progress,
        workers=workers,
        frames_source=ProjectSource(str(project.root))
        if annotation_of is None and store is None
        else None,
        snap=snap,
        masks=all_masks,
    )
    rep = summary(records)
    rep["references"] = fingerprint
    write_json_atomic(summary_path, rep)
    return records

"""A resumed run reports its reading past the frames it has already done
(courtstudio/pipeline/propagation_progress.py): before, a run resumed at the middle of an hour
showed nothing for two minutes, and the app's progress dialog could not be cancelled."""

import numpy as np

from court_specs import load_spec
from courtstudio.pipeline.propagate import Reference, propagate
from courtstudio.pipeline.propagation_progress import RESUME_EVERY, ProgressBar, ResumeProgress
from courtstudio.synth.synthetic_clip import ClipFrames, make_clip
from tests.propagation_clips import reference_clicks


class Recorder:
    def __init__(self):
        self.calls, self.resumes = [], []

    def __call__(self, done, total):
        self.calls.append((done, total))

    def resuming(self, passed, of):
        self.resumes.append((passed, of))


def test_a_plain_callback_is_called_again_every_few_frames_and_at_the_last():
    calls = []
    r = ResumeProgress(lambda d, t: calls.append((d, t)), 20, 50)
    for i in range(20):
        r.passed(i)
    assert calls == [(20, 50)] * (20 // RESUME_EVERY + 1)
    rec = Recorder()
    r = ResumeProgress(rec, 20, 50)
    r.passed_many(RESUME_EVERY)  # a worker's batch
    for i in range(20 - RESUME_EVERY):
        r.passed(i)
    assert rec.resumes == [(8, 20), (16, 20), (20, 20)] and rec.calls == []
    ResumeProgress(None, 3, 5).passed(0)  # nobody to tell


def _clip_and_refs():
    spec = load_spec("tennis")
    clip = make_clip(spec, 30, (640, 360), seed=3)
    cam0 = clip.cameras[0]
    refs = [Reference(0, reference_clicks(spec, cam0))]
    return spec, clip, refs


def test_a_resumed_run_reports_its_done_frames_then_its_new_ones(tmp_path, capsys):
    spec, clip, refs = _clip_and_refs()
    propagate(ClipFrames(clip), spec, refs, tmp_path, keep_records=False)
    lines = (tmp_path / "cameras.jsonl").read_text().splitlines()
    (tmp_path / "cameras.jsonl").write_text("\n".join(lines[:17]) + "\n")  # killed at 17
    rec = Recorder()
    propagate(ClipFrames(clip), spec, refs, tmp_path, progress=rec, keep_records=False)
    assert rec.resumes == [(8, 17), (16, 17), (17, 17)]
    assert rec.calls[0] == (18, 30) and rec.calls[-1] == (30, 30)
    # the command line's bar: "resuming", then "propagating" counted from the done frames
    (tmp_path / "cameras.jsonl").write_text("\n".join(lines[:17]) + "\n")
    bar = ProgressBar()
    propagate(ClipFrames(clip), spec, refs, tmp_path, progress=bar, keep_records=False)
    bar.close()
    err = capsys.readouterr().err
    assert "resuming: frames already done" in err and "17/17" in err
    assert "propagating" in err and "30/30" in err
    assert err.index("17/17") < err.index("30/30")
    assert bar.bar.initial == 17


def test_a_plain_callback_hears_a_resumed_run_before_its_first_new_frame(tmp_path):
    spec, clip, refs = _clip_and_refs()
    propagate(ClipFrames(clip), spec, refs, tmp_path, keep_records=False)
    lines = (tmp_path / "cameras.jsonl").read_text().splitlines()
    (tmp_path / "cameras.jsonl").write_text("\n".join(lines[:25]) + "\n")
    calls = []
    propagate(ClipFrames(clip), spec, refs, tmp_path, progress=lambda d, t: calls.append((d, t)))
    assert calls[:4] == [(25, 30)] * 4 and calls[4] == (26, 30)
    assert np.all(np.diff([d for d, _ in calls]) >= 0)


def test_workers_report_the_done_frames_they_read_past(tmp_path):
    """With --workers 2 each worker process reads past its own done frames and tells the
    parent every RESUME_EVERY of them."""
    from courtstudio.pipeline.propagate import VideoFrames, VideoSource
    from courtstudio.synth.synthetic_clip import write_video

    spec, clip, _ = _clip_and_refs()
    video = tmp_path / "clip.avi"
    write_video(video, clip.frames[:20])
    refs = [Reference(f, reference_clicks(spec, clip.cameras[f])) for f in (0, 19)]

    def run(progress=None):
        propagate(
            VideoFrames(video),
            spec,
            refs,
            tmp_path / "out",
            progress=progress,
            workers=2,
            frames_source=VideoSource(str(video)),
            keep_records=False,
        )

    run()
    path = tmp_path / "out" / "cameras.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:16]) + "\n")  # the first worker's 10 frames and 6 more
    rec = Recorder()
    run(rec)
    assert rec.resumes == [(8, 16)]
    assert rec.calls[-1] == (20, 20) and len(path.read_text().splitlines()) == 20

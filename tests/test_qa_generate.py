"""qa generate end to end: the sample project, the round trip through the scorer, splits by
match, near-duplicate frames, marked images, Monte-Carlo spread, CLI errors."""

import json
from pathlib import Path

import numpy as np
import pytest

from courtstudio.cli import main
from qa.entities import build_entities
from qa.generate import GenerateOptions, generate, split_units
from qa.images import BOX_COLOURS_BGR, draw_numbered_boxes
from qa.scenes import qa_scene
from qa.score import CATEGORIES, score_items
from tests.test_qa_synthetic import make_camera, make_scene

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "sample_project"


@pytest.fixture(scope="module")
def sample_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("qa_sample") / "qa"
    assert (
        main(
            [
                "qa",
                "generate",
                str(SAMPLE),
                "-o",
                str(out),
                "--split-by",
                "frame",
                "--bench-fraction",
                "0.5",
                "--per-image",
                "40",
                "--samples",
                "48",
            ]
        )
        == 0
    )
    return out


def test_sample_project_generates_every_category(sample_out):
    items = [json.loads(x) for x in (sample_out / "items.jsonl").read_text().splitlines()]
    assert {it["category"] for it in items} == set(CATEGORIES)
    assert {it["sport"] for it in items} == {"tennis", "badminton", "table_tennis", "pickleball"}
    bench = json.loads((sample_out / "bench.json").read_text())
    train = json.loads((sample_out / "train.json").read_text())
    assert bench and train and len(bench) + len(train) == len(items)
    assert set(bench[0]) == {"image_id", "question", "answer", "category"}
    rec = train[0]
    assert (
        rec["messages"][0]["role"] == "user"
        and rec["messages"][0]["content"].startswith("<image>")
        and rec["messages"][1]["role"] == "assistant"
    )
    assert (sample_out / rec["images"][0]).is_file()
    info = json.loads((sample_out / "dataset_info.json").read_text())
    assert info["courtstudio_qa"]["file_name"] == "train.json"
    assert info["courtstudio_qa"]["formatting"] == "sharegpt"
    it = items[0]
    for key in (
        "scene_file",
        "frame_id",
        "spec_id",
        "spec_version",
        "template_id",
        "points",
        "margin_m",
        "uncertainty",
        "split",
    ):
        assert key in it
    # no frame is on both sides of the split
    sides = {}
    for it in items:
        sides.setdefault(it["image_id"], set()).add(it["split"])
    assert all(len(s) == 1 for s in sides.values())


def test_round_trip_scores_100(sample_out, tmp_path):
    items = [json.loads(x) for x in (sample_out / "items.jsonl").read_text().splitlines()]
    preds = [
        {"category": it["category"], "answer": it["answer"], "vlm_answer": it["answer"]}
        for it in items
    ]
    report = score_items(preds)
    assert report.overall == pytest.approx(100.0)
    assert all(v == pytest.approx(100.0) for v in report.per_category.values())
    bench = json.loads((sample_out / "bench.json").read_text())
    p = tmp_path / "pred.json"
    p.write_text(json.dumps([{**b, "vlm_answer": b["answer"]} for b in bench]))
    assert main(["qa", "score", str(p), "--json"]) == 0
    # a wrong answer everywhere is not 100: the scorer is live on these answers
    wrong = [{**x, "vlm_answer": "D" if x["answer"] != "D" else "A"} for x in preds]
    assert score_items(wrong).overall < 50


def test_monte_carlo_ball_spread_matches_the_scene_sigma(sample_out):
    scene = next((sample_out / "scenes").rglob("tennis_0001/scene.json"))
    qs = qa_scene(scene)
    ents = build_entities(qs, 400, np.random.default_rng(3))
    mc = ents.ball[1:].std(axis=0)
    first_order = np.array(qs.scene.ball.sigma_world_m)
    assert np.all(mc < 1.6 * first_order) and np.all(mc > first_order / 1.6), (mc, first_order)


def _scenes(folder, matches=4, frames=2):
    for m in range(matches):
        for k in range(frames):
            cam = make_camera(C=(29.0 + m + 0.5 * k, 5.0 + 0.3 * k, 6.0))
            make_scene(folder, name=f"m{m}_f{k}", match=f"match{m}", camera=cam)


def test_split_by_match_keeps_matches_whole(tmp_path):
    _scenes(tmp_path / "src")
    s = generate(
        [tmp_path / "src"],
        tmp_path / "out",
        GenerateOptions(seed=2, samples=0, bench_fraction=0.25),
    )
    items = [json.loads(x) for x in (tmp_path / "out" / "items.jsonl").read_text().splitlines()]
    by_match = {}
    for it in items:
        by_match.setdefault(it["match_id"], set()).add(it["split"])
    assert all(len(v) == 1 for v in by_match.values())
    assert len([m for m, v in by_match.items() if v == {"bench"}]) == 1  # round(0.25 * 4)
    assert s["n_bench"] > 0 and s["n_train"] > 0
    assert split_units(["a"], 0.5, 0) == set()  # one unit: everything trains
    assert len(split_units(list("abcdefghij"), 0.2, 0)) == 2


def test_near_identical_frames_once_and_determinism(tmp_path):
    make_scene(tmp_path / "src", name="a", match="m")
    make_scene(tmp_path / "src", name="b", match="m")  # same clip, same pixels
    (tmp_path / "src" / "b" / "frame.png").write_bytes(
        (tmp_path / "src" / "a" / "frame.png").read_bytes()
    )
    s = generate([tmp_path / "src"], tmp_path / "o1", GenerateOptions(samples=16))
    assert s["filters"]["removed"]["near_duplicate_frame"] == 1 and s["n_images"] == 1
    generate([tmp_path / "src"], tmp_path / "o2", GenerateOptions(samples=16))
    assert (tmp_path / "o1" / "train.json").read_text() == (
        tmp_path / "o2" / "train.json"
    ).read_text()


def test_numbered_boxes_are_drawn_in_their_colour():
    img = np.zeros((720, 1280, 3), np.uint8)
    draw_numbered_boxes(img, np.array([[100, 200, 160, 400], [600, 300, 650, 420]]))
    for i, (x0, y0) in enumerate([(100, 200), (600, 300)]):
        bgr = np.array(BOX_COLOURS_BGR[i])
        assert np.all(img[y0 + 50, x0] == bgr)  # left edge
        above = img[y0 - 30 : y0 - 2, x0 : x0 + 30].reshape(-1, 3)
        assert np.any(np.all(above == bgr, axis=1))  # the number, in the box's colour
    assert not img[250:350, 110:150].any()  # thin: the inside is untouched


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["qa", "generate", str(tmp_path / "nope"), "-o", str(tmp_path / "o")]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["qa", "generate", str(tmp_path / "empty"), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("courtstudio: error:") for e in err)
    bad = tmp_path / "bad" / "x"
    bad.mkdir(parents=True)
    (bad / "scene.json").write_text('{"format": "courtstudio.scene", "format_version": 1}')
    assert main(["qa", "generate", str(tmp_path / "bad"), "-o", str(tmp_path / "o")]) == 2
    assert "no usable scene" in capsys.readouterr().err


def test_quotas_per_category_and_template(tmp_path):
    from collections import Counter

    _scenes(tmp_path / "src", matches=3, frames=1)
    generate(
        [tmp_path / "src"],
        tmp_path / "q",
        GenerateOptions(samples=0, per_image=30, max_per_category=2, max_per_template=1),
    )
    items = [json.loads(x) for x in (tmp_path / "q" / "items.jsonl").read_text().splitlines()]
    assert max(Counter(it["category"] for it in items).values()) == 2
    assert max(Counter(it["template_id"] for it in items).values()) == 1
    assert len(items) == 2 * 13  # 3 images x 30 would be 90 without the quotas
    with pytest.raises(ValueError):
        generate([tmp_path / "src"], tmp_path / "q2", GenerateOptions(max_per_template=0))


def test_video_frames_are_read_by_index(tmp_path):
    import cv2

    from qa.images import FrameReadError, read_scene_frame

    path = tmp_path / "v.avi"
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (64, 48))
    for k in range(5):
        vw.write(np.full((48, 64, 3), 40 * k, np.uint8))
    vw.release()
    scene = tmp_path / "f" / "scene.json"
    img = read_scene_frame(scene, "../v.avi#frame=3")
    assert img.shape == (48, 64, 3) and abs(float(img.mean()) - 120) < 6
    with pytest.raises(FrameReadError):
        read_scene_frame(scene, "../v.avi#frame=40")
    with pytest.raises(FrameReadError):
        read_scene_frame(scene, "../missing.png")
    with pytest.raises(FrameReadError):
        read_scene_frame(scene, "../v.avi#frame=-1")


def test_wording_follows_the_sport(sample_out):
    items = [json.loads(x) for x in (sample_out / "items.jsonl").read_text().splitlines()]
    by_sport = {}
    for it in items:
        by_sport.setdefault(it["sport"], []).append(it["question"])
    badminton = " ".join(by_sport["badminton"])
    assert "shuttlecock" in badminton and "tennis ball" not in badminton
    assert "tennis ball" in " ".join(by_sport["tennis"])
    tt = [q for q in by_sport["table_tennis"] if "above the" in q]
    assert all("court" not in q for q in tt) and any("table" in q or "floor" in q for q in tt)
    loc = [it for it in items if it["category"] == "localization" and it["sport"] == "tennis"]
    assert loc and all("far baseline and the left doubles sideline" in it["question"] for it in loc)

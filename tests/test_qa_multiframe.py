"""Multi-frame extension: a three-frame synthetic tennis clip at 25 fps (frames 0, 5, 10).

The near player (id 7) walks from pelvis (20, 3) to (21, 3) to (21, 7): displacements 1 m and
4 m. The ball flies (15, 6, 2) -> (13, 5.9, 2.2) -> (10, 5.5, 1.5): it crosses the net line
x = 11.885 between frames 5 and 10, at t = (13 - 11.885) / 3 = 0.3717 of the way, where
z = 2.2 - 0.7 * 0.3717 = 1.9398 and y = 5.9 - 0.4 * 0.3717 = 5.7513; the net there is
0.914 + (1.07 - 0.914) * |5.7513 - 5.485| / 6.399 = 0.9205 m high: clearance 1.0193 m.
"""

import json

import numpy as np
import pytest

from qa.entities import build_entities
from qa.generate import GenerateOptions, generate
from qa.multiframe import clip_pairs, clip_serials, pair_candidates
from qa.scenes import qa_scene
from qa.score import score_items
from tests.test_qa_synthetic import FAR, NEAR, make_scene, moved

FRAMES = [(0, (20, 3), (15, 6, 2)), (5, (21, 3), (13, 5.9, 2.2)), (10, (21, 7), (10, 5.5, 1.5))]


def _clip(folder):
    paths = []
    for _k, (idx, (px, py), ball) in enumerate(FRAMES):
        paths.append(
            make_scene(
                folder,
                name=f"f{idx}",
                match="m",
                clip="rally1",
                players=[(7, moved(NEAR, px, py)), (3, FAR)],
                ball_world=ball,
                frame_index=idx,
                time_s=idx / 25,
            )
        )
    return paths


def test_pair_answers_by_hand(tmp_path):
    scenes = [qa_scene(p) for p in _clip(tmp_path)]
    pairs = clip_pairs(scenes)
    assert [(a.frame_index, b.frame_index) for a, b in pairs] == [(0, 5), (5, 10)]
    serial = clip_serials(scenes)[("m", "rally1", "tennis")]
    assert serial == {3: 1, 7: 2}  # numbered by id across the clip
    rng = np.random.default_rng(0)
    ents = {q.frame_index: build_entities(q, 0, rng) for q in scenes}
    c1 = {c.key: c for c in pair_candidates(pairs[0][0], ents[0], pairs[0][1], ents[5], serial)}
    c2 = {c.key: c for c in pair_candidates(pairs[1][0], ents[5], pairs[1][1], ents[10], serial)}
    assert c1[("mf_player_displacement", 7)].values[0] == pytest.approx(1.0)
    assert c2[("mf_player_displacement", 7)].values[0] == pytest.approx(4.0)
    assert c1[("mf_player_displacement", 3)].values[0] == pytest.approx(0.0)
    travel = np.sqrt(2**2 + 0.1**2 + 0.2**2)
    assert c1[("mf_ball_travel",)].values[0] == pytest.approx(travel)
    assert c1[("mf_ball_speed",)].values[0] == pytest.approx(travel / 0.2)
    assert ("mf_net_clearance",) not in c1  # no crossing between frames 0 and 5
    assert c2[("mf_net_clearance",)].values[0] == pytest.approx(1.0193, abs=1e-3)
    assert c1[("mf_player_displacement", 7)].fields["p"] == "Player 2"


def test_generate_writes_multi_image_records(tmp_path):
    _clip(tmp_path / "src")
    s = generate(
        [tmp_path / "src"],
        tmp_path / "out",
        GenerateOptions(samples=16, split_by="frame", bench_fraction=0.0),
    )
    train = json.loads((tmp_path / "out" / "train_multi_frame.json").read_text())
    assert train and all(len(r["images"]) == 2 for r in train)
    assert all(r["messages"][0]["content"].startswith("<image><image>") for r in train)
    for r in train:
        assert all((tmp_path / "out" / im).is_file() for im in r["images"])
    info = json.loads((tmp_path / "out" / "dataset_info.json").read_text())
    assert info["courtstudio_qa_multi_frame"]["file_name"] == "train_multi_frame.json"
    items = [json.loads(x) for x in (tmp_path / "out" / "items.jsonl").read_text().splitlines()]
    mf = [it for it in items if "image_ids" in it]
    assert {it["category"] for it in mf} >= {
        "multi_frame_player_displacement",
        "multi_frame_ball_travel",
    }
    assert s["n_items"] == len(items)
    preds = [{**it, "vlm_answer": it["answer"]} for it in mf]
    assert score_items(preds).overall == pytest.approx(100.0)


def _flight(folder, p0, v0, name):
    g = np.array([0, 0, -9.81])
    paths = []
    for idx in (0, 5, 10):
        t = idx / 25
        ball = np.asarray(p0) + np.asarray(v0) * t + 0.5 * g * t * t
        paths.append(
            make_scene(
                folder,
                name=f"{name}{idx}",
                match=name,
                clip="rally",
                ball_world=ball,
                frame_index=idx,
                time_s=t,
            )
        )
    return [qa_scene(p) for p in paths]


def test_flight_apex_and_bounce_by_hand(tmp_path):
    from qa.multiframe import clip_triples, flight_candidates

    # z = 1 + 3 t - 4.905 t^2: apex at t = 3 / 9.81 = 0.306 s (between the images),
    # 1 + 9 / 19.62 = 1.4587 m; it lands at t = 0.845 s, too late to be asked about
    up = _flight(tmp_path, (15, 6, 1.0), (-12, -0.5, 3.0), "up")
    (tri,) = clip_triples(up)
    c = {x.key: x for x in flight_candidates(tri, tuple(build_entities(q, 0, None) for q in tri))}
    assert c[("mf_ball_apex",)].values[0] == pytest.approx(1 + 9 / 19.62)
    assert ("mf_bounce_zone",) not in c
    # z = 1.5 - t - 4.905 t^2 reaches the ball radius 0.0335 m at t = 0.4543 s, 0.054 s after
    # the last image, at x = 15 + 10 t = 19.543, y = 6 + 0.5 t = 6.227: the near midcourt
    down = _flight(tmp_path, (15, 6, 1.5), (10, 0.5, -1.0), "down")
    (tri,) = clip_triples(down)
    c = {x.key: x for x in flight_candidates(tri, tuple(build_entities(q, 0, None) for q in tri))}
    zone = c[("mf_bounce_zone",)]
    assert zone.labels[int(zone.values[0])] == "the near midcourt"
    assert zone.points["bounce"] == pytest.approx([19.543, 6.227, 0.0335], abs=2e-3)
    io = c[("mf_bounce_in_out",)]
    assert io.labels[int(io.values[0])] == "inside"
    assert c[("mf_ball_apex",)].values[0] == pytest.approx(1.5)  # falling: the first image


def test_flight_items_have_three_images(tmp_path):
    _flight(tmp_path / "src", (15, 6, 1.5), (10, 0.5, -1.0), "down")
    generate([tmp_path / "src"], tmp_path / "out", GenerateOptions(samples=16))
    items = [json.loads(x) for x in (tmp_path / "out" / "items.jsonl").read_text().splitlines()]
    flights = [it for it in items if it["kind"].startswith(("mf_ball_apex", "mf_bounce"))]
    assert flights and all(len(it["image_ids"]) == 3 for it in flights)
    train = json.loads((tmp_path / "out" / "train_multi_frame.json").read_text())
    assert any(r["messages"][0]["content"].startswith("<image>" * 3) for r in train)

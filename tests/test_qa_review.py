"""qa review: the contact sheet lists every item; vetoes from two reviewers are applied."""

import json

from courtstudio.cli import main
from qa.generate import GenerateOptions, generate
from tests.test_qa_synthetic import make_camera, make_scene


def _qa(tmp_path):
    for m in range(2):
        make_scene(
            tmp_path / "src",
            name=f"s{m}",
            match=f"m{m}",
            camera=make_camera(C=(29.0 + m, 5.0, 6.0)),
        )
    generate(
        [tmp_path / "src"],
        tmp_path / "qa",
        GenerateOptions(samples=0, per_image=12, bench_fraction=0.5),
    )
    return tmp_path / "qa"


def test_sheet_and_vetoes(tmp_path, capsys):
    qa = _qa(tmp_path)
    items = [json.loads(x) for x in (qa / "items.jsonl").read_text().splitlines()]
    assert main(["qa", "review", str(qa)]) == 0
    page = (qa / "review.html").read_text()
    assert all(f'data-id="{it["item_id"]}"' in page for it in items)
    assert page.count("<svg") == len(items) and 'src="images/' in page
    bench_before = json.loads((qa / "bench.json").read_text())
    ids = [items[0]["item_id"], items[-1]["item_id"]]
    for who, vet in (("a", ids[:1]), ("b", ids)):
        (tmp_path / f"v_{who}.json").write_text(
            json.dumps(
                {
                    "format": "courtstudio.qa_vetoes",
                    "format_version": 1,
                    "reviewer": who,
                    "vetoed": vet,
                }
            )
        )
    assert (
        main(
            [
                "qa",
                "review",
                str(qa),
                "--apply",
                str(tmp_path / "v_a.json"),
                str(tmp_path / "v_b.json"),
            ]
        )
        == 0
    )
    left = [json.loads(x) for x in (qa / "items.jsonl").read_text().splitlines()]
    assert len(left) == len(items) - 2 and not {it["item_id"] for it in left} & set(ids)
    gone = [json.loads(x) for x in (qa / "vetoed.jsonl").read_text().splitlines()]
    assert {g["item_id"]: g["vetoed_by"] for g in gone} == {ids[0]: ["a", "b"], ids[1]: ["b"]}
    bench = json.loads((qa / "bench.json").read_text())
    train = json.loads((qa / "train.json").read_text())
    assert len(bench) + len(train) == len(left)
    assert len(bench) == len(bench_before) - sum(
        1 for it in items if it["item_id"] in ids and it["split"] == "bench"
    )


def test_bad_veto_files_exit_2(tmp_path, capsys):
    qa = _qa(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"vetoed": [1]}')
    assert main(["qa", "review", str(qa), "--apply", str(bad)]) == 2
    bad.write_text(json.dumps({"format": "courtstudio.qa_vetoes", "vetoed": ["nope"]}))
    assert main(["qa", "review", str(qa), "--apply", str(bad)]) == 2
    assert "unknown item" in capsys.readouterr().err
    assert main(["qa", "review", str(tmp_path / "missing")]) == 2

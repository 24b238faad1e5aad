"""``courtstudio qa``: generate spatial QA from scenes, and score predictions (docs/qa.md)."""

from __future__ import annotations

import json
from pathlib import Path

from courtstudio.cli.common import examples


def cmd_qa_score(args) -> int:
    from qa.score import ScoreError, extract_answer, score_items
    from safe_io.validation import read_json_file  # lazily: jsonschema is slow to import

    items = read_json_file(Path(args.predictions), ValueError, "prediction file")
    if args.extract and isinstance(items, list):
        items = [
            {**it, "vlm_answer": extract_answer(it.get("vlm_answer"), it.get("answer"))}
            if isinstance(it, dict) and "answer" in it
            else it
            for it in items
        ]
    try:
        report = score_items(items)
    except ScoreError as exc:
        raise ValueError(f"{args.predictions}: {exc}") from None
    if args.json:
        print(
            json.dumps(
                {**report.to_dict(), "counts": report.counts, "n_items": report.n_items}, indent=1
            )
        )
        return 0
    width = max([len(c) for c in report.per_category] + [7])
    for cat, acc in report.per_category.items():
        print(f"{cat:<{width}}  {acc:6.2f}  (n={report.counts[cat]})")
    print(f"{'overall':<{width}}  {report.overall:6.2f}  (n={report.n_items})")
    return 0


def scene_sources(sources: list[str], out_dir: Path, log=print) -> list[Path]:
    """Folders of scene files for the generator: a project folder is exported first, through
    the regular export (``export --format scenes``), to OUT/scenes/<project name>/."""
    from courtstudio.export.reconstruct import reconstruct_project
    from courtstudio.io.project import PROJECT_FILE, load_project

    out = []
    for src in sources:
        p = Path(src)
        if (p / PROJECT_FILE).is_file():
            project = load_project(p)
            dest = out_dir / "scenes" / project.name
            log(f"exporting project {p} to {dest}")
            reconstruct_project(project, dest, log=lambda line: None)
            out.append(dest)
        elif p.exists():
            out.append(p)
        else:
            raise ValueError(f"{p}: no such project, scene file or folder")
    return out


def cmd_qa_generate(args) -> int:
    from qa.generate import GenerateOptions, generate

    opts = GenerateOptions(
        seed=args.seed,
        per_image=args.per_image,
        split_by=args.split_by,
        bench_fraction=args.bench_fraction,
        samples=args.samples,
        multi_frame=not args.no_multi_frame,
        max_per_category=args.max_per_category,
        max_per_template=args.max_per_template,
    )
    out_dir = Path(args.output)
    summary = generate(scene_sources(args.sources, out_dir), out_dir, opts)
    print(
        f"wrote {summary['n_bench']} bench and {summary['n_train']} train items from "
        f"{summary['n_images']} images to {args.output}"
    )
    if summary["n_items"] and not summary["n_bench"] and args.bench_fraction > 0:
        print(
            f"note: every {args.split_by} is in train.json (a single {args.split_by}?); "
            f"--split-by frame makes a benchmark from one match"
        )
    return 0


def cmd_qa_review(args) -> int:
    from qa.review import apply_vetoes, write_review

    if args.apply:
        counts = apply_vetoes(Path(args.qa_dir), args.apply)
        print(
            f"removed {counts['removed']} vetoed items; {counts['bench']} bench and "
            f"{counts['train']} train items remain"
        )
        return 0
    print(f"wrote {write_review(Path(args.qa_dir))}")
    return 0


def register(sub, fmt) -> None:
    """Add the ``qa`` command group to the top-level subparsers."""
    sp = sub.add_parser(
        "qa",
        help="spatial question-answer pairs (CourtSI) and their scorer",
        formatter_class=fmt,
        description="Generate CourtSI-format spatial QA from scenes, review it, "
        "and score predictions (docs/qa.md).",
        epilog=examples(
            "courtstudio qa generate samples/sample_project -o out/qa --split-by frame",
            "courtstudio qa review out/qa",
            "courtstudio qa score predictions.json",
        ),
    )
    qsub = sp.add_subparsers(dest="qa_command", required=True)

    sc = qsub.add_parser(
        "score",
        formatter_class=fmt,
        help="score a CourtSI-Bench prediction file (bench items with vlm_answer)",
        epilog=examples(
            "courtstudio qa score preds.json",
            "courtstudio qa score preds.json --json",
            "courtstudio qa score free_form_preds.json --extract",
        ),
    )
    sc.add_argument("predictions", help="JSON list of {category, answer, vlm_answer, ...}")
    sc.add_argument(
        "--json",
        action="store_true",
        help="print {category: accuracy x100, overall, counts, n_items}",
    )
    sc.add_argument(
        "--extract",
        action="store_true",
        help="take the last answer-shaped span of free-form replies first "
        "(not part of CourtSI's protocol)",
    )
    sc.set_defaults(func=cmd_qa_score)

    g = qsub.add_parser(
        "generate",
        formatter_class=fmt,
        help="generate bench.json, train.json (LLaMA-Factory sharegpt) and marked images",
        epilog=examples(
            "courtstudio qa generate samples/sample_project -o out/qa",
            "courtstudio qa generate exports/ project2/ -o out/qa --seed 3 "
            "--per-image 20 --split-by match",
        ),
    )
    g.add_argument("sources", nargs="+", help="project folders or folders of scene files")
    g.add_argument("-o", "--output", required=True)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument(
        "--per-image",
        type=int,
        default=30,
        metavar="N",
        help="at most N questions per image (default 30)",
    )
    g.add_argument(
        "--split-by",
        choices=["match", "clip", "frame"],
        default="match",
        help="unit kept whole on one side of the train/bench split",
    )
    g.add_argument(
        "--bench-fraction",
        type=float,
        default=0.2,
        metavar="F",
        help="fraction of split units that go to the benchmark (default 0.2)",
    )
    g.add_argument(
        "--samples",
        type=int,
        default=64,
        metavar="S",
        help="Monte-Carlo samples of the calibration per scene (default 64)",
    )
    g.add_argument(
        "--max-per-category",
        type=int,
        metavar="N",
        help="quota: at most N items per sport and category",
    )
    g.add_argument(
        "--max-per-template",
        type=int,
        metavar="N",
        help="quota: at most N items per sport and template",
    )
    g.add_argument(
        "--no-multi-frame",
        action="store_true",
        help="skip the multi-frame extension (pairs of frames of one clip)",
    )
    g.set_defaults(func=cmd_qa_generate)

    r = qsub.add_parser(
        "review",
        formatter_class=fmt,
        help="write an HTML contact sheet to veto items, or apply reviewers' veto files",
        epilog=examples(
            "courtstudio qa review out/qa            # writes out/qa/review.html",
            "courtstudio qa review out/qa --apply vetoes_ann.json vetoes_bob.json",
        ),
    )
    r.add_argument("qa_dir", help="a folder written by qa generate")
    r.add_argument(
        "--apply",
        nargs="+",
        metavar="VETOES",
        help="veto files saved from the sheet: remove every vetoed item",
    )
    r.set_defaults(func=cmd_qa_review)

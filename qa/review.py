"""``qa review``: an HTML contact sheet of generated items for reviewers, and their vetoes back.

The sheet (DIR/review.html) shows per image the marked frame, then per item the question,
answer, the 3D quantities behind it (value, points, margin, uncertainty) and a top-down sketch
of the court with the athletes (numbered), the ball and the item's points. Each item has a veto
box; "Save vetoes" downloads ``vetoes_<reviewer>.json``:
``{"format": "courtstudio.qa_vetoes", "format_version": 1, "reviewer", "vetoed": [item ids]}``.
Applying veto files removes every item any reviewer vetoed from bench.json, train.json and
items.jsonl (the removed ones go to vetoed.jsonl).
"""

from __future__ import annotations

import html
import json
from collections import OrderedDict
from pathlib import Path

import numpy as np

from court_specs import load_spec
from qa.generate import write_datasets
from safe_io.atomic import write_text_atomic
from safe_io.validation import read_json_file

VETO_FORMAT = "courtstudio.qa_vetoes"


class ReviewError(ValueError):
    """A QA folder or veto file is missing or malformed."""


def read_items(qa_dir: Path) -> list[dict]:
    path = Path(qa_dir) / "items.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewError(f"{path}: cannot read ({exc})") from None
    items = []
    for n, line in enumerate(lines, 1):
        try:
            it = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReviewError(f"{path}: line {n} is not JSON ({exc.msg})") from None
        if not isinstance(it, dict) or "item_id" not in it:
            raise ReviewError(f"{path}: line {n} has no item_id")
        items.append(it)
    return items


def _sketch_svg(it: dict, players: list, ball, width_px: int = 150) -> str:
    """Top-down court (x down the page toward the camera, y to the right) as inline SVG."""
    spec = load_spec(it["spec_id"])
    L, W = spec.length_m, spec.width_m
    pad = 2.0
    s = width_px / (W + 2 * pad)

    def xy(p):
        return (float(p[1]) + pad) * s, (float(p[0]) + pad) * s

    parts = []
    for poly in spec.lines.values():
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in (xy(p) for p in poly))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#fff" stroke-width="1"/>')
    for serial, g in players:
        a, b = xy(g)
        parts.append(
            f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="#2a7fff"/>'
            f'<text x="{a + 4:.1f}" y="{b - 3:.1f}" font-size="9" fill="#fff">'
            f"{serial}</text>"
        )
    if ball is not None:
        a, b = xy(ball)
        parts.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.5" fill="#ff0"/>')
    for name, p in (it.get("points") or {}).items():
        if isinstance(p, list) and len(p) == 3:
            a, b = xy(p)
            parts.append(
                f'<circle cx="{a:.1f}" cy="{b:.1f}" r="4" fill="none" '
                f'stroke="#f33" stroke-width="1.5"><title>{html.escape(name)}</title>'
                f"</circle>"
            )
    h = (L + 2 * pad) * s
    return (
        f'<svg width="{width_px}" height="{h:.0f}" style="background:#2d6a3e">'
        + "".join(parts)
        + "</svg>"
    )


def _scene_positions(scene_file: str, cache: dict):
    """[(serial, ground xyz)] of the athletes and the ball xyz (or None), from the scene file."""
    if scene_file in cache:
        return cache[scene_file]
    from qa.scenes import qa_scene

    try:
        qs = qa_scene(Path(scene_file))
    except (ValueError, OSError):
        cache[scene_file] = ([], None)
        return cache[scene_file]
    players = []
    for i, p in enumerate(qs.athletes, start=1):
        g = p.ground_world if p.ground_world is not None else p.joints_world.get("pelvis")
        if g is not None:
            players.append((i, np.asarray(g, float)))
    ball = qs.scene.ball.world if qs.scene.ball.visible else None
    cache[scene_file] = (players, ball)
    return cache[scene_file]


_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>QA review</title>
<style>body{{font:13px sans-serif;background:#222;color:#eee;margin:12px}}
.img{{border-top:1px solid #555;padding:8px 0}} .img>img{{max-width:640px;display:block}}
.item{{display:flex;gap:10px;margin:6px 0;padding:6px;background:#333}}
.item.vetoed{{background:#522}} pre{{margin:0;white-space:pre-wrap}} .q{{flex:1}}
.meta{{color:#aaa;font-size:11px}} #bar{{position:sticky;top:0;background:#111;padding:6px}}
</style></head><body><div id="bar">Reviewer: <input id="who" value="reviewer1">
<button onclick="save()">Save vetoes</button> <span id="n">0</span> vetoed of {n_items}</div>
{body}
<script>
function mark(cb){{cb.closest('.item').classList.toggle('vetoed',cb.checked);
document.getElementById('n').textContent=document.querySelectorAll('input.v:checked').length;}}
function save(){{const who=document.getElementById('who').value||'reviewer';
const ids=[...document.querySelectorAll('input.v:checked')].map(c=>c.dataset.id);
const blob=new Blob([JSON.stringify({{format:'{fmt}',format_version:1,reviewer:who,vetoed:ids}},
null,1)],{{type:'application/json'}});const a=document.createElement('a');
a.href=URL.createObjectURL(blob);a.download='vetoes_'+who+'.json';a.click();}}
</script></body></html>
"""


def _more_images(it: dict) -> str:
    """The other frames of a multi-frame item, small."""
    return "".join(
        f'<img src="{html.escape(i)}" loading="lazy" style="width:200px">'
        for i in it.get("image_ids", [])[1:]
    )


def write_review(qa_dir) -> Path:
    """Write DIR/review.html for the items in DIR/items.jsonl; return its path."""
    qa_dir = Path(qa_dir)
    items = read_items(qa_dir)
    by_image: OrderedDict[str, list] = OrderedDict()
    for it in items:
        by_image.setdefault(it["image_id"], []).append(it)
    cache: dict = {}
    blocks = []
    for image_id, its in by_image.items():
        rows = []
        for it in its:
            players, ball = _scene_positions(it["scene_file"], cache)
            quant = {
                k: it.get(k)
                for k in ("value", "points", "margin_m", "margin_required_m", "uncertainty")
            }
            rows.append(
                f'<div class="item"><input type="checkbox" class="v" data-id='
                f'"{html.escape(it["item_id"])}" onchange="mark(this)" title="veto">'
                f'<div class="q"><pre>{html.escape(it["question"])}</pre>'
                f"<b>Answer: {html.escape(it['answer'])}</b>"
                f'<div class="meta">{html.escape(it["item_id"])} &middot; '
                f"{html.escape(it['category'])} &middot; {html.escape(it['template_id'])} "
                f"&middot; {it['split']}<br>{html.escape(json.dumps(quant))}</div></div>"
                f"{_sketch_svg(it, players, ball)}{_more_images(it)}</div>"
            )
        blocks.append(
            f'<div class="img"><img src="{html.escape(image_id)}" loading="lazy">'
            f'<div class="meta">{html.escape(image_id)}</div>{"".join(rows)}</div>'
        )
    page = _PAGE.format(n_items=len(items), body="\n".join(blocks), fmt=VETO_FORMAT)
    out = qa_dir / "review.html"
    write_text_atomic(out, page)
    return out


def read_vetoes(paths) -> dict[str, list[str]]:
    """item id -> reviewers who vetoed it, from veto files."""
    out: dict[str, list[str]] = {}
    for p in paths:
        d = read_json_file(Path(p), ReviewError, "veto file")
        if (
            not isinstance(d, dict)
            or d.get("format") != VETO_FORMAT
            or not isinstance(d.get("vetoed"), list)
            or not all(isinstance(x, str) for x in d["vetoed"])
        ):
            raise ReviewError(f"{p}: not a {VETO_FORMAT} file with a 'vetoed' list of item ids")
        who = str(d.get("reviewer", Path(p).stem))
        for item_id in d["vetoed"]:
            out.setdefault(item_id, []).append(who)
    return out


def apply_vetoes(qa_dir, veto_files) -> dict:
    """Remove every vetoed item from bench.json, train.json and items.jsonl (atomically);
    the removed items go to vetoed.jsonl with their reviewers. Returns counts."""
    qa_dir = Path(qa_dir)
    items = read_items(qa_dir)
    vetoes = read_vetoes(veto_files)
    known = {it["item_id"] for it in items}
    unknown = sorted(set(vetoes) - known)
    if unknown:
        raise ReviewError(f"veto for unknown item id(s): {', '.join(unknown[:5])}")
    keep = [it for it in items if it["item_id"] not in vetoes]
    gone = [{**it, "vetoed_by": vetoes[it["item_id"]]} for it in items if it["item_id"] in vetoes]
    write_datasets(qa_dir, keep)
    write_text_atomic(qa_dir / "items.jsonl", "".join(json.dumps(it) + "\n" for it in keep))
    old = (
        (qa_dir / "vetoed.jsonl").read_text(encoding="utf-8")
        if (qa_dir / "vetoed.jsonl").exists()
        else ""
    )
    write_text_atomic(qa_dir / "vetoed.jsonl", old + "".join(json.dumps(g) + "\n" for g in gone))
    return {
        "removed": len(gone),
        "kept": len(keep),
        "bench": sum(1 for it in keep if it["split"] == "bench"),
        "train": sum(1 for it in keep if it["split"] == "train"),
    }

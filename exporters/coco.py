"""Clicked court points as COCO keypoints (one category per court spec, one image per frame)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from safe_io.atomic import write_json_atomic

VISIBLE = 2
NOT_LABELLED = 0


def coco_court_keypoints(spec_id: str, keypoint_names: list[str], frames: list[dict]) -> dict:
    """A COCO keypoints dict.

    frames: [{"id": str, "file_name": str, "image_size": (w, h), "points": {name: (u, v)}}].
    Keypoints are listed in keypoint_names order as (u, v, visibility) triples, 2 = clicked,
    0 = not clicked (u = v = 0). The bbox is the clicked points' bounding box.
    """
    images, anns = [], []
    for i, fr in enumerate(frames, start=1):
        w, h = fr["image_size"]
        images.append(
            {
                "id": i,
                "file_name": fr["file_name"],
                "width": int(w),
                "height": int(h),
                "courtstudio_frame_id": fr["id"],
            }
        )
        kps, pts = [], []
        for n in keypoint_names:
            if n in fr["points"]:
                u, v = (float(c) for c in fr["points"][n])
                kps += [u, v, VISIBLE]
                pts.append((u, v))
            else:
                kps += [0.0, 0.0, NOT_LABELLED]
        if pts:
            p = np.array(pts)
            x0, y0 = p.min(axis=0)
            x1, y1 = p.max(axis=0)
            bbox = [float(x0), float(y0), float(x1 - x0), float(y1 - y0)]
        else:
            bbox = [0.0, 0.0, 0.0, 0.0]
        anns.append(
            {
                "id": i,
                "image_id": i,
                "category_id": 1,
                "keypoints": kps,
                "num_keypoints": len(pts),
                "bbox": bbox,
                "area": bbox[2] * bbox[3],
                "iscrowd": 0,
            }
        )
    return {
        "info": {"description": f"CourtStudio court keypoints ({spec_id})"},
        "images": images,
        "annotations": anns,
        "categories": [
            {
                "id": 1,
                "name": f"court_{spec_id}",
                "supercategory": "court",
                "keypoints": list(keypoint_names),
                "skeleton": [],
            }
        ],
    }


def write_coco_court_keypoints(
    path, spec_id: str, keypoint_names: list[str], frames: list[dict]
) -> Path:
    write_json_atomic(path, coco_court_keypoints(spec_id, keypoint_names, frames))
    return Path(path)

"""Write samples/prompthmr/tennis_0001_output.pt: the sample tennis frame's players in the
format of PromptHMR's image demo (torch.save of vertices, body_joints (BODY_25), cam_int as the
padded 896 x 896 intrinsics), so `courtstudio players correct` can be tried as pasted.

The people are the sample project's player meshes (Anny bodies with a simulated HMR depth
error). BODY_25 slots we have no joint for repeat the pelvis; the ones `players correct` reads
(MidHip, ears, wrists, big toes and heels) are filled from our named joints.

Run: ``.venv/bin/python tools/make_sample_prompthmr.py``
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtstudio.io.project import load_project  # noqa: E402
from hmr.person_mesh import PersonMesh  # noqa: E402
from hmr.prompthmr import named_to_body25, padding  # noqa: E402


def main():
    project = load_project(ROOT / "samples" / "sample_project")
    fid = "tennis_0001"
    ann = project.load_annotation(fid)
    meshes = [PersonMesh.load_npz(project.root / p.mesh) for p in ann.players]
    truth = json.loads(project.truth_path(fid).read_text())
    K = np.array(truth["camera"]["K"])
    scale, offset = padding(tuple(truth["camera"]["image_size"]))
    Kp = K.copy()
    Kp[:2] *= scale
    Kp[:2, 2] += offset
    out = ROOT / "samples" / "prompthmr" / f"{fid}_output.pt"
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "vertices": torch.tensor(
                np.stack([m.vertices_cam for m in meshes]), dtype=torch.float32
            ),
            "body_joints": torch.tensor(
                np.stack([named_to_body25(m.joints_cam) for m in meshes]), dtype=torch.float32
            ),
            "cam_int": torch.tensor(Kp, dtype=torch.float32)[None],
        },
        out,
    )
    print(f"wrote {out} ({len(meshes)} people)")


if __name__ == "__main__":
    # no options: --help prints what the script writes, instead of writing it
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()

"""Synthetic scenes with hand-placed players and ball for the QA tests (and their basic checks).

The tennis scene (court 23.77 x 10.97 m, net at x = 11.885):
  camera at (30, 5.485, 6) looking at the court centre;
  player id 7, near side, pelvis (20, 3, 1), head (20, 3, 1.7), facing -x (the net), so its
      left is -y: left hand (20, 2.7, 1.0), right hand (20, 3.3, 1.0), feet (20, 2.85/3.15, 0.05);
  player id 3, far side, pelvis (4, 8, 1), head (4, 8, 1.9), facing +x, left is +y:
      left hand (4, 8.3, 1.0), right hand raised (4, 7.7, 2.1), feet (4, 8.15/7.85, 0.05);
  ball at (15, 6, 2).
"""

import zlib
from pathlib import Path

import cv2
import numpy as np

from exporters.scene import BallRecord, PlayerRecord, Scene, load_scene, save_scene
from geometry.camera import Camera, image_centre_uv, rotation_look_at

CAMERA_C = np.array([30.0, 5.485, 6.0])
BALL = np.array([15.0, 6.0, 2.0])
NEAR = {
    "pelvis": (20, 3, 1.0),
    "head": (20, 3, 1.7),
    "left_hand": (20, 2.7, 1.0),
    "right_hand": (20, 3.3, 1.0),
    "left_foot": (20, 2.85, 0.05),
    "right_foot": (20, 3.15, 0.05),
}
FAR = {
    "pelvis": (4, 8, 1.0),
    "head": (4, 8, 1.9),
    "left_hand": (4, 8.3, 1.0),
    "right_hand": (4, 7.7, 2.1),
    "left_foot": (4, 8.15, 0.05),
    "right_foot": (4, 7.85, 0.05),
}


def make_camera(C=CAMERA_C, size=(1280, 720), f=1400.0, target=(11.885, 5.485, 0.0)) -> Camera:
    R = rotation_look_at(np.asarray(C, float), np.asarray(target, float))
    c = image_centre_uv(size)  # the simple model's principal point
    K = np.array([[f, 0, c[0]], [0, f, c[1]], [0, 0, 1]])
    return Camera(K=K, R=R, t=-R @ np.asarray(C, float), image_size=size)


def _player(cam, pid, joints, role="athlete") -> PlayerRecord:
    J = {k: np.array(v, float) for k, v in joints.items()}
    uv = cam.project(np.array(list(J.values())))
    box = np.array(
        [uv[:, 0].min() - 8, uv[:, 1].min() - 10, uv[:, 0].max() + 8, uv[:, 1].max() + 4]
    )
    return PlayerRecord(id=pid, box_xyxy=box, joints_world=J, source="synthetic", role=role)


def moved(joints: dict, x: float, y: float) -> dict:
    """A body of NEAR/FAR moved so that its pelvis is above (x, y)."""
    px, py, _ = joints["pelvis"]
    return {k: (v[0] - px + x, v[1] - py + y, v[2]) for k, v in joints.items()}


def make_scene(
    folder: Path,
    name="tennis_a",
    match="m1",
    ball=True,
    extra_players=(),
    camera=None,
    covariance=None,
    spec_id="tennis",
    players=None,
    ball_world=BALL,
    frame_index=None,
    time_s=None,
    clip=None,
    raw=None,
) -> Path:
    """Write a synthetic tennis scene (+ its grey image) under folder/name/; return its path."""
    cam = camera or make_camera()
    fdir = Path(folder) / name
    fdir.mkdir(parents=True, exist_ok=True)
    w, h = cam.image_size
    img = np.full((h, w, 3), 90, np.uint8)
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # not hash(): salted per process
    img[::7, ::5] = rng.integers(0, 255, img[::7, ::5].shape, dtype=np.uint8)
    cv2.imwrite(str(fdir / "frame.png"), img)
    players = [_player(cam, pid, j) for pid, j in (players or [(7, NEAR), (3, FAR)])]
    players += [_player(cam, pid, j, role) for pid, j, role in extra_players]
    b = BallRecord(visible=False, status="not_visible")
    if ball:
        bw = np.asarray(ball_world, float)
        b = BallRecord(
            visible=True,
            uv=cam.project(bw[None])[0],
            ground_uv=cam.project(np.array([[bw[0], bw[1], 0.0]]))[0],
            world=bw.copy(),
            height_m=float(bw[2]),
            status="3d",
        )
    info = {"sigma_px_used": 1.0}
    if covariance is not None:
        info["covariance"] = covariance
    scene = Scene(
        frame_id=name,
        image="frame.png",
        image_size=(w, h),
        spec_id=spec_id,
        camera=cam,
        camera_info=info,
        ball=b,
        players=players,
        frame_phrase="",
        match_id=match,
        clip_id=clip or f"{match}_clip",
        spec_version=1,
        frame_index=frame_index,
        time_s=time_s,
        raw=raw or {},
    )
    return save_scene(scene, fdir / "scene.json")


def test_synthetic_scene_round_trips_the_new_fields(tmp_path):
    umpire = {k: (12.0, -2.0 + (v[1] - 3), v[2]) for k, v in NEAR.items()}
    path = make_scene(tmp_path, extra_players=[(9, umpire, "other")])
    sc = load_scene(path)
    assert sc.match_id == "m1" and sc.clip_id == "m1_clip" and sc.spec_version == 1
    assert sc.ball.status == "3d"
    assert [p.role for p in sc.players] == ["athlete", "athlete", "other"]
    assert sc.players[0].facing_world is None  # not given: optional
    from qa.scenes import qa_scene

    assert [p.id for p in qa_scene(path).athletes] == [7, 3]  # the umpire gets no number


def test_wording_for_every_bundled_sport():
    from court_specs import available_specs, load_spec
    from qa.scenes import wording_for

    for sport in available_specs():
        spec = load_spec(sport)
        w = wording_for(spec)
        assert w.ball and w.surface and w.frame_phrase, sport
        assert set(w.margins) == {"left_right_m", "nearest_m", "zone_m", "height_m"}
        for line in spec.lines:  # listed, or a readable fallback from the id
            assert w.line(line).startswith("the ") and "_" not in w.line(line)
    assert wording_for(load_spec("badminton")).ball == "shuttlecock"
    assert wording_for(load_spec("table_tennis")).player_ground == "floor"
    assert wording_for(load_spec("basketball_fiba")).three_point_zones

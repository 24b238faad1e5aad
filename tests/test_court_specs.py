"""Court specs: official dimensions, symmetry, zones, and clear errors for malformed files."""

import json

import numpy as np
import pytest

from court_specs import SpecError, available_specs, load_spec, load_spec_file

ALL = [
    "badminton",
    "basketball_fiba",
    "basketball_nba",
    "beach_volleyball",
    "pickleball",
    "table_tennis",
    "tennis",
    "volleyball",
]
TOL = 1e-4


def kp(spec, name):
    return spec.keypoints[name]


def test_all_sports_bundled_and_load():
    assert available_specs() == ALL
    for s in ALL:
        spec = load_spec(s)
        assert spec.id == s
        assert spec.plane_z() == 0.0


@pytest.mark.parametrize(
    "sport,L,W,dx,dy",
    [  # (dx, dy): the boundary lines' centre crossing, inside (+) or outside (-) the rule corner
        ("tennis", 23.77, 10.97, 0.05, 0.025),  # 10 cm baselines, 5 cm sidelines, inside
        ("badminton", 13.40, 6.10, 0.02, 0.02),
        ("table_tennis", 2.74, 1.525, 0.01, 0.01),
        ("pickleball", 13.41, 6.10, 0.0254, 0.0254),
        ("volleyball", 18.0, 9.0, 0.025, 0.025),
        ("beach_volleyball", 16.0, 8.0, 0.025, 0.025),
        ("basketball_fiba", 28.0, 15.0, -0.025, -0.025),  # boundary lines outside the court
        ("basketball_nba", 28.65, 15.24, -0.0254, -0.0254),
    ],
)
def test_outer_corners_define_the_world_frame(sport, L, W, dx, dy):
    """The frame's origin stays the rule corner (length_m x width_m nominal); the corner
    keypoints are where the painted boundary lines' centres cross (line widths in the spec)."""
    s = load_spec(sport)
    assert (s.length_m, s.width_m) == (L, W)
    assert np.allclose(kp(s, "far_left_corner"), [dx, dy, 0], atol=1e-9)
    assert np.allclose(kp(s, "far_right_corner"), [dx, W - dy, 0], atol=1e-9)
    assert np.allclose(kp(s, "near_left_corner"), [L - dx, dy, 0], atol=1e-9)
    assert np.allclose(kp(s, "near_right_corner"), [L - dx, W - dy, 0], atol=1e-9)
    assert abs(dx) == pytest.approx(
        s.line_width("far_baseline" if "far_baseline" in s.lines else "far_end_line") / 2
    )
    assert abs(dy) == pytest.approx(
        s.line_width("left_sideline" if "left_sideline" in s.lines else "left_side_line") / 2
    )


def test_tennis_dimensions():
    s = load_spec("tennis")
    h = s.line_width("left_singles_sideline") / 2  # measurements to the outside of the lines
    assert (
        abs(
            kp(s, "far_baseline_right_singles")[1]
            + h
            - (kp(s, "far_baseline_left_singles")[1] - h)
            - 8.23
        )
        < TOL
    )
    hs = s.line_width("far_service_line") / 2  # the service line lies net-side of its 6.40 m
    assert abs(kp(s, "net_line_centre")[0] - (kp(s, "far_service_centre")[0] - hs) - 6.40) < TOL
    assert abs(kp(s, "near_service_centre")[0] + hs - kp(s, "net_line_centre")[0] - 6.40) < TOL
    assert abs(kp(s, "net_post_left_top")[1] + 0.914) < TOL
    assert abs(kp(s, "net_post_right_top")[1] - (10.97 + 0.914)) < TOL
    assert abs(kp(s, "net_post_left_top")[2] - 1.07) < TOL
    assert abs(kp(s, "net_centre_top")[2] - 0.914) < TOL


def test_badminton_dimensions():
    s = load_spec("badminton")
    h = s.line_width_m / 2  # 40 mm lines, part of the area they define
    assert h == 0.02 and not s.line_widths_m
    # the short service line's net-side edge 1.98 m from the net
    assert (
        abs(kp(s, "net_line_left_doubles")[0] - (kp(s, "far_short_service_centre")[0] + h) - 1.98)
        < TOL
    )
    assert abs(kp(s, "far_long_service_centre")[0] - h - 0.76) < TOL  # back edges 0.76 apart
    assert (
        abs(
            kp(s, "far_baseline_right_singles")[1]
            + h
            - (kp(s, "far_baseline_left_singles")[1] - h)
            - 5.18
        )
        < TOL
    )
    assert abs(kp(s, "net_post_left_top")[1]) < TOL  # posts on the doubles sidelines
    assert abs(kp(s, "net_post_left_top")[2] - 1.55) < TOL
    assert abs(kp(s, "net_centre_top")[2] - 1.524) < TOL


def test_table_tennis_planes_and_net():
    s = load_spec("table_tennis")
    assert s.planes == {"table": 0.0, "floor": -0.76}
    assert s.default_plane == "table"
    assert abs(kp(s, "net_post_left_top")[1] + 0.1525) < TOL
    assert abs(kp(s, "net_post_right_top")[1] - (1.525 + 0.1525)) < TOL
    assert abs(kp(s, "net_centre_top")[2] - 0.1525) < TOL
    assert abs(kp(s, "floor_below_near_left_corner")[2] + 0.76) < TOL
    assert "table top" in s.frame_phrase or "table surface" in s.frame_phrase


def test_pickleball_volleyball_basketball_dimensions():
    p = load_spec("pickleball")
    h = p.line_width_m / 2  # 2-inch lines; the non-volley line lies inside the NVZ
    assert h == 0.0254
    assert abs(kp(p, "net_line_left")[0] - (kp(p, "far_kitchen_left")[0] - h) - 2.13) < TOL
    assert abs(kp(p, "net_centre_top")[2] - 0.864) < TOL
    assert abs(kp(p, "net_post_left_top")[2] - 0.914) < TOL
    v = load_spec("volleyball")
    assert abs(kp(v, "far_attack_left")[0] - 0.025 - 6.0) < TOL  # rear edge 3 m from the axis
    assert abs(kp(v, "net_centre_top")[2] - 2.43) < TOL
    for sid, ring_x, r3, corner in (
        ("basketball_fiba", 1.575, 6.75, 0.90),
        ("basketball_nba", 1.60, 7.24, 0.91),
    ):
        b = load_spec(sid)
        ring = kp(b, "far_ring_centre")
        assert abs(ring[0] - ring_x) < TOL and abs(ring[2] - 3.05) < TOL
        h = b.line_width_m / 2  # the 3-point line's outer edge at r3 and corner
        three = b.lines["far_three_point_line"]
        d = np.hypot(three[1:-1, 0] - ring[0], three[1:-1, 1] - ring[1])
        assert np.allclose(d + h, r3, atol=1e-3)  # the arc part
        assert abs(three[0, 1] - h - corner) < TOL  # the corner line
        assert np.allclose(kp(b, "near_ring_centre")[:2], [b.length_m - ring_x, b.width_m / 2])


def test_beach_volleyball_has_only_boundary_tapes_and_a_mens_net():
    s = load_spec("beach_volleyball")
    v = load_spec("volleyball")
    assert set(s.lines) == {"far_baseline", "near_baseline", "left_sideline", "right_sideline"}
    assert not any("attack" in k or "centre_line" in k for k in s.keypoints)
    for name in ("net_line_left", "net_line_right", "net_line_centre"):  # unpainted
        assert abs(kp(s, name)[0] - 8.0) < TOL and abs(kp(s, name)[2]) < TOL
    assert np.allclose(kp(s, "net_line_left"), [8.0, 0.025, 0])  # on the sideline tape's centre
    for name, y in (("net_top_left_sideline", 0.0), ("net_top_right_sideline", 8.0)):
        assert np.allclose(kp(s, name), [8.0, y, 2.43])
        assert name in v.keypoints  # the same concept keeps the indoor name
    assert s.net["height_at_centre_m"] == s.net["height_at_posts_m"] == 2.43
    post_gap = -kp(s, "net_post_left_top")[1]
    assert 0.7 <= post_gap <= 1.0 and s.net["tape_model"] == "level"
    assert s.broadcast_view == "auto"


@pytest.mark.parametrize("sport", ALL)
def test_keypoints_distinct_and_symmetries_are_involutions(sport):
    s = load_spec(sport)
    P = np.array(list(s.keypoints.values()))
    d = np.linalg.norm(P[:, None] - P[None], axis=2) + np.eye(len(P))
    assert d.min() > 1e-3
    for kind, m in s.symmetry_maps().items():
        assert len(m) == len(s.keypoints), kind
        for a, b in m.items():
            assert m[b] == a
    lr = s.symmetry_maps()["left_right"]
    assert lr["far_left_corner"] == "far_right_corner"
    assert s.symmetry_maps()["near_far"]["far_left_corner"] == "near_left_corner"


@pytest.mark.parametrize(
    "point,label",
    [
        ((11.0, 5.0), "forecourt"),
        ((3.0, 5.0), "midcourt"),
        ((-2.0, 5.0), "backcourt"),
        ((13.0, 1.0), "forecourt"),
        ((20.0, 9.0), "midcourt"),
        ((25.0, -1.0), "backcourt"),
    ],
)
def test_tennis_zones(point, label):
    z = load_spec("tennis").zone_at(point)
    assert z is not None and z.label == label
    assert z.half == ("far" if point[0] < 23.77 / 2 else "near")


def test_badminton_and_basketball_zones():
    b = load_spec("badminton")
    assert b.zone_at((6.0, 3.0)).label == "front court"
    assert b.zone_at((2.0, 3.0)).label == "mid court"
    assert b.zone_at((0.3, 3.0)).label == "rear court"
    assert b.zone_at((-1.0, 3.0)).label == "out of bounds"
    nba = load_spec("basketball_nba")
    cases = {
        (1.6, 7.62): "Restricted Area",
        (4.5, 7.62): "In The Paint (Non-RA)",
        (7.0, 7.62): "Mid-Range",
        (9.5, 7.62): "Above the Break 3",
        (1.0, 0.3): "Left Corner 3",
        (1.0, 15.0): "Right Corner 3",
        (27.0, 7.62): "Restricted Area",
        (27.6, 15.0): "Right Corner 3",
    }
    for p, label in cases.items():
        assert nba.zone_at(p).label == label, p
    assert nba.zone_at((50.0, 50.0)) is None


def test_plane_lookup_errors():
    with pytest.raises(KeyError, match="floor"):
        load_spec("tennis").plane_z("floor")


def test_unknown_sport_lists_available():
    with pytest.raises(SpecError, match="available: badminton"):
        load_spec("squash")


def _write(tmp_path, data, name="custom.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


@pytest.mark.parametrize(
    "mutate,field",
    [
        (lambda d: d.pop("length_m"), "length_m"),
        (
            lambda d: d["keypoints"].__setitem__("far_left_corner", [0, 0]),
            "keypoints.far_left_corner",
        ),
        (lambda d: d.__setitem__("default_plane", "floor"), "default_plane"),
        (lambda d: d["keypoints"].pop("near_right_corner"), "keypoints.near_right_corner"),
        (
            lambda d: d["keypoints"].__setitem__("near_right_corner", [23.0, 10.97, 0]),
            "keypoints.near_right_corner",
        ),
        (lambda d: d["zones"][0].__setitem__("polygon", [[0, 0]]), "zones[0].polygon"),
        (lambda d: d["net"].__setitem__("height_at_posts_m", "high"), "net"),
        (lambda d: d.__setitem__("format_version", 2), "format_version"),
    ],
)
def test_malformed_spec_names_file_and_field(tmp_path, mutate, field):
    data = json.loads(json.dumps(load_spec("tennis").to_dict()))
    mutate(data)
    p = _write(tmp_path, data)
    with pytest.raises(SpecError) as e:
        load_spec_file(p)
    assert str(p) in str(e.value)
    assert field in str(e.value)


def test_invalid_json_spec(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text("{ not json")
    with pytest.raises(SpecError, match="not valid JSON"):
        load_spec_file(p)


def test_a_new_sport_is_one_file(tmp_path):
    data = json.loads(json.dumps(load_spec("badminton").to_dict()))
    data["id"] = "badminton_custom"
    p = _write(tmp_path, data, "badminton_custom.json")
    s = load_spec(str(p))
    assert s.id == "badminton_custom" and len(s.keypoints) == 40


def test_bundled_digest_table_is_current_and_lists_only_valid_specs():
    """court_specs/bundled_digests.py holds the digest of the schema and of every bundled
    spec, each of which passes the schema: the loader skips the schema check only for those
    bytes. After editing a spec or the schema: python tools/update_spec_digests.py."""
    import hashlib

    from court_specs.bundled_digests import SCHEMA_SHA256, SPEC_SHA256
    from court_specs.loader import SCHEMA_PATH, SPEC_DIR
    from safe_io.validation import first_schema_error, read_json_file

    hint = "stale: run python tools/update_spec_digests.py"
    assert hashlib.sha256(SCHEMA_PATH.read_bytes()).hexdigest() == SCHEMA_SHA256, hint
    files = {p.name: p for p in SPEC_DIR.glob("*.json")}
    assert sorted(SPEC_SHA256) == sorted(files), hint
    for name, digest in SPEC_SHA256.items():
        assert hashlib.sha256(files[name].read_bytes()).hexdigest() == digest, (name, hint)
        assert first_schema_error(SCHEMA_PATH, read_json_file(files[name])) is None, name


def test_a_bundled_spec_loads_without_importing_jsonschema():
    from tests.fresh_python import run_fresh

    code = (
        "import sys\n"
        "from court_specs import load_spec\n"
        "assert load_spec('tennis').id == 'tennis'\n"
        "assert 'jsonschema' not in sys.modules, 'imported'\n"
    )
    out = run_fresh(code)
    assert out.returncode == 0, out.stderr


def test_an_edited_bundled_spec_is_schema_checked(tmp_path, monkeypatch):
    """The schema check is skipped only for the exact bytes of the table: a bundled file
    edited in place (same name, same folder) is checked and its bad field named; the
    unedited file loads without the check."""
    import court_specs.loader as loader

    original = (loader.SPEC_DIR / "tennis.json").read_bytes()
    same, edited = tmp_path / "same", tmp_path / "edited"
    for folder in (same, edited):
        folder.mkdir()
    (same / "tennis.json").write_bytes(original)
    data = json.loads(original)
    data["format_version"] = 2
    (edited / "tennis.json").write_text(json.dumps(data, indent=1) + "\n")

    def no_check(*args):
        raise AssertionError("the schema check ran")

    for folder in (same, edited):
        monkeypatch.setattr(loader, "SPEC_DIR", folder)
        loader._bundled.cache_clear()
        if folder is same:
            monkeypatch.setattr(loader, "first_schema_error", no_check)
            assert load_spec_file(folder / "tennis.json").id == "tennis"
            monkeypatch.undo()
            continue
        with pytest.raises(SpecError, match="format_version"):
            load_spec_file(folder / "tennis.json")
    loader._bundled.cache_clear()

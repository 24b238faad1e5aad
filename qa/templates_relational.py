"""Relational-reasoning question templates: which zone, player, line or side (multiple choice).

Also the sport-specific shot-region kinds (basketball arc and regions). Same table format and
fields as qa/templates.py, which merges this table into ``KINDS`` (in this order, after the
measurement, counting and localisation kinds).
"""

from __future__ import annotations

# kind: (category, answer type, [paraphrases])
RELATIONAL_KINDS: dict[str, tuple[str, str, list[str]]] = {
    "ball_zone": (
        "relational_reasoning_ball_zone",
        "choice",
        [
            "Over which zone is the {ball}?",
            "Which zone of the {surface} is directly below the {ball}?",
            "The {ball} is above which area of the {surface}?",
        ],
    ),
    "ball_half": (
        "relational_reasoning_ball_zone",
        "choice",
        [
            "Is the {ball} over the {near} half or the {far} half of the {surface}?",
            "On which side of the net is the {ball}?",
        ],
    ),
    "ball_in_out": (
        "relational_reasoning_ball_zone",
        "choice",
        [
            "Is the {ball} above the {surface} (inside its outer lines) or outside it?",
            "Does the {ball}'s ground projection lie inside or outside the outer lines?",
        ],
    ),
    "nearest_player_ball": (
        "relational_reasoning_ball_player",
        "choice",
        [
            "Which player is closest to the {ball}?",
            "Which player is nearest to the {ball}?",
            "Who is the closest player to the {ball}?",
        ],
    ),
    "farthest_player_ball": (
        "relational_reasoning_ball_player",
        "choice",
        ["Which player is farthest from the {ball}?"],
    ),
    "ball_own_side": (
        "relational_reasoning_ball_player",
        "choice",
        [
            "Is the {ball} on {p}'s left or right side?",
            "From {p}'s own perspective, is the {ball} to the left or to the right?",
            "Relative to the direction {p} is facing, is the {ball} on the left or the right?",
        ],
    ),
    "ball_front_back": (
        "relational_reasoning_ball_player",
        "choice",
        [
            "Is the {ball} in front of or behind {p}?",
            "Relative to where {p} is facing, is the {ball} ahead or behind?",
        ],
    ),
    "ball_vs_head": (
        "relational_reasoning_ball_player",
        "choice",
        [
            "Is the {ball} higher or lower than {p}'s head?",
            "Compared with {p}'s head, is the {ball} higher or lower?",
        ],
    ),
    "nearest_cam": (
        "relational_reasoning_camera_player",
        "choice",
        [
            "Which player is closest to the camera?",
            "Which player is nearest to the camera?",
            "Who stands closest to the camera?",
        ],
    ),
    "farthest_cam": (
        "relational_reasoning_camera_player",
        "choice",
        [
            "Which player is farthest from the camera?",
            "Who is the farthest player from the camera?",
        ],
    ),
    "cam_left_right": (
        "relational_reasoning_camera_player",
        "choice",
        [
            "From the camera's viewpoint, is {q} to the left or to the right of {p}?",
            "As seen by the camera, is {q} left or right of {p}?",
        ],
    ),
    "cam_closer_pair": (
        "relational_reasoning_camera_player",
        "choice",
        ["Which is closer to the camera: {p} or {q}?", "Is {p} or {q} nearer to the camera?"],
    ),
    "cam_vs_ball": (
        "relational_reasoning_camera_player",
        "choice",
        ["Is {p} closer to the camera than the {ball} is?"],
    ),
    "player_zone": (
        "relational_reasoning_player_zone",
        "choice",
        [
            "In which zone is {p} standing?",
            "Which zone of the {surface} is {p} in?",
            "{p} stands in which area of the {surface}?",
        ],
    ),
    "player_half": (
        "relational_reasoning_player_zone",
        "choice",
        [
            "Is {p} on the {near} or the {far} side of the net?",
            "On which side of the net does {p} stand?",
        ],
    ),
    "player_in_out": (
        "relational_reasoning_player_zone",
        "choice",
        [
            "Is {p} standing inside or outside the {surface}'s outer lines?",
            "Are {p}'s feet inside or outside the outer lines of the {surface}?",
        ],
    ),
    "nearest_to_player": (
        "relational_reasoning_player_player",
        "choice",
        ["Which player is closest to {p}?", "Who stands nearest to {p}?"],
    ),
    "own_side_pp": (
        "relational_reasoning_player_player",
        "choice",
        [
            "Is {q} on {p}'s left or right?",
            "From {p}'s own perspective, is {q} to the left or to the right?",
            "Relative to the direction {p} faces, is {q} on the left or the right?",
        ],
    ),
    "front_back_pp": (
        "relational_reasoning_player_player",
        "choice",
        [
            "Is {q} in front of or behind {p}?",
            "Relative to where {p} is facing, is {q} ahead or behind?",
        ],
    ),
    "higher_head": (
        "relational_reasoning_player_player",
        "choice",
        ["Whose head is higher: {p}'s or {q}'s?", "Which player's head is higher, {p} or {q}?"],
    ),
    "nearer_net": (
        "relational_reasoning_player_player",
        "choice",
        ["Which player is closer to the net?", "Who is nearest to the net?"],
    ),
    "nearest_line": (
        "relational_reasoning_player_line",
        "choice",
        [
            "Which line is closest to {p}'s {part}?",
            "Which court line is {p}'s {part} nearest to?",
            "{p}'s {part} is closest to which line?",
        ],
    ),
    "player_nearest_line": (
        "relational_reasoning_player_line",
        "choice",
        ["Which player is closest to {line}?", "Who stands nearest to {line}?"],
    ),
    "line_side": (
        "relational_reasoning_player_line",
        "choice",
        [
            "Is {p} between {line} and the net, or beyond {line}?",
            "Does {p} stand on the net's side of {line} or beyond it?",
        ],
    ),
    "sideline_side": (
        "relational_reasoning_player_line",
        "choice",
        ["Is {p} inside or outside {line}?"],
    ),
    # basketball shot regions (specs whose wording lists three_point_zones)
    "shot_region": (
        "relational_reasoning_player_zone",
        "choice",
        [
            "From which shot region would {p} be shooting right now?",
            "In which shot region is {p} standing?",
            "{p} stands in which shot region?",
        ],
    ),
    "three_point": (
        "relational_reasoning_player_zone",
        "choice",
        [
            "Would a shot by {p} from where {p} stands be a three-point attempt?",
            "Is {p} standing behind the three-point line?",
        ],
    ),
    "ball_shot_region": (
        "relational_reasoning_ball_zone",
        "choice",
        ["Over which shot region is the {ball}?"],
    ),
    "players_beyond_arc": (
        "spatial_counting_player",
        "int",
        ["How many players are standing behind the three-point line?"],
    ),
    # multi-frame extension (two images of one clip; qa/multiframe.py)
}

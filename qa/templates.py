"""Question templates: per kind of question, its category, answer type and paraphrases.

Fields filled in per question: {ball} {surface} {ground} (the sport's nouns, qa/data/wording.json),
{p} {q} ("Player 2"), {part} {part2} (body parts), {line}, {half}, {h}, {r}, {frame} (the
scene's frame phrase) and {near} {far}: the names of the halves beyond and before the net,
"near"/"far" in the end-on world frame, "right"/"left" in the side-on one (docs/frames.md).
A template id is ``<kind>.<n>``; each wording is one template.

This module holds the measurement, counting and localisation kinds; the relational kinds live in
qa/templates_relational.py and the multi-frame ones in qa/templates_multiframe.py, merged here into
``KINDS`` in a fixed order (template ids and QA outputs depend on it).
"""

from __future__ import annotations

from qa.templates_multiframe import MULTI_FRAME_KINDS, MULTI_FRAME_SUFFIX  # noqa: F401
from qa.templates_relational import RELATIONAL_KINDS

# kind: (category, answer type, [paraphrases])
KINDS: dict[str, tuple[str, str, list[str]]] = {
    "cam_ball": (
        "distance_measurement_camera_object",
        "float",
        [
            "How far is the {ball} from the camera?",
            "What is the distance between the camera and the {ball}?",
            "Estimate the distance from the camera to the {ball}.",
        ],
    ),
    "cam_part": (
        "distance_measurement_camera_object",
        "float",
        [
            "How far is {p}'s {part} from the camera?",
            "What is the distance between the camera and {p}'s {part}?",
            "Estimate how far the camera is from {p}'s {part}.",
            "Measure the distance from the camera to the {part} of {p}.",
        ],
    ),
    "cam_player": (
        "distance_measurement_camera_object",
        "float",
        ["How far is {p} from the camera?", "What is the distance between {p} and the camera?"],
    ),
    "ball_height": (
        "distance_measurement_height",
        "float",
        [
            "How high is the {ball} above the {surface}?",
            "What is the height of the {ball} above the {surface}?",
            "At what height above the {surface} is the {ball}?",
            "Estimate the {ball}'s height above the {surface}.",
        ],
    ),
    "part_height": (
        "distance_measurement_height",
        "float",
        [
            "How high is {p}'s {part} above the {ground}?",
            "What is the height of {p}'s {part} above the {ground}?",
            "At what height is {p}'s {part}, measured from the {ground}?",
            "Estimate the height of the {part} of {p} above the {ground}.",
        ],
    ),
    "head_diff": (
        "distance_measurement_height",
        "float",
        [
            "How much higher is {p}'s head than {q}'s head?",
            "By how many meters is {p}'s head higher than {q}'s head?",
        ],
    ),
    "ball_over_head": (
        "distance_measurement_height",
        "float",
        [
            "How far above {p}'s head is the {ball}?",
            "What is the vertical distance from {p}'s head up to the {ball}?",
        ],
    ),
    "ball_line": (
        "distance_measurement_object_line",
        "float",
        [
            "What is the horizontal distance from the {ball} to {line}?",
            "How far is the {ball} from {line}, measured along the {surface}?",
            "Estimate the distance between the {ball}'s ground projection and {line}.",
        ],
    ),
    "part_line": (
        "distance_measurement_object_line",
        "float",
        [
            "How far is {p}'s {part} from {line}?",
            "What is the horizontal distance between {p}'s {part} and {line}?",
            "Measure the horizontal distance from {p}'s {part} to {line}.",
            "Estimate how far {line} is from {p}'s {part}.",
        ],
    ),
    "player_net": (
        "distance_measurement_object_line",
        "float",
        [
            "How far is {p} from the net?",
            "What is the horizontal distance between {p} and the net?",
        ],
    ),
    "ball_net": (
        "distance_measurement_object_line",
        "float",
        [
            "How far is the {ball} from the net, horizontally?",
            "What is the horizontal distance between the {ball} and the net?",
        ],
    ),
    "player_player": (
        "distance_measurement_object_object",
        "float",
        [
            "How far apart are {p} and {q}?",
            "What is the distance between {p} and {q}?",
            "Estimate the distance separating {p} from {q}.",
        ],
    ),
    "part_part": (
        "distance_measurement_object_object",
        "float",
        [
            "What is the distance between {p}'s {part} and {q}'s {part2}?",
            "How far is {p}'s {part} from {q}'s {part2}?",
            "Measure the distance from {p}'s {part} to {q}'s {part2}.",
        ],
    ),
    "ball_part": (
        "distance_measurement_object_object",
        "float",
        [
            "How far is the {ball} from {p}'s {part}?",
            "What is the distance between the {ball} and {p}'s {part}?",
            "Estimate the distance from {p}'s {part} to the {ball}.",
        ],
    ),
    "feet_apart": (
        "distance_measurement_object_object",
        "float",
        [
            "How far apart are {p}'s feet?",
            "What is the distance between {p}'s left foot and right foot?",
        ],
    ),
    "hands_apart": (
        "distance_measurement_object_object",
        "float",
        ["What is the distance between {p}'s two hands?"],
    ),
    "balls_half": (
        "spatial_counting_ball",
        "choice",
        [
            "How many {ball}s are over the {half} half of the {surface}?",
            "Count the {ball}s located over the {half} half of the {surface}.",
        ],
    ),
    "balls_above": (
        "spatial_counting_ball",
        "choice",
        [
            "How many {ball}s are higher than {h} m above the {surface}?",
            "Count the {ball}s at a height of more than {h} m above the {surface}.",
        ],
    ),
    "balls_inside": (
        "spatial_counting_ball",
        "choice",
        [
            "How many {ball}s are above the {surface} inside its outer lines?",
            "Count the {ball}s whose ground projection lies inside the outer lines.",
        ],
    ),
    "balls_above_net": (
        "spatial_counting_ball",
        "choice",
        ["How many {ball}s are higher than the top of the net?"],
    ),
    "players_half": (
        "spatial_counting_player",
        "int",
        [
            "How many players are on the {half} side of the net?",
            "Count the players standing on the {half} side of the net.",
            "How many of the marked players are on the {half} side of the net?",
        ],
    ),
    "players_inside": (
        "spatial_counting_player",
        "int",
        [
            "How many players are standing inside the {surface}'s outer lines?",
            "Count the players whose feet are inside the outer lines of the {surface}.",
        ],
    ),
    "players_left": (
        "spatial_counting_player",
        "int",
        [
            "Seen from the camera's side, how many players are on the left half of the {ground}?",
            "Count the players on the left of the court's long axis, as seen from the camera.",
        ],
    ),
    "players_hand_up": (
        "spatial_counting_player",
        "int",
        [
            "How many players have a hand raised above their head?",
            "Count the players with at least one hand higher than their head.",
        ],
    ),
    "players_near_ball": (
        "spatial_counting_player",
        "int",
        ["How many players are within {r} m of the {ball}?"],
    ),
    "loc_ball": (
        "localization",
        "tuple",
        [
            "In a coordinate system in meters where {frame} What are the 3D coordinates of the "
            "{ball}?",
            "Consider a 3D coordinate system in meters: {frame} Where is the {ball}? Give its "
            "(x, y, z) position.",
            "Use this coordinate system (meters): {frame} Locate the {ball}.",
        ],
    ),
    "loc_part": (
        "localization",
        "tuple",
        [
            "In a coordinate system in meters where {frame} What are the 3D coordinates of {p}'s "
            "{part}?",
            "Consider a 3D coordinate system in meters: {frame} Give the (x, y, z) position of "
            "{p}'s {part}.",
            "Use this coordinate system (meters): {frame} Where is {p}'s {part}?",
            "Coordinate system (meters): {frame} Locate the {part} of {p}.",
        ],
    ),
    **RELATIONAL_KINDS,
    **MULTI_FRAME_KINDS,
}

SUFFIX = {
    "float": " Answer in meters with two decimals.",
    "int": " Answer with a whole number.",
    "tuple": " Answer as (x, y, z) in meters with two decimals.",
    "choice": " Answer with the option's letter.",
}
PART_NAMES = {
    "pelvis": "pelvis",
    "head": "head",
    "left_hand": "left hand",
    "right_hand": "right hand",
    "left_foot": "left foot",
    "right_foot": "right foot",
}


def template_ids() -> list[str]:
    """Every template id, ``<kind>.<n>``."""
    return [f"{k}.{i}" for k, (_, _, texts) in KINDS.items() for i in range(len(texts))]

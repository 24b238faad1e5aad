"""Question templates: per kind of question, its category, answer type and paraphrases.

Fields filled in per question: {ball} {surface} {ground} (the sport's nouns, qa/data/wording.json),
{p} {q} ("Player 2"), {part} {part2} (body parts), {line}, {half}, {h}, {r}, {frame} (the
scene's frame phrase) and {near} {far}: the names of the halves beyond and before the net,
"near"/"far" in the end-on world frame, "right"/"left" in the side-on one (docs/frames.md).
A template id is ``<kind>.<n>``; each wording is one template.
"""

from __future__ import annotations

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
    "mf_player_displacement": (
        "multi_frame_player_displacement",
        "float",
        [
            "How far did {p} move across the {ground} between the first and the second image?",
            "What horizontal distance did {p} cover from the first image to the second?",
        ],
    ),
    "mf_ball_travel": (
        "multi_frame_ball_travel",
        "float",
        [
            "What is the straight-line distance the {ball} travelled between the two images?",
            "How far apart are the {ball}'s positions in the first and the second image?",
        ],
    ),
    "mf_ball_speed": (
        "multi_frame_ball_speed",
        "float",
        [
            "What was the {ball}'s average speed between the two images, in meters per second?",
            "Estimate the {ball}'s mean speed from the first image to the second, in meters "
            "per second.",
        ],
    ),
    "mf_net_clearance": (
        "multi_frame_net_clearance",
        "float",
        [
            "By how much did the {ball} clear the net as it crossed between the two images?",
            "How high above the top of the net was the {ball} when it crossed the net?",
        ],
    ),
    "mf_ball_apex": (
        "multi_frame_ball_apex",
        "float",
        [
            "The three images show one flight of the {ball}. What is the greatest height above "
            "the {surface} it reaches between the first and the last image?",
            "Across these three images of one flight, how high above the {surface} does the "
            "{ball} get at its highest?",
        ],
    ),
    "mf_bounce_zone": (
        "multi_frame_bounce_zone",
        "choice",
        [
            "The three images show one flight of the {ball}. In which zone does it bounce?",
            "Following the {ball}'s flight through these three images, where does it land?",
        ],
    ),
    "mf_bounce_in_out": (
        "multi_frame_bounce_in_out",
        "choice",
        [
            "The three images show one flight of the {ball}. Does it land inside or outside the "
            "outer lines?",
            "Following the {ball}'s flight through these three images, is its bounce in or out "
            "of the {surface}'s outer lines?",
        ],
    ),
}
MULTI_FRAME_SUFFIX = {"mf_ball_speed": " Answer with two decimals."}

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

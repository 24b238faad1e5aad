"""Multi-frame question templates: one flight or movement seen across three images.

Same table format and fields as qa/templates.py, which appends this table to ``KINDS``.
"""

from __future__ import annotations

# kind: (category, answer type, [paraphrases])
MULTI_FRAME_KINDS: dict[str, tuple[str, str, list[str]]] = {
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

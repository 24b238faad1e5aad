"""The one rule for new player ids (the canvas's new box, proposed boxes, imported HMR people).

A player's id is stable across frames (Player 3 is the same person in every frame), so a new
player in a frame takes ids above every id used in that frame: never a free lower id, which may
belong to a player of another frame. Ids stay in 1..PLAYER_ID_LIMIT (what the annotation file
accepts); only when the ids above are used up does the rule fall back to the lowest free ids.
"""

from __future__ import annotations

from collections.abc import Iterable

from courtstudio.io.project_paths import PLAYER_ID_LIMIT


def new_player_ids(used_ids: Iterable[int], count: int = 1) -> list[int]:
    """``count`` new player ids for a frame whose players have ``used_ids``: consecutive ids
    after the largest used one (1, 2, ... in an empty frame), within 1..PLAYER_ID_LIMIT.

    Raises ValueError when the frame has no room for ``count`` more players.
    """
    if count < 0:
        raise ValueError(f"count: expected >= 0, got {count}")
    used = set(used_ids)
    first = max(used, default=0) + 1
    if first + count - 1 <= PLAYER_ID_LIMIT:
        return list(range(first, first + count))
    free = []
    for pid in range(1, PLAYER_ID_LIMIT + 1):
        if len(free) == count:
            break
        if pid not in used:
            free.append(pid)
    if len(free) < count:
        raise ValueError(f"no room for {count} more players (ids 1..{PLAYER_ID_LIMIT})")
    return free

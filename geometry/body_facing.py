"""Which way a body faces, from its joints in the world frame (for a player's own left and
right in QA questions, and the scene files' ``facing_world``)."""

from __future__ import annotations

import numpy as np

MIN_FACING_SPREAD_M = 0.08  # left-right spread of hands/feet (or hips) below this: no facing


def facing_from_joints(joints: dict[str, np.ndarray]) -> np.ndarray | None:
    """(S+1, 3) unit horizontal facing directions from a body's left/right joints (hips and
    shoulders where present, else hands and feet): facing = left x up. None when the joints
    are missing or the spread is under MIN_FACING_SPREAD_M (a side-on body)."""
    pairs = [("left_hip", "right_hip"), ("left_shoulder", "right_shoulder")]
    if not all(a in joints and b in joints for a, b in pairs):
        pairs = [("left_hand", "right_hand"), ("left_foot", "right_foot")]
    if not all(a in joints and b in joints for a, b in pairs):
        return None
    left = sum(joints[a] - joints[b] for a, b in pairs) / len(pairs)
    left = left * np.array([1.0, 1.0, 0.0])
    norm = np.linalg.norm(left, axis=-1, keepdims=True)
    if norm[0, 0] < MIN_FACING_SPREAD_M:
        return None
    f = np.cross(left / np.maximum(norm, 1e-12), np.array([0.0, 0.0, 1.0]))
    facing: np.ndarray = f / np.maximum(np.linalg.norm(f, axis=-1, keepdims=True), 1e-12)
    return facing

"""Time of the Daleks (``time_of_the_daleks_v2``): the game's folder (rules, content, heuristic, drawing).

The names here are what the package registry reads before it imports any kernel: the
game's versioned env id and its retired ids (each with what changed).
"""

ENV_ID = "time_of_the_daleks_v2"
RETIRED_ENV_IDS = {
    "time_of_the_daleks_v0": ("v1: the float rounding of three observation entries; v2: rule fixes; v0 checkpoints load on v2"),
    "time_of_the_daleks_v1": (
        "rule fixes: The Stolen Earth places one Dalek, The Teller's Fail cost, Into the Dalek's "
        "tax on Earth, who is asked never depends on hidden cards, a finished adventure is cleared; "
        "v1 checkpoints load on v2"
    ),
}
"""Earlier env ids of this game -> what changed (their successor is ``ENV_ID``)."""
SIMULTANEOUS = False
"""The seats take turns (no Parallel API)."""

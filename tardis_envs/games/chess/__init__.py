"""Dr. Who Chess (``timelord_chess_v1``): the game's folder (rules, content, heuristic, drawing).

The names here are what the package registry reads before it imports any kernel: the
game's versioned env id and its retired ids (each with what changed).
"""

ENV_ID = "timelord_chess_v1"
RETIRED_ENV_IDS = {
    "timelord_chess_v0": "the rulings on pawns out of the TARDIS on ranks 1/8",
}
"""Earlier env ids of this game -> what changed (their successor is ``ENV_ID``)."""
SIMULTANEOUS = False
"""The seats take turns (no Parallel API)."""

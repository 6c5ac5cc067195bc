"""TARDIS Run (``tardis_run_v0``): the game's folder (rules, content, heuristic, drawing).

The names here are what the package registry reads before it imports any kernel: the
game's versioned env id and its retired ids (each with what changed).
"""

ENV_ID = "tardis_run_v0"
RETIRED_ENV_IDS: dict[str, str] = {}
"""Earlier env ids of this game -> what changed (their successor is ``ENV_ID``)."""
SIMULTANEOUS = False
"""The seats take turns (no Parallel API)."""

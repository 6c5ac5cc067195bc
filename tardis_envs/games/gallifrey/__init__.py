"""The Ghosts of Gallifrey duel (``gallifrey_duel_v1``): the game's folder (rules, content, heuristic, drawing).

The names here are what the package registry reads before it imports any kernel: the
game's versioned env id and its retired ids (each with what changed).
"""

ENV_ID = "gallifrey_duel_v1"
RETIRED_ENV_IDS = {
    "gallifrey_duel_v0": "dramatic mode's scoring per the rulings",
}
"""Earlier env ids of this game -> what changed (their successor is ``ENV_ID``)."""
SIMULTANEOUS = True
"""The seats choose at the same moment: the env also has PettingZoo's Parallel API."""

"""The Ghosts of Gallifrey duel's folder: its entry in the registry (:mod:`tardis_envs.games`)."""

ENV_ID = "gallifrey_duel_v1"
SIMULTANEOUS = True
RETIRED_ENV_IDS = {"gallifrey_duel_v0": "dramatic mode's scoring per the rulings"}

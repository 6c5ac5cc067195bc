"""The Dr. Who Chess folder: its entry in the registry (:mod:`tardis_envs.games`)."""

ENV_ID = "timelord_chess_v1"
SIMULTANEOUS = False
RETIRED_ENV_IDS = {"timelord_chess_v0": "the rulings on pawns out of the TARDIS on ranks 1/8"}

"""The Keys to the TARDIS folder: its entry in the registry (:mod:`tardis_envs.games`)."""

ENV_ID = "keys_to_the_tardis_v0"
SIMULTANEOUS = False
RETIRED_ENV_IDS: dict[str, str] = {}

"""The TARDIS Run folder: its entry in the registry (:mod:`tardis_envs.games`)."""

ENV_ID = "tardis_run_v0"
SIMULTANEOUS = False
RETIRED_ENV_IDS: dict[str, str] = {}

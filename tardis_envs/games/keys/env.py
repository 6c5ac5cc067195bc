"""The PettingZoo AEC env of Keys to the TARDIS (documentation: ``tardis_envs.keys_to_the_tardis_v0``)."""

from __future__ import annotations

from ...core.aec import TardisAECEnv, make_env_factory
from .game import KeysToTheTardis


class raw_env(TardisAECEnv):  # noqa: N801 - PettingZoo's naming
    game_class = KeysToTheTardis
    metadata = {**TardisAECEnv.metadata, "name": "keys_to_the_tardis_v0"}


env = make_env_factory(raw_env)

"""The PettingZoo AEC env of Ghosts of Gallifrey duel (documentation: ``tardis_envs.gallifrey_duel_v0``)."""
from __future__ import annotations

from ...core.aec import TardisAECEnv, make_env_factory
from .game import GallifreyDuel


class raw_env(TardisAECEnv):  # noqa: N801 - PettingZoo's naming
    game_class = GallifreyDuel
    metadata = {**TardisAECEnv.metadata, "name": "gallifrey_duel_v0"}


env = make_env_factory(raw_env)

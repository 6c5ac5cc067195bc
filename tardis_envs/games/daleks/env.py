"""The PettingZoo AEC env of Time of the Daleks (documentation: ``tardis_envs.time_of_the_daleks_v2``)."""

from __future__ import annotations

from ...core.aec import TardisAECEnv, make_env_factory
from .game import TimeOfTheDaleks


class raw_env(TardisAECEnv):  # noqa: N801 - PettingZoo's naming
    game_class = TimeOfTheDaleks
    metadata = {**TardisAECEnv.metadata, "name": "time_of_the_daleks_v2"}


env = make_env_factory(raw_env)

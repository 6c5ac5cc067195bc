"""The PettingZoo AEC env of Dr. Who Chess (documentation: ``tardis_envs.timelord_chess_v1``)."""

from __future__ import annotations

from ...core.aec import TardisAECEnv, make_env_factory
from .game import TimelordChess


class raw_env(TardisAECEnv):  # noqa: N801 - PettingZoo's naming
    game_class = TimelordChess
    metadata = {**TardisAECEnv.metadata, "name": "timelord_chess_v1"}


env = make_env_factory(raw_env)

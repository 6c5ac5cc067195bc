"""The PettingZoo envs of Ghosts of Gallifrey duel (documentation: ``tardis_envs.gallifrey_duel_v1``):
the AEC env (seats commit in turn, each hidden from the other) and the Parallel env (both
fighters act in one step), over the same kernels."""

from __future__ import annotations

from typing import Any

from ...core.aec import TardisAECEnv, make_env_factory
from ...core.parallel import TardisParallelEnv
from .game import GallifreyDuel


class raw_env(TardisAECEnv):  # noqa: N801 - PettingZoo's naming
    game_class = GallifreyDuel
    metadata = {**TardisAECEnv.metadata, "name": "gallifrey_duel_v1"}


class parallel_raw_env(TardisParallelEnv):  # noqa: N801 - PettingZoo's naming
    game_class = GallifreyDuel
    metadata = {**TardisParallelEnv.metadata, "name": "gallifrey_duel_v1"}


env = make_env_factory(raw_env)


def parallel_env(**kwargs: Any) -> parallel_raw_env:
    """The duel as a PettingZoo ParallelEnv: ``step({"first": a, "second": b})`` plays one
    exchange; keyword arguments are rule options, ``render_mode`` and ``illegal_action``."""
    return parallel_raw_env(**kwargs)

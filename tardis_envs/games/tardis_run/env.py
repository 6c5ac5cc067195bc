"""The PettingZoo AEC env of TARDIS Run (documentation: ``tardis_envs.tardis_run_v0``)."""

from __future__ import annotations

from ...core.aec import TardisAECEnv, make_env_factory
from .game import TardisRun


class raw_env(TardisAECEnv):  # noqa: N801 - PettingZoo's naming
    game_class = TardisRun
    metadata = {**TardisAECEnv.metadata, "name": "tardis_run_v0"}


env = make_env_factory(raw_env)

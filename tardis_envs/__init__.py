"""tardis_envs: PettingZoo environments for Doctor Who tabletop games over numba kernels.

>>> import tardis_envs
>>> env = tardis_envs.make("tardis_run_v0", render_mode="ansi")
>>> tardis_envs.ENV_IDS
('tardis_run_v0', 'keys_to_the_tardis_v0', 'timelord_chess_v1', 'gallifrey_duel_v1', 'time_of_the_daleks_v2')

Every game is also registered with PettingZoo's own registry when the installed
PettingZoo has one: ``pettingzoo.make("aec", "tardis_envs/tardis_run_v0")``, and the
duel's Parallel API as ``pettingzoo.make("parallel", "tardis_envs/gallifrey_duel_v1")``;
a retired id there is refused with the name of its successor.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from .games import FOLDERS as _FOLDERS
from .games import packages as _game_packages

__version__ = "0.1.0"

# The registry, read from the game folders (tardis_envs.games.FOLDERS): env id -> its env page
# module (tardis_envs/<env_id>.py), the earlier ids of each game with their successor and what
# changed (PettingZoo's convention: an id names one version of the rules, observation and
# actions), and the games whose seats act at the same moment (also a Parallel env).
_GAMES = dict(zip(_FOLDERS, _game_packages()))  # short name -> the game's package
_MODULES = {game.ENV_ID: f"tardis_envs.{game.ENV_ID}" for game in _GAMES.values()}
ENV_IDS: tuple[str, ...] = tuple(_MODULES)
RETIRED_ENV_IDS = {old: (game.ENV_ID, change) for game in _GAMES.values() for old, change in game.RETIRED_ENV_IDS.items()}
_PARALLEL_ENV_IDS = tuple(game.ENV_ID for game in _GAMES.values() if game.SIMULTANEOUS)
_SHORT_NAMES = {game.ENV_ID: folder for folder, game in _GAMES.items()}


def short_name(env_id: str) -> str:
    """The game's short name: its folder under ``tardis_envs/games/`` and ``configs/``
    (``short_name("keys_to_the_tardis_v0") == "keys"``); the env id names the version."""
    check_env_id(env_id)
    return _SHORT_NAMES[env_id]


def check_env_id(env_id: str) -> None:
    """A ``ValueError`` naming the registered ids, or the successor of a retired one,
    unless ``env_id`` is registered."""
    if env_id not in _MODULES:
        raise ValueError(_unknown(env_id))


def _unknown(env_id: str) -> str:
    if env_id in RETIRED_ENV_IDS:
        successor, change = RETIRED_ENV_IDS[env_id]
        return f"{env_id!r} was replaced by {successor!r} ({change}); make {successor!r} instead"
    return f"unknown env id {env_id!r}; registered: {', '.join(ENV_IDS)}"


def env_module(env_id: str):
    """The per-game module (``env``, ``raw_env``, ``Game``, ``SPEC``) of ``env_id``."""
    check_env_id(env_id)
    return importlib.import_module(_MODULES[env_id])


def make(env_id: str, config: str | Path | None = None, **kwargs: Any):
    """``<env_id>.env(**kwargs)``; with ``config``, rule options come from that YAML
    file first (``options:`` section) and keyword arguments override them."""
    options: dict[str, Any] = {}
    if config is not None:
        from .core.options import load_config

        data = load_config(config)
        if data.get("env_id") not in (None, env_id):
            raise ValueError(f"config file {str(config)!r} is for {data['env_id']!r}, not {env_id!r}")
        options.update(data["options"])
    options.update(kwargs)
    return env_module(env_id).env(**options)


def _retired(env_id: str):
    """The registry's entry point of a retired id: refuses, naming the successor."""

    def make_retired(**kwargs: Any):
        raise ValueError(_unknown(env_id))

    return make_retired


def _register_with_pettingzoo() -> None:
    try:
        from pettingzoo import register
    except ImportError:  # older PettingZoo without a registry
        return
    entries = [("aec", env_id, f"{module}:env") for env_id, module in _MODULES.items()]
    entries += [("parallel", env_id, f"{_MODULES[env_id]}:parallel_env") for env_id in _PARALLEL_ENV_IDS]
    entries += [(api, env_id, _retired(env_id)) for env_id in RETIRED_ENV_IDS for api in ("aec", "parallel")]
    for api, env_id, entry_point in entries:
        try:
            register(api, f"tardis_envs/{env_id}", entry_point=entry_point)
        except Exception:  # already registered (module reloaded)
            pass


_register_with_pettingzoo()


def __getattr__(name: str):
    # ``from tardis_envs import tardis_run_v0`` and ``tardis_envs.tardis_run_v0``
    # import the game lazily, so ``import tardis_envs`` stays cheap.
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name in RETIRED_ENV_IDS:
        raise AttributeError(_unknown(name))
    raise AttributeError(f"module 'tardis_envs' has no attribute {name!r}")


__all__ = ["ENV_IDS", "RETIRED_ENV_IDS", "check_env_id", "make", "env_module", "short_name", "__version__", *ENV_IDS]

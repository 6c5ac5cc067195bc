"""The games, one folder each (the folder's name is the game's short name).

``FOLDERS`` is the registry: the game folders in the order the package presents them.
Adding a game is adding its folder here; everything else (the env ids, the retired ids and
what replaced them, the Parallel API) is read from each folder's ``__init__.py``, which
imports no kernel, so that ``import tardis_envs`` stays cheap.
"""

from __future__ import annotations

import importlib
from types import ModuleType

FOLDERS = ("tardis_run", "keys", "chess", "gallifrey", "daleks")


def packages() -> list[ModuleType]:
    """Each game's package (``ENV_ID``, ``RETIRED_ENV_IDS``, ``SIMULTANEOUS``), in ``FOLDERS`` order."""
    return [importlib.import_module(f"{__name__}.{folder}") for folder in FOLDERS]

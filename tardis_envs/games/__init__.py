"""The games, one folder each (the folder's name is the game's short name).

``FOLDERS`` is the registry: the game folders in the order the package presents them.
Adding a game is adding its folder here; everything else is read from each folder's
``__init__.py``, which imports no kernel, so that ``import tardis_envs`` stays cheap:

* ``ENV_ID`` - the game's versioned env id (PettingZoo's ``_vN``), its ``GameSpec``'s id;
* ``SIMULTANEOUS`` - whether its seats choose at the same moment (the env then also has
  PettingZoo's Parallel API), its ``GameSpec``'s ``simultaneous``;
* ``RETIRED_ENV_IDS`` - its earlier env ids, each with what changed (``tardis_envs.make``
  of one names ``ENV_ID`` instead).
"""

from __future__ import annotations

import importlib
from types import ModuleType

FOLDERS = ("tardis_run", "keys", "chess", "gallifrey", "daleks")


def packages() -> list[ModuleType]:
    """Each game's package (``ENV_ID``, ``RETIRED_ENV_IDS``, ``SIMULTANEOUS``), in ``FOLDERS`` order."""
    return [importlib.import_module(f"{__name__}.{folder}") for folder in FOLDERS]

"""The one numba decorator every kernel uses.

``njit`` compiles with ``cache=True`` (a warm import loads machine code from
``__pycache__`` instead of recompiling) and ``nogil=True`` (kernels can run in
threads). Rules kernels never use ``fastmath``: game results must be exact.
``njit_parallel`` is for batch kernels only, whose outer loop is a ``prange``
over independent games. ``njit_shared_body`` is for a body shared by every game
that receives the game's kernels as arguments (the search): it is compiled into
each game's cached caller and never cached on its own, because numba's cache
index of such a body holds every game's kernel types and breaks ("underlying
object has vanished") when a process that has not imported them all adds one.
"""

from __future__ import annotations

import numba

njit = numba.njit(cache=True, nogil=True)
njit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
njit_shared_body = numba.njit(nogil=True)
prange = numba.prange

__all__ = ["njit", "njit_parallel", "njit_shared_body", "prange"]

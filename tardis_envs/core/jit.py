"""The one numba decorator every kernel uses.

``njit`` compiles with ``cache=True`` (a warm import loads machine code from
``__pycache__`` instead of recompiling) and ``nogil=True`` (kernels can run in
threads). Rules kernels never use ``fastmath``: game results must be exact.
``njit_parallel`` is for batch kernels only, whose outer loop is a ``prange``
over independent games.
"""

from __future__ import annotations

import numba

njit = numba.njit(cache=True, nogil=True)
njit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
prange = numba.prange

__all__ = ["njit", "njit_parallel", "prange"]

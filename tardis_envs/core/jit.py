"""The one numba decorator every kernel uses.

``njit`` compiles with ``cache=True`` (a warm import loads machine code from
``__pycache__`` instead of recompiling) and ``nogil=True`` (kernels can run in
threads). Rules kernels never use ``fastmath``: game results must be exact.
``njit_parallel`` is for batch kernels only, whose outer loop is a ``prange``
over independent games. ``njit_inline`` is ``njit`` with the body inlined into every
caller by numba itself, for a small test called once per move in the hottest loops,
where LLVM kept the call (Dr. Who Chess's ``chess_move_legal_given``: -20% on the
legality filter). ``njit_shared_body`` is for a body shared by every game
that receives the game's kernels as arguments (the search): it is compiled into
each game's cached caller and never cached on its own, because numba's cache
index of such a body holds every game's kernel types and breaks ("underlying
object has vanished") when a process that has not imported them all adds one.

The cache lives in a folder named by a digest of every kernel source
(``kernel_cache_dir``). Numba's own cache checks only the timestamp of the file
that defines a function, while a batch kernel has the rules of other files
compiled into it: after an edit of ``rules.py`` (or a ``git pull``) the cached
batch kernel kept the old rules, and with them the old observation size, and
wrote past the end of the new buffers (a segfault, seen here when the chess
observation gained options). A new digest starts a clean cache instead; the
folders of earlier digests are removed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numba

KERNEL_ROOTS = ("tardis_envs", "agents/heuristics")  # the folders whose modules define kernels


def sources_digest(roots: list[Path]) -> str:
    """Digest of the path and bytes of every ``.py`` file under ``roots``."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def kernel_cache_dir(base: Path, roots: list[Path]) -> Path | None:
    """``base/<digest of the sources>``, created, with the other digests' folders removed;
    None when ``base`` cannot be written (numba then keeps its default place)."""
    digest = sources_digest(roots)
    here = base / digest
    try:
        if not here.is_dir():
            here.mkdir(parents=True, exist_ok=True)
            for old in base.iterdir():
                if old.is_dir() and old.name != digest and len(old.name) == len(digest):
                    shutil.rmtree(old, ignore_errors=True)
        probe = here / f".probe-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError:
        return None
    return here


def _use_kernel_cache_dir() -> None:
    package_root = Path(__file__).resolve().parents[2]
    roots = [package_root / name for name in KERNEL_ROOTS if (package_root / name).is_dir()]
    base = (
        Path(os.environ["NUMBA_CACHE_DIR"])
        if os.environ.get("NUMBA_CACHE_DIR")
        else Path(__file__).resolve().parents[1] / "__pycache__" / "numba"
    )
    where = kernel_cache_dir(base, roots)
    if where is not None:
        numba.config.CACHE_DIR = str(where)


_use_kernel_cache_dir()

njit = numba.njit(cache=True, nogil=True)
njit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
njit_inline = numba.njit(cache=True, nogil=True, inline="always")
njit_shared_body = numba.njit(nogil=True)
prange = numba.prange

__all__ = ["njit", "njit_inline", "njit_parallel", "njit_shared_body", "prange"]

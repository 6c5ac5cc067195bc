"""The numba decorators every kernel uses.

``njit`` compiles with ``cache=True`` (a warm import loads machine code from
``__pycache__`` instead of recompiling) and ``nogil=True`` (kernels can run in
threads). Rules kernels never use ``fastmath``: game results must be exact.
``njit_parallel_fastmath`` is for the network kernel only (:mod:`tardis_envs.core.mlp`),
whose float sums LLVM may reorder and vectorise: a network's outputs are approximate anyway,
and the network ran 1.6x faster so for one leaf, 2.5x for a batch (Keys to the TARDIS).
``njit_parallel`` is for batch kernels only, whose outer loop is a ``prange``
over independent games. ``njit_inline`` is ``njit`` with the body inlined into every
caller by numba itself, for a small test called once per move in the hottest loops,
where LLVM kept the call (Dr. Who Chess's ``chess_move_legal_given``: -20% on the
legality filter). ``njit_shared_body`` is for a body shared by every game
that receives the game's kernels as arguments (the search): it is compiled into
each game's cached caller and never cached on its own, because numba's cache
index of such a body holds every game's kernel types and breaks ("underlying
object has vanished") when a process that has not imported them all adds one.
numba inlines such a body into its caller's IR (``inline="always"``): compiled as a
function of its own, each body of a chain (``step_row`` -> ``step_one`` -> ``write_row``)
made a library that LLVM optimised and emitted again with the game's whole rules
linked in. Inlined, a compact-observation ``batch_step`` of Dr. Who Chess compiles in
27 s instead of 37 s (NUMBA_OPT=1, its float32 kernels cached), the guided search's
``guided_descend`` in the same 53 s, and the batched steps run as fast (TARDIS Run and
Keys at 1,024 games x 2 threads, three alternated processes each: 5.1M and 920k steps/s
against 4.9M and 896k).

Kernels run without numba's reference-counting runtime (NRT, ``_nrt=False``). With
it, every jitted function atomically increments the reference count of each array it
receives on entry and decrements it on exit, and the kernels are many small
functions over one state array and one tables array: in a profile of TARDIS Run's
step, those atomic updates were 60% of the time, and in a batch loop both threads
update the counts of the same shared arrays. The kernels allocate nothing (the
state, masks and observations are the caller's buffers), so they need no counts: the
arrays stay alive in the caller. Measured, one game in a numba loop, TARDIS Run's
step and mask take 81 ns without the runtime and 109 ns with it; batched at 8,192
games x 2 threads, 70 ns against 100 ns a step. Without the runtime, numba refuses to compile an allocation (``np.zeros``,
``.copy()``), a slice assignment between arrays (use
:func:`~tardis_envs.core.state.copy_state`) or a parfor reduction. A scratch buffer
of a constant size comes from :func:`stack_empty` instead (Dr. Who Chess's move
lists). A function that allocates takes the ``_alloc`` variant of its decorator (the
search, perft, the heuristics, a game's ``init`` that shuffles a fresh pool), which
sets the runtime on explicitly: numba otherwise lets a callee inherit the caller's
setting. One rule keeps mixing the two safe: a kernel without the runtime must never
*return* an array it was passed (an ``_alloc`` caller would count a reference nobody
took and free the array while it is in use); ``tests/test_jit.py`` checks every
kernel's source for it.

The cache lives in a folder named by a digest of every kernel source, the
``.py`` files of ``tardis_envs/core`` and ``tardis_envs/games`` where every cached
kernel is defined (``kernel_cache_dir``). Numba's own cache checks only the timestamp of the file
that defines a function, while a batch kernel has the rules of other files
compiled into it: after an edit of ``rules.py`` (or a ``git pull``) the cached
batch kernel kept the old rules, and with them the old observation size, and
wrote past the end of the new buffers (a segfault, seen here when the chess
observation gained options). A new digest starts a clean cache instead; the
folders of earlier digests are removed. Kernels compiled at another LLVM optimisation
level than numba's default (``NUMBA_OPT``: the test suite compiles at 1, a quarter faster)
go to ``<digest>-opt<level>``, beside the default folder.

Several processes may compile into one cache at once (pytest-xdist workers, Ray actors,
subprocess environments): numba reads a function's cache index, adds its entry and writes
the index back without a lock, so two processes saving kernels of one source file at the
same time could lose an entry or give two kernels one data file. Each save into this
cache therefore holds an exclusive lock on a file beside the index (``_lock_cache_saves``).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import numba
from numba.core import cgutils, types
from numba.extending import intrinsic

# the folders whose modules define cached kernels (tests/test_kernel_cache.py checks that no
# other module does): an edit elsewhere (the command line, the docs) keeps the compiled kernels
KERNEL_ROOTS = ("tardis_envs/core", "tardis_envs/games")


def sources_digest(roots: list[Path]) -> str:
    """Digest of the path and bytes of every ``.py`` file under ``roots``."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# numba's cache index tells kernels apart by signature and processor, not by optimisation
# level: kernels compiled under NUMBA_OPT=1 (the test suite's) get a folder of their own, or a
# training run would load them and step several times slower
DEFAULT_OPT_LEVEL = "3"
_CACHE_FOLDER = re.compile(r"([0-9a-f]{16})(?:-opt(?:[0-3]|max))?")


def opt_level() -> str:
    """The LLVM optimisation level numba compiles at (``NUMBA_OPT``: 0-3 or ``max``)."""
    return "max" if getattr(numba.config.OPT, "is_opt_max", False) else str(int(numba.config.OPT))


def kernel_cache_dir(base: Path, roots: list[Path], opt_level: str = DEFAULT_OPT_LEVEL) -> Path | None:
    """``base/<digest of the sources>`` (``<digest>-opt<level>`` for kernels compiled at
    another LLVM optimisation level than numba's default), created, with the folders of
    other digests removed; None when ``base`` cannot be written (numba then keeps its
    default place)."""
    digest = sources_digest(roots)
    here = base / (digest if opt_level == DEFAULT_OPT_LEVEL else f"{digest}-opt{opt_level}")
    try:
        if not here.is_dir():
            here.mkdir(parents=True, exist_ok=True)
            for old in base.iterdir():
                ours = _CACHE_FOLDER.fullmatch(old.name)  # only folders this module names
                if old.is_dir() and ours and ours.group(1) != digest:
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
    numba.config.reload_config()  # NUMBA_OPT set after numba's import (the test suite's conftest)
    where = kernel_cache_dir(base, roots, opt_level())
    if where is not None:
        numba.config.CACHE_DIR = str(where)


def _lock_cache_saves() -> None:
    """Serialise numba's read-extend-write of a cache index under ``CACHE_DIR`` across
    processes (``fcntl.flock`` on ``<index>.lock``); other caches, and systems without
    ``fcntl`` or a numba whose cache class differs, keep numba's behaviour."""
    try:
        import fcntl

        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return
    save = IndexDataCacheFile.save
    if getattr(save, "locked", False):
        return

    def locked_save(self, key, data):
        index = getattr(self, "_index_path", None)
        ours = numba.config.CACHE_DIR and index and os.path.abspath(index).startswith(os.path.abspath(numba.config.CACHE_DIR))
        if not ours:
            return save(self, key, data)
        with open(index + ".lock", "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return save(self, key, data)

    locked_save.locked = True  # type: ignore[attr-defined]
    locked_save.__wrapped__ = save  # type: ignore[attr-defined]
    IndexDataCacheFile.save = locked_save


_use_kernel_cache_dir()
_lock_cache_saves()


def kernels_cached(module_file: str | Path) -> bool:
    """Whether numba's cache holds compiled kernels of the folder of ``module_file`` (a
    game's package): False on a first run, and after any edit of a kernel source (a new
    digest starts a clean cache), when the first call compiles for tens of seconds. Looks
    where numba's locator puts them: ``<folder name>_<sha1 of the folder path>`` under
    ``CACHE_DIR``, or the folder's ``__pycache__`` when no cache folder is set."""
    folder = os.path.dirname(os.path.abspath(module_file))
    if numba.config.CACHE_DIR:
        digest = hashlib.sha1(folder.encode()).hexdigest()
        where = Path(numba.config.CACHE_DIR) / f"{os.path.basename(folder)}_{digest}"
    else:
        where = Path(folder) / "__pycache__"
    return any(where.glob("*.nbi"))


njit = numba.njit(cache=True, nogil=True, _nrt=False)
njit_alloc = numba.njit(cache=True, nogil=True, _nrt=True)
njit_parallel = numba.njit(cache=True, nogil=True, parallel=True, _nrt=False)
njit_parallel_alloc = numba.njit(cache=True, nogil=True, parallel=True, _nrt=True)
njit_parallel_fastmath = numba.njit(cache=True, nogil=True, parallel=True, _nrt=False, fastmath=True)
njit_inline = numba.njit(cache=True, nogil=True, inline="always", _nrt=False)
njit_shared_body = numba.njit(nogil=True, _nrt=False, inline="always")
njit_shared_body_alloc = numba.njit(nogil=True, _nrt=True)
prange = numba.prange


@intrinsic
def stack_empty(typingctx, size, dtype):
    """``np.empty(size, dtype)`` for a kernel compiled without the runtime: an
    uninitialised 1-D array in the calling kernel's stack frame, valid until that
    kernel returns (it cannot return it: numba refuses to return an array that
    was not an argument). ``size`` must be a compile-time constant (a module
    constant such as ``MAX_MOVES``). No allocation, no reference count: a scratch
    buffer costs nothing, where ``np.empty`` costs a ``malloc`` and a ``free``."""
    if not isinstance(size, types.IntegerLiteral) or not isinstance(dtype, types.NumberClass):
        return None
    count = size.literal_value
    element = dtype.instance_type
    array_type = types.Array(element, 1, "C")

    def codegen(context, builder, signature, args):
        data_type = context.get_data_type(element)
        data = cgutils.alloca_once(builder, data_type, size=max(count, 1))  # in the entry block: once a call
        array = context.make_array(array_type)(context, builder)
        itemsize = context.get_abi_sizeof(data_type)
        context.populate_array(
            array,
            data=data,
            shape=[context.get_constant(types.intp, count)],
            strides=[context.get_constant(types.intp, itemsize)],
            itemsize=context.get_constant(types.intp, itemsize),
            meminfo=None,
        )
        return array._getvalue()

    return array_type(size, dtype), codegen


__all__ = [
    "kernels_cached",
    "njit",
    "njit_alloc",
    "njit_inline",
    "njit_parallel",
    "njit_parallel_alloc",
    "njit_shared_body",
    "njit_shared_body_alloc",
    "prange",
    "stack_empty",
]

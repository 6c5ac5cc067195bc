"""Per-game bodies of the batched API, shared by every game.

numba cannot cache a kernel that receives another kernel as an argument at the
top level, nor a closure built by a factory, nor a body that forwards a kernel
argument one call further; it can cache a kernel that passes *global* kernels
to a shared jitted body directly (the body itself is compiled into each game's
cached kernel, never cached alone: see ``njit_shared_body``). So each game writes a short ``prange`` loop
(``batch_reset``/``batch_step`` in its ``batch.py``) calling these bodies with
its kernels named as module attributes (``rules.step``: a bare global name in
a ``prange`` body makes numba refuse the cache), and everything else lives
here once.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .jit import njit, njit_shared_body
from .rng import rng_new_key
from .state import CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED, VARIANT

# bytes of a cache line (x86-64 and most ARM cores): the unit a prefetch brings in
CACHE_LINE_BYTES = 64


@intrinsic
def _prefetch_for_write(typingctx, array, byte_offset):
    """LLVM's ``prefetch`` of the cache line ``byte_offset`` bytes into ``array``'s data,
    for writing, kept in every cache level. A hint: it cannot fault and changes no value."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte = ir.IntType(8)
        address = builder.gep(builder.bitcast(data, byte.as_pointer()), [args[1]])
        i32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte.as_pointer(), i32, i32, i32]), "llvm.prefetch.p0"
        )
        builder.call(prefetch, [address, i32(1), i32(3), i32(1)])  # write, keep in all levels, data
        return context.get_dummy_value()

    return types.void(array, types.int64), codegen


@njit
def prefetch_row(row):
    """Ask the memory system for every cache line of the contiguous array ``row``."""
    for offset in range(0, row.size * row.itemsize, CACHE_LINE_BYTES):
        _prefetch_for_write(row, offset)


# a state row at least this long is prefetched by the batch loop (see prefetch_state)
PREFETCH_STATE_BYTES = 2048


@njit
def prefetch_state(states, i):
    """Prefetch game ``i``'s state row while the batch loop plays the game before it,
    when the row is ``PREFETCH_STATE_BYTES`` or longer (nothing past the batch).

    A batch of thousands of games does not fit in cache. A step that reads its state
    scattered over dozens of cache lines waits on memory for each as it comes; asked
    for one game ahead, they arrive while the previous game computes. Measured at
    8,192 games x 2 threads: Keys to the TARDIS (4.3 KB of state) +20%, Time of the
    Daleks (5.8 KB) about +10%, Dr. Who Chess no change. For a row of a few lines
    (TARDIS Run 320 bytes, the duel 776) the request cost those games about 10%
    (presumably the hardware's own prefetcher already brings such rows in as the loop
    walks them in order). Prefetching the observation and mask rows too gained nothing
    more."""
    if i < states.shape[0] and states.shape[1] * states.itemsize >= PREFETCH_STATE_BYTES:
        prefetch_row(states[i])


@njit_shared_body
def reset_one(init, legal_mask, observe, state, tables, key, obs, mask, observe_seats):
    """Start a new game with generator key ``key`` and write the mover's view
    (the observation only when ``observe_seats[mover]``: rows whose mover is a
    random or heuristic agent need none)."""
    variant = state[VARIANT]  # the batch's rule options: kept across games
    state[:] = 0
    state[VARIANT] = variant
    state[RNG_KEY] = key
    init(state, tables)
    legal_mask(state, tables, mask)
    if observe_seats[state[CURRENT_PLAYER]]:
        observe(state, tables, state[CURRENT_PLAYER], obs)


@njit_shared_body
def step_one(step_and_mask, observe, state, tables, action, obs, mask, rewards, done, observe_seats):
    """Play ``action``; returns True when the game ended (then the caller resets).

    ``rewards[p]`` receives each seat's reward of this step; ``done[0]`` is
    terminated and ``done[1]`` truncated. The game's ``step_and_mask`` writes
    the next legal mask along with the step (a game whose step already works
    the mask out, to find whether a real decision follows, hands it over
    instead of computing it twice).
    """
    step_and_mask(state, tables, action, mask)
    for p in range(rewards.shape[0]):
        rewards[p] = state[REWARDS + p]
    status = state[STATUS]
    done[0] = status == TERMINATED
    done[1] = status == TRUNCATED
    if status != RUNNING:
        return True
    if observe_seats[state[CURRENT_PLAYER]]:
        observe(state, tables, state[CURRENT_PLAYER], obs)
    return False


@njit
def next_key(state):
    """Key of the game that follows a finished one in a batch row (auto-reset):
    drawn from the finished game's generator, so a batch is reproducible from
    its seed alone."""
    return rng_new_key(state, RNG_KEY)

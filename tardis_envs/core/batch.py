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

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .jit import njit, njit_shared_body, stack_empty
from .rng import hash_words, rng_new_key
from .sampling import BLOCK, block_address, hashed_legal
from .state import CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED, VARIANT

# the action of a game where nobody moves in this call (step_until_seat_one)
WAIT = -1

# bytes of a cache line (x86-64 and most ARM cores): the unit a prefetch brings in, and the
# block a streamed store writes (sampling's BLOCK, which reads a mask a line at a time)
CACHE_LINE_BYTES = BLOCK


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
    8,192 games x 2 threads: Keys to the TARDIS (4.3 KB of state then) +20%, Time of the
    Daleks (5.8 KB) about +10%, Dr. Who Chess no change. Keys' state has since been
    packed to 856 bytes, under the threshold: its batch's rows fit in L3 and need no
    prefetch. For a row of a few lines (TARDIS Run 320 bytes, the duel 776) the request
    cost those games about 10% (presumably the hardware's own prefetcher already brings
    such rows in as the loop walks them in order). Prefetching the observation and mask rows too gained nothing
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
def step_one(step_and_mask, observe, state, tables, action, obs, mask, rewards, done, observe_seats, stream):
    """Play ``action``; returns True when the game ended (then the caller resets).

    ``rewards[p]`` receives each seat's reward of this step; ``done[0]`` is
    terminated and ``done[1]`` truncated. The game's ``step_and_mask`` writes
    the next legal mask along with the step (a game whose step already works
    the mask out, to find whether a real decision follows, hands it over
    instead of computing it twice). ``stream``: :func:`streams_rows` of the batch.
    """
    write_row(step_and_mask, state, tables, action, mask, stream & 2)
    for p in range(rewards.shape[0]):
        rewards[p] = state[REWARDS + p]
    status = state[STATUS]
    done[0] = status == TERMINATED
    done[1] = status == TRUNCATED
    if status != RUNNING:
        return True
    if observe_seats[state[CURRENT_PLAYER]]:
        write_row(observe, state, tables, state[CURRENT_PLAYER], obs, stream & 1)
    return False


@njit
def next_key(state):
    """Key of the game that follows a finished one in a batch row (auto-reset):
    drawn from the finished game's generator, so a batch is reproducible from
    its seed alone."""
    return rng_new_key(state, RNG_KEY)


@njit_shared_body
def finish_one(init, legal_mask, observe, state, tables, obs, mask, observe_seats, seat, terminal_obs):
    """A game ended: ``seat``'s view of the final position into ``terminal_obs`` (when
    ``observe_seats[seat]``), then the row restarts as ``batch_step`` restarts it.
    Returns the final status and ``seat``'s reward of the final step."""
    status = state[STATUS]
    reward = state[REWARDS + seat]
    if observe_seats[seat]:
        observe(state, tables, seat, terminal_obs)
    reset_one(init, legal_mask, observe, state, tables, next_key(state), obs, mask, observe_seats)
    return status, reward


@njit_shared_body
def step_until_seat_one(
    init, legal_mask, step_and_mask, observe, state, tables, obs, mask, observe_seats, seat, action, random_opponents, key, terminal_obs
):
    """The player to move plays ``action`` (nobody moves when it is ``WAIT``); then, with
    ``random_opponents``, every seat but ``seat`` plays uniformly random legal moves
    until ``seat`` is to move (move ``k``: :func:`~.sampling.hashed_legal` with ``key``, ``k``). All of it
    without leaving numba: the self-play training environment's step, ``seat`` being
    the learner's.

    Returns ``(moves, status, reward)``: the random moves played, and ``RUNNING``, or
    the game's final status when it ended on one of these moves; then ``reward`` is
    ``seat``'s reward of that final step, ``terminal_obs`` its view of the final
    position (:func:`finish_one`) and the row has restarted. Otherwise the player to
    move has its view in ``obs`` when ``observe_seats`` says so. ``moves == -1``: a
    running game had no legal action (a broken kernel; the caller raises)."""
    if action != WAIT:
        step_and_mask(state, tables, action, mask)
        if state[STATUS] != RUNNING:
            status, reward = finish_one(init, legal_mask, observe, state, tables, obs, mask, observe_seats, seat, terminal_obs)
            return 0, status, reward
    moves = 0
    if random_opponents:
        while state[CURRENT_PLAYER] != seat:
            action = hashed_legal(mask, key, moves)
            if action < 0:
                return -1, RUNNING, 0
            step_and_mask(state, tables, action, mask)
            moves += 1
            if state[STATUS] != RUNNING:
                status, reward = finish_one(init, legal_mask, observe, state, tables, obs, mask, observe_seats, seat, terminal_obs)
                return moves, status, reward
    mover = state[CURRENT_PLAYER]
    if (action != WAIT or moves > 0) and observe_seats[mover]:
        observe(state, tables, mover, obs)
    return moves, RUNNING, 0


@njit
def step_until_seat_key(key, counter, num_rows, row):
    """Key of row ``row``'s draws in call ``counter`` of a ``batch_step_until_seat`` loop."""
    return np.int64(hash_words(key, counter * num_rows + row) >> np.uint64(1))


# --- rows written past the cache -------------------------------------------------------
# A row of at least this many bytes is written through a scratch buffer and streamed out
# (see streams_rows); shorter rows gain nothing from it (measured: TARDIS Run's 480-byte and
# Time of the Daleks' 2,963-byte observations were slower streamed)
STREAM_ROW_BYTES = 4096
# ... when the batch's rows of that kind together take more than this: a batch that fits in
# the caches is better left there, for the next step and for whoever reads the rows
STREAM_BATCH_BYTES = 16 << 20
# the largest row streamed: the scratch buffer, on the stack (64 KB: a float32 chess observation is 42,752 bytes)
STREAM_SCRATCH_WORDS = 8192


@intrinsic
def _stream_block(typingctx, target, target_byte, source, source_byte):
    """Copy the 64 bytes at ``source_byte`` of ``source``'s data to ``target_byte`` of
    ``target``'s, whose address must be a multiple of 64, with a non-temporal store: the
    line goes to memory without first being read into the cache (a normal store reads
    it, then writes it back: twice the traffic) and without evicting what is cached."""

    def codegen(context, builder, signature, args):
        to = block_address(context, builder, context.make_array(signature.args[0])(context, builder, args[0]), args[1])
        from_ = block_address(context, builder, context.make_array(signature.args[2])(context, builder, args[2]), args[3])
        store = builder.store(builder.load(from_, align=1), to, align=CACHE_LINE_BYTES)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return types.void(target, types.int64, source, types.int64), codegen


@intrinsic
def _data_address(typingctx, array):
    """Address of ``array``'s first element, as an integer."""

    def codegen(context, builder, signature, args):
        return builder.ptrtoint(context.make_array(signature.args[0])(context, builder, args[0]).data, ir.IntType(64))

    return types.int64(array), codegen


@intrinsic
def _store_fence(typingctx):
    """A full fence: non-temporal stores are weakly ordered, and another thread (or the
    caller after the parallel loop) must see them complete."""

    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@njit
def stream_copy(source, target):
    """``target[:] = source`` (contiguous 1-D arrays of one dtype) with non-temporal stores
    for the whole cache lines of ``target``, ordinary ones for the bytes before its first
    line boundary and after its last."""
    size = target.itemsize
    n = target.size
    head = min((-_data_address(target)) % CACHE_LINE_BYTES // size, n)
    for j in range(head):
        target[j] = source[j]
    per_line = CACHE_LINE_BYTES // size
    j = head
    while j + per_line <= n:
        _stream_block(target, j * size, source, j * size)
        j += per_line
    for k in range(j, n):
        target[k] = source[k]
    _store_fence()


@njit
def _streamed(rows):
    row_bytes = rows.shape[1] * rows.itemsize
    return STREAM_ROW_BYTES <= row_bytes <= STREAM_SCRATCH_WORDS * 8 and rows.shape[0] * row_bytes > STREAM_BATCH_BYTES


@njit
def streams_rows(obs, masks):
    """Which of a batch's row kinds ``batch_step`` streams: bit 0 the observations, bit 1
    the legal masks (2-D buffers, a row per game). A kind is streamed when its rows are
    ``STREAM_ROW_BYTES`` or longer and all of them together exceed ``STREAM_BATCH_BYTES``:
    then they cannot stay in cache until the next step anyway. The row is written into a
    scratch buffer on the stack, where its scattered writes hit the cache, then copied
    out with :func:`stream_copy`. Measured at 8,192 games x 2 threads, Dr. Who Chess
    (21,376-byte observations and 4,773-byte masks): +15%; at 64 games, where the rows
    stay in cache, streaming them cost 25%, hence the batch-size test."""
    return int(_streamed(obs)) | (int(_streamed(masks)) << 1)


@njit_shared_body
def write_row(kernel, state, tables, argument, row, streamed):
    """``kernel(state, tables, argument, row)``: a game's ``step_and_mask`` (``argument`` the
    action, ``row`` the legal mask it writes whole) or ``observe`` (the observer, the
    observation); when ``streamed``, through a scratch buffer streamed out to ``row``."""
    if streamed:
        words = stack_empty(STREAM_SCRATCH_WORDS, np.int64)
        scratch = words.view(row.dtype)[: row.size]
        kernel(state, tables, argument, scratch)
        stream_copy(scratch, row)
    else:
        kernel(state, tables, argument, row)


@njit_shared_body
def step_row(init, legal_mask, step_and_mask, observe, batch, i, stream):
    """Game ``i`` of a ``batch_step`` over ``batch = (states, tables, actions, obs, masks,
    rewards, done, observe_seats)``: its next state prefetched, ``actions[i]`` played
    (:func:`step_one`; ``stream`` from :func:`streams_rows`), and a game that ended
    restarted (:func:`reset_one`)."""
    states, tables, actions, obs, masks, rewards, done, observe_seats = batch
    prefetch_state(states, i + 1)
    if step_one(step_and_mask, observe, states[i], tables, actions[i], obs[i], masks[i], rewards[i], done[i], observe_seats[i], stream):
        reset_one(init, legal_mask, observe, states[i], tables, next_key(states[i]), obs[i], masks[i], observe_seats[i])

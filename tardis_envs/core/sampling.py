"""Uniform random legal actions for many games at once, inside numba.

Choosing actions in numpy (``argmax`` of random scores over an ``N x A``
mask) costs more than a game step for games with hundreds of actions, so
batched random play (benchmarks, random opponents in self-play) draws them
here: one counter-based hash per row and call, no Python loop.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from llvmlite.binding import get_host_cpu_name
from numba.core import cgutils, config, types
from numba.core.codegen import get_host_cpu_features
from numba.extending import intrinsic, overload

from .jit import njit, njit_parallel, njit_parallel_alloc, prange
from .rng import hash_words

# Actions per block when looking for the chosen action: a block is read as one 64-bit
# word of "legal" bits (one vector compare), counted with a population count, and the
# chosen action found in its block without a branch (chess has 4,773 actions and about
# 35 legal ones; the duel 256 and up to 128).
BLOCK = 64


def _is_contiguous_bytes(mask) -> bool:
    return isinstance(mask, types.Array) and isinstance(mask.dtype, types.Integer) and mask.dtype.bitwidth == 8 and mask.layout == "C"


_BYTE = ir.IntType(8)
_BYTE_BLOCK = ir.VectorType(_BYTE, BLOCK)


def byte_address(builder, array, start):
    """LLVM byte pointer to byte ``start`` of ``array``'s data (a numba array struct)."""
    return builder.gep(builder.bitcast(array.data, _BYTE.as_pointer()), [start])


def block_address(context, builder, array, start):
    """LLVM pointer to the 64 bytes (``BLOCK``, a cache line) of ``array`` (a numba array
    struct) from byte ``start`` (the entry, for a byte array)."""
    return builder.bitcast(byte_address(builder, array, start), _BYTE_BLOCK.as_pointer())


def _nonzero_word(builder, values):
    """The 64-bit word of bits ``a`` where byte ``a`` of the vector ``values`` is not 0."""
    return builder.bitcast(builder.icmp_unsigned("!=", values, ir.Constant(_BYTE_BLOCK, None)), ir.IntType(BLOCK))


@intrinsic
def _nonzero_bits(typingctx, mask, start):
    """Bit ``a`` set where ``mask[start + a] != 0``, for ``a`` in ``0..63``: one 64-byte
    load and a vector compare. The caller keeps ``start + 64 <= mask.size``."""
    if not _is_contiguous_bytes(mask):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return _nonzero_word(builder, builder.load(block_address(context, builder, array, args[1]), align=1))

    return types.uint64(mask, types.int64), codegen


def block_bits(mask, start):  # pragma: no cover - replaced in numba by the overload below
    """Bit ``a`` set where ``mask[start + a] != 0``, for ``a`` in ``0..63``."""
    raise NotImplementedError("block_bits runs inside numba only")


@overload(block_bits)
def _block_bits(mask, start):
    if _is_contiguous_bytes(mask):  # the int8 / uint8 masks of the kernels: one vector compare

        def vector_compare(mask, start):
            return _nonzero_bits(mask, start)

        return vector_compare

    def entry_by_entry(mask, start):  # any other mask (bool, wider, strided) a caller hands in
        bits = np.uint64(0)
        for a in range(BLOCK):
            bits |= np.uint64(mask[start + a] != 0) << np.uint64(a)
        return bits

    return entry_by_entry


@intrinsic
def popcount(typingctx, word):
    """Number of set bits of a ``uint64`` (LLVM's ``ctpop``: one instruction on x86-64
    with POPCNT and on ARMv8)."""
    if word != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(word), codegen


@intrinsic
def lowest_bit(typingctx, word):
    """Position of the lowest set bit of a non-zero ``uint64`` (LLVM's ``cttz``: one
    instruction, TZCNT on x86-64, RBIT and CLZ on ARMv8), as an ``int64``: for walking
    the members of a set of squares kept as bits."""
    if word != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(word), codegen


@intrinsic
def reversed_bytes(typingctx, word):
    """The eight bytes of a ``uint64`` in reverse order (LLVM's ``bswap``: one instruction on
    x86-64 and ARMv8): a set of squares kept as bits, seen from the other side of the
    board (rank r <-> 7 - r)."""
    if word != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bswap(args[0])

    return types.uint64(word), codegen


def compiles_for_fast_pext() -> bool:
    """Whether numba compiles for a processor whose BMI2 ``pext`` (:func:`extract_bits`)
    takes a cycle or so: BMI2 in the features it gives LLVM (``NUMBA_CPU_FEATURES`` or else
    the host's), on any processor but AMD's before Zen 3, where ``pext`` is microcode taking
    hundreds. A kernel picks its code by it at compile time (an ``overload``), and numba's
    cache keeps machine code per processor."""
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else get_host_cpu_features()
    name = config.CPU_NAME if config.CPU_NAME is not None else get_host_cpu_name()
    slow = name in ("znver1", "znver2") or name.startswith(("bdver", "btver"))
    return "+bmi2" in str(features).split(",") and not slow


def _bmi2_operation(word, selector, llvm_name):
    """Typing and code of the BMI2 operation ``llvm_name`` on two ``uint64``s (an intrinsic's body)."""
    if word != types.uint64 or selector != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        operation = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]), llvm_name)
        return builder.call(operation, args)

    return types.uint64(word, selector), codegen


@intrinsic
def extract_bits(typingctx, word, selector):
    """The bits of the ``uint64`` ``word`` where ``selector`` has a 1, moved down next to one
    another in their order (BMI2's ``pext``: bit ``k`` of the result is ``word``'s bit at
    the ``k``-th set bit of ``selector``). Only where :func:`compiles_for_fast_pext`: a
    processor without BMI2 cannot run it."""
    return _bmi2_operation(word, selector, "llvm.x86.bmi.pext.64")


@intrinsic
def deposit_bits(typingctx, word, selector):
    """``word``'s low bits spread, in order, onto the set bits of ``selector`` (BMI2's
    ``pdep``, the inverse of :func:`extract_bits`). Only where
    :func:`compiles_for_fast_pext`."""
    return _bmi2_operation(word, selector, "llvm.x86.bmi.pdep.64")


def bmi2_or(fast, other):
    """What an ``overload`` returns for a function with a BMI2 form: ``fast`` (with
    :func:`extract_bits` or :func:`deposit_bits`) where :func:`compiles_for_fast_pext`,
    ``other`` elsewhere; both take the overloaded function's arguments."""
    return fast if compiles_for_fast_pext() else other


@njit
def nth_set_bit(word, n):
    """Position of the ``n``-th (from 0) set bit of ``word``; ``n < popcount(word)``
    (:func:`_nth_set_bit`: BMI2's ``pdep`` where it is fast, else
    :func:`nth_set_bit_by_halves`)."""
    return _nth_set_bit(word, n)


@njit
def nth_set_bit_by_halves(word, n):
    """:func:`nth_set_bit` as a binary search over halves, quarters, ... of the word, done
    with arithmetic rather than branches: which half holds the bit is as random as the
    action drawn, so a branch would be mispredicted about every other time."""
    n = np.uint64(n)
    position = np.uint64(0)
    width = np.uint64(32)
    while width != 0:
        low = popcount(word & ((np.uint64(1) << width) - np.uint64(1)))
        upper = np.uint64(n >= low)
        n -= upper * low
        shift = upper * width
        word >>= shift
        position += shift
        width >>= np.uint64(1)
    return np.int64(position)


def _nth_set_bit(word, n):  # pragma: no cover - replaced in numba by the overload below
    raise NotImplementedError("_nth_set_bit runs inside numba only")


def _nth_set_bit_by_pdep(word, n):
    # the n-th set bit of word is where pdep puts bit n of a word with that bit alone: two
    # instructions instead of six rounds of the binary search (the random draw of every
    # batched step; sample_legal over TARDIS Run's masks: 5.4 -> 2.3 ns a row)
    return lowest_bit(deposit_bits(np.uint64(1) << np.uint64(n), word))


def _nth_set_bit_searched(word, n):
    return nth_set_bit_by_halves(word, n)


@overload(_nth_set_bit)
def _nth_set_bit_overload(word, n):
    return bmi2_or(_nth_set_bit_by_pdep, _nth_set_bit_searched)


def _compiles_for_avx512bw() -> bool:
    """Whether numba compiles for a processor with AVX-512BW (byte-wise masked loads):
    the features it gives LLVM, ``NUMBA_CPU_FEATURES`` or else the host's."""
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else get_host_cpu_features()
    return "+avx512bw" in str(features).split(",")


@intrinsic
def _masked_nonzero_bits(typingctx, mask, start):
    """Bit ``a`` set where ``mask[start + a] != 0``, for the ``mask.size - start < 64``
    entries left: one masked load (AVX-512BW ``vmovdqu8`` with a lane mask), which reads
    no byte past the end of the array, and a vector compare."""
    if not _is_contiguous_bytes(mask):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        size = cgutils.unpack_tuple(builder, array.shape, 1)[0]
        word = ir.IntType(BLOCK)
        lanes_type = ir.VectorType(ir.IntType(1), BLOCK)
        left = builder.sub(size, args[1])
        lanes = builder.bitcast(builder.sub(builder.shl(word(1), left), word(1)), lanes_type)
        masked_load = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(_BYTE_BLOCK, [_BYTE_BLOCK.as_pointer(), ir.IntType(32), lanes_type, _BYTE_BLOCK]),
            "llvm.masked.load.v64i8.p0",
        )
        address = block_address(context, builder, array, args[1])
        values = builder.call(masked_load, [address, ir.IntType(32)(1), lanes, ir.Constant(_BYTE_BLOCK, None)])
        return _nonzero_word(builder, values)

    return types.uint64(mask, types.int64), codegen


def tail_bits(mask, start):  # pragma: no cover - replaced in numba by the overload below
    """Bit ``a - start`` set where ``mask[a] != 0``, for the fewer than 64 actions from
    ``start`` to the end."""
    raise NotImplementedError("tail_bits runs inside numba only")


@overload(tail_bits)
def _tail_bits(mask, start):
    if _is_contiguous_bytes(mask) and _compiles_for_avx512bw():
        # one masked load instead of a loop over the last entries: TARDIS Run's whole
        # 11-action mask, the last 37 of Keys' 421 (sample_legal over 8,192 TARDIS Run
        # masks: 11-14 -> 6-7 ns a row)
        def masked_load(mask, start):
            return _masked_nonzero_bits(mask, start)

        return masked_load

    def entry_by_entry(mask, start):
        bits = np.uint64(0)
        for a in range(start, mask.shape[0]):
            bits |= np.uint64(mask[a] != 0) << np.uint64(a - start)
        return bits

    return entry_by_entry


@njit
def count_legal(mask):
    """Number of nonzero entries of one game's ``mask``: the population counts of its
    ``BLOCK``s read as words of bits (:func:`block_bits`, :func:`tail_bits`). A byte loop,
    which the compiler vectorises with 64-bit lanes, widens every byte first: measured
    over 2,048 masks in a numba loop, :func:`hashed_legal` takes 27 ns a row for the duel's
    256 actions with the words and 37 with the byte loop, 29 against 48 for Keys' 421, 98
    against 261 for Dr. Who Chess' 4,773."""
    whole_blocks = mask.shape[0] // BLOCK * BLOCK
    count = 0
    for start in range(0, whole_blocks, BLOCK):
        count += np.int64(popcount(block_bits(mask, start)))
    return count + np.int64(popcount(tail_bits(mask, whole_blocks)))


@njit
def nth_legal(mask, pick):
    """Index of the ``pick``-th (from 0) nonzero entry of ``mask``, -1 past the last:
    whole ``BLOCK``s are skipped by their legal counts, then the pick is found in its
    block by :func:`nth_set_bit`."""
    num_actions = mask.shape[0]
    whole_blocks = num_actions // BLOCK * BLOCK
    start = 0
    while start < whole_blocks:
        bits = block_bits(mask, start)
        in_block = np.int64(popcount(bits))
        if pick < in_block:
            return start + nth_set_bit(bits, pick)
        pick -= in_block
        start += BLOCK
    bits = tail_bits(mask, start)
    if pick < np.int64(popcount(bits)):
        return start + nth_set_bit(bits, pick)
    return -1


@njit
def _pick(key, counter, count):
    """The index among ``count`` legal actions that :func:`hashed_legal` draws."""
    return np.int64((hash_words(key, counter) >> np.uint64(11)) % np.uint64(count))


@njit
def hashed_legal(mask, key, counter):
    """A uniformly random index with ``mask != 0`` (-1 if none): the ``pick``-th legal
    action in index order, ``pick`` hashed from ``key`` and ``counter``. A mask of at
    most 64 actions (TARDIS Run's 11) is read once, as one word of bits."""
    if mask.shape[0] < BLOCK:
        bits = tail_bits(mask, 0)
        count = np.int64(popcount(bits))
        if count == 0:
            return -1
        return nth_set_bit(bits, _pick(key, counter, count))
    count = count_legal(mask)
    if count == 0:
        return -1
    return nth_legal(mask, _pick(key, counter, count))


@njit_parallel
def sample_legal(masks, key, counter, out):
    """``out[i]``: :func:`hashed_legal` of row ``i`` with counter ``counter * rows + i``."""
    for i in prange(masks.shape[0]):
        out[i] = hashed_legal(masks[i], key, counter * masks.shape[0] + i)


@njit_parallel_alloc
def first_illegal(masks, actions):
    """Index of the first row whose action is out of range or not legal, else -1."""
    bad = masks.shape[0]
    for i in prange(masks.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            bad = min(bad, i)
    return -1 if bad == masks.shape[0] else bad

"""Writing legal masks eight entries at a time.

A mask is one byte an action (``int8``/``uint8``), and so is a compact observation
entry. A kernel whose mask repeats a pattern (the duel's 16 card-and-Edge choices in
each legal block of its 256 actions), or whose 0/1 entries are the bits of a word it
already has (the cards left in the duel's Time Deck), can build eight entries as the
eight bytes of one 64-bit word and store the word: one store instead of eight. A
``float32`` observation gets the same entries one by one.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic, overload

from .sampling import _is_contiguous_bytes, byte_address

_WORD = ir.IntType(64)

# ``ENTRIES_OF_BYTE[b]``: the word whose byte ``k`` is bit ``k`` of ``b``, to store eight 0/1
# entries kept as the bits of a byte (a set of cards, of squares) with :func:`store_entries`
ENTRIES_OF_BYTE = np.array([sum(1 << (8 * k) for k in range(8) if b >> k & 1) for b in range(256)], dtype=np.uint64)


@intrinsic
def _store_word(typingctx, out, start, word):
    """The 8 bytes of ``word`` at ``out[start:start + 8]`` (a byte array): one unaligned store."""
    if not _is_contiguous_bytes(out):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        builder.store(args[2], builder.bitcast(byte_address(builder, array, args[1]), _WORD.as_pointer()), align=1)
        return context.get_dummy_value()

    return types.void(out, types.int64, types.uint64), codegen


def store_entries(out, start, word):  # pragma: no cover - replaced in numba by the overload below
    """``out[start + k] = (word >> 8k) & 0xFF`` for ``k`` in ``0..7`` (``word`` a ``uint64``
    whose bytes are the entries: 0 or 1 in a mask, up to 127 in an ``int8`` observation); the
    caller keeps ``start + 8 <= out.size``."""
    raise NotImplementedError("store_entries runs inside numba only")


@overload(store_entries)
def _store_entries(out, start, word):
    if _is_contiguous_bytes(out) and sys.byteorder == "little":  # byte k of the word is entry k

        def one_store(out, start, word):
            _store_word(out, start, word)

        return one_store

    def entry_by_entry(out, start, word):  # any other mask (bool, wider, strided) a caller hands in
        for k in range(8):
            out[start + k] = (word >> np.uint64(8 * k)) & np.uint64(0xFF)

    return entry_by_entry

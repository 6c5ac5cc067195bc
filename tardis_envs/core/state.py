"""The header every game's flat state array starts with.

A game's whole state is one 1-D ``int64`` array. Its first ``HEADER_SIZE``
words have the same meaning in every game, so the AEC base class, the batched
API and the agents read them without knowing the game:

======================  =====================================================
``CURRENT_PLAYER``      seat whose decision is next (0-based)
``STATUS``              ``RUNNING``, ``TERMINATED`` or ``TRUNCATED``
``RNG_KEY``             key of the game's counter-based generator
``RNG_COUNTER``         draws taken so far from that generator
``REWARDS`` ..          ``MAX_PLAYERS`` words: each seat's reward from the
                        last step (zero except on the step that ends a game)
``VARIANT``             digest of the rule options the state was made under:
                        ``set_state`` refuses a state of another variant
                        (another board, player count, combat mode ...)
``ILLEGAL_BY``          seat + 1 of the agent whose illegal action ended the
                        game (``illegal_action="terminate"``; minus the bit set
                        of the seats when several choices of one simultaneous
                        step were illegal), 0 otherwise:
                        every game's ``describe()`` then reports no winner and
                        ``illegal_action_by``, and its render says so
======================  =====================================================

Game fields follow from ``HEADER_SIZE`` on, with offsets named in the game's
``layout.py``.
"""

from __future__ import annotations

from .jit import njit

MAX_PLAYERS = 4

CURRENT_PLAYER = 0
STATUS = 1
RNG_KEY = 2
RNG_COUNTER = 3
REWARDS = 4
VARIANT = REWARDS + MAX_PLAYERS
ILLEGAL_BY = VARIANT + 1
CHANCE_TAPE = ILLEGAL_BY + 1
HEADER_SIZE = CHANCE_TAPE + 1

RUNNING = 0
TERMINATED = 1
TRUNCATED = 2

STATUS_NAMES = {RUNNING: "running", TERMINATED: "terminated", TRUNCATED: "truncated"}


@njit
def copy_state(target, source):
    """The first ``len(target)`` words of ``source`` into ``target`` (all of a state of
    the same size; a state with a chance tape attached, :mod:`tardis_envs.core.chance`,
    is longer than the state itself), word by word: numba's assignment of one array
    slice to another needs its reference-counting runtime, which the kernels are
    compiled without (:mod:`tardis_envs.core.jit`)."""
    for i in range(min(target.shape[0], source.shape[0])):
        target[i] = source[i]


# --- validating a state handed in from outside (each game's ``check.py``) ------------
# A game's ``check_state(state, tables) -> (code, index)`` kernel validates every word
# after the header against its range and the game's invariants: ``(0, -1)`` for a
# valid state, else the code of the first problem (a row of the game's ``PROBLEMS``
# table) and the index of the offending word (-1 for an invariant over many words).
# ``Game.check_state`` runs it on every state that comes in (``set_state``,
# ``Position.from_state``, unpickled positions, the batched API's ``set_states``), never
# inside a step: the kernels trust their own states, and one wild word (a square of
# 10**9) would make them write outside the state.
VALID = 0


@njit
def first_outside(state, start, count, low, high):
    """The index of the first of the ``count`` words from ``start`` outside ``low..high``, or -1."""
    for i in range(start, start + count):
        if state[i] < low or state[i] > high:
            return i
    return -1


@njit
def first_set_bit_outside(state, start, count, bits):
    """The index of the first of the ``count`` words from ``start`` that sets a bit
    outside the lowest ``bits`` (or is negative), or -1: a set of tiles or squares."""
    for i in range(start, start + count):
        if state[i] < 0 or (bits < 63 and state[i] >> bits != 0):
            return i
    return -1


def invalid_state_message(env_id: str, state, code: int, index: int, problems) -> str:
    """The one line ``Game.check_state`` raises for ``check_state``'s ``(code, index)``:
    ``problems[code]`` is ``(field, expected)`` in the game's words."""
    field, expected = problems[code] if 0 < code < len(problems) else (f"problem {code}", "a valid state")
    if index < 0:
        return f"not a valid {env_id} state: {field}: expected {expected}"
    return f"not a valid {env_id} state: {field} at index {index} is {int(state[index])}, expected {expected}"

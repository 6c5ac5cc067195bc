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
``rules.py``.
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

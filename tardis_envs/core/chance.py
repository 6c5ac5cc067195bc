"""Explicit chance: every die, paddle, draw and shuffle step as a chance node.

The envs sample chance from the generator inside the state (the default, and
unchanged). Search algorithms want to branch on chance themselves: pgx users ask
for it, OpenSpiel's algorithms need it. :class:`Position` gives them a game tree
in which each draw the rules make is a node of its own, with its exact outcomes
and probabilities, over the same kernels and without a second copy of any rule.

How it works: a game's rules draw chance only through the generator's three
draws (:mod:`tardis_envs.core.rng`: a uniform outcome in ``[0, n)``, a fair coin,
a coin with probability ``ppm`` in a million; a shuffle is one uniform draw per
Fisher–Yates step, an eight-dice roll is eight draws). A position that waits for
chance keeps the state before the move, the move and the outcomes chosen so
far. To go on, the move is replayed on a copy of that state with a *chance
tape* attached: the first draws take the chosen outcomes, the next one records
its shape and the replay is dropped; when no draw is left the copy is the new
state. So

* a chance node has one draw's outcomes: ``n`` equally likely ones (a die, a
  card from ``n``, a shuffle step) or a biased coin ``(0, 1 - p), (1, p)``;
* applying the outcomes the generator would have drawn gives exactly the state
  the sampled path gives, generator words included (the generator advances as
  it would; only the outcome is chosen), and a different outcome gives the state
  the rules make of that outcome;
* a position without pending chance is a plain state (``position.state``), so
  ``set_state``, ``describe`` and the heuristics work on it.

The opening is built by the same mechanism (``Position.initial``): dealing,
hidden tiles and deck shuffles are the first chance nodes of the tree.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np

from .rng import PPM, TAPE_CAPACITY, TAPE_FORCED, TAPE_HEADER, TAPE_TAKEN
from .state import CHANCE_TAPE, CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS, VARIANT

OPENING = -1  # the pending "move" of the opening position: the game's init kernel
CHANCE = -1  # current_player() of a chance node (OpenSpiel's kChancePlayerId)
TERMINAL = -4  # current_player() of a finished game (OpenSpiel's kTerminalPlayerId)


def outcomes_of(shape: int, exact: bool = False) -> list[tuple[int, Any]]:
    """The outcomes of one draw and their probabilities.

    ``shape`` is what the tape records: ``n > 0`` for a uniform draw in
    ``[0, n)``, ``-ppm`` for a coin that shows 1 with probability
    ``ppm / 1,000,000``. Outcomes of probability 0 are left out. ``exact``
    gives ``fractions.Fraction`` probabilities instead of floats.
    """
    if shape > 0:
        p = Fraction(1, shape)
        return [(i, p if exact else float(p)) for i in range(shape)]
    hit = Fraction(-shape, PPM)
    table = [(0, 1 - hit), (1, hit)]
    return [(o, p if exact else float(p)) for o, p in table if p > 0]


def replay(game, base: np.ndarray, move: int, forced: list[int] | tuple[int, ...], record: int = 1):
    """Replay ``move`` (an action, or :data:`OPENING`) on a copy of ``base`` with the
    outcomes ``forced`` taken by its first draws.

    Returns ``(state, draws)``: ``state`` is the state after the move, or ``None``
    when the move draws more than ``forced`` gives; ``draws`` is a list of
    ``(outcome, shape)`` for the first ``len(forced) + record`` draws it made
    (the sampled ones past ``forced`` come from the generator).
    """
    size = base.shape[0]
    capacity = len(forced) + record
    tape = np.zeros(size + TAPE_HEADER + 2 * capacity, dtype=np.int64)
    tape[:size] = base
    tape[CHANCE_TAPE] = size
    tape[size + TAPE_FORCED] = len(forced)
    tape[size + TAPE_CAPACITY] = capacity
    tape[size + TAPE_HEADER : size + TAPE_HEADER + len(forced)] = forced
    if move == OPENING:
        game.kernels.init(tape, game.tables)
    else:
        game.kernels.step(tape, game.tables, move)
    taken = int(tape[size + TAPE_TAKEN])
    kept = min(taken, capacity)
    outcomes = tape[size + TAPE_HEADER : size + TAPE_HEADER + kept]
    shapes = tape[size + TAPE_HEADER + capacity : size + TAPE_HEADER + capacity + kept]
    draws = [(int(o), int(s)) for o, s in zip(outcomes, shapes)]
    if taken > len(forced):
        return None, draws
    state = tape[:size].copy()
    state[CHANCE_TAPE] = 0
    return state, draws


def sampled_draws(game, state: np.ndarray, move: int, limit: int = 1 << 16) -> list[tuple[int, int]]:
    """The draws the sampled path makes for ``move`` from ``state``: ``(outcome, shape)``
    in order, outcomes as the generator draws them (the first ``limit``)."""
    _, draws = replay(game, state, move, (), record=limit)
    return draws


class Position:
    """A node of the game tree with chance made explicit (OpenSpiel's view of a state).

    A decision node has a player to move (``current_player() >= 0``) and a plain
    game state in ``state``; a chance node (``current_player() == CHANCE``) offers
    ``chance_outcomes()``; a finished game has ``TERMINAL``. ``apply_action``
    takes a legal action at a decision node and an outcome at a chance node.
    """

    __slots__ = ("game", "state", "base", "move", "forced", "shape")

    def __init__(self, game, state: np.ndarray | None, base: np.ndarray | None = None, move: int = 0, forced=(), shape: int = 0):
        self.game = game
        self.state = state  # the game state when no chance is pending, else None
        self.base = base  # the state before the pending move
        self.move = move
        self.forced = tuple(forced)
        self.shape = shape  # the pending draw (see outcomes_of)

    @classmethod
    def initial(cls, game, key: int = 0) -> "Position":
        """The opening as a tree: its dealing and shuffles are the first chance nodes.

        ``key`` only decides what the generator words of the states hold (the
        outcomes are all chosen); the default gives one canonical tree.
        """
        base = np.zeros(game.state_size, dtype=np.int64)
        base[RNG_KEY] = key
        base[VARIANT] = game.variant
        return cls._pending(game, base, OPENING, ())

    @classmethod
    def from_state(cls, game, state: np.ndarray) -> "Position":
        """A decision (or finished) position from a plain state (``env.unwrapped.get_state()``),
        validated by ``game.check_state`` (a bad state raises ``ValueError`` naming the field)."""
        return cls(game, game.check_state(state))

    @classmethod
    def _pending(cls, game, base: np.ndarray, move: int, forced: tuple[int, ...]) -> "Position":
        state, draws = replay(game, base, move, forced)
        if state is not None:
            return cls(game, state)
        return cls(game, None, base, move, forced, draws[len(forced)][1])

    # --- what kind of node -------------------------------------------------------
    def is_chance_node(self) -> bool:
        return self.state is None

    def is_terminal(self) -> bool:
        return self.state is not None and int(self.state[STATUS]) != RUNNING

    def current_player(self) -> int:
        if self.state is None:
            return CHANCE
        if int(self.state[STATUS]) != RUNNING:
            return TERMINAL
        return int(self.state[CURRENT_PLAYER])

    # --- moves -----------------------------------------------------------------
    def chance_outcomes(self, exact: bool = False) -> list[tuple[int, Any]]:
        """``[(outcome, probability)]`` of the pending draw (exact fractions with ``exact``)."""
        if self.state is not None:
            raise ValueError(f"{self.game.spec.env_id}: chance_outcomes() asked at a decision node")
        return outcomes_of(self.shape, exact)

    def legal_actions(self) -> list[int]:
        if self.state is None:
            return [o for o, _ in outcomes_of(self.shape)]
        if int(self.state[STATUS]) != RUNNING:
            return []
        return [int(a) for a in self.game.legal_actions(self.state)]

    def apply_action(self, action: int) -> None:
        """Take ``action`` (a decision) or ``outcome`` (a chance node) in place."""
        action = int(action)
        if action not in self.legal_actions():
            kind = "chance outcome" if self.state is None else "action"
            raise ValueError(f"{self.game.spec.env_id}: {kind} {action} is not legal here; legal: {self.legal_actions()}")
        if self.state is None:
            assert self.base is not None  # a chance node keeps the state before its move
            nxt = Position._pending(self.game, self.base, self.move, self.forced + (action,))
        else:
            nxt = Position._pending(self.game, self.state, action, ())
        self.state, self.base, self.move, self.forced, self.shape = nxt.state, nxt.base, nxt.move, nxt.forced, nxt.shape

    def chance_leaves(self) -> list[tuple[Fraction, "Position"]]:
        """Every position the pending chance can lead to before the next decision,
        with its exact probability (the whole chance subtree, enumerated: keep it
        to small ones, such as one roll of the paddles)."""
        if self.state is not None:
            return [(Fraction(1), self)]
        leaves = []
        for outcome, p in self.chance_outcomes(exact=True):
            for q, leaf in self.child(outcome).chance_leaves():
                leaves.append((p * q, leaf))
        return leaves

    def child(self, action: int) -> "Position":
        out = self.clone()
        out.apply_action(action)
        return out

    def clone(self) -> "Position":
        # states are never written in place once made, so sharing them is safe
        return Position(self.game, self.state, self.base, self.move, self.forced, self.shape)

    def __deepcopy__(self, memo) -> "Position":
        return self.clone()  # the rules (game) are shared, never copied

    def __reduce__(self):
        # pickled by variant, not by the rule tables: the game (its class, pickled by
        # reference, and its options) is rebuilt once on loading
        game = self.game
        return (
            _restore,
            (type(game), tuple(sorted(game.options.items())), self.state, self.base, self.move, self.forced, self.shape),
        )

    def returns(self) -> np.ndarray:
        """Each seat's return: the rewards of the step that ended the game, else zeros
        (every game rewards only its last step)."""
        if self.state is None or int(self.state[STATUS]) == RUNNING:
            return np.zeros(self.game.num_players)
        return self.state[REWARDS : REWARDS + self.game.num_players].astype(np.float64)

    def __repr__(self) -> str:
        if self.state is None:
            return f"Position({self.game.spec.env_id}, chance after move {self.move}, outcomes so far {list(self.forced)})"
        return f"Position({self.game.spec.env_id}, player {self.current_player()})"


@functools.lru_cache(maxsize=64)
def game_of(game_class: type, options: tuple):
    """The rules of ``game_class`` (a game's ``Game`` subclass) bound to ``options`` (sorted
    ``(key, value)`` pairs), built once per variant: unpickled positions and the OpenSpiel
    adapter's states share it."""
    return game_class(**dict(options))


def _restore(game_class, options, state, base, move, forced, shape) -> Position:
    """An unpickled position, validated like ``set_state``: a decision node's state by
    ``check_state``; a chance node rebuilt from its checked base state, its legal move and
    each forced outcome in turn (a pickle is data from outside: a wild word or outcome
    would make the kernels write outside the state)."""
    game = game_of(game_class, options)
    env_id = game.spec.env_id
    if state is not None:
        return Position(game, game.check_state(state))
    base = np.asarray(base, dtype=np.int64)
    if int(move) == OPENING:
        opening = Position.initial(game, int(base[RNG_KEY]) if base.shape == (game.state_size,) else 0)
        if opening.base is None or not np.array_equal(opening.base, base):
            raise ValueError(f"{env_id}: not a valid pickled position: its opening base state is not this game's")
        position = opening
    else:
        position = Position.from_state(game, base)
        position.apply_action(int(move))  # refuses a move that is not legal there
    for outcome in forced:
        if not position.is_chance_node():
            raise ValueError(f"{env_id}: not a valid pickled position: more chance outcomes than its move draws")
        position.apply_action(int(outcome))  # refuses an outcome the pending draw cannot give
    if not position.is_chance_node() or position.shape != shape:
        raise ValueError(f"{env_id}: not a valid pickled position: its pending chance draw does not follow from its move")
    return position

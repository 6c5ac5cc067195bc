"""Explicit chance (tardis_envs.core.chance): every draw a chance node with exact odds.

Checked for every game and player count: stepping by the generator's outcomes gives
the sampled path's state bit for bit (opening included); every node's probabilities
sum to exactly 1 and stay within the game's declared ``max_chance_outcomes``; the
sampled path draws each outcome as often as the node says (chi-square, many keys);
the enumerated chance subtree of a TARDIS Run roll is the paddle table counted by hand.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

import tardis_envs
from tardis_envs.core.chance import CHANCE, OPENING, Position, outcomes_of, sampled_draws
from tardis_envs.core.state import CHANCE_TAPE, RNG_KEY, RUNNING, STATUS

VARIANTS = [
    ("tardis_run_v0", {}),
    ("keys_to_the_tardis_v0", {"num_players": 2}),
    ("keys_to_the_tardis_v0", {"num_players": 4}),
    ("timelord_chess_v1", {}),
    ("gallifrey_duel_v1", {}),
    ("gallifrey_duel_v1", {"forced_draw_p": 0.25}),
    ("time_of_the_daleks_v2", {"num_players": 1}),
    ("time_of_the_daleks_v2", {"num_players": 3}),
]


def game_of(env_id, options):
    return tardis_envs.make(env_id, **options).unwrapped.game


def follow(position: Position, draws) -> Position:
    """Apply the sampled path's outcomes one chance node at a time, checking each node."""
    for outcome, shape in draws:
        assert position.current_player() == CHANCE and position.shape == shape
        probabilities = position.chance_outcomes(exact=True)
        assert sum(p for _, p in probabilities) == 1
        assert outcome in dict(probabilities)
        position.apply_action(outcome)
    assert not position.is_chance_node()
    return position


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=[f"{e}-{o}" for e, o in VARIANTS])
def test_stepping_by_outcome_equals_stepping_by_sample(env_id, options):
    game = game_of(env_id, options)
    rng = np.random.default_rng(7)
    seen_shapes = Counter()
    for _ in range(3):
        key = int(rng.integers(1 << 40))
        opening = np.zeros(game.state_size, dtype=np.int64)
        opening[RNG_KEY] = key
        opening[8] = game.variant  # VARIANT: what Game.new_state writes before init
        draws = sampled_draws(game, opening, OPENING)
        position = follow(Position.initial(game, key=key), draws)
        assert np.array_equal(position.state, game.new_state(key))
        state = position.state
        for _ in range(150 if env_id != "time_of_the_daleks_v2" else 80):
            if state[STATUS] != RUNNING:
                break
            action = int(rng.choice(game.legal_actions(state)))
            draws = sampled_draws(game, state, action)
            seen_shapes.update(shape for _, shape in draws)
            sampled = state.copy()
            game.kernels.step(sampled, game.tables, action)
            explicit = follow(Position.from_state(game, state).child(action), draws)
            assert np.array_equal(explicit.state, sampled), f"{env_id}: explicit and sampled steps differ after {action}"
            assert explicit.state[CHANCE_TAPE] == 0
            state = sampled
    for shape in seen_shapes:
        assert shape != 0 and (shape < 0 or shape <= game.max_chance_outcomes), shape
    if game.spec.chance:
        assert seen_shapes, f"{env_id}: no chance seen in play"
    else:
        assert not seen_shapes and game.max_chance_outcomes == 0


def test_a_different_outcome_gives_that_outcomes_state():
    """Forcing the other paddle face changes exactly what that face decides."""
    game = game_of("tardis_run_v0", {})
    position = Position.initial(game)
    assert not position.is_chance_node()  # the race starts without chance
    action = position.legal_actions()[0]
    after = position.child(action)
    faces = []
    for first in (0, 1):
        leaf = after.child(first)
        while leaf.is_chance_node():
            leaf.apply_action(0)
        faces.append(leaf.state.copy())
    diff = np.flatnonzero(faces[0] != faces[1])
    assert diff.size > 0
    from tardis_envs.games.tardis_run.layout import LAST_FACES

    assert LAST_FACES in diff and faces[0][LAST_FACES] == 0 and faces[1][LAST_FACES] == 1


def test_tardis_run_roll_enumerates_to_the_paddle_table():
    """The chance subtree of one roll, enumerated, is the rulebook's paddle odds counted
    by hand: four white paddles with 1, 1, 2, 2 seals, each up or blank; the black
    paddle adds one seal or doubles the white ones."""
    from tardis_envs.games.tardis_run.layout import BLACK_PADDLE_OWNER, LAST_SEALS

    game = game_of("tardis_run_v0", {})
    white = Counter()
    for faces in itertools.product((0, 1), repeat=4):
        white[sum(f * s for f, s in zip(faces, (1, 1, 2, 2)))] += Fraction(1, 16)
    with_black = Counter()
    for total, p in white.items():
        with_black[total + 1] += p / 2
        with_black[2 * total] += p / 2
    # play on until the mover holds the black paddle, so both kinds of roll are offered
    rng = np.random.default_rng(3)
    state = Position.initial(game).state
    while not (state[STATUS] == RUNNING and state[BLACK_PADDLE_OWNER] == state[0] and len(game.legal_actions(state)) > 1):
        if state[STATUS] != RUNNING:
            state = game.new_state(int(rng.integers(1 << 30)))
        game.kernels.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
    checked = set()
    for action in game.legal_actions(state):
        uses_black = "black paddle" in game.action_to_string(state, int(action))
        leaves = Position.from_state(game, state).child(int(action)).chance_leaves()
        assert len(leaves) == (32 if uses_black else 16)
        table = Counter()
        for p, leaf in leaves:
            table[int(leaf.state[LAST_SEALS])] += p
        assert sum(table.values()) == 1
        assert table == (with_black if uses_black else white), game.action_to_string(state, int(action))
        checked.add(uses_black)
    assert checked == {False, True}


@pytest.mark.parametrize("env_id,options", [v for v in VARIANTS if v[0] != "timelord_chess_v1"], ids=lambda v: str(v))
def test_sampled_outcomes_follow_the_node_probabilities(env_id, options):
    """Over 3,000 generator keys the sampled path's first draw of a move falls on each
    outcome as often as the chance node says (chi-square at the 0.1% level); the
    biased coin of the duel's forced draw too."""
    game = game_of(env_id, options)
    rng = np.random.default_rng(11)
    state = game.new_state(5)
    # walk until a move with chance, on a shape large enough to test
    while True:
        action = int(rng.choice(game.legal_actions(state)))
        draws = sampled_draws(game, state, action)
        if draws:
            break
        game.kernels.step(state, game.tables, action)
        if state[STATUS] != RUNNING:
            state = game.new_state(int(rng.integers(1 << 30)))
    node = Position.from_state(game, state).child(action)
    probabilities = dict(node.chance_outcomes())
    counts = Counter()
    keys = 3000
    for key in range(keys):
        trial = state.copy()
        trial[RNG_KEY] = key
        counts[sampled_draws(game, trial, action, limit=1)[0][0]] += 1
    outcomes = sorted(probabilities)
    observed = [counts[o] for o in outcomes]
    expected = [probabilities[o] * keys for o in outcomes]
    assert sum(observed) == keys
    assert chisquare(observed, expected).pvalue > 1e-3, (observed, expected)


def test_the_biased_coin_of_the_duel_is_exact_and_sampled_at_its_rate():
    game = game_of("gallifrey_duel_v1", {"forced_draw_p": 0.25})
    assert outcomes_of(-250_000, exact=True) == [(0, Fraction(3, 4)), (1, Fraction(1, 4))]
    assert outcomes_of(-1_000_000) == [(1, 1.0)]
    coins = []
    for key in range(2000):
        opening = np.zeros(game.state_size, dtype=np.int64)
        opening[RNG_KEY] = key
        opening[8] = game.variant
        coins += [o for o, shape in sampled_draws(game, opening, OPENING) if shape == -250_000]
    assert len(coins) > 1000
    hits = sum(coins)
    assert chisquare([len(coins) - hits, hits], [0.75 * len(coins), 0.25 * len(coins)]).pvalue > 1e-3


def test_positions_refuse_what_is_not_legal_and_stored_states_carry_no_tape():
    game = game_of("keys_to_the_tardis_v0", {})
    position = Position.initial(game)
    assert position.is_chance_node() and position.current_player() == CHANCE
    with pytest.raises(ValueError, match="chance outcome 999 is not legal"):
        position.apply_action(999)
    with pytest.raises(ValueError, match="decision node"):
        Position.from_state(game, game.new_state(1)).chance_outcomes()
    with pytest.raises(ValueError, match="action 99999 is not legal"):
        Position.from_state(game, game.new_state(1)).apply_action(99999)
    bad = game.new_state(1)
    bad[CHANCE_TAPE] = 5
    with pytest.raises(ValueError, match="chance-tape word"):
        game.check_state(bad)
    clone = position.clone()
    clone.apply_action(0)
    assert position.forced == () and clone.forced == (0,)

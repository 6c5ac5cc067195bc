"""``VectorEnv.step_until_seats``: the self-play step in one numba call (the acting
player's move, then random opponents until a given seat is to move), checked against a
plain Python statement of the same rule with the same draws.

The batches here have compact observations, the dtype self-play runs on (so these tests
load the kernels the training tests compile instead of compiling a float32 copy of each);
their views are compared as floats, bit for bit what the float kernels write. A float32
batch's step_until_seats is tests/chess/test_packed_observation.py's."""

import numpy as np
import pytest
from scipy.stats import chisquare

from tardis_envs import vector
from tardis_envs.core.batch import WAIT, next_key, step_until_seat_key
from tardis_envs.core.rng import KEY_MASK, hash_words
from tardis_envs.core.sampling import count_legal, nth_legal
from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS
from tardis_envs.games.chess.layout import BOARD
from tardis_envs.vector import UNTIL_SEAT_STREAM

CASES = [
    ("tardis_run_v0", {"max_turns": 12}),
    ("keys_to_the_tardis_v0", {"num_players": 3, "max_turns": 30}),
    ("gallifrey_duel_v1", {}),
    ("time_of_the_daleks_v2", {"num_players": 3, "max_rounds": 3}),
    ("timelord_chess_v1", {"max_plies": 10}),
]


def reference(game, state, action, seat, random_opponents, key):
    """One game of step_until_seats in Python: returns (state, moves, status, reward, terminal view)."""
    state = state.copy()
    mask = np.zeros(game.num_actions, dtype=np.int8)
    moves = 0

    def finish():
        status, reward = int(state[STATUS]), int(state[REWARDS + seat])
        view = game.observation(state, seat).reshape(-1)
        return game.new_state(next_key(state)), moves, status, reward, view

    if action != WAIT:
        game.kernels.step(state, game.tables, action)
        if state[STATUS] != RUNNING:
            return finish()
    while random_opponents and state[CURRENT_PLAYER] != seat:
        game.kernels.legal_mask(state, game.tables, mask)
        pick = int((hash_words(key, moves) >> np.uint64(11)) % np.uint64(count_legal(mask)))
        game.kernels.step(state, game.tables, nth_legal(mask, pick))
        moves += 1
        if state[STATUS] != RUNNING:
            return finish()
    return state, moves, RUNNING, 0, None


@pytest.mark.parametrize("env_id, options", CASES)
def test_step_until_seats_is_the_python_rule(env_id, options):
    n, seed = 24, 3
    vec = vector.make(env_id, n, seed=seed, obs_dtype="compact", **options)
    game = vec.game
    vec.reset()
    rng = np.random.default_rng(0)
    key = int(np.random.SeedSequence([seed, UNTIL_SEAT_STREAM]).generate_state(1, np.uint64)[0]) & KEY_MASK
    random_opponents = np.arange(n) % 3 != 0  # a third of the rows: nobody plays for the other seats
    ended = moved = 0
    for call in range(1, 41):
        seats = rng.integers(0, game.num_players, n)
        actions = np.full(n, WAIT, dtype=np.int64)
        for i in np.flatnonzero(rng.random(n) < 0.7):  # the others wait
            actions[i] = rng.choice(np.flatnonzero(vec.masks[i]))
        before = vec.states.copy()
        moves, final_status, rewards, terminal = vec.step_until_seats(actions, seats, random_opponents)
        for i in range(n):
            row_key = step_until_seat_key(key, call, n, i)
            state, want_moves, status, reward, view = reference(game, before[i], actions[i], seats[i], random_opponents[i], row_key)
            assert np.array_equal(vec.states[i], state), (call, i)
            assert (moves[i], final_status[i], rewards[i]) == (want_moves, status, reward)
            if status != RUNNING:
                assert np.array_equal(vec.float_terminal_observations([i]).reshape(-1), view)
                ended += 1
            mover = state[CURRENT_PLAYER]
            assert np.array_equal(np.flatnonzero(vec.masks[i]), game.legal_actions(state))
            if status != RUNNING or actions[i] != WAIT or want_moves:
                assert np.array_equal(vec.float_observations([i])[0], game.observation(state, mover))
            if status == RUNNING and random_opponents[i]:
                assert mover == seats[i]
            moved += want_moves
    assert ended > 0 and moved > 0


def test_waiting_rows_without_random_opponents_do_not_change():
    vec = vector.make("gallifrey_duel_v1", 8, seed=1, obs_dtype="compact")
    vec.reset()
    arrays = vec.states, vec.obs, vec.masks
    before = [a.copy() for a in arrays]
    moves, final_status, _, _ = vec.step_until_seats(np.full(8, WAIT), np.zeros(8, dtype=np.int64), np.zeros(8, dtype=bool))
    assert not moves.any() and (final_status == RUNNING).all()
    for after, copy in zip(arrays, before):
        assert np.array_equal(after, copy)


def test_random_opponent_moves_are_uniform():
    """White's first move, drawn by the random opponent in 4,000 games of classic chess: its
    20 legal moves come out equally often."""
    n = 4000
    vec = vector.make("timelord_chess_v1", n, seed=5, doctor=False, observations=False, obs_dtype="compact")
    vec.reset()
    vec.step_until_seats(np.full(n, WAIT), np.ones(n, dtype=np.int64), np.ones(n, dtype=bool))
    _, counts = np.unique(vec.states[:, BOARD : BOARD + 64], axis=0, return_counts=True)
    assert counts.size == 20 and counts.sum() == n
    assert chisquare(counts)[1] > 1e-3


def test_step_until_seats_is_reproducible_and_checks_its_input():
    def play(seed):
        vec = vector.make("keys_to_the_tardis_v0", 6, seed=seed, obs_dtype="compact")
        vec.reset()
        for _ in range(10):
            vec.step_until_seats(np.full(6, WAIT), np.zeros(6, dtype=np.int64), np.ones(6, dtype=bool))
            seats = vec.current_player.copy()
            vec.step_until_seats(vec.masks.argmax(axis=1), (seats + 1) % 2, np.ones(6, dtype=bool))
        return vec.states.copy()

    assert np.array_equal(play(7), play(7))
    assert not np.array_equal(play(7), play(8))
    vec = vector.make("tardis_run_v0", 4, seed=0, obs_dtype="compact")
    waits, seats, yes = np.full(4, WAIT), np.zeros(4, dtype=np.int64), np.ones(4, dtype=bool)
    with pytest.raises(ValueError, match="call reset"):
        vec.step_until_seats(waits, seats, yes)
    vec.reset()
    with pytest.raises(ValueError, match="must have shape"):
        vec.step_until_seats(waits[:3], seats, yes)
    with pytest.raises(ValueError, match="integer arrays"):
        vec.step_until_seats(waits.astype(float), seats, yes)
    with pytest.raises(ValueError, match="seats must be in 0..1"):
        vec.step_until_seats(waits, seats + 2, yes)
    illegal = waits.copy()
    illegal[2] = int(np.flatnonzero(vec.masks[2] == 0)[0])
    with pytest.raises(ValueError, match="illegal action .* in game 2"):
        vec.step_until_seats(illegal, seats, yes)

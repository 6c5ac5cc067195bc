"""Random playouts of thousands of games with invariant checks after every step."""

import numpy as np
import pytest

from tardis_envs import vector
from tardis_envs.core.state import STATUS
from tardis_envs.games.tardis_run.layout import BLACK_PADDLE_OWNER, NUM_PIECES, PROGRESS

from ..helpers import random_legal


def squares(progress, seat, length):
    return np.where(seat == 1, progress, length + 1 - progress)


def check_invariants(states, masks, length):
    escaped = length + 1
    prog = states[:, PROGRESS : PROGRESS + 2 * NUM_PIECES].reshape(-1, 2, NUM_PIECES)
    assert prog.shape[1:] == (2, 4), "four pieces a side, always"
    assert ((prog >= 0) & (prog <= escaped)).all()
    assert (np.diff(prog, axis=2) <= 0).all(), "pieces sorted most advanced first"
    on_track = (prog >= 1) & (prog <= length)
    sq = np.where(on_track, squares(prog, np.arange(2)[None, :, None], length), 0)
    for s in range(1, length + 1):
        here = sq == s
        per_side = here.sum(axis=2)
        assert (per_side.sum(axis=1) <= 2).all(), f"more than two pieces on square {s}"
        assert not ((per_side[:, 0] > 0) & (per_side[:, 1] > 0)).any(), f"mixed stack on square {s}"
    assert np.isin(states[:, BLACK_PADDLE_OWNER], [-1, 0, 1]).all()
    assert (masks.sum(axis=1) > 0).all(), "a live game always has a legal action"


@pytest.mark.slow
@pytest.mark.parametrize("board", ["default", "configs/tardis_run/boards/grand_tour.yaml"])
def test_random_playouts_keep_invariants(board):
    games = 3000
    vec = vector.make("tardis_run_v0", games, seed=77, board=board)
    length = vec.game.track_length
    _, masks, _ = vec.reset()
    rng = np.random.default_rng(0)
    finished = np.zeros(games, dtype=bool)
    outcomes = []
    for _ in range(5000):
        check_invariants(vec.states, masks, length)
        scores = rng.random(masks.shape) * masks
        _, masks, _, rewards, term, trunc = vec.step(scores.argmax(axis=1))
        ended = (term | trunc) & ~finished
        for i in np.flatnonzero(ended):
            outcomes.append((bool(term[i]), rewards[i].copy()))
        finished |= term | trunc
        if finished.all():
            break
    assert finished.all(), "every game ends within 5,000 steps"
    assert len(outcomes) == games
    for terminated, rewards in outcomes:
        if terminated:
            assert sorted(rewards.tolist()) == [-1.0, 1.0], "exactly one winner"
        else:
            assert rewards.tolist() == [0.0, 0.0]
    # after the end every row auto-reset into a running game
    assert (vec.states[:, STATUS] == 0).all()


@pytest.mark.slow
def test_winner_holds_the_black_paddle_with_all_pieces_out():
    from tardis_envs.core.rng import seed_to_key
    from tardis_envs.games.tardis_run.game import TardisRun
    from tardis_envs.games.tardis_run.layout import WINNER
    from tardis_envs.games.tardis_run.rules import legal_mask, step

    game = TardisRun()
    rng = np.random.default_rng(3)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    for g in range(300):
        state = game.new_state(seed_to_key(g))
        while state[STATUS] == 0:
            legal_mask(state, game.tables, mask)
            step(state, game.tables, random_legal(rng, mask))
        winner = state[WINNER]
        assert state[BLACK_PADDLE_OWNER] == winner
        assert (state[PROGRESS + 4 * winner : PROGRESS + 4 * winner + 4] == game.track_length + 1).all()

"""The kernels against the slow reference (naive.py) on positions from random play."""

import numpy as np
import pytest

from tardis_envs.core.rng import seed_to_key
from tardis_envs.core.state import CURRENT_PLAYER, STATUS
from tardis_envs.games.tardis_run import layout, rules
from tardis_envs.games.tardis_run.game import TardisRun

from . import naive


def to_naive(game, state):
    pos = naive.Position(
        length=game.track_length,
        shortcuts={a: b for a, b in game.board.shortcuts},
        teleports={**{a: b for a, b in game.board.teleports}, **{b: a for a, b in game.board.teleports}},
    )
    pos.progress = [game.progress(state, 0), game.progress(state, 1)]
    pos.owner = int(state[layout.BLACK_PADDLE_OWNER])
    pos.to_move = int(state[CURRENT_PLAYER])
    pos.pending = int(state[layout.PENDING_PROGRESS]) if state[layout.PHASE] == layout.PHASE_EXTRA_MOVE else None
    winner = int(state[layout.WINNER])
    pos.winner = winner if winner >= 0 else None
    return pos


def sample_states(game, games, seed):
    rng = np.random.default_rng(seed)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    for g in range(games):
        state = game.new_state(seed_to_key(seed * 10_000 + g))
        while state[STATUS] == 0:
            yield state.copy()
            rules.legal_mask(state, game.tables, mask)
            legal = np.flatnonzero(mask)
            rules.step(state, game.tables, int(legal[rng.integers(legal.size)]))


@pytest.mark.slow
@pytest.mark.parametrize("board", ["default", "configs/tardis_run/boards/grand_tour.yaml"])
def test_kernels_match_the_reference(board):
    game = TardisRun(board=board, max_turns=100_000)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    checked = 0
    for state in sample_states(game, 25, seed=5):
        rules.legal_mask(state, game.tables, mask)
        assert np.flatnonzero(mask).tolist() == naive.legal_actions(to_naive(game, state))
        if state[layout.PHASE] == layout.PHASE_EXTRA_MOVE:
            for take in (True, False):
                ours = state.copy()
                rules.resolve_extra(ours, game.tables, int(state[CURRENT_PLAYER]), take)
                ref = to_naive(game, state)
                naive.apply_extra(ref, take)
                assert to_naive(game, ours).canonical() == ref.canonical()
            continue
        for action in np.flatnonzero(mask):
            rank = -1 if action == layout.ROLL else int(action) // 2
            for seals in range(13):
                ours = state.copy()
                rules.resolve_roll(ours, game.tables, int(state[CURRENT_PLAYER]), rank, seals)
                ref = to_naive(game, state)
                naive.apply_roll(ref, rank, seals)
                assert to_naive(game, ours).canonical() == ref.canonical(), (game.describe(state), action, seals)
                checked += 1
    assert checked > 4_000

"""Random variant playouts with invariants checked after every decision."""
import numpy as np
import pytest

from tardis_envs import vector
from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.chess import rules

from .helpers import VARIANT as G


def check_invariants(before, after, action):
    G.check_state(after)  # one king per side, TARDIS square free, Dr. Who in one place, ...
    assert 1 <= after[rules.HIST_COUNT] <= rules.HISTORY
    assert after[rules.BACKWARD_TRAVELS] <= 2 and after[rules.BACKWARD_TRAVELS + 1] <= 2
    mover = int(before[CURRENT_PLAYER])
    if after[CURRENT_PLAYER] != mover and after[STATUS] == RUNNING:
        # a finished turn never leaves the mover's king attacked
        assert not rules.square_attacked(after, after[rules.KING_SQ + mover], 1 - mover)
    # nothing captures the piece inside the TARDIS: it leaves only by its own
    # move, a kick-out, or a backward travel that rewrote the past
    if before[rules.PASSENGER] != 0 and after[rules.PASSENGER_ID] != before[rules.PASSENGER_ID]:
        frm, to = rules.action_squares(before, action)
        own_exit = (before[rules.PASSENGER] >> 3) == mover and frm == before[rules.TARDIS_SQ]
        kick_out = rules.passenger_evictable(before, mover) and to == before[rules.TARDIS_SQ]
        assert own_exit or kick_out, G.describe(before)


def check_mask(state, mask):
    if state[STATUS] != RUNNING:
        return
    assert mask.any(), "a live game has a legal action"
    tardis = int(rules.blocker_square(state))
    mover = int(state[CURRENT_PLAYER])
    for action in np.flatnonzero(mask[: rules.NUM_CHESS_ACTIONS]):
        frm, to = rules.action_squares(state, int(action))
        assert to != state[rules.KING_SQ + 1 - mover], "a king is never capturable"
        if to == tardis and tardis >= 0:
            piece = state[rules.PASSENGER] if frm == tardis else state[rules.BOARD + frm]
            assert piece & 7 != rules.KING, "kings never enter"
            assert state[rules.PASSENGER] == 0 or rules.passenger_evictable(state, mover)


@pytest.mark.slow
def test_random_variant_playouts_keep_invariants():
    games, rng = 40, np.random.default_rng(7)
    vec = vector.make("timelord_chess_v0", games, seed=11, max_plies=300)
    _, masks, _ = vec.reset()
    seen = {"backward": 0, "forward": 0, "tardis": 0, "doctor": 0, "kick": 0, "finished": 0}
    for _ in range(3000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = vec.states.copy()
        for i in range(games):
            check_mask(before[i], masks[i])
        _, masks, _, _, terminated, truncated = vec.step(actions)
        after = vec.states
        for i in range(games):
            a = int(actions[i])
            seen["backward"] += rules.A_TRAVEL <= a < rules.A_TRAVEL + rules.MAX_TRAVEL
            seen["forward"] += rules.A_TRAVEL + rules.MAX_TRAVEL <= a < rules.A_EVICT
            seen["tardis"] += rules.A_TARDIS <= a < rules.A_TRAVEL
            seen["doctor"] += rules.A_DOCTOR <= a < rules.A_TARDIS
            seen["kick"] += rules.A_EVICT <= a < rules.A_END_TURN
            if terminated[i] or truncated[i]:
                seen["finished"] += 1
                continue
            check_invariants(before[i], after[i], a)
    # the playouts exercise every kind of action
    assert all(count > 0 for count in seen.values()), seen

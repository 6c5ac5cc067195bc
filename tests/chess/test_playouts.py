"""Random variant playouts with invariants checked after every decision."""

import numpy as np
import pytest

from tardis_envs import vector
from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.chess import board, layout, rules
from tardis_envs.games.chess.content import last_rank

from .helpers import VARIANT as G


def check_invariants(before, after, action):
    G.check_state(after)  # one king per side, TARDIS square free, Dr. Who in one place, ...
    assert 1 <= after[layout.HIST_COUNT] <= layout.HISTORY
    assert after[layout.BACKWARD_TRAVELS] <= 2 and after[layout.BACKWARD_TRAVELS + 1] <= 2
    # no pawn ever stands on its last rank: moves promote, the TARDIS and eviction make queens
    for sq in range(64):
        code = int(after[layout.BOARD + sq])
        if code & 7 == layout.PAWN and code != layout.DOCTOR:
            assert sq >> 3 != last_rank(code), G.describe(after)
    passenger = int(after[layout.PASSENGER])
    if passenger & 7 == layout.PAWN and not after[layout.TARDIS_ABSENT]:
        assert after[layout.TARDIS_SQ] >> 3 != last_rank(passenger), G.describe(after)
    assert after[layout.EP_SQUARE_FAR] < 0 or after[layout.EP_SQUARE] >= 0
    mover = int(before[CURRENT_PLAYER])
    if after[CURRENT_PLAYER] != mover and after[STATUS] == RUNNING:
        # a finished turn never leaves the mover's king attacked
        assert not board.square_attacked(after, after[layout.KING_SQ + mover], 1 - mover)
    # nothing captures the piece inside the TARDIS: it leaves only by its own
    # move, a kick-out, or a backward travel that rewrote the past
    if before[layout.PASSENGER] != 0 and after[layout.PASSENGER_ID] != before[layout.PASSENGER_ID]:
        frm, to = rules.action_squares(before, action)
        own_exit = (before[layout.PASSENGER] >> 3) == mover and frm == before[layout.TARDIS_SQ]
        kick_out = board.passenger_evictable(before, mover) and to == before[layout.TARDIS_SQ]
        assert own_exit or kick_out, G.describe(before)


def check_mask(state, mask):
    if state[STATUS] != RUNNING:
        return
    assert mask.any(), "a live game has a legal action"
    tardis = int(layout.blocker_square(state))
    mover = int(state[CURRENT_PLAYER])
    for action in np.flatnonzero(mask[: layout.NUM_CHESS_ACTIONS]):
        frm, to = rules.action_squares(state, int(action))
        assert to != state[layout.KING_SQ + 1 - mover], "a king is never capturable"
        if to == tardis and tardis >= 0:
            piece = state[layout.PASSENGER] if frm == tardis else state[layout.BOARD + frm]
            assert piece & 7 != layout.KING, "kings never enter"
            assert state[layout.PASSENGER] == 0 or board.passenger_evictable(state, mover)


@pytest.mark.slow
def test_random_variant_playouts_keep_invariants():
    games, rng = 40, np.random.default_rng(7)
    vec = vector.make("timelord_chess_v1", games, seed=11, max_plies=300)
    _, masks, _ = vec.reset()
    seen = {"backward": 0, "forward": 0, "tardis": 0, "doctor": 0, "kick": 0, "finished": 0}
    # 48,000 plies checked in Python (about 15 s): by then each kind of action has been played
    # 39 times or more (the rarest, a forward trip in time) and 151 games have ended
    for _ in range(1200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = vec.states.copy()
        for i in range(games):
            check_mask(before[i], masks[i])
        _, masks, _, _, terminated, truncated = vec.step(actions)
        after = vec.states
        for i in range(games):
            a = int(actions[i])
            seen["backward"] += layout.A_TRAVEL <= a < layout.A_TRAVEL + layout.MAX_TRAVEL
            seen["forward"] += layout.A_TRAVEL + layout.MAX_TRAVEL <= a < layout.A_EVICT
            seen["tardis"] += layout.A_TARDIS <= a < layout.A_TRAVEL
            seen["doctor"] += layout.A_DOCTOR <= a < layout.A_TARDIS
            seen["kick"] += layout.A_EVICT <= a < layout.A_END_TURN
            if terminated[i] or truncated[i]:
                seen["finished"] += 1
                continue
            check_invariants(before[i], after[i], a)
    # the playouts exercise every kind of action
    assert all(count > 0 for count in seen.values()), seen

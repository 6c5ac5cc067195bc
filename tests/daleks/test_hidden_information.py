"""What a Doctor sees never depends on what it may not know: other hands, face-down
Dilemmas, the generator (the order of every deck and die)."""

import numpy as np
import pytest

from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.daleks import layout as L

from .helpers import hide_differently, new


def played(num_players, seed, plies):
    raw = new(num_players=num_players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if raw.get_state()[STATUS] != RUNNING:
            break
        raw.step(int(rng.choice(raw.legal_actions())))
    return raw


def view(raw, s, seat):
    game = raw.game
    obs = game.observation(s, seat)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if s[CURRENT_PLAYER] == seat:
        game.kernels.legal_mask(s, game.tables, mask)
    return obs, mask


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_hands_face_down_dilemmas_and_the_generator_do_not_leak(num_players):
    checked = 0
    for seed in range(12):
        raw = played(num_players, seed, plies=3 + seed * 4)
        s = raw.get_state()
        if s[STATUS] != RUNNING:
            continue
        other = (int(s[CURRENT_PLAYER]) + 1) % num_players
        changed = raw.game.check_state(hide_differently(s, other if num_players > 1 else -1))
        for seat in range(num_players):
            if num_players > 1 and seat == other:
                continue  # its own hand changed
            before, mask_before = view(raw, s, seat)
            after, mask_after = view(raw, changed, seat)
            assert np.array_equal(before, after), f"seat {seat} sees a hidden difference (seed {seed})"
            assert np.array_equal(mask_before, mask_after)
            checked += 1
    assert checked >= 5


def test_own_hand_and_face_up_dilemmas_are_seen():
    from tardis_envs.games.daleks.observe import LB_ZONES, O_HAND, O_SLOTS, ZB_DILEMMA, ZB_FACE_DOWN, ZONE_BLOCK

    raw = new()
    s = raw.get_state()
    obs = raw.game.observation(s, 0)
    hand = [c for c in range(30) if s[L.CARD_PLACE + c] == 0]
    assert sorted(np.flatnonzero(obs[O_HAND : O_HAND + 30]).tolist()) == hand
    other = raw.game.observation(s, 1)
    assert sorted(np.flatnonzero(other[O_HAND : O_HAND + 30]).tolist()) != hand
    for z in range(3):  # Earth's zones, face down at the start
        base = O_SLOTS + LB_ZONES + z * ZONE_BLOCK
        assert obs[base + ZB_FACE_DOWN] == 1 and obs[base + ZB_DILEMMA : base + ZB_DILEMMA + 25].sum() == 0

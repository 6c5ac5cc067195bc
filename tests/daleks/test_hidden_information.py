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


def twin(raw, s):
    """``s`` with every Timey-Wimey hand and the deck dealt again (each hand keeps its size),
    the generator as it was: the same public view, other hidden cards, the same dice to come."""
    from tardis_envs.core.state import RNG_COUNTER, RNG_KEY
    from tardis_envs.games.daleks.hidden import redeal_timey_wimey

    t = s.copy()
    redeal_timey_wimey(t, raw.game.tables, -1, np.empty(30, dtype=np.int64))
    t[RNG_KEY], t[RNG_COUNTER] = s[RNG_KEY], s[RNG_COUNTER]
    return t


def public_view(raw, s):
    """Seat 0's observation without its own hand: what every seat may know."""
    from tardis_envs.games.daleks.observe import O_HAND

    obs = raw.game.observation(s, 0)
    obs[O_HAND : O_HAND + 30] = 0
    return obs


def lockstep(raw, a, b, rng, steps):
    """Play the same actions (legal in both) in twins ``a`` and ``b``; the seat to decide
    and the public view must stay the same. Returns the number of steps compared."""
    from tardis_envs.games.daleks.observe import O_CARD_DISCARD

    game = raw.game
    mask_a = np.zeros(game.num_actions, dtype=np.int8)
    mask_b = np.zeros(game.num_actions, dtype=np.int8)
    for k in range(steps):
        differ = np.flatnonzero(public_view(raw, a) != public_view(raw, b))
        if ((differ >= O_CARD_DISCARD) & (differ < O_CARD_DISCARD + 30)).any():
            # a Doctor discarded its only card: a hidden card is revealed, and what is public
            # differs from here on (which cards could still be in a hand): no longer twins
            return k
        assert a[CURRENT_PLAYER] == b[CURRENT_PLAYER], (
            f"step {k}: seat {a[CURRENT_PLAYER]} decides in one twin, {b[CURRENT_PLAYER]} in the other"
        )
        assert len(differ) == 0, f"step {k}: the public view differs at {differ.tolist()} (stage {a[L.STAGE]} / {b[L.STAGE]})"
        if a[STATUS] != RUNNING:
            return k
        game.kernels.legal_mask(a, game.tables, mask_a)
        game.kernels.legal_mask(b, game.tables, mask_b)
        common = np.flatnonzero(mask_a & mask_b)
        if len(common) == 0:  # each twin may only play a card the other does not hold
            return k
        action = int(rng.choice(common))
        game.kernels.step(a, game.tables, action)
        game.kernels.step(b, game.tables, action)
    return steps


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_who_decides_next_never_depends_on_hidden_cards(num_players):
    """Twin states (the same public view, other hidden cards) played with the same public
    actions ask the same seats in the same order (ruling: every Doctor holding a card is
    offered each Any Adventure window; a decision is skipped only when it has one option
    whatever the hidden cards)."""
    twins = compared = 0
    for seed in range(12):
        raw = new(num_players=num_players, seed=seed)
        rng = np.random.default_rng(seed)
        while raw.get_state()[STATUS] == RUNNING:
            s = raw.get_state()
            t = twin(raw, s)
            if not np.array_equal(t, s):
                twins += 1
                compared += lockstep(raw, s.copy(), t, np.random.default_rng(twins), steps=40)
            raw.step(int(rng.choice(raw.legal_actions())))
    print(f"{num_players} Doctors: {twins} twin states, {compared} steps compared, 0 differences")
    assert twins >= 500 and compared >= 10 * twins

"""Random playouts of Time of the Daleks with the invariants checked after every action."""

import numpy as np
import pytest

from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, TERMINATED, TRUNCATED
from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks import rules
from tardis_envs.games.daleks.content import DICE_SUPPLY
from tardis_envs.games.daleks.phases import adventure as A

from .helpers import new


def check_invariants(game, s, n, previous_active, prev_hand_ok):
    game.check_state(s)  # places of every card, Companion, Dilemma; Sonic 0..5; Ship and TARDIS on the track
    assert s[L.STALLED] == 0
    track = game.tables[1]
    assert 0 <= s[L.SHIP] <= track
    assert s[L.ZONE_DALEKS : L.ZONE_DALEKS + L.MAX_ZONES].sum() <= L.MAX_DALEKS
    markers = [m for m in s[L.MARKER : L.MARKER + L.MARKER_SLOTS] if m >= 0]
    assert all(m > s[L.SHIP] for m in markers), "the Ship removed every marker it passed"
    if s[STATUS] != RUNNING:
        return
    stage = s[L.STAGE]
    if stage in (L.S_MANIPULATE, L.S_SELECT, L.S_WINDOW, L.S_GIVE) or (stage == L.S_FAIL_CHOICE):
        colours = s[L.DIE_COLOUR : L.DIE_COLOUR + L.MAX_DICE]
        for pool in range(2):
            mine = colours[pool * 8 : pool * 8 + 8]
            assert (mine >= 0).sum() <= A.pool_limit(s, pool), "pool over its limit"
        for c in range(4):
            assert (colours == c).sum() <= DICE_SUPPLY[c], "more dice of a colour than exist"
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.legal_mask(s, game.tables, mask)
    # single-option decisions are taken automatically, unless a hidden hand could have given more
    assert mask.sum() >= 2 or (mask.sum() == 1 and rules.hidden_options(s, game.tables, s[CURRENT_PLAYER]))


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_random_playouts_keep_every_invariant(num_players, games=150):
    raw = new(num_players=num_players)
    game = raw.game
    rng = np.random.default_rng(num_players)
    outcomes = {}
    seen_stages = set()
    for g in range(games):
        s = game.new_state(1000 * num_players + g)
        previous = s[L.ACTIVE]
        steps = 0
        while s[STATUS] == RUNNING:
            mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
            rules.legal_mask(s, game.tables, mask)
            seen_stages.add(int(s[L.STAGE]) if s[L.OBL_COUNT] == 0 else 100 + int(s[L.OBLIGATIONS + 1]))
            rules.step(s, game.tables, int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            if s[STATUS] == RUNNING and s[L.ACTIVE] != previous:
                hand = (s[L.CARD_PLACE : L.CARD_PLACE + 30] == previous).sum()
                assert hand <= L.HAND_LIMIT + 1, "hand limit at Finish (a free Prepare draw of the next Doctor aside)"
                previous = s[L.ACTIVE]
            check_invariants(game, s, num_players, previous, True)
        assert s[STATUS] in (TERMINATED, TRUNCATED)
        if s[L.WINNER] == L.WIN_DOCTORS:
            assert max(s[REWARDS : REWARDS + num_players]) == 1
        elif s[STATUS] == TERMINATED:
            assert list(s[REWARDS : REWARDS + num_players]) == [-1] * num_players
        outcomes[int(s[L.WINNER])] = outcomes.get(int(s[L.WINNER]), 0) + 1
    assert outcomes.get(L.WIN_EARTH, 0) + outcomes.get(L.WIN_SEVENTH, 0) > 0
    decisions = {L.S_PREPARE, L.S_TRAVEL, L.S_TRAVEL_KEEP, L.S_RECRUIT, L.S_POOL, L.S_MANIPULATE, L.S_SELECT}
    if num_players > 1:
        decisions |= {L.S_CALL_HELP, L.S_HELP_ANSWER}
    assert decisions <= seen_stages, f"stages never reached: {decisions - seen_stages}"


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_many_random_playouts(num_players):
    test_random_playouts_keep_every_invariant(num_players, games=600)


def test_first_game_option_removes_advanced_cards_and_uses_three_markers():
    raw = new(first_game=True)
    s = raw.get_state()
    assert sorted(m for m in s[L.MARKER : L.MARKER + 5] if m >= 0) == [8, 11, 14]
    content = raw.game.content
    for d, dil in enumerate(content.dilemmas):
        assert (s[L.DILEMMA_PLACE + d] == L.PLACE_REMOVED) == dil.advanced
    for a, an in enumerate(content.anomalies):
        assert (s[L.ANOMALY_STATE + a] == L.AS_REMOVED) == an.advanced
    from tardis_envs.games.daleks.components.challenge import conditions_here

    for zone in range(3):
        assert conditions_here(s, raw.game.tables, 0, zone) == 0, "conditions ignored in the first game"


def test_random_doctors_option_seats_them_in_regeneration_order():
    seen = set()
    for seed in range(30):
        raw = new(num_players=2, seed=seed, doctors="random")
        s = raw.get_state()
        pair = (int(s[L.DOCTOR]), int(s[L.DOCTOR + 1]))
        assert pair[0] < pair[1]
        seen.add(pair)
    assert len(seen) >= 4

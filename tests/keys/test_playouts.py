"""Random playouts of thousands of games with invariant checks, and the mask
against a slow enumeration of the rules (naive.py) on sampled states."""

import numpy as np
import pytest

import tardis_envs
from tardis_envs import vector
from tardis_envs.core.state import STATUS
from tardis_envs.games.keys import board, layout
from tardis_envs.games.keys.content import CENTRE

from . import naive


def check_invariants(game, states, masks):
    n = game.num_players
    expected = np.array(game.components.card_counts)
    for c in range(10):
        deck = board.deck_cards(states)
        sizes = states[:, layout.DECK_SIZE]
        in_deck = ((deck == c) & (np.arange(layout.MAX_CARDS)[None, :] < sizes[:, None])).sum(axis=1)
        in_hands = sum(states[:, layout.HAND + 10 * s + c] for s in range(n))
        total = in_deck + in_hands + states[:, layout.DISCARD + c]
        if c == layout.CARD_BARRIER:
            total += board.tile_facts(states, layout.TIME_BARRIERS).sum(axis=1)
        if c == layout.CARD_COOKIE:
            total += board.tile_facts(states, layout.JAM_COOKIES).sum(axis=1)
        if c == layout.CARD_TUNNEL:
            total += (board.tunnel_orientations(states) > 0).sum(axis=1)
        if c == layout.CARD_PANDORICA:
            total += (states[:, layout.PANDORICA : layout.PANDORICA + n] > 0).sum(axis=1)
        assert (total == expected[c]).all(), f"card type {c} not conserved"
    pawns = states[:, layout.PAWN : layout.PAWN + n]
    for i in range(n):
        for j in range(i + 1, n):
            assert not ((pawns[:, i] == pawns[:, j]) & (pawns[:, i] >= 0)).any(), "two pawns on a tile"
        rows = np.flatnonzero((pawns[:, i] >= 0) & (pawns[:, i] != CENTRE))
        tiles = pawns[rows, i]
        under = np.arange(rows.size), tiles  # [game, tile] of each pawn

        def under_pawns(facts):
            return board.tile_facts(states[rows], facts)[under]

        assert (under_pawns(layout.DOORS_OPEN) == 1).all(), "pawn on a closed door"
        assert (under_pawns(layout.TIME_BARRIERS) == 0).all(), "pawn on a barrier"
        dalek = board.tile_kinds(states[rows])[under] == layout.KIND_DALEK
        assert (under_pawns(layout.JAM_COOKIES)[dalek] == 1).all(), "pawn on a Dalek door"
    assert (masks.sum(axis=1) > 0).all(), "a live game has a legal action"


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_playouts_keep_invariants(num_players):
    games = 1000
    vec = vector.make("keys_to_the_tardis_v0", games, seed=500, num_players=num_players)
    _, masks, _ = vec.reset()
    rng = np.random.default_rng(num_players)
    finished = np.zeros(games, dtype=bool)
    winners = 0
    for _ in range(6000):
        check_invariants(vec.game, vec.states, masks)
        scores = rng.random(masks.shape) * masks
        _, masks, _, rewards, term, trunc = vec.step(scores.argmax(axis=1))
        new = (term | trunc) & ~finished
        for i in np.flatnonzero(new & term):
            assert sorted(rewards[i].tolist()) == [-1.0] * (num_players - 1) + [1.0]
            winners += 1
        for i in np.flatnonzero(new & trunc):
            assert (rewards[i] == 0).all()
        finished |= term | trunc
        if finished.all():
            break
    assert finished.all()
    assert winners > 0
    assert (vec.states[:, STATUS] == 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_mask_matches_the_slow_enumeration(num_players):
    env = tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players)
    raw = env.unwrapped
    rng = np.random.default_rng(10 + num_players)
    checked = 0
    phases = set()
    for seed in range(12):
        env.reset(seed=seed)
        for ply in range(400):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            mask = env.observe(agent)["action_mask"]
            if ply % 3 == 0:
                info = raw.describe()
                ours = {raw.action_to_string(int(a)) for a in np.flatnonzero(mask)}
                assert ours == naive.legal_strings(info, agent), (seed, ply, info["phase"])
                phases.add(info["phase"])
                checked += 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 300
    assert {"play_card", "move"} <= phases


@pytest.mark.parametrize("num_players", [3, 4])
def test_api_and_seed_tests_for_more_players(num_players):
    from pettingzoo.test import api_test, seed_test

    api_test(tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players), num_cycles=200)
    seed_test(lambda **kw: tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players, **kw), num_cycles=200)

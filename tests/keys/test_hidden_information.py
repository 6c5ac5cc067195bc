"""What a seat sees never depends on what it may not know."""

import numpy as np
import pytest

import tardis_envs
from tardis_envs.games.keys import board, layout
from tardis_envs.games.keys.content import CENTRE, NUM_TILES


def played_state(num_players, seed, plies=40, **options):
    env = tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        mask = env.observe(env.agent_selection)["action_mask"]
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return env.unwrapped


def views(raw, state, seat):
    game = raw.game
    obs = game.observation(state, seat)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if state[0] == seat:
        game.kernels.legal_mask(state, game.tables, mask)
    return obs, mask


@pytest.mark.parametrize("route_lengths", [False, True])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_opponent_hand_deck_order_and_hidden_kinds_do_not_leak(num_players, route_lengths):
    """With ``route_lengths`` the routes are planned from what the observer may know too."""
    for seed in range(6):
        raw = played_state(num_players, seed, route_lengths=route_lengths)
        state = raw.get_state()
        if state[layout.PHASE] == layout.PHASE_OVER:
            continue
        mover = int(state[0])
        other = (mover + 1) % num_players
        rng = np.random.default_rng(seed)
        changed = state.copy()
        # (a) an opponent's hand: swap one of its cards with a different card from the deck
        hand = changed[layout.HAND + 10 * other : layout.HAND + 10 * (other + 1)]
        deck = board.deck_cards(changed)[: int(changed[layout.DECK_SIZE])]
        mine = int(np.flatnonzero(hand)[0])
        swap = int(np.flatnonzero(deck != mine)[0])
        hand[mine] -= 1
        hand[deck[swap]] += 1
        deck[swap] = mine
        # (b) deck order
        rng.shuffle(deck)
        board.set_deck_cards(changed, deck)
        # (c) the kinds of two hidden tiles of one colour
        revealed, colours, kinds = board.tile_facts(changed, layout.KINDS_REVEALED), board.tile_colours(changed), board.tile_kinds(changed)
        hidden = [t for t in range(NUM_TILES) if t != CENTRE and not revealed[t]]
        pairs = [(a, b) for a in hidden for b in hidden if colours[a] == colours[b] and kinds[a] != kinds[b]]
        assert pairs, "some hidden tiles remain"
        a, b = pairs[0]
        board.set_tile_kind(changed, a, kinds[b])
        board.set_tile_kind(changed, b, kinds[a])
        changed = raw.game.check_state(changed)
        assert not np.array_equal(changed, state)
        for seat in range(num_players):
            if seat == other:
                continue  # its own hand changed: it may see that
            before, mask_before = views(raw, state, seat)
            after, mask_after = views(raw, changed, seat)
            assert np.array_equal(before, after), f"seat {seat} sees a hidden difference"
            assert np.array_equal(mask_before, mask_after)


def test_revealed_kinds_and_own_hand_are_seen():
    raw = played_state(2, 0, plies=0)
    state = raw.get_state()
    seat = int(state[0])
    obs = raw.game.observation(state, seat)
    hand = state[layout.HAND + 10 * seat : layout.HAND + 10 * (seat + 1)]
    assert np.allclose(obs[layout.S_HAND : layout.S_HAND + 10], hand / 4)
    assert obs[layout.P_KIND_UNKNOWN * NUM_TILES : (layout.P_KIND_UNKNOWN + 1) * NUM_TILES].sum() == 48
    opened = state.copy()
    board.set_on_tile(opened, layout.DOORS_OPEN, 0, 1)
    board.set_on_tile(opened, layout.KINDS_REVEALED, 0, 1)
    obs = raw.game.observation(opened, 0)
    kind = board.tile_kind(opened, 0)
    assert obs[(layout.P_KIND + kind) * NUM_TILES + 0] == 1

"""The turn search over a learned value (the ``az`` agents' ``search=turn``): what the value
reads, what it is worth, and that the search plays whole turns without reading hidden cards."""

import numpy as np

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER, RNG_COUNTER, RNG_KEY, STATUS, TERMINATED, TRUNCATED
from tardis_envs.games.keys import heuristic, layout
from tardis_envs.games.keys.content import NUM_CARD_TYPES

from .test_route_leads import running_states
from .test_rules import door

# a table of the shape the trainer fits (agents.training.leaf_table): shorter own routes and
# longer opponent routes win
TABLE = np.array([-0.07, -4.1, 3.1, 1.3, 0.55, -0.32, 0.0, -0.36, 0.05, -0.08, 0.05, 0.13, 0.0, 0.12, -0.03, 0.0, 0.5])
WEIGHTS = heuristic.DEFAULT_WEIGHTS


def game_of(players=2):
    return tardis_envs.make("keys_to_the_tardis_v0", num_players=players).unwrapped.game


def features(game, state, seat):
    out = np.zeros(heuristic.LEAF_FEATURES)
    heuristic.leaf_features(state, game.tables, seat, WEIGHTS, out)
    return out


def redealt(game, state, seat, key):
    """``state`` with what ``seat`` cannot see redealt by the game's own kernel."""
    twin = state.copy()
    twin[RNG_KEY], twin[RNG_COUNTER] = key, 0
    game.kernels.resample_hidden(twin, game.tables, seat)
    return twin


def test_the_value_reads_the_planned_routes_and_the_seats_own_hand():
    game = game_of()
    assert len(TABLE) == heuristic.LEAF_FEATURES == len(heuristic.LEAF_FEATURE_NAMES)
    for state in running_states(8):
        for seat in (0, 1):
            f = features(game, state, seat)
            mine, nearest = heuristic.routes(state, game.tables, seat, heuristic.revealed_kinds(state), WEIGHTS)
            assert np.allclose(f[:6], [1.0, mine / 10, nearest / 10, min(nearest - mine, 0) / 10, mine**2 / 100, nearest**2 / 100])
            hand = state[layout.HAND + NUM_CARD_TYPES * seat : layout.HAND + NUM_CARD_TYPES * (seat + 1)]
            assert f[6] == hand[:4].sum() and np.array_equal(f[7:13], hand[4:])
            assert f[13] == state[layout.PANDORICA + seat] and f[14] == state[layout.PANDORICA + 1 - seat]
            assert f[15] == (state[layout.PAWN + seat] < 0) and f[16] == (state[CURRENT_PLAYER] == seat)


def test_the_value_reads_only_what_its_seat_may_know():
    """Redealing what a seat cannot see (the other hands, the deck, the face-down kinds) leaves
    everything the value reads for that seat as it was, at 2, 3 and 4 players (mutation-checked:
    counting another seat's hand fails it)."""
    for players in (2, 3, 4):
        game = game_of(players)
        changed = 0
        for key, state in enumerate(running_states(6)[:, : game.state_size] if players == 2 else other_states(game)):
            for seat in range(players):
                twin = redealt(game, state, seat, 1000 + key)
                changed += not np.array_equal(twin, state)
                assert np.array_equal(features(game, twin, seat), features(game, state, seat))
        assert changed > 0


def other_states(game, count=6):
    rng = np.random.default_rng(3)
    states = []
    for key in range(count):
        state = game.new_state(key)
        for _ in range(30):
            actions = game.legal_actions(state)
            game.kernels.step(state, game.tables, int(rng.choice(actions)))
            if state[STATUS]:
                break
        if not state[STATUS]:
            states.append(state)
    return states


def test_the_value_of_a_position_is_the_seats_chance_of_winning():
    game = game_of()
    state = running_states(1)[0]
    for seat in (0, 1):
        logit = float(TABLE @ features(game, state, seat))
        value = heuristic.learned_value(state, game.tables, seat, WEIGHTS, TABLE)
        assert np.isclose(value, 1 / (1 + np.exp(-logit))) and 0 < value < 1
    ended = state.copy()
    ended[STATUS], ended[layout.WINNER] = TERMINATED, 1
    assert heuristic.learned_value(ended, game.tables, 1, WEIGHTS, TABLE) == 1.0
    assert heuristic.learned_value(ended, game.tables, 0, WEIGHTS, TABLE) == 0.0
    ended[STATUS], ended[layout.WINNER] = TRUNCATED, -1
    assert heuristic.learned_value(ended, game.tables, 0, WEIGHTS, TABLE) == 0.5


def test_the_turn_search_plays_the_card_and_the_step_that_win():
    """South's pawn stands one step below its goal row behind a closed red door known to be
    plain, with a red Key in hand: the search opens the door and steps through in the same
    turn, a sure win in every redealt world. Where the door's kind is face down it may be a
    Dalek door in some worlds, and the win is no longer sure."""
    env = tardis_envs.make("keys_to_the_tardis_v0")
    env.reset(seed=0)
    game = env.unwrapped.game
    state = game.position(
        tiles={"d7": door("red", revealed=True), "d6": door("blue", open=True)},
        pawns={0: "d6", 1: None},
        hands={0: {"red key": 1, "time barrier": 1}},
    )
    values = np.zeros(game.num_actions)
    heuristic.turn_values(state, game.tables, WEIGHTS, TABLE, 4, 7, values)
    legal = game.legal_actions(state)
    assert set(np.flatnonzero(values >= 0)) == set(legal) and np.all(values[values >= 0] <= 1.0)
    opening = game.string_to_action(state, "play red key: open d7")
    assert values[opening] == 1.0 and heuristic.choose_learned(state, game.tables, WEIGHTS, TABLE, 4, 7) == opening
    while state[STATUS] == 0 and state[CURRENT_PLAYER] == 0:
        game.kernels.step(state, game.tables, heuristic.choose_learned(state, game.tables, WEIGHTS, TABLE, 4, 7))
    assert state[STATUS] == TERMINATED and state[layout.WINNER] == 0
    unknown = game.position(
        tiles={"d7": door("red"), "d6": door("blue", open=True)}, pawns={0: "d6", 1: None}, hands={0: {"red key": 1, "time barrier": 1}}
    )
    heuristic.turn_values(unknown, game.tables, WEIGHTS, TABLE, 64, 7, values)
    assert 0.5 < values[opening] < 1.0
    # the worlds follow the seed: another seed draws other worlds
    other = np.zeros(game.num_actions)
    heuristic.turn_values(unknown, game.tables, WEIGHTS, TABLE, 64, 8, other)
    assert not np.array_equal(values, other)


def test_the_turn_search_redeals_and_never_reads_the_hidden_cards():
    """Over 256 redealt worlds each, the action values of a position and of its twin (the same
    position with what the mover cannot see redealt) differ no more than two sets of worlds of
    the position itself do, while the same turn searched in the real worlds (peeking) tells
    the twins apart far beyond that noise."""
    game = game_of()
    worlds = 256
    noise = twins = peeking = 0.0
    checked = 0
    for key, state in enumerate(running_states(10, plies=30)):
        mover = int(state[CURRENT_PLAYER])
        twin = redealt(game, state, mover, 500 + key)
        if np.array_equal(twin, state):
            continue
        checked += 1
        values = {}
        for name, root, seed in (("first", state, 1), ("again", state, 2), ("twin", twin, 2)):
            values[name] = np.zeros(game.num_actions)
            heuristic.turn_values(root, game.tables, WEIGHTS, TABLE, worlds, seed, values[name])
        noise += np.abs(values["first"] - values["again"]).sum()
        twins += np.abs(values["first"] - values["twin"]).sum()
        real = []
        for root in (state, twin):
            seen = np.zeros(game.num_actions)
            for action in game.legal_actions(root):
                line = root.copy()
                game.kernels.step(line, game.tables, int(action))
                seen[action] = heuristic.rest_of_turn(line, game.tables, mover, WEIGHTS, TABLE, heuristic.turn_number(root))
            real.append(seen)
        peeking += np.abs(real[0] - real[1]).sum()
    assert checked >= 6
    assert twins < 1.5 * noise + 1e-3, (twins, noise)
    assert peeking > 4 * noise, (peeking, noise)

"""The exact best response to the duel heuristic (``heuristic.best_response_values``): the last
exchange against brute force over every legal choice and every draw, the heuristic's own value
below it, its predictions against played fights, and what it reads. The bound on counting the
cards (``heuristic.counting_bounds``): its exchanges against brute force over the cards left."""

import itertools
import runpy
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.tournament import play_match
from tardis_envs import gallifrey_duel_v1
from tardis_envs.core.state import CURRENT_PLAYER, RNG_KEY, RUNNING, STATUS, TERMINATED
from tardis_envs.games.gallifrey import heuristic, hidden, rules
from tardis_envs.games.gallifrey.content import DECK_SIZE
from tardis_envs.games.gallifrey.layout import (
    CARD_DRAW,
    DECK,
    DECK_POS,
    EXCHANGE,
    F_ACQUIRED_USED,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    NUM_ACTIONS,
    PENDING,
    WINNER,
    action_card,
    side,
)

WEIGHTS = heuristic.DEFAULT_WEIGHTS
BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "best_response.py"


def position(game, seed=3, injuries=(0, 0), edges=None, used=(0, 0), exchange=0):
    state = game.new_state(seed)
    for s in range(2):
        state[side(s, F_INJURIES)] = injuries[s]
        state[side(s, F_ACQUIRED_USED)] = used[s]
        if edges is not None:
            state[side(s, F_EDGES_LEFT)] = edges[s]
    state[EXCHANGE] = exchange
    return state


def last_exchange_by_brute_force(game, state, seat):
    """The chance that ``seat`` wins the exchange of ``state`` when it is the fight's last."""
    return exchange_by_brute_force(game, state, seat, lambda after: 0.0)


@pytest.mark.parametrize(
    "options, kwargs",
    [
        # both with an Edge and Acquired cards, part-way through the fight
        (dict(pair="The Doctor, The Master", threat="dangerous"), dict(injuries=(3, 4), edges=(1, 1), used=(0, 1))),
        # contest: the second exchange, seat 1 attacks
        (dict(pair="Sontaran, UNIT Soldier", threat="deadly", mode="contest"), dict(exchange=1)),
        # dramatic: equal totals are a draw; Stasis 10
        (dict(pair="Weeping Angel, Companion", threat="trivial", mode="dramatic", forced_draw_p=0.5), {}),
    ],
)
def test_the_last_exchange_is_the_best_of_every_choice_and_every_draw(options, kwargs):
    max_exchanges = kwargs.get("exchange", 0) + 1
    game = gallifrey_duel_v1.Game(scene="Skaro corridor", max_exchanges=max_exchanges, **options)
    state = position(game, **kwargs)
    for seat in (0, 1):
        values = heuristic.best_response_values(state, game.tables, WEIGHTS, seat, False)
        assert values.shape[0] == max_exchanges + 1 and not values[-1].any()
        expected = last_exchange_by_brute_force(game, state, seat)
        assert values[max_exchanges - 1, heuristic.fight_position(state, game.tables)] == pytest.approx(expected, abs=1e-12)
        assert 0.0 < expected < 1.0


def fight_by_brute_force(game, state, seat, memo):
    """The chance that ``seat`` wins the fight from ``state`` (an exchange about to be chosen, the
    insistences not yet drawn) when it searches every legal choice of every exchange to the
    truncation, against the heuristic under both of its insistences, over every pair of cards
    drawn (each from the full deck): recursion over the public position, remembered in ``memo``."""
    key = (int(state[EXCHANGE]), *(int(state[side(s, f)]) for s in (0, 1) for f in (F_INJURIES, F_EDGES_LEFT, F_ACQUIRED_USED)))
    if key not in memo:
        memo[key] = exchange_by_brute_force(game, state, seat, lambda after: fight_by_brute_force(game, after, seat, memo))
    return memo[key]


def exchange_by_brute_force(game, state, seat, going_on, left=None, realised=None):
    """The chance that ``seat`` wins from the exchange of ``state``: for each insistence of its
    own, the best of every legal choice against the heuristic under each insistence of the
    other's, over every draw of the cards (seat 0 draws first). A fight that goes on is worth
    ``going_on(position)``. ``left`` None: each card from the full deck (the best response's
    model); else the cards still in the deck, counted: every ordered pair of different cards of
    ``left`` (with one card left, seat 1 draws from a new shuffle of all 36). ``realised``:
    ``(cards, beyond)``, each choice also gets ``beyond(position, cards drawn)`` of the position
    the exchange goes on from when the sides that draw get ``cards``."""
    tables = game.tables
    other = 1 - seat
    p_forced = game.options["forced_draw_p"]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def play(mine, first, second, cards):
        t = mine.copy()
        t[DECK_POS] = 0
        t[DECK : DECK + len(cards)] = cards
        t[CURRENT_PLAYER] = 0
        rules.step(t, tables, first)
        rules.step(t, tables, second)
        return t

    total = 0.0
    for forced in (0, 1):
        mine = state.copy()
        mine[side(seat, F_FORCED)] = forced
        mine[CURRENT_PLAYER] = seat
        mine[PENDING] = -1
        rules.legal_mask(mine, tables, mask)
        replies = []
        for other_forced in (0, 1):
            theirs = mine.copy()
            theirs[CURRENT_PLAYER] = other
            theirs[side(other, F_FORCED)] = other_forced
            replies.append((p_forced if other_forced else 1 - p_forced, heuristic.choose(theirs, tables, WEIGHTS)))
        best = -np.inf
        for action in np.flatnonzero(mask):
            won = 0.0
            for p, reply in replies:
                first, second = (action, reply) if seat == 0 else (reply, action)
                draws = [action_card(a) == CARD_DRAW for a in (first, second)]
                if left is None:
                    deals = list(itertools.product(*(range(DECK_SIZE) if drawn else [None] for drawn in draws)))
                    deals = [tuple(card for card in cards if card is not None) for cards in deals]
                elif draws[0] and draws[1]:
                    deals = [(a, b) for a in left for b in left if a != b] if len(left) > 1 else [(left[0], b) for b in range(DECK_SIZE)]
                elif draws[0] or draws[1]:
                    deals = [(a,) for a in left]
                else:
                    deals = [()]
                for cards in deals:
                    t = play(mine, first, second, cards)
                    if t[STATUS] == TERMINATED:
                        won += p / len(deals) * (t[WINNER] == seat)
                    elif t[STATUS] == RUNNING:
                        won += p / len(deals) * going_on(t)
                if realised is not None:
                    cards, beyond = realised
                    t = play(mine, first, second, cards[: sum(draws)])
                    if t[STATUS] == RUNNING:
                        won += p * beyond(t, sum(draws))
            best = max(best, won)
        total += (p_forced if forced else 1 - p_forced) * best
    return total


@pytest.mark.parametrize(
    "options, seat",
    [
        # Stasis 10 heals at once, the Companion's injuries stay; truncated after two
        (dict(pair="Weeping Angel, Companion", threat="dangerous", max_exchanges=2), 0),
        # contest: the roles change each exchange, a tie goes on; truncated after three
        (dict(pair="UNIT Soldier, Companion", threat="deadly", mode="contest", max_exchanges=3), 0),
    ],
)
def test_whole_fights_are_the_best_of_every_choice_and_every_draw(options, seat):
    game = gallifrey_duel_v1.Game(scene="UNIT HQ", **options)
    state = position(game)
    values = heuristic.best_response_values(state, game.tables, WEIGHTS, seat, False)
    memo: dict = {}
    expected = fight_by_brute_force(game, state, seat, memo)
    assert values[0, heuristic.fight_position(state, game.tables)] == pytest.approx(expected, abs=1e-12)
    assert 0.0 < expected < 1.0 and len(memo) > 2  # positions reached after the first exchange too
    for key, chance in memo.items():
        reached = state.copy()
        reached[EXCHANGE] = key[0]
        for k, (s, f) in enumerate((s, f) for s in (0, 1) for f in (F_INJURIES, F_EDGES_LEFT, F_ACQUIRED_USED)):
            reached[side(s, f)] = key[1 + k]
        assert values[key[0], heuristic.fight_position(reached, game.tables)] == pytest.approx(chance, abs=1e-12), key


@pytest.mark.parametrize("pair", ["The Doctor, The Doctor", "Sontaran, Ice Warrior"])
def test_the_heuristic_itself_is_never_worth_more(pair):
    game = gallifrey_duel_v1.Game(pair=pair, scene="London, 21st century")
    state = game.new_state(0)
    for seat in (0, 1):
        best = heuristic.best_response_values(state, game.tables, WEIGHTS, seat, False)
        own = heuristic.best_response_values(state, game.tables, WEIGHTS, seat, True)
        assert (best >= own - 1e-12).all()
        start = heuristic.fight_position(state, game.tables)
        # fighting to subdue defeats a Stasis above 3 sooner than the heuristic's wounding
        assert best[0, start] > own[0, start] + 0.1


@pytest.mark.parametrize("follow", [False, True])
def test_predicted_win_chance_is_what_play_gives(follow):
    """From the first position of one pairing, the programme's win chance for each seat is what
    600 seat-swapped fights of its choices (or the heuristic's, ``follow``) give, within 3.5
    standard errors: the fights deal the deck without replacement, the model draws from it whole."""
    options = dict(pair="Sontaran, Ice Warrior", scene="London, 21st century")
    game = gallifrey_duel_v1.Game(**options)
    start = game.new_state(0)
    module = runpy.run_path(str(BENCHMARK))
    responder = module["BestResponse"](game, WEIGHTS) if not follow else make_agent("heuristic", game)
    result = play_match("gallifrey_duel_v1", [responder, make_agent("heuristic", game)], ["a", "b"], 600, seed=11, options=options)
    for seat in (0, 1):
        values = heuristic.best_response_values(start, game.tables, WEIGHTS, seat, follow)
        chance = values[0, heuristic.fight_position(start, game.tables)]
        wins, _, losses = result.counts[0, seat]
        played = result.counts[0, seat].sum()
        assert abs(wins / played - chance) < 3.5 * np.sqrt(chance * (1 - chance) / played), (seat, wins, played, chance)


def test_reads_only_what_its_seat_may_know():
    """The fight's values depend on its public setting alone, and each choice stays the same
    when everything the seat cannot see is redealt (the deck order, the other side's
    insistence, a committed choice)."""
    game = gallifrey_duel_v1.Game()
    module = runpy.run_path(str(BENCHMARK))
    agent = module["BestResponse"](game, WEIGHTS)
    opponent = make_agent("heuristic", game)
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(12):
        state = game.new_state(seed)
        while state[STATUS] == RUNNING:
            seat = int(state[CURRENT_PLAYER])
            if seat == seed % 2:
                action = agent.act_batch(state[None], None, None)[0]
                for _ in range(2):
                    twin = state.copy()
                    twin[RNG_KEY] = int(rng.integers(1 << 40))  # another generator key: other redeals
                    hidden.resample_hidden(twin, game.tables, seat)
                    twin_values = heuristic.best_response_values(twin, game.tables, WEIGHTS, seat, False)
                    assert np.array_equal(twin_values, agent.fight_values(state, seat))
                    assert heuristic.choose_best_response(twin, game.tables, WEIGHTS, twin_values) == action
                checked += 1
            else:
                action = opponent.act_batch(state[None], None, None)[0]
            rules.step(state, game.tables, action)
    assert checked > 30


def test_the_benchmark_plays_and_refuses(capsys, tmp_path):
    module = runpy.run_path(str(BENCHMARK))
    config = tmp_path / "pair.yaml"
    config.write_text("env_id: gallifrey_duel_v1\noptions: {pair: 'Dalek, Cyberman', scene: 'Skaro corridor'}\n")
    assert module["main"](["gallifrey_duel_v1", "--games", "6", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "best response" in out and "the dynamic programme's win chance" in out
    with pytest.raises(SystemExit):
        module["main"](["tardis_run_v0", "--games", "6"])
    assert "has no exact best response" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        module["main"](["gallifrey_duel_v1", "--games", "5"])
    assert "even" in capsys.readouterr().err


def deck_order(seed, shuffles):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(DECK_SIZE) for _ in range(shuffles)]).astype(np.int64)


def test_a_fight_of_one_exchange_bounds_at_what_counting_wins():
    """A fight of one exchange has nothing after it to know: every order bounds it at what one
    counting the cards wins, all 36 left. That is not the full-deck value where both sides draw:
    the second card of an exchange is one of the 35 the first leaves."""
    game = gallifrey_duel_v1.Game(pair="Dalek, Cyberman", scene="Telos, the tombs", threat="dangerous", max_exchanges=1)
    state = game.new_state(0)
    orders = np.stack([deck_order(seed, 1) for seed in range(3)])
    for seat in (0, 1):
        counted = exchange_by_brute_force(game, state, seat, lambda after: 0.0, left=list(range(DECK_SIZE)))
        np.testing.assert_allclose(heuristic.counting_bounds(state, game.tables, WEIGHTS, seat, orders), counted, rtol=0, atol=1e-12)
    value = heuristic.best_response_values(state, game.tables, WEIGHTS, 0, False)[0, heuristic.fight_position(state, game.tables)]
    assert (
        0.0 < counted < 1.0 and abs(value - exchange_by_brute_force(game, state, 0, lambda after: 0.0, left=list(range(DECK_SIZE)))) > 1e-4
    )


def test_a_deck_order_too_short_for_the_fight_is_refused():
    game = gallifrey_duel_v1.Game(pair="Dalek, Cyberman", max_exchanges=19)
    with pytest.raises(ValueError, match="whole shuffles"):
        heuristic.counting_bounds(game.new_state(0), game.tables, WEIGHTS, 0, np.stack([deck_order(0, 1)]))


@pytest.mark.parametrize(
    "options, seat",
    [
        # the scene's Flux card is the Cyberman's War card
        (dict(pair="Dalek, Cyberman", threat="dangerous"), 1),
        # contest: who attacks changes with the exchange; both with an Edge
        (dict(pair="Sontaran, UNIT Soldier", threat="deadly", mode="contest", forced_draw_p=0.5), 0),
    ],
)
def test_the_counting_bound_counts_the_cards_left(options, seat):
    """The bound's last two exchanges, by brute force over the rules' own step. In the last: the
    best chance of winning over every ordered pair of the cards left in this order's shuffle (the
    drawn cards are public), from none drawn to a shuffle's last card and past it. In the one
    before: each choice valued by the full-deck values of what it leads to over the cards left,
    plus what this order's own cards make of the last exchange beyond those values."""
    exchanges = 19  # room for 36 cards drawn before the last exchange
    game = gallifrey_duel_v1.Game(scene="Telos, the tombs", max_exchanges=exchanges, **options)
    state = position(game, injuries=(1, 1))
    order = deck_order(7, 2)
    outcomes = heuristic.fight_outcomes(state, game.tables, WEIGHTS, seat, False)
    values = heuristic.best_response_values(state, game.tables, WEIGHTS, seat, False)
    bound = heuristic.counting_bound_values(game.tables, outcomes, values, order)
    here = heuristic.fight_position(state, game.tables)
    last = exchanges - 1

    def left(drawn):
        return list(order[drawn : (drawn // DECK_SIZE + 1) * DECK_SIZE])

    state[EXCHANGE] = last
    for drawn in (0, 1, 17, 34, 35, 36):
        expected = exchange_by_brute_force(game, state, seat, lambda after: 0.0, left=left(drawn))
        assert bound[last, here, drawn] == pytest.approx(expected, abs=1e-12), drawn

    def at(after):
        return heuristic.fight_position(after, game.tables)

    state[EXCHANGE] = last - 1
    for drawn in (0, 20, 34):  # at most 34 drawn in 17 exchanges; after 34, the last goes on past the shuffle
        expected = exchange_by_brute_force(
            game,
            state,
            seat,
            lambda after: values[last, at(after)],
            left=left(drawn),
            realised=(order[drawn : drawn + 2], lambda after, n: bound[last, at(after), drawn + n] - values[last, at(after)]),
        )
        assert bound[last - 1, here, drawn] == pytest.approx(expected, abs=1e-12), drawn
    assert len({round(bound[last - 1, here, drawn], 9) for drawn in (0, 20, 34)}) == 3  # the cards left matter


def test_the_benchmark_bounds_counting_the_cards(capsys, tmp_path):
    module = runpy.run_path(str(BENCHMARK))
    config = tmp_path / "pair.yaml"
    config.write_text("env_id: gallifrey_duel_v1\noptions: {pair: 'Dalek, Cyberman', scene: 'Skaro corridor', max_exchanges: 8}\n")
    saved = tmp_path / "bound.csv"
    assert module["main"](["gallifrey_duel_v1", "--counting-bound", "2", "--config", str(config), "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[1:4]}
    assert set(rows) == {"first", "second", "both"} and "1 fight settings x 2 seats, 2 deck orders each" in out
    lines = saved.read_text().splitlines()
    assert lines[0] == "first,second,scene,seat,best_response,bound_1,bound_2" and len(lines) == 3
    assert lines[1].startswith("Dalek,Cyberman,Skaro corridor,0,")
    # a setting the best response wins at least --counted-as-won of counts as 1; with none, the bound is the plain mean
    module["main"](["gallifrey_duel_v1", "--counting-bound", "2", "--config", str(config), "--counted-as-won", "0"])
    assert capsys.readouterr().out.splitlines()[3].split()[2] == "100.00%"
    module["main"](["gallifrey_duel_v1", "--counting-bound", "2", "--config", str(config), "--counted-as-won", "1.01"])
    both = capsys.readouterr().out.splitlines()[3].split()
    assert both[0] == "both" and both[2] == both[8] and both[5:7] == ["0", "of"]
    for args, message in [
        (["--counting-bound", "1"], "at least 2 deck orders"),
        (["--counting-bound", "2", "--save", str(saved)], "an existing file is not replaced"),
        (["--save", str(tmp_path / "new.csv")], "it needs --counting-bound"),
    ]:
        with pytest.raises(SystemExit):
            module["main"](["gallifrey_duel_v1", "--config", str(config), *args])
        assert message in capsys.readouterr().err
    assert saved.read_text().splitlines() == lines

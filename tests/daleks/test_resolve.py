"""Scripted Time of the Daleks outcomes: success and failure, help, fail costs, Finish,
the Dalek turn, win conditions, Time Anomalies and regeneration."""

import numpy as np
import pytest

from tardis_envs.core.state import REWARDS, RUNNING, STATUS, TERMINATED, TRUNCATED
from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks.content import T_ZONES, Z_REWARD, ZONE_FIELDS
from tardis_envs.games.daleks.phases import anomalies as AN
from tardis_envs.games.daleks.phases import daleks as DT
from tardis_envs.games.daleks.phases import resolve as R

from .helpers import (
    act,
    adventure,
    anomaly,
    card,
    clear_hand,
    companion,
    give_card,
    legal,
    new,
    put,
    set_companions,
    set_dice,
    set_dilemma,
)

EARTH_PRESENT = (0, 1)


def resolved(raw, s):
    s[L.STAGE] = L.S_RESOLVE
    R.resolve(s, raw.game.tables)
    return s


def earth_reward(raw, z):
    base = T_ZONES + z * ZONE_FIELDS + Z_REWARD
    return [(int(raw.game.tables[base + 2 * j]), int(raw.game.tables[base + 2 * j + 1])) for j in range(4)]


def test_success_discards_the_dilemma_rewards_removes_a_dalek_promotes_companions():
    raw = new()
    s = adventure(raw, L.S_RESOLVE, zone=EARTH_PRESENT, symbols=["science"], helped=[("blue", "science")])
    set_companions(s, 0, ["Susan", "Barbara Wright"], part_time=("Barbara Wright",))
    set_dilemma(s, 1, "The Silence")
    s[L.ZONE_DALEKS + 1] = 2
    s[L.TARDIS + 0], s[L.SONIC + 0] = 2, 1
    resolved(raw, s)
    assert s[L.LAST_RESULT] == 1 and s[L.ZONE_DILEMMA + 1] == -1
    assert s[L.DILEMMA_PLACE + [d.name for d in raw.game.content.dilemmas].index("The Silence")] == L.PLACE_DISCARD
    assert s[L.ZONE_DALEKS + 1] == 1
    assert (s[L.PART_TIME : L.PART_TIME + 3] == 0).all(), "Barbara is Full-Time now"
    moved = sum(c for e, c in earth_reward(raw, 1) if e == 7)
    assert s[L.TARDIS + 0] == 2 + moved


def test_failure_dismisses_part_timers_places_a_dalek_and_pays_the_fail_cost():
    raw = new()
    s = adventure(raw, L.S_RESOLVE, zone=EARTH_PRESENT, symbols=["science"], helped=[("red", "strength")])
    set_companions(s, 0, ["Susan", "Barbara Wright"], part_time=("Barbara Wright",))
    set_dilemma(s, 1, "The Silence")
    s[L.SHIP] = 0
    resolved(raw, s)
    assert s[L.LAST_RESULT] == 2
    assert s[L.COMPANION_PLACE + companion("Barbara Wright")] == L.PLACE_DECK
    assert s[L.ZONE_DALEKS + 1] == 1
    assert s[L.SHIP] == 3, "The Silence: Dalek Ship forward three"
    assert s[L.ZONE_DILEMMA + 1] >= 0


def test_the_teller_fails_with_a_companion_discarded_and_the_ship_two_spaces_forward():
    raw = new()
    s = adventure(raw, L.S_RESOLVE, zone=EARTH_PRESENT, symbols=["science"], helped=[("red", "strength")])
    set_companions(s, 0, ["Susan", "Barbara Wright"])
    set_dilemma(s, 1, "The Teller")
    s[L.SHIP] = 0
    resolved(raw, s)
    assert s[L.LAST_RESULT] == 2
    assert s[L.SHIP] == 2, "The Teller's second Fail line: the Dalek Ship forward two"
    assert s[L.OBL_COUNT] == 1 and s[L.OBLIGATIONS + 1] == L.OB_DISCARD_COMPANION


def test_a_finished_adventure_leaves_nothing_in_the_next_turns_view():
    from tardis_envs.games.daleks import rules
    from tardis_envs.games.daleks.observe import O_CHALLENGE, O_CONDITIONS, O_DICE, O_HELP, O_POOLS

    raw = new()
    s = adventure(
        raw,
        L.S_RESOLVE,
        zone=EARTH_PRESENT,
        symbols=["science", "science"],
        helped=[("blue", "science"), ("red", "strength")],
        helper=[("blue", "cunning")],
        helper_seat=1,
        help_mode=L.HELP_COME,
        conditions=1,
    )
    s[L.POOL : L.POOL + 8] = [0, 0, 1, 1, 0, 0, 1, 0]
    set_dilemma(s, 1, "Sutekh")
    s[L.SHIP] = 0
    resolved(raw, s)
    rules.advance(s, raw.game.tables, np.zeros(L.NUM_ACTIONS, dtype=np.int8))  # Finish, then seat 1's turn
    assert s[L.ACTIVE] == 1 and s[L.STAGE] in (L.S_PREPARE, L.S_TRAVEL)
    assert raw.game.describe(s)["adventure"] is None
    obs = raw.game.observation(s, 1)
    assert not obs[O_CHALLENGE : O_CHALLENGE + 6].any(), "the previous adventure's Challenge"
    assert not obs[O_CONDITIONS : O_CONDITIONS + 3].any(), "its conditions"
    assert obs[O_HELP : O_HELP + 3].tolist() == [1, 0, 0], "help: none"
    assert not obs[O_POOLS : O_POOLS + 8].any() and not obs[O_DICE : O_DICE + 16 * 12].any(), "its pools and dice"


def choice_dilemma(raw):
    """A Dilemma whose first Fail option discards two cards and whose second moves the Ship."""
    for d in raw.game.content.dilemmas:
        if len(d.fail) == 2 and [(e.effect, e.count) for e in d.fail[0]] == [(12, 2)]:
            return d
    raise AssertionError("no such Dilemma in the content")


def test_a_fail_cost_choice_offers_only_what_the_doctor_can_pay():
    raw = new()
    s = adventure(raw, L.S_RESOLVE, zone=EARTH_PRESENT, symbols=["science"], helped=[("red", "strength")])
    dil = choice_dilemma(raw)
    set_dilemma(s, 1, dil.name)
    clear_hand(s, 0)
    give_card(s, 0, "Fez")
    resolved(raw, s)
    assert s[L.STAGE] == L.S_FAIL_CHOICE
    put(raw, s)
    options = legal(raw)
    assert len(options) == 1 and next(iter(options)).startswith("fail cost 2"), "one card in hand: cannot discard two"
    give_card(s, 0, "Stetson")
    put(raw, s)
    assert {a[:11] for a in legal(raw)} == {"fail cost 1", "fail cost 2"}
    act(raw, "fail cost 1: discard 2 timey-wimey")
    assert [o["kind"] for o in raw.describe()["obligations"]] == ["discard card", "discard card"]
    act(raw, "discard fez")  # the second card is the only one left: discarded automatically
    s = raw.get_state()
    assert s[L.CARD_PLACE + card("Fez")] == L.PLACE_DISCARD and s[L.CARD_PLACE + card("Stetson")] == L.PLACE_DISCARD


def test_help_from_afar_draws_on_success_and_pays_on_failure():
    raw = new()
    s = adventure(
        raw,
        L.S_RESOLVE,
        symbols=["science"],
        helped=[("red", "strength")],
        helper=[("blue", "science")],
        helper_seat=1,
        help_mode=L.HELP_AFAR,
    )
    hand = lambda st: int((st[L.CARD_PLACE : L.CARD_PLACE + 30] == 1).sum())  # noqa: E731
    before = hand(s)
    resolved(raw, s)
    assert s[L.LAST_RESULT] == 1 and hand(s) == before + 1
    s = adventure(
        raw,
        L.S_RESOLVE,
        symbols=["science"],
        helped=[("red", "strength")],
        helper=[("red", "strength")],
        helper_seat=1,
        help_mode=L.HELP_AFAR,
    )
    resolved(raw, s)
    queue = [(int(s[L.OBLIGATIONS + 3 * i]), int(s[L.OBLIGATIONS + 3 * i + 1])) for i in range(s[L.OBL_COUNT])]
    assert s[L.LAST_RESULT] == 2 and queue[0] == (1, L.OB_PAY), "the helper discards a Sonic token or a card"


def test_help_at_the_location_shares_rewards_and_failures():
    raw = new()
    s = adventure(
        raw,
        L.S_RESOLVE,
        zone=EARTH_PRESENT,
        symbols=["science"],
        helped=[("red", "strength")],
        helper=[("blue", "science")],
        helper_seat=1,
        help_mode=L.HELP_COME,
    )
    s[L.ZONE_DALEKS + 1] = 2
    s[L.TARDIS + 1] = 2
    resolved(raw, s)
    moved = sum(c for e, c in earth_reward(raw, 1) if e == 7)
    assert s[L.TARDIS + 1] == 2 + moved, "the helper gains the reward too"
    assert s[L.ZONE_DALEKS + 1] == 0, "and removes another Dalek"
    s = adventure(
        raw,
        L.S_RESOLVE,
        zone=EARTH_PRESENT,
        symbols=["science"],
        helped=[("red", "strength")],
        helper=[("red", "strength")],
        helper_seat=1,
        help_mode=L.HELP_COME,
    )
    set_dilemma(s, 1, "The Silence")
    s[L.SHIP] = 0
    resolved(raw, s)
    assert s[L.ZONE_DALEKS + 1] == 2, "two Dalek markers"
    assert s[L.SHIP] == 6, "the Fail cost for both Doctors"


def test_calling_for_help_at_the_location_moves_the_ship_two():
    raw = new()
    s = adventure(raw, L.S_CALL_HELP, zone=EARTH_PRESENT)
    s[L.SHIP] = 0
    s[L.SONIC + 1] = 2
    put(raw, s)
    act(raw, "call player_1 for help")
    act(raw, "pay with sonic") if "pay with sonic" in legal(raw) else None
    assert raw.get_state()[L.STAGE] == L.S_HELP_ANSWER and raw.agent_selection == "player_1"
    assert legal(raw) == {"help from afar", "come to help"}
    act(raw, "come to help")
    if "pay with sonic" in legal(raw):
        act(raw, "pay with sonic")
    s = raw.get_state()
    assert s[L.SHIP] == 2 and s[L.AT_SLOT + 1] == 0 and s[L.AT_ZONE + 1] == 1 and s[L.HELP_MODE] == L.HELP_COME


def test_finish_discards_empty_locations_refills_earth_and_enforces_the_hand_limit():
    raw = new()
    s = raw.get_state()
    s[L.SLOT_KIND + 4], s[L.SLOT_ID + 4] = L.SLOT_TILE, 3
    s[L.LOCATION_PLACE + 3] = 4
    s[L.SLOT_KIND + 5], s[L.SLOT_ID + 5] = L.SLOT_TILE, 5
    s[L.LOCATION_PLACE + 5] = 5
    s[L.ZONE_DALEKS + 5 * 3] = 1
    d = s[L.ZONE_DILEMMA + 2]
    s[L.ZONE_DILEMMA + 2] = -1
    s[L.DILEMMA_PLACE + d] = L.PLACE_DISCARD
    clear_hand(s, 0)
    for name in ("Fez", "Stetson", "Long Scarf", "Jelly Babies", "Psychic Paper", "Run!"):
        give_card(s, 0, name)
    s[L.ACTIVE] = 0
    R.finish(s, raw.game.tables)
    assert s[L.SLOT_KIND + 4] == L.SLOT_EMPTY and s[L.LOCATION_PLACE + 3] == L.PLACE_DISCARD
    assert s[L.SLOT_KIND + 5] == L.SLOT_TILE, "a Dalek marker keeps the Location in play"
    assert s[L.ZONE_DILEMMA + 2] >= 0 and s[L.ZONE_FACE_UP + 2] == 0
    assert s[L.OBL_COUNT] == 2 and all(s[L.OBLIGATIONS + 3 * i + 1] == L.OB_HAND_LIMIT for i in range(2))


def test_the_dalek_turn_moves_the_ship_and_draws_an_anomaly_at_a_marker():
    raw = new()
    s = raw.get_state()
    s[L.SHIP] = 5
    s[L.STAGE] = L.S_DALEK_TURN
    DT.dalek_turn(s, raw.game.tables)
    assert s[L.SHIP] == 6 and 6 not in s[L.MARKER : L.MARKER + 5]
    assert s[L.LAST_ANOMALY] >= 0
    assert (s[L.ANOMALY_STATE : L.ANOMALY_STATE + 8] != L.AS_DECK).sum() >= 1


def test_passing_several_markers_draws_one_anomaly_each():
    raw = new()
    s = raw.get_state()
    s[L.SHIP] = 5
    AN.move_ship(s, raw.game.tables, 5)  # passes 6 and 9
    assert s[L.SHIP] == 10
    drawn = (s[L.ANOMALY_STATE : L.ANOMALY_STATE + 8] != L.AS_DECK).sum()
    assert drawn >= 2


def check(raw, s):
    s[L.STAGE] = L.S_DALEK_CHECK
    DT.dalek_check(s, raw.game.tables)
    return s


def test_daleks_win_with_the_ship_on_gallifrey_even_if_a_tardis_is_there():
    raw = new()
    s = raw.get_state()
    s[L.SHIP] = 18
    s[L.TARDIS + 0] = 18
    check(raw, s)
    assert s[STATUS] == TERMINATED and s[L.WINNER] == L.WIN_SHIP
    assert list(s[REWARDS : REWARDS + 2]) == [-1, -1]


def test_daleks_win_with_three_daleks_on_earth():
    raw = new()
    s = raw.get_state()
    s[L.ZONE_DALEKS + 0], s[L.ZONE_DALEKS + 2] = 1, 2
    check(raw, s)
    assert s[L.WINNER] == L.WIN_EARTH


def test_doctors_on_gallifrey_win_and_only_they_score():
    raw = new(num_players=3)
    s = raw.get_state()
    s[L.TARDIS + 1] = 18
    check(raw, s)
    assert s[L.WINNER] == L.WIN_DOCTORS and list(s[REWARDS : REWARDS + 3]) == [0, 1, 0]


def test_a_solo_doctor_wins_plus_one_or_loses_minus_one():
    raw = new(num_players=1)
    s = raw.get_state()
    s[L.TARDIS + 0] = 18
    check(raw, s)
    assert s[REWARDS] == 1
    s = raw.get_state()
    s[L.SHIP] = 18
    check(raw, s)
    assert s[REWARDS] == -1


def test_a_seventh_dalek_ends_the_game_at_once():
    raw = new()
    s = adventure(raw, L.S_RESOLVE, zone=(0, 0), symbols=["science"], helped=[("red", "strength")])
    s[L.ZONE_DALEKS + 1], s[L.SLOT_KIND + 3], s[L.SLOT_ID + 3] = 1, L.SLOT_TILE, 2
    s[L.LOCATION_PLACE + 2] = 3
    s[L.ZONE_DALEKS + 9] = 5
    resolved(raw, s)
    assert s[STATUS] == TERMINATED and s[L.WINNER] == L.WIN_SEVENTH
    assert s[L.ZONE_DALEKS : L.ZONE_DALEKS + L.MAX_ZONES].sum() == 6


def test_the_game_is_truncated_after_max_rounds():
    raw = new(max_rounds=3)
    s = raw.get_state()
    s[L.ROUND] = 2
    check(raw, s)
    assert s[STATUS] == TRUNCATED and list(s[REWARDS : REWARDS + 2]) == [0, 0]


def test_the_time_of_the_doctor_regenerates_every_doctor_and_is_replaced():
    raw = new(num_players=2, doctors="Eleventh Doctor, Twelfth Doctor")
    s = raw.get_state()
    s[L.ANOMALY_STATE : L.ANOMALY_STATE + 8] = L.AS_DISCARD
    a = anomaly("The Time of the Doctor")
    s[L.ANOMALY_STATE + a] = L.AS_DECK
    s[L.ANOMALY_STATE + anomaly("The Dalek Invasion of Earth")] = L.AS_DECK
    s[L.SONIC + 0], s[L.SONIC + 1] = 0, 0
    AN.draw_anomalies(s, raw.game.tables, 1)
    if s[L.LAST_ANOMALY] != a:  # the other card came first: draw the second too
        AN.draw_anomalies(s, raw.game.tables, 1)
    names = [raw.game.content.doctors[d].name for d in s[L.DOCTOR : L.DOCTOR + 2]]
    assert names == ["Twelfth Doctor", "First Doctor"], "the last regenerates as the First"
    assert s[L.ANOMALY_STATE + anomaly("The Dalek Invasion of Earth")] == L.AS_DISCARD, "replaced by another card"
    assert s[L.OBL_COUNT] == 2 and {int(s[L.OBLIGATIONS + 1]), int(s[L.OBLIGATIONS + 4])} == {L.OB_DISMISS_COMPANION}
    assert s[L.SONIC + 0] >= 1
    assert s[L.COMPANION_PLACE + companion("Amy Pond")] == 0, "Companions stay with their player"


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_the_stolen_earth_places_one_dalek_on_earth_whatever_the_number_of_doctors(num_players):
    raw = new(num_players=num_players)
    s = raw.get_state()
    s[L.ANOMALY_STATE : L.ANOMALY_STATE + 8] = L.AS_DISCARD
    s[L.ANOMALY_STATE + anomaly("The Stolen Earth")] = L.AS_DECK
    s[L.ZONE_DALEKS : L.ZONE_DALEKS + 3] = [1, 0, 1]
    AN.draw_anomalies(s, raw.game.tables, 1)
    assert s[L.LAST_ANOMALY] == anomaly("The Stolen Earth")
    assert list(s[L.ZONE_DALEKS : L.ZONE_DALEKS + 3]) == [1, 1, 1], "one marker, in the zone with the fewest"
    assert s[STATUS] == RUNNING


def test_the_dalek_invasion_of_earth_acts_for_every_doctor():
    raw = new(num_players=3)
    s = raw.get_state()
    s[L.ANOMALY_STATE : L.ANOMALY_STATE + 8] = L.AS_DISCARD
    s[L.ANOMALY_STATE + anomaly("The Dalek Invasion of Earth")] = L.AS_DECK
    s[L.SONIC : L.SONIC + 3] = 2
    s[L.TARDIS : L.TARDIS + 3] = [5, 6, 7]
    AN.draw_anomalies(s, raw.game.tables, 1)
    assert list(s[L.SONIC : L.SONIC + 3]) == [1, 1, 1] and list(s[L.TARDIS : L.TARDIS + 3]) == [4, 5, 6]


def test_destiny_of_the_daleks_imprisons_green_dice_until_freed():
    raw = new()
    s = raw.get_state()
    s[L.ANOMALY_STATE : L.ANOMALY_STATE + 8] = L.AS_DISCARD
    a = anomaly("Destiny of the Daleks")
    s[L.ANOMALY_STATE + a] = L.AS_DECK
    AN.draw_anomalies(s, raw.game.tables, 1)
    assert s[L.ANOMALY_STATE + a] == L.AS_TASK and s[L.TASK_IMPRISONED + a] == 3
    s[L.ACTIVE] = 0
    set_companions(s, 0, ["Amy Pond"])
    s[L.BUILDER] = 0
    from tardis_envs.games.daleks.phases import adventure as A

    s[L.ADV_SLOT], s[L.ADV_ZONE] = 0, 0
    A.gather(s, raw.game.tables)
    assert s[L.POOL + 1] == 0, "no green die is free"
    s[L.CHALLENGE : L.CHALLENGE + 6] = [1, 0, 0, 0, 0, 0]
    set_dice(s, [("black", "running")])
    s[L.HELPER], s[L.HELP_MODE] = -1, 0
    R.resolve(s, raw.game.tables)
    assert s[L.TASK_IMPRISONED + a] == 2, "a success with Running frees one die"


def test_a_transfer_card_goes_to_another_doctor_after_use():
    raw = new()
    s = adventure(raw, L.S_MANIPULATE, helped=[("black", "running"), ("black", "cunning")], symbols=["strength", "strength"], sonic=5)
    clear_hand(s, 0)
    transfers = [k for k in raw.game.content.cards if k.type == 2 and k.timing in (2, 3) and k.effects[0].effect in (3, 4)]
    assert transfers, "a Transfer card with a dice effect"
    give_card(s, 0, transfers[0].name)
    put(raw, s)
    play = [a for a in legal(raw) if a.startswith("play " + transfers[0].name.lower())]
    act(raw, play[0])
    while raw.get_state()[L.STAGE] == L.S_SELECT:
        act(raw, sorted(a for a in legal(raw) if a.startswith("choose"))[0])
    assert raw.get_state()[L.STAGE] == L.S_GIVE or raw.get_state()[L.CARD_PLACE + card(transfers[0].name)] == 1
    if raw.get_state()[L.STAGE] == L.S_GIVE:
        act(raw, "give the card to player_1")
    assert raw.get_state()[L.CARD_PLACE + card(transfers[0].name)] == 1


def test_bystanders_with_any_adventure_cards_are_asked_after_the_roll():
    raw = new(num_players=3)
    s = adventure(raw, L.S_ROLL, symbols=["strength"] * 6, sonic=0)
    s[L.POOL : L.POOL + 4] = [2, 0, 0, 0]
    clear_hand(s, 1)
    clear_hand(s, 2)
    give_card(s, 2, "Fish Fingers & Custard")
    s[L.SONIC + 2] = 5  # (not loaded: a state waits in no automatic stage such as the roll)
    from tardis_envs.games.daleks import rules

    scratch = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.advance(s, raw.game.tables, scratch)
    assert s[L.STAGE] == L.S_WINDOW and s[L.WINDOW_SEAT] == 2, "seat 1 holds nothing usable: not asked"
    put(raw, s)
    assert "pass" in legal(raw) and any(a.startswith("play fish fingers") for a in legal(raw))

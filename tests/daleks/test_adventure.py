"""Scripted Time of the Daleks adventures: recruiting, help, the dice pool, re-rolls and face changes."""

import pytest

from tardis_envs.core.state import RNG_COUNTER
from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks.phases import adventure as A

from .helpers import (
    act,
    adventure,
    card,
    clear_hand,
    companion,
    dice,
    legal,
    location,
    new,
    put,
    set_companions,
)


def at_recruit(raw, slot=0, z=0, seat=0):
    s = adventure(raw, L.S_RECRUIT, seat=seat, zone=(slot, z))
    return s


def test_recruit_on_earth_draws_from_the_earth_deck_after_paying():
    raw = new()
    s = at_recruit(raw)
    put(raw, s)
    options = legal(raw)
    assert "recruit from the earth deck" in options and "recruit from the alien deck" not in options
    assert "recruit barbara wright by a link" in options, "Susan's Link to an Earth Companion works on Earth"
    assert "recruit susan by a link" not in options
    act(raw, "recruit from the earth deck")
    assert raw.describe()["obligations"][0]["kind"] == "pay"
    act(raw, "pay with sonic")
    s = raw.get_state()
    assert s[L.SONIC + 0] == 4
    comps = raw.describe()["doctors"]["player_0"]["companions"]
    assert len(comps) == 2 and comps[1]["part_time"]
    assert raw.game.content.companions[companion(comps[1]["name"])].deck == "earth"


def test_recruit_elsewhere_draws_aliens_and_cannot_use_earth_links():
    raw = new()
    s = adventure(raw, L.S_RECRUIT, zone=(3, 0))
    s[L.SLOT_KIND + 3] = L.SLOT_TILE  # Mars in slot 3, where the Doctor stands
    s[L.SLOT_ID + 3] = location("Mars")
    s[L.LOCATION_PLACE + location("Mars")] = 3
    put(raw, s)
    options = legal(raw)
    assert "recruit from the alien deck" in options and "recruit from the earth deck" not in options
    assert "recruit barbara wright by a link" not in options


def test_a_linked_search_pays_and_takes_that_companion():
    raw = new()
    put(raw, at_recruit(raw))
    act(raw, "recruit barbara wright by a link")
    act(raw, f"discard {raw.describe()['doctors']['player_0']['hand'][0]}".lower())
    names = [c["name"] for c in raw.describe()["doctors"]["player_0"]["companions"]]
    assert "Barbara Wright" in names


def test_no_recruit_without_a_space_or_a_way_to_pay():
    raw = new()
    s = at_recruit(raw)
    set_companions(s, 0, ["Susan", "Barbara Wright", "Ian Chesterton"])
    put(raw, s)
    assert legal(raw) == {"recruit nobody"}
    s = at_recruit(raw)
    s[L.SONIC + 0] = 0
    clear_hand(s, 0)
    put(raw, s)
    assert legal(raw) == {"recruit nobody"}


def test_an_empty_companion_deck_is_not_refilled():
    raw = new()
    s = at_recruit(raw)
    for k, c in enumerate(raw.game.content.companions):
        if c.deck == "earth" and s[L.COMPANION_PLACE + k] == L.PLACE_DECK:
            s[L.COMPANION_PLACE + k] = L.PLACE_DISCARD
    put(raw, s)
    assert "recruit from the earth deck" not in legal(raw)


def gathered(raw, s, builder=0):
    s[L.BUILDER] = builder
    A.gather(s, raw.game.tables)
    return [int(x) for x in s[L.POOL + 4 * builder : L.POOL + 4 * builder + 4]]


def test_the_starting_pool_adds_doctor_companions_and_equipment():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    s = adventure(raw, L.S_GATHER)
    set_companions(s, 0, ["Amy Pond", "Rory Williams"])
    fez = card("Fez")
    s[L.CARD_PLACE + fez] = L.PLACE_INSTALLED + 0
    s[L.EQUIPMENT + 0] = fez
    assert gathered(raw, s) == [5, 1, 2, 0], "4 black + 1 blue, Amy green, Rory blue, Fez black (the rulebook's example)"


def test_focus_then_discard_down_to_eight():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    s = adventure(raw, L.S_GATHER, symbols=["strength"] * 4 + ["running"] * 4)
    set_companions(s, 0, ["Amy Pond", "Rory Williams", "Clara Oswald"])
    fez = card("Fez")
    s[L.CARD_PLACE + fez] = L.PLACE_INSTALLED + 0
    s[L.EQUIPMENT + 0] = fez
    assert gathered(raw, s) == [5, 2, 2, 1]
    put(raw, s)
    act(raw, "use rory williams: focus a black die to blue")
    assert list(raw.get_state()[L.POOL : L.POOL + 4]) == [4, 2, 3, 1]
    assert "use clara oswald: focus a black die to blue" not in legal(raw), "only three blue dice exist"
    act(raw, "dice pool done")
    assert raw.get_state()[L.STAGE] == L.S_POOL_DISCARD
    assert legal(raw) == {"discard a black die", "discard a green die", "discard a blue die", "discard a red die"}
    act(raw, "discard a black die")
    assert raw.get_state()[L.STAGE] == L.S_POOL_DISCARD, "ten dice: two to discard"
    act(raw, "discard a red die")
    s = raw.get_state()
    assert list(s[L.POOL : L.POOL + 4]) == [3, 2, 3, 0] and s[L.STAGE] != L.S_POOL_DISCARD
    assert len(dice(raw)) == 8, "rolled"


@pytest.mark.parametrize(
    "mode, breach, limits",
    [
        (0, 0, (8, None)),
        (0, 4, (7, None)),
        (L.HELP_AFAR, 0, (7, 1)),
        (L.HELP_AFAR, 4, (6, 1)),
        (L.HELP_COME, 0, (5, 3)),
        (L.HELP_COME, 4, (4, 3)),
    ],
)
def test_pool_limits_by_help_and_time_breach(mode, breach, limits):
    raw = new()
    s = adventure(raw, L.S_POOL, helper_seat=1 if mode else -1, help_mode=mode, conditions=breach)
    assert A.pool_limit(s, 0) == limits[0]
    if limits[1] is not None:
        assert A.pool_limit(s, 1) == limits[1]


def test_daleks_exterminate_dice_on_earth_only_in_the_doctors_zone():
    raw = new()
    s = adventure(raw, L.S_POOL, zone=(0, 1))
    s[L.ZONE_DALEKS + 0], s[L.ZONE_DALEKS + 1] = 1, 2
    s[L.POOL : L.POOL + 4] = [5, 0, 1, 0]
    put(raw, s)
    act(raw, "dice pool done")
    assert raw.get_state()[L.STAGE] == L.S_EXTERMINATE and raw.get_state()[L.SEL_LEFT] == 2
    act(raw, "exterminate a blue die")  # the second must be black: taken automatically
    s = raw.get_state()
    assert list(s[L.POOL : L.POOL + 4]) == [4, 0, 0, 0]
    assert sorted(c for c, _ in dice(raw)) == ["black"] * 4, "rolled after two exterminations"


def test_daleks_anywhere_at_a_location_tile_exterminate():
    raw = new()
    s = raw.get_state()
    s[L.SLOT_KIND + 2], s[L.SLOT_ID + 2] = L.SLOT_TILE, location("Mars")
    s[L.LOCATION_PLACE + location("Mars")] = 2
    s = adventure(raw, L.S_POOL, zone=(2, 0))
    s[L.ZONE_DALEKS + 2 * 3 + 1] = 1  # the other Time Zone
    s[L.POOL : L.POOL + 4] = [3, 0, 0, 0]
    s[L.SLOT_KIND + 2], s[L.SLOT_ID + 2] = L.SLOT_TILE, location("Mars")
    s[L.LOCATION_PLACE + location("Mars")] = 2
    put(raw, s)
    act(raw, "dice pool done")
    assert len(dice(raw)) == 2, "one Dalek at the Location took one die (a single choice, made automatically)"


def manipulating(raw, helped, symbols, **kw):
    s = adventure(raw, L.S_MANIPULATE, helped=helped, symbols=symbols, **kw)
    return put(raw, s)


def test_sonic_reroll_costs_two_and_sonic_face_change_three():
    raw = new()
    manipulating(raw, [("black", "running"), ("blue", "cunning")], ["science", "strength"], sonic=5)
    options = legal(raw)
    assert "re-roll black die 1 (running) for 2 sonic" in options
    assert "turn blue die 2 (cunning) to science for 3 sonic" in options
    act(raw, "turn blue die 2 (cunning) to science for 3 sonic")
    assert raw.get_state()[L.SONIC + 0] == 2
    assert "re-roll black die 1 (running) for 2 sonic" not in legal(raw), "no re-roll after a face change"
    assert not any(a.startswith("turn") for a in legal(raw)), "two Sonic left: no face change"


def test_discarding_a_black_die_rerolls_the_rest():
    raw = new()
    manipulating(
        raw, [("black", "running"), ("black", "running"), ("red", "tactics")], ["science", "science", "science", "science"], sonic=0
    )
    draws = raw.get_state()[RNG_COUNTER]
    act(raw, "discard black die 1 (running) to re-roll the rest")
    s = raw.get_state()
    assert s[L.DIE_COLOUR + 0] == -1 and s[RNG_COUNTER] >= draws + 2, "the two other dice were rolled again"
    assert sorted(c for c, _ in dice(raw)) == ["black", "red"]


def test_a_number_reroll_chooses_dice_one_by_one_then_commits():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    helped = [("black", "running"), ("black", "running"), ("black", "running"), ("blue", "cunning")]
    manipulating(raw, helped, ["strength", "strength", "strength", "strength"], sonic=0)
    act(raw, "use eleventh doctor: re-roll up to 2 black dice")
    assert raw.get_state()[L.STAGE] == L.S_SELECT
    options = legal(raw)
    assert "choose blue die 4 (cunning)" not in options and "choose black die 2 (running)" in options
    assert "re-roll the chosen dice" not in options, "choose at least one die first"
    before = raw.get_state()[3]
    act(raw, "choose black die 2 (running)")
    assert "re-roll the chosen dice" in legal(raw)
    act(raw, "choose black die 3 (running)")  # the second and last: re-rolled at once
    s = raw.get_state()
    assert s[L.STAGE] != L.S_SELECT and s[3] == before + 2, "two dice rolled"
    assert "use eleventh doctor: re-roll up to 2 black dice" not in legal(raw), "once per turn"


def test_fixed_point_blocks_card_and_sonic_rerolls_but_not_a_black_discard():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    manipulating(raw, [("black", "running"), ("black", "cunning")], ["strength"], sonic=5, conditions=1)
    options = legal(raw)
    assert not any("re-roll up to" in a or "for 2 sonic" in a for a in options)
    assert "discard black die 1 (running) to re-roll the rest" in options
    assert any(a.startswith("turn") for a in options)


def test_time_locked_blocks_card_and_sonic_face_changes():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    s = adventure(raw, L.S_MANIPULATE, helped=[("green", "running"), ("black", "cunning")], symbols=["diplomacy"], sonic=5, conditions=2)
    set_companions(s, 0, ["Amy Pond"])
    put(raw, s)
    options = legal(raw)
    assert not any(a.startswith("turn") or "change a" in a for a in options)
    s[L.ADV_CONDITIONS] = 0
    put(raw, s)
    assert "use amy pond: change a green die to diplomacy" in legal(raw)
    act(raw, "use amy pond: change a green die to diplomacy")
    assert raw.get_state()[L.LAST_RESULT] == 1, "the Challenge is met: resolved at once"


def test_stop_resolves_a_failure():
    raw = new()
    s = adventure(raw, L.S_MANIPULATE, helped=[("black", "running")], symbols=["strength"], zone=(0, 1), sonic=0)
    zone_dilemma = s[L.ZONE_DILEMMA + 1]
    put(raw, s)
    daleks = raw.get_state()[L.ZONE_DALEKS + 1]
    act(raw, "stop")
    while raw.get_state()[L.STAGE] == L.S_WINDOW:  # the other Doctor holds cards: offered the window, it passes
        raw.step(0)
    s = raw.get_state()
    assert s[L.LAST_RESULT] == 2
    assert s[L.ZONE_DALEKS + 1] == daleks + 1
    assert s[L.ZONE_DILEMMA + 1] == zone_dilemma, "a failed Dilemma stays"

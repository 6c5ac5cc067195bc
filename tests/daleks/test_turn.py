"""Scripted Time of the Daleks positions: Prepare and Travel."""

from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks.phases import prepare

from .helpers import act, card, clear_hand, companion, give_card, legal, new, put


def test_turn_start_gains_two_sonic_up_to_five_then_free_prepare_effects():
    raw = new()
    s = raw.get_state()
    assert s[L.SONIC + 0] == 5, "2 + 2, and Susan's +1 with the First Doctor"
    s[L.SONIC + 0] = 0
    s[L.ACTIVE] = 0
    prepare.turn_start(s, raw.game.tables)
    assert s[L.SONIC + 0] == 3
    s[L.SONIC + 1] = 4
    s[L.ACTIVE] = 1  # the Fourth Doctor has no Prepare gain
    prepare.turn_start(s, raw.game.tables)
    assert s[L.SONIC + 1] == 5, "capped at five"


def test_susan_gains_only_with_the_first_doctor():
    raw = new(doctors="Fourth Doctor, Eleventh Doctor")
    s = raw.get_state()
    before = s[L.SONIC + 0]
    s[L.COMPANION_PLACE + companion("Sarah Jane Smith")] = L.PLACE_DECK
    s[L.COMPANION + 0] = companion("Susan")
    s[L.COMPANION_PLACE + companion("Susan")] = 0
    s[L.SONIC + 0] = 0
    prepare.turn_start(s, raw.game.tables)
    assert s[L.SONIC + 0] == 2
    assert before == 4


def test_install_pays_the_sonic_cost_into_two_slots():
    raw = new()
    s = raw.get_state()
    clear_hand(s, 0)
    for name in ("Fez", "Long Scarf", "Stetson"):
        give_card(s, 0, name)
    put(raw, s)
    act(raw, "install fez")
    s = raw.get_state()
    assert s[L.SONIC + 0] == 5 - raw.game.content.cards[card("Fez")].cost
    assert s[L.CARD_PLACE + card("Fez")] == L.PLACE_INSTALLED + 0
    act(raw, "install long scarf")
    assert "install stetson" not in legal(raw), "both Equipment slots are full"
    act(raw, "uninstall fez")
    assert raw.get_state()[L.CARD_PLACE + card("Fez")] == L.PLACE_DISCARD
    assert "install stetson" in legal(raw) or raw.get_state()[L.SONIC + 0] < raw.game.content.cards[card("Stetson")].cost


def test_the_eleventh_doctor_pays_one_sonic_less():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    s = raw.get_state()
    clear_hand(s, 0)
    give_card(s, 0, "Sonic Screwdriver")
    s[L.SONIC + 0] = 2
    put(raw, s)
    assert raw.game.content.cards[card("Sonic Screwdriver")].cost == 3
    act(raw, "install sonic screwdriver")
    assert raw.get_state()[L.SONIC + 0] == 0


def test_dismiss_returns_a_companion_to_its_deck():
    raw = new()
    act(raw, "dismiss susan")
    s = raw.get_state()
    assert s[L.COMPANION_PLACE + companion("Susan")] == L.PLACE_DECK
    assert (s[L.COMPANION : L.COMPANION + 3] == -1).all()


def test_library_card_trades_for_equipment_on_another_console():
    raw = new()
    s = raw.get_state()
    library, fez = card("The Doctor's Library Card"), card("Fez")
    s[L.CARD_PLACE + library] = L.PLACE_INSTALLED + 0
    s[L.EQUIPMENT + 0] = library
    s[L.CARD_PLACE + fez] = L.PLACE_INSTALLED + 1
    s[L.EQUIPMENT + 2] = fez
    put(raw, s)
    act(raw, "trade library card for fez")
    s = raw.get_state()
    assert s[L.CARD_PLACE + fez] == L.PLACE_INSTALLED + 0 and s[L.EQUIPMENT + 0] == fez
    assert s[L.CARD_PLACE + library] == L.PLACE_INSTALLED + 1 and s[L.EQUIPMENT + 2] == library
    assert s[L.SONIC + 0] == 4, "a Sonic token to use it"


def test_tardis_tune_up_switches_with_a_random_card_of_another_hand():
    raw = new()
    s = raw.get_state()
    clear_hand(s, 0)
    clear_hand(s, 1)
    give_card(s, 0, "TARDIS Tune-Up")
    give_card(s, 1, "Fez")
    put(raw, s)
    act(raw, "switch tardis tune-up with player_1")
    s = raw.get_state()
    assert s[L.CARD_PLACE + card("Fez")] == 0 and s[L.CARD_PLACE + card("TARDIS Tune-Up")] == 1


def to_travel(raw):
    act(raw, "end prepare")
    assert raw.get_state()[L.STAGE] == L.S_TRAVEL


def test_first_travel_offers_earth_the_tardis_die_and_the_first_doctors_draw():
    raw = new()
    to_travel(raw)
    options = legal(raw)
    assert "stay" not in options, "on the console there is nowhere to stay"
    assert {
        "travel to earth past",
        "travel to earth present",
        "travel to earth future",
        "roll the tardis die",
        "draw a location instead of rolling",
    } <= options
    raw = new(doctors="Fourth Doctor, Eleventh Doctor")
    to_travel(raw)
    assert "draw a location instead of rolling" not in legal(raw)


def test_travel_to_earth_flips_the_dilemma_and_starts_the_adventure():
    raw = new()
    to_travel(raw)
    act(raw, "travel to earth present")
    s = raw.get_state()
    assert s[L.AT_SLOT + 0] == 0 and s[L.AT_ZONE + 0] == 1
    assert s[L.ZONE_FACE_UP + 1] == 1 and s[L.ZONE_FACE_UP + 0] == 0
    assert s[L.STAGE] in (L.S_RECRUIT, L.S_CALL_HELP) and s[L.CHALLENGE : L.CHALLENGE + 6].sum() >= 2


def test_a_tardis_face_draws_two_locations_keeps_one():
    raw = new(tardis_faces=6)
    to_travel(raw)
    act(raw, "roll the tardis die")
    assert raw.get_state()[L.LAST_TARDIS_DIE] == 1
    assert "draw two locations" in legal(raw) and "travel to earth past" in legal(raw)
    act(raw, "draw two locations")
    s = raw.get_state()
    first, second = int(s[L.DRAWN]), int(s[L.DRAWN + 1])
    assert first >= 0 and second >= 0 and first != second
    keep = sorted(a for a in legal(raw) if a.startswith("keep"))
    assert len(keep) == 4
    loc = raw.game.content.locations[second]
    act(raw, f"keep {loc.name}, go to {loc.zones[1].name}".lower())
    s = raw.get_state()
    slot = s[L.AT_SLOT + 0]
    assert s[L.SLOT_KIND + slot] == L.SLOT_TILE and s[L.SLOT_ID + slot] == second and s[L.AT_ZONE + 0] == 1
    assert s[L.LOCATION_PLACE + first] == L.PLACE_DISCARD and s[L.LOCATION_PLACE + second] == slot
    zone0, zone1 = slot * 3, slot * 3 + 1
    assert s[L.ZONE_DILEMMA + zone0] >= 0 and s[L.ZONE_DILEMMA + zone1] >= 0
    assert s[L.ZONE_FACE_UP + zone1] == 1 and s[L.ZONE_FACE_UP + zone0] == 0, "only the Doctor's zone is flipped"


def test_a_question_mark_draws_one_location():
    raw = new(tardis_faces=0)
    to_travel(raw)
    act(raw, "roll the tardis die")
    s = raw.get_state()
    assert s[L.LAST_TARDIS_DIE] == 0 and s[L.DRAWN + 1] == -1
    assert len([a for a in legal(raw) if a.startswith("keep")]) == 2


def test_the_first_doctor_draws_a_location_and_a_card():
    raw = new()
    to_travel(raw)
    hand = (raw.get_state()[L.CARD_PLACE : L.CARD_PLACE + 30] == 0).sum()
    act(raw, "draw a location instead of rolling")
    s = raw.get_state()
    assert (s[L.CARD_PLACE : L.CARD_PLACE + 30] == 0).sum() == hand + 1
    assert s[L.DRAWN] >= 0 and len([a for a in legal(raw) if a.startswith("keep")]) == 2


def test_stay_needs_an_unsolved_dilemma_in_the_zone():
    raw = new()
    s = raw.get_state()
    s[L.AT_SLOT + 0], s[L.AT_ZONE + 0] = 0, 2
    s[L.STAGE] = L.S_TRAVEL
    put(raw, s)
    assert "stay" in legal(raw) and "travel to earth future" not in legal(raw)
    d = s[L.ZONE_DILEMMA + 2]
    s[L.ZONE_DILEMMA + 2] = -1
    s[L.DILEMMA_PLACE + d] = L.PLACE_DISCARD
    put(raw, s)
    assert "stay" not in legal(raw)


def test_locations_reshuffle_when_the_deck_runs_out():
    raw = new(tardis_faces=0)
    s = raw.get_state()
    s[L.LOCATION_PLACE : L.LOCATION_PLACE + 20] = L.PLACE_DISCARD
    s[L.STAGE] = L.S_TRAVEL
    put(raw, s)
    act(raw, "roll the tardis die")
    s = raw.get_state()
    assert s[L.DRAWN] >= 0
    assert (s[L.LOCATION_PLACE : L.LOCATION_PLACE + 20] == L.PLACE_DECK).sum() == 19


def travel_with_into_the_dalek_in_play():
    """A raw env and a state at seat 0's Travel step with Into the Dalek in play (slot 5)."""
    raw = new()
    s = raw.get_state()
    a = [x.name for x in raw.game.content.anomalies].index("Into the Dalek")
    s[L.ANOMALY_STATE + a] = L.AS_LOCATION
    s[L.ANOMALY_SLOT + a] = 5
    s[L.SLOT_KIND + 5] = L.SLOT_ANOMALY
    s[L.SLOT_ID + 5] = a
    s[L.STAGE] = L.S_TRAVEL
    return raw, s


def test_into_the_dalek_taxes_travel_to_other_locations():
    raw, s = travel_with_into_the_dalek_in_play()
    s[L.SONIC + 0] = 3
    put(raw, s)
    assert "travel to into the dalek" in legal(raw)
    act(raw, "travel to earth past")
    assert raw.describe()["obligations"] and raw.describe()["obligations"][0]["kind"] == "tax"
    assert "pay with sonic" in legal(raw)
    act(raw, "pay with sonic")
    assert raw.get_state()[L.SONIC + 0] == 1
    s = raw.get_state()
    s[L.SONIC + 0] = 1
    clear_hand(s, 0)
    s[L.STAGE] = L.S_TRAVEL
    s[L.OBL_COUNT] = 0
    s[L.AT_SLOT + 0] = -1
    put(raw, s)
    assert legal(raw) == {"travel to into the dalek"}, "cannot pay the tax: only the Time Anomaly"


def test_into_the_dalek_does_not_tax_moving_between_earth_zones():
    raw, s = travel_with_into_the_dalek_in_play()
    s[L.SONIC + 0] = 1
    clear_hand(s, 0)
    s[L.AT_SLOT + 0], s[L.AT_ZONE + 0] = 0, 0
    put(raw, s)
    assert "travel to earth present" in legal(raw), "moving between Earth's zones is no move to a Location"
    assert "roll the tardis die" not in legal(raw), "cannot pay the tax to leave Earth"
    act(raw, "travel to earth present")
    s = raw.get_state()
    assert s[L.OBL_COUNT] == 0 and s[L.SONIC + 0] == 1 and (s[L.AT_SLOT + 0], s[L.AT_ZONE + 0]) == (0, 1)

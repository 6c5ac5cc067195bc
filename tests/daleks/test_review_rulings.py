"""Rulings pinned after review: staying flips a refilled zone and may change zone within the
Location, a helper at the Location helps there, Transfer cards in transit, windows after
re-rolls, Dilemmas discarded unseen stay unknown."""

import numpy as np

from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks.observe import O_DILEMMA_DISCARD

from .helpers import act, adventure, card, clear_hand, give_card, legal, location, new, put, set_dilemma


def test_staying_flips_a_dilemma_laid_face_down_since():
    raw = new()
    s = raw.get_state()
    s[L.AT_SLOT + 0], s[L.AT_ZONE + 0] = 0, 1
    s[L.ZONE_FACE_UP + 1] = 0  # Finish refilled the zone face down
    s[L.STAGE] = L.S_TRAVEL
    put(raw, s)
    act(raw, "stay")
    s = raw.get_state()
    assert s[L.ZONE_FACE_UP + 1] == 1 and s[L.DILEMMA_SEEN + s[L.ZONE_DILEMMA + 1]] == 1


def test_staying_at_a_location_may_take_its_other_zone_without_the_die():
    raw = new()
    s = raw.get_state()
    mars = location("Mars")
    s[L.SLOT_KIND + 2], s[L.SLOT_ID + 2], s[L.LOCATION_PLACE + mars] = L.SLOT_TILE, mars, 2
    set_dilemma(s, 6, "Sutekh")
    set_dilemma(s, 7, "The Silence", face_up=False)
    s[L.AT_SLOT + 0], s[L.AT_ZONE + 0] = 2, 0
    s[L.STAGE] = L.S_TRAVEL
    put(raw, s)
    options = legal(raw)
    assert "stay" in options and "travel to mars future" in options
    act(raw, "travel to mars future")
    s = raw.get_state()
    assert s[L.AT_ZONE + 0] == 1 and s[L.ZONE_FACE_UP + 7] == 1 and s[L.LAST_TARDIS_DIE] == -1


def test_a_helper_already_at_the_location_helps_there_and_the_ship_moves():
    raw = new()
    s = adventure(raw, L.S_HELP_ANSWER, zone=(0, 1), helper_seat=1)
    s[L.AT_SLOT + 1], s[L.AT_ZONE + 1] = 0, 2
    s[L.SHIP] = 0
    put(raw, s)
    assert legal(raw) == {"come to help"}
    act(raw, "come to help")
    s = raw.get_state()
    assert s[L.HELP_MODE] == L.HELP_COME and s[L.SHIP] == 2 and s[L.AT_ZONE + 1] == 1


def test_a_transfer_card_in_transit_is_not_reshuffled_into_the_deck():
    raw = new()
    transfer = next(k for k in raw.game.content.cards if k.type == 2 and any(e.effect == 6 for e in k.effects))
    s = raw.get_state()
    clear_hand(s, 0)
    give_card(s, 0, transfer.name)
    s[L.CARD_PLACE : L.CARD_PLACE + 30] = np.where(
        s[L.CARD_PLACE : L.CARD_PLACE + 30] == L.PLACE_DECK, L.PLACE_DISCARD, s[L.CARD_PLACE : L.CARD_PLACE + 30]
    )
    s[L.SONIC + 0] = 5
    s[L.STAGE] = L.S_PREPARE
    put(raw, s)
    play = [a for a in legal(raw) if a.startswith("play " + transfer.name.lower())]
    act(raw, play[0])
    s = raw.get_state()
    c = card(transfer.name)
    assert s[L.CARD_PLACE + c] in (1, L.PLACE_GIVING), "held for its recipient, or already given"
    if s[L.STAGE] == L.S_GIVE:
        act(raw, "give the card to player_1")
    s = raw.get_state()
    assert s[L.CARD_PLACE + c] == 1
    assert (s[L.CARD_PLACE : L.CARD_PLACE + 30] == 0).sum() >= 1, "the draw came from the reshuffled pile, not the transfer"


def test_a_reroll_by_the_doctor_opens_a_window_for_bystanders():
    raw = new(num_players=3)
    s = adventure(raw, L.S_MANIPULATE, helped=[("black", "running"), ("black", "cunning")], symbols=["strength"] * 4, sonic=5)
    clear_hand(s, 1)
    clear_hand(s, 2)
    give_card(s, 2, "Fish Fingers & Custard")
    s[L.SONIC + 2] = 5
    put(raw, s)
    act(raw, "re-roll black die 1 (running) for 2 sonic")
    s = raw.get_state()
    assert s[L.STAGE] == L.S_WINDOW and s[L.WINDOW_SEAT] == 2 and s[L.WINDOW_RETURN] == L.S_MANIPULATE


def test_a_dilemma_discarded_unseen_stays_unknown():
    raw = new()
    s = raw.get_state()
    d = s[L.ZONE_DILEMMA + 0]  # face down on Earth Past
    s[L.ZONE_DILEMMA + 0] = -1
    s[L.DILEMMA_PLACE + d] = L.PLACE_DISCARD
    put(raw, s)
    assert raw.game.observation(raw.get_state(), 0)[O_DILEMMA_DISCARD + d] == 0
    s[L.DILEMMA_SEEN + d] = 1
    put(raw, s)
    assert raw.game.observation(raw.get_state(), 0)[O_DILEMMA_DISCARD + d] == 1

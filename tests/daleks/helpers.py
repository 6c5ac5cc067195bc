"""Scripting Time of the Daleks positions for tests: a raw env, named edits of its state,
actions by their words."""

import numpy as np

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER
from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks import rules
from tardis_envs.games.daleks.content import COLOURS, SYMBOLS, load_content

ENV_ID = "time_of_the_daleks_v2"
CONTENT = load_content()


def card(name):
    return [c.name for c in CONTENT.cards].index(name)


def companion(name):
    return CONTENT.companion_index(name)


def dilemma(name):
    return [d.name for d in CONTENT.dilemmas].index(name)


def location(name):
    return [x.name for x in CONTENT.locations].index(name)


def anomaly(name):
    return [a.name for a in CONTENT.anomalies].index(name)


def new(num_players=2, seed=0, **options):
    env = tardis_envs.make(ENV_ID, num_players=num_players, illegal_action="raise", **options)
    env.reset(seed=seed)
    return env.unwrapped


def put(raw, s):
    """Load an edited state; the seat to decide is derived from the stage."""
    s = s.copy()
    if s[L.OBL_COUNT] > 0:
        s[CURRENT_PLAYER] = s[L.OBLIGATIONS]
    else:
        s[CURRENT_PLAYER] = rules.decider(s)
    raw.set_state(s)
    return raw


def legal(raw):
    return {raw.action_to_string(a) for a in raw.legal_actions()}


def act(raw, text):
    options = legal(raw)
    assert text in options, f"{text!r} is not legal; legal: {sorted(options)}"
    raw.step(raw.string_to_action(text))


def clear_hand(s, seat):
    for c in range(len(CONTENT.cards)):
        if s[L.CARD_PLACE + c] == seat:
            s[L.CARD_PLACE + c] = L.PLACE_DECK


def give_card(s, seat, name):
    s[L.CARD_PLACE + card(name)] = seat


def set_companions(s, seat, names, part_time=()):
    for k in range(L.COMPANION_SPACES):
        old = s[L.COMPANION + seat * L.COMPANION_SPACES + k]
        if old >= 0:
            s[L.COMPANION_PLACE + old] = L.PLACE_DECK
        s[L.COMPANION + seat * L.COMPANION_SPACES + k] = -1
        s[L.PART_TIME + seat * L.COMPANION_SPACES + k] = 0
    for k, name in enumerate(names):
        i = companion(name)
        for slot in range(L.COMPANION + 0, L.COMPANION + 4 * L.COMPANION_SPACES):
            if s[slot] == i:  # taken from another console
                s[slot] = -1
                s[slot - L.COMPANION + L.PART_TIME] = 0
        s[L.COMPANION + seat * L.COMPANION_SPACES + k] = i
        s[L.PART_TIME + seat * L.COMPANION_SPACES + k] = int(name in part_time)
        s[L.COMPANION_PLACE + i] = seat


def set_dilemma(s, zone, name, face_up=True):
    old = s[L.ZONE_DILEMMA + zone]
    if old >= 0:
        s[L.DILEMMA_PLACE + old] = L.PLACE_DECK
    d = dilemma(name)
    if s[L.DILEMMA_PLACE + d] >= 0:
        s[L.ZONE_DILEMMA + s[L.DILEMMA_PLACE + d]] = -1
    s[L.ZONE_DILEMMA + zone] = d
    s[L.DILEMMA_PLACE + d] = zone
    s[L.ZONE_FACE_UP + zone] = int(face_up)


def challenge(s, symbols):
    s[L.CHALLENGE : L.CHALLENGE + 6] = 0
    for sym in symbols:
        s[L.CHALLENGE + SYMBOLS.index(sym)] += 1


def set_dice(s, helped, helper=()):
    """Rolled dice: lists of (colour, face) for the helped Doctor and the helper."""
    s[L.DIE_COLOUR : L.DIE_COLOUR + L.MAX_DICE] = -1
    s[L.DIE_FACE : L.DIE_FACE + L.MAX_DICE] = 0
    for base, dice in ((0, helped), (L.POOL_DICE, helper)):
        for k, (colour, face) in enumerate(dice):
            s[L.DIE_COLOUR + base + k] = COLOURS.index(colour)
            s[L.DIE_FACE + base + k] = SYMBOLS.index(face)


def dice(raw):
    s = raw.get_state()
    return [(COLOURS[s[L.DIE_COLOUR + d]], SYMBOLS[s[L.DIE_FACE + d]]) for d in range(L.MAX_DICE) if s[L.DIE_COLOUR + d] >= 0]


def at_earth(s, seat, z):
    s[L.AT_SLOT + seat] = 0
    s[L.AT_ZONE + seat] = z


def adventure(
    raw, stage, seat=0, zone=(0, 1), symbols=("science",), helped=(), helper=(), helper_seat=-1, help_mode=0, conditions=0, sonic=None
):
    """A state in the middle of ``seat``'s adventure at ``zone`` (slot, z)."""
    s = raw.get_state()
    s[L.ACTIVE] = seat
    slot, z = zone
    s[L.AT_SLOT + seat] = slot
    s[L.AT_ZONE + seat] = z
    s[L.ADV_SLOT] = slot
    s[L.ADV_ZONE] = z
    s[L.HELPER] = helper_seat
    s[L.HELP_MODE] = help_mode
    if helper_seat >= 0 and help_mode == L.HELP_COME:
        s[L.AT_SLOT + helper_seat] = slot
        s[L.AT_ZONE + helper_seat] = z
    challenge(s, symbols)
    s[L.ADV_CONDITIONS] = conditions
    set_dice(s, helped, helper)
    s[L.FACE_CHANGED] = 0
    s[L.MANIPULATOR] = 0
    s[L.SEL_ABILITY] = -1
    s[L.SEL_MASK] = 0
    s[L.STAGE] = stage
    s[L.OBL_COUNT] = 0
    s[L.USED : L.USED + L.MAX_ABILITIES] = 0
    if sonic is not None:
        s[L.SONIC + seat] = sonic
    return s


def counts_conserved(s, n):
    """Every card, Companion, Location and Dilemma is in exactly one valid place."""
    places = s[L.CARD_PLACE : L.CARD_PLACE + len(CONTENT.cards)]
    assert ((places >= L.PLACE_DISCARD) & ((places < n) | ((places >= L.PLACE_INSTALLED) & (places < L.PLACE_INSTALLED + n)))).all()
    for p in range(n):
        eq = s[L.EQUIPMENT + p * L.EQUIPMENT_SLOTS : L.EQUIPMENT + (p + 1) * L.EQUIPMENT_SLOTS]
        assert sorted(int(c) for c in eq if c >= 0) == sorted(int(c) for c in np.flatnonzero(places == L.PLACE_INSTALLED + p))


np.set_printoptions(linewidth=200)


def hide_differently(s, other):
    """A copy of ``s`` that differs only in what the seats other than ``other`` may not know:
    the generator, a card of ``other``'s hand swapped with the deck, and the Dilemma under a
    face-down tile."""
    from tardis_envs.core.state import RNG_KEY

    changed = s.copy()
    changed[RNG_KEY] ^= 0x5DEECE66D
    if other >= 0:
        hand = [c for c in range(30) if changed[L.CARD_PLACE + c] == other]
        deck = [c for c in range(30) if changed[L.CARD_PLACE + c] == L.PLACE_DECK]
        if hand and deck:
            changed[L.CARD_PLACE + hand[0]], changed[L.CARD_PLACE + deck[0]] = L.PLACE_DECK, other
    downs = [z for z in range(L.MAX_ZONES) if changed[L.ZONE_DILEMMA + z] >= 0 and not changed[L.ZONE_FACE_UP + z]]
    free = [d for d in range(25) if changed[L.DILEMMA_PLACE + d] == L.PLACE_DECK]
    if downs and free:
        z, d = downs[0], free[0]
        changed[L.DILEMMA_PLACE + changed[L.ZONE_DILEMMA + z]] = L.PLACE_DECK
        changed[L.DILEMMA_PLACE + d], changed[L.ZONE_DILEMMA + z] = z, d
    return changed

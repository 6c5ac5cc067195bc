"""Time of the Daleks in words: the names of seats, zones, dice and abilities, each action as
table talk and back, the whole state as a dictionary (``describe``) and the odds of the adventure
at hand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES
from . import layout as L
from .content import (
    ABILITY_COLOUR,
    ABILITY_COUNT,
    ABILITY_COUNT2,
    ABILITY_EFFECT,
    ABILITY_EFFECT2,
    ABILITY_FIELDS,
    ABILITY_MODE,
    ABILITY_OWNER,
    ABILITY_OWNER_KIND,
    ABILITY_SYMBOL,
    ANOMALY_KINDS,
    COLOURS,
    CONDITIONS,
    EFFECTS,
    NUM_ANOMALIES,
    NUM_CARDS,
    NUM_DILEMMAS,
    NUM_LOCATIONS,
    NUM_SYMBOLS,
    OWN_CARD,
    OWN_COMPANION,
    OWN_DOCTOR,
    REROLL_MODES,
    SYMBOLS,
    T_ABILITIES,
    T_NUM_ABILITIES,
    T_TRACK,
)
from .odds import meet_probability

if TYPE_CHECKING:
    from .game import TimeOfTheDaleks

EFFECT_COLOUR_WORDS = COLOURS + ("any", "coloured")


def _effect_words(effect: int, count: int, colour: int = -1, mode: int = 0, symbol: int = -1) -> str:
    name = EFFECTS[effect]
    colour_word = EFFECT_COLOUR_WORDS[colour] if colour >= 0 else ""
    if name == "add_die":
        return f"add {count} {colour_word} {'die' if count == 1 else 'dice'}"
    if name == "focus":
        return f"focus a black die to {colour_word}"
    if name == "reroll":
        how = REROLL_MODES[mode]
        if how == "number":
            return f"re-roll up to {count} {colour_word} {'die' if count == 1 else 'dice'}"
        return f"re-roll {'any' if how == 'any' else 'all'} {colour_word} dice"
    if name == "change_face":
        return f"change a {colour_word} die to {SYMBOLS[symbol]}"
    if name == "move_tardis":
        return f"move the TARDIS {'forward' if count > 0 else 'back'} {abs(count)}"
    if name == "move_ship":
        return f"move the Dalek Ship {'forward' if count > 0 else 'back'} {abs(count)}"
    if name == "place_dalek":
        return "place a Dalek on Earth" if count == 1 else "place a Dalek here"
    if name == "regenerate":
        return "the Doctors regenerate"
    words = {
        "gain_sonic": "gain {} sonic",
        "lose_sonic": "lose {} sonic",
        "draw": "draw {} timey-wimey",
        "remove_dalek": "remove {} dalek",
        "discard_cards": "discard {} timey-wimey",
        "discard_companion": "discard {} companion",
        "dismiss_companion": "dismiss {} companion",
        "free_die": "free {} die",
        "progress": "place {} progress",
    }
    if name in words:
        return words[name].format(count)
    return name.replace("_", " ")


def effect_list_words(pairs) -> str:
    return ", ".join(_effect_words(e, c) for e, c in pairs if e) or "nothing"


def ability_field(game: TimeOfTheDaleks, r: int, field: int) -> int:
    return int(game.tables[T_ABILITIES + r * ABILITY_FIELDS + field])


def owner_name(game: TimeOfTheDaleks, r: int) -> str:
    kind, owner = game.ability_field(r, ABILITY_OWNER_KIND), game.ability_field(r, ABILITY_OWNER)
    if kind == OWN_DOCTOR:
        return game.content.doctors[owner].name
    if kind == OWN_COMPANION:
        return game.content.companions[owner].name
    return game.content.cards[owner].name


def ability_words(game: TimeOfTheDaleks, r: int) -> str:
    words = _effect_words(
        game.ability_field(r, ABILITY_EFFECT),
        game.ability_field(r, ABILITY_COUNT),
        game.ability_field(r, ABILITY_COLOUR),
        game.ability_field(r, ABILITY_MODE),
        game.ability_field(r, ABILITY_SYMBOL),
    )
    if game.ability_field(r, ABILITY_EFFECT2):
        words += " and " + _effect_words(game.ability_field(r, ABILITY_EFFECT2), game.ability_field(r, ABILITY_COUNT2))
    return words


def ability_names(game: TimeOfTheDaleks) -> list[str]:
    """Each ability row's name as its action says it (``use <owner>: <effect>``, or ``play`` for a
    card played from the hand), numbered where two rows read alike."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for r in range(L.MAX_ABILITIES):
        if r >= int(game.tables[T_NUM_ABILITIES]):
            names.append(f"ability row {r + 1} (unused)")
            continue
        kind = game.ability_field(r, ABILITY_OWNER_KIND)
        verb = "play" if kind == OWN_CARD and game.content.cards[game.ability_field(r, ABILITY_OWNER)].type != 0 else "use"
        text = f"{verb} {game.owner_name(r)}: {game.ability_words(r)}".lower()
        seen[text] = seen.get(text, 0) + 1
        names.append(text if seen[text] == 1 else f"{text} ({seen[text]})")
    return names


def seat_name(game: TimeOfTheDaleks, seat: int) -> str:
    return game.agent_names[seat]


def zone_name(game: TimeOfTheDaleks, state: np.ndarray, zone: int) -> str:
    slot, z = divmod(zone, L.ZONES_PER_SLOT)
    kind = int(state[L.SLOT_KIND + slot])
    if kind == L.SLOT_EARTH:
        return game.content.earth[z].name
    if kind == L.SLOT_TILE:
        if z < 2:
            return game.content.locations[int(state[L.SLOT_ID + slot])].zones[z].name
    if kind == L.SLOT_ANOMALY and z == 0:
        return game.content.anomalies[int(state[L.SLOT_ID + slot])].name
    return f"location slot {slot + 1} zone {z + 1}"


def die_name(game: TimeOfTheDaleks, state: np.ndarray, d: int) -> str:
    colour = int(state[L.DIE_COLOUR + d])
    if colour < 0:
        return f"die {d + 1}"
    owner = "" if d < L.POOL_DICE else " (helper)"
    return f"{COLOURS[colour]} die {d + 1}{owner} ({SYMBOLS[int(state[L.DIE_FACE + d])]})"


def _done_name(game: TimeOfTheDaleks, state: np.ndarray) -> str:
    stage = int(state[L.STAGE])
    return {
        L.S_PREPARE: "end prepare",
        L.S_TRAVEL: "wait on the console",
        L.S_RECRUIT: "recruit nobody",
        L.S_CALL_HELP: "no help",
        L.S_POOL: "dice pool done",
        L.S_MANIPULATE: "stop",
        L.S_WINDOW: "pass",
    }.get(stage, "done")


def _seat_words(game: TimeOfTheDaleks, state: np.ndarray, j: int) -> str:
    n = game.num_players
    mover = int(state[CURRENT_PLAYER])
    if j >= n - 1:
        return f"seat +{j + 1}"
    return game.seat_name((mover + j + 1) % n)


def action_to_string(game: TimeOfTheDaleks, state: np.ndarray, action: int) -> str:
    return _action_words(game, state, action).lower()


def _action_words(game: TimeOfTheDaleks, state: np.ndarray, action: int) -> str:
    a = int(action)
    if not 0 <= a < L.NUM_ACTIONS:
        raise ValueError(f"{game.spec.env_id}: action {a} is outside 0..{L.NUM_ACTIONS - 1}")
    cards, comps = game.content.cards, game.content.companions
    stage = int(state[L.STAGE])
    if a == L.A_DONE:
        return _done_name(game, state)
    if a < L.A_UNINSTALL:
        return f"install {cards[a - L.A_INSTALL].name}".lower()
    if a < L.A_DISMISS:
        return f"uninstall {cards[a - L.A_UNINSTALL].name}".lower()
    if a < L.A_ABILITY:
        return f"dismiss {comps[a - L.A_DISMISS].name}".lower()
    if a < L.A_TRADE:
        return game._row_names[a - L.A_ABILITY]
    if a < L.A_SEAT:
        return f"trade library card for {cards[a - L.A_TRADE].name}".lower()
    if a < L.A_STAY:
        who = _seat_words(game, state, a - L.A_SEAT)
        if stage == L.S_CALL_HELP:
            return f"call {who} for help"
        if stage == L.S_GIVE:
            return f"give the card to {who}"
        return f"switch tardis tune-up with {who}"
    if a == L.A_STAY:
        return "stay"
    if a < L.A_ROLL_TARDIS:
        return f"travel to {game.zone_name(state, a - L.A_GOTO)}".lower()
    if a == L.A_ROLL_TARDIS:
        return "roll the tardis die"
    if a == L.A_FIRST_DOCTOR:
        return "draw a location instead of rolling"
    if a == L.A_DRAW_TWO:
        return "draw two locations"
    if a < L.A_RECRUIT_DECK:
        j, z = divmod(a - L.A_KEEP, 2)
        tile = int(state[L.DRAWN + j])
        if tile >= 0:
            return f"keep {game.content.locations[tile].name}, go to {game.content.locations[tile].zones[z].name}".lower()
        return f"keep drawn location {j + 1}, zone {z + 1}"
    if a < L.A_RECRUIT_LINK:
        return f"recruit from the {('earth', 'alien')[a - L.A_RECRUIT_DECK]} deck"
    if a < L.A_HELP_AFAR:
        return f"recruit {comps[a - L.A_RECRUIT_LINK].name} by a link".lower()
    if a == L.A_HELP_AFAR:
        return "help from afar"
    if a == L.A_HELP_COME:
        return "come to help"
    if a < L.A_EXTERMINATE:
        return f"discard a {COLOURS[a - L.A_DISCARD_DIE]} die"
    if a < L.A_SELECT:
        p, c = divmod(a - L.A_EXTERMINATE, 4)
        return f"exterminate a {COLOURS[c]} die" + (" of the helper" if p else "")
    if a < L.A_COMMIT:
        return f"choose {game.die_name(state, a - L.A_SELECT)}"
    if a == L.A_COMMIT:
        return "re-roll the chosen dice"
    if a < L.A_SONIC_FACE:
        return f"re-roll {game.die_name(state, a - L.A_SONIC_REROLL)} for 2 sonic"
    if a < L.A_BLACK_REROLL:
        d, s = divmod(a - L.A_SONIC_FACE, NUM_SYMBOLS)
        return f"turn {game.die_name(state, d)} to {SYMBOLS[s]} for 3 sonic"
    if a < L.A_FAIL_OPTION:
        return f"discard {game.die_name(state, a - L.A_BLACK_REROLL)} to re-roll the rest"
    if a < L.A_PAY_SONIC:
        k = a - L.A_FAIL_OPTION
        words = ""
        if stage == L.S_FAIL_CHOICE:
            d = int(state[L.FAIL_DILEMMA])
            words = ": " + effect_list_words(
                (e.effect, e.place if e.effect == 10 else e.count)
                for e in (game.content.dilemmas[d].fail[k] if k < len(game.content.dilemmas[d].fail) else ())
            )
        return f"fail cost {k + 1}{words}"
    if a == L.A_PAY_SONIC:
        return "pay with sonic"
    if a < L.A_LOSE_COMPANION:
        return f"discard {cards[a - L.A_DISCARD_CARD].name}".lower()
    return f"give up {comps[a - L.A_LOSE_COMPANION].name}".lower()


def string_to_action(game: TimeOfTheDaleks, state: np.ndarray, text: str) -> int:
    wanted = " ".join(str(text).lower().split())
    names = [game.action_to_string(state, a) for a in range(L.NUM_ACTIONS)]
    for a, name in enumerate(names):
        if name.lower() == wanted:
            return a
    legal = [names[a] for a in game.legal_actions(state)] if state[STATUS] == RUNNING else []
    raise ValueError(f"{game.spec.env_id}: unknown action {text!r}; legal now: {'; '.join(legal) or 'none'}")


# --- description ------------------------------------------------------------------------


def _card(game: TimeOfTheDaleks, c: int) -> dict:
    card = game.content.cards[c]
    return {"name": card.name, "type": ("equipment", "event", "transfer")[card.type], "cost": card.cost}


def describe(game: TimeOfTheDaleks, state: np.ndarray) -> dict:
    """The whole table in the game's words (not a seat's view: hands are listed).

    Keys: ``phase`` (the stage), ``status``, ``round``, ``current_player``,
    ``active_player``, ``winner`` (the winning side, "doctors" or "daleks", as
    in every game; None while running or truncated), ``reason`` (how:
    "doctors", "dalek ship on gallifrey", "three daleks on earth", "seventh
    dalek" or None), ``rewards``,
    ``web_of_time`` (Gallifrey's space, the Ship, anomaly markers, each TARDIS),
    ``doctors`` (per seat: Doctor, Sonic, hand, Companions with Part-Time flags,
    Equipment, where the Doctor is), ``locations`` (per slot in play: name,
    kind, zones with Dilemma / face up / Dalek markers / Doctors), ``anomalies``
    (in play: kind, progress, imprisoned dice), ``decks`` (sizes and discard
    piles), ``adventure`` (zone, Challenge, conditions, helper and how, dice pools,
    every die with colour and face, ``odds``: see :meth:`odds`), ``obligations``, ``last`` (TARDIS die,
    anomaly drawn, last adventure's result), ``daleks_placed``.
    """
    c = game.content
    n = game.num_players
    status = int(state[STATUS])
    out: dict = {
        "phase": L.STAGE_NAMES[int(state[L.STAGE])],
        "status": STATUS_NAMES[status],
        "round": int(state[L.ROUND]) + 1,
        "current_player": game.seat_name(int(state[CURRENT_PLAYER])) if status == RUNNING else None,
        "active_player": game.seat_name(int(state[L.ACTIVE])),
        "winner": ("doctors" if int(state[L.WINNER]) == L.WIN_DOCTORS else "daleks") if int(state[L.WINNER]) else None,
        "reason": L.WIN_NAMES[int(state[L.WINNER])] if int(state[L.WINNER]) else None,
        "rewards": {game.seat_name(p): int(state[REWARDS + p]) for p in range(n)},
        "web_of_time": {
            "gallifrey": int(game.tables[T_TRACK]),
            "dalek_ship": int(state[L.SHIP]),
            "anomaly_markers": sorted(int(m) for m in state[L.MARKER : L.MARKER + L.MARKER_SLOTS] if m >= 0),
            "tardis": {game.seat_name(p): int(state[L.TARDIS + p]) for p in range(n)},
        },
    }
    doctors = {}
    for p in range(n):
        slot = int(state[L.AT_SLOT + p])
        comps = []
        for k in range(L.COMPANION_SPACES):
            who = int(state[L.COMPANION + p * L.COMPANION_SPACES + k])
            if who >= 0:
                comps.append({"name": c.companions[who].name, "part_time": bool(state[L.PART_TIME + p * L.COMPANION_SPACES + k])})
        doctors[game.seat_name(p)] = {
            "doctor": c.doctors[int(state[L.DOCTOR + p])].name,
            "sonic": int(state[L.SONIC + p]),
            "hand": [c.cards[k].name for k in range(NUM_CARDS) if state[L.CARD_PLACE + k] == p],
            "companions": comps,
            "equipment": [
                c.cards[int(k)].name
                for k in state[L.EQUIPMENT + p * L.EQUIPMENT_SLOTS : L.EQUIPMENT + (p + 1) * L.EQUIPMENT_SLOTS]
                if k >= 0
            ],
            "at": "TARDIS console" if slot < 0 else game.zone_name(state, slot * L.ZONES_PER_SLOT + int(state[L.AT_ZONE + p])),
        }
    out["doctors"] = doctors
    locations = []
    for slot in range(L.MAX_SLOTS):
        kind = int(state[L.SLOT_KIND + slot])
        if kind == L.SLOT_EMPTY:
            continue
        if kind == L.SLOT_EARTH:
            name, zones = "Earth", 3
        elif kind == L.SLOT_TILE:
            name, zones = c.locations[int(state[L.SLOT_ID + slot])].name, 2
        else:
            name, zones = c.anomalies[int(state[L.SLOT_ID + slot])].name, 1
        zlist = []
        for z in range(zones):
            zone = slot * L.ZONES_PER_SLOT + z
            d = int(state[L.ZONE_DILEMMA + zone])
            zlist.append(
                {
                    "name": game.zone_name(state, zone),
                    "dilemma": (c.dilemmas[d].name if state[L.ZONE_FACE_UP + zone] else "face down") if d >= 0 else None,
                    "daleks": int(state[L.ZONE_DALEKS + zone]),
                    "doctors": [game.seat_name(p) for p in range(n) if state[L.AT_SLOT + p] == slot and state[L.AT_ZONE + p] == z],
                }
            )
        locations.append({"slot": slot, "name": name, "kind": ("empty", "earth", "location", "time anomaly")[kind], "zones": zlist})
    out["locations"] = locations
    anomalies = []
    for a in range(NUM_ANOMALIES):
        st = int(state[L.ANOMALY_STATE + a])
        if st in (L.AS_LOCATION, L.AS_TASK):
            anomalies.append(
                {
                    "name": c.anomalies[a].name,
                    "kind": ANOMALY_KINDS[c.anomalies[a].kind],
                    "progress": int(state[L.TASK_PROGRESS + a]),
                    "imprisoned_dice": int(state[L.TASK_IMPRISONED + a]),
                }
            )
    out["anomalies"] = anomalies
    out["decks"] = {
        "timey_wimey": int((state[L.CARD_PLACE : L.CARD_PLACE + NUM_CARDS] == L.PLACE_DECK).sum()),
        "timey_wimey_discard": [c.cards[k].name for k in range(NUM_CARDS) if state[L.CARD_PLACE + k] == L.PLACE_DISCARD],
        "locations": int((state[L.LOCATION_PLACE : L.LOCATION_PLACE + NUM_LOCATIONS] == L.PLACE_DECK).sum()),
        "dilemmas": int((state[L.DILEMMA_PLACE : L.DILEMMA_PLACE + NUM_DILEMMAS] == L.PLACE_DECK).sum()),
        "earth_companions": [
            x.name for k, x in enumerate(c.companions) if state[L.COMPANION_PLACE + k] == L.PLACE_DECK and x.deck == "earth"
        ],
        "alien_companions": [
            x.name for k, x in enumerate(c.companions) if state[L.COMPANION_PLACE + k] == L.PLACE_DECK and x.deck == "alien"
        ],
        "companions_discarded": [x.name for k, x in enumerate(c.companions) if state[L.COMPANION_PLACE + k] == L.PLACE_DISCARD],
        "anomalies": int((state[L.ANOMALY_STATE : L.ANOMALY_STATE + NUM_ANOMALIES] == L.AS_DECK).sum()),
    }
    adventure = None
    if status == RUNNING and int(state[L.ADV_SLOT]) >= 0:  # an adventure in progress (cleared at its Finish)
        zone = int(state[L.ADV_SLOT]) * L.ZONES_PER_SLOT + int(state[L.ADV_ZONE])
        helper = int(state[L.HELPER])
        dice = []
        for d in range(L.MAX_DICE):
            colour = int(state[L.DIE_COLOUR + d])
            if colour >= 0:
                dice.append(
                    {
                        "die": d + 1,
                        "owner": game.seat_name(int(state[L.ACTIVE]) if d < L.POOL_DICE else helper),
                        "colour": COLOURS[colour],
                        "face": SYMBOLS[int(state[L.DIE_FACE + d])],
                        "chosen": bool((int(state[L.SEL_MASK]) >> d) & 1),
                    }
                )
        adventure = {
            "zone": game.zone_name(state, zone),
            "challenge": [SYMBOLS[s] for s in range(NUM_SYMBOLS) for _ in range(int(state[L.CHALLENGE + s]))],
            "conditions": [CONDITIONS[b] for b in range(3) if (int(state[L.ADV_CONDITIONS]) >> b) & 1],
            "helper": game.seat_name(helper) if helper >= 0 else None,
            "help": ("none", "from afar", "at the location")[int(state[L.HELP_MODE])],
            "pools_before_roll": {
                "helped": {COLOURS[k]: int(state[L.POOL + k]) for k in range(4)},
                "helper": {COLOURS[k]: int(state[L.POOL + 4 + k]) for k in range(4)},
            },
            "dice": dice,
            "odds": game.odds(state),
        }
    out["adventure"] = adventure
    out["obligations"] = [
        {"seat": game.seat_name(int(state[L.OBLIGATIONS + 3 * i])), "kind": L.OBLIGATION_NAMES[int(state[L.OBLIGATIONS + 3 * i + 1])]}
        for i in range(int(state[L.OBL_COUNT]))
    ]
    die = int(state[L.LAST_TARDIS_DIE])
    last_anomaly = int(state[L.LAST_ANOMALY])
    result = int(state[L.LAST_RESULT])
    out["last"] = {
        "tardis_die": None if die < 0 else ("question mark", "tardis")[die],
        "anomaly_drawn": c.anomalies[last_anomaly].name if last_anomaly >= 0 else None,
        "adventure": None
        if result == 0
        else {"seat": game.seat_name(int(state[L.LAST_RESULT_SEAT])), "result": ("success", "failure")[result - 1]},
    }
    out["daleks_placed"] = int(state[L.DALEKS_PLACED])
    return game.with_ending(state, out)


def odds(game: TimeOfTheDaleks, state: np.ndarray) -> float:
    """Exact chance that the adventure's dice meet the Challenge: before the roll,
    rolling the pools gathered so far; after it, re-rolling every die that does not
    already cover a needed symbol once (1.0 once met)."""
    need = np.array(state[L.CHALLENGE : L.CHALLENGE + NUM_SYMBOLS], dtype=np.int64)
    colours = state[L.DIE_COLOUR : L.DIE_COLOUR + L.MAX_DICE]
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    roll = np.zeros(4, dtype=np.int64)
    if (colours < 0).all():
        roll += np.array(state[L.POOL : L.POOL + 4]) + np.array(state[L.POOL + 4 : L.POOL + 8])
    else:
        left = need.copy()
        for d in np.flatnonzero(colours >= 0):
            face = int(state[L.DIE_FACE + d])
            if left[face] > 0:
                left[face] -= 1
                fixed[face] += 1
            else:
                roll[int(colours[d])] += 1
    return round(float(meet_probability(fixed, roll, need)), 6)

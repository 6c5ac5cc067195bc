"""Time of the Daleks bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES
from . import ENV_ID, batch, check, heuristic, hidden, rules
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
    DOCTOR_NAMES,
    EFFECTS,
    MAX_EFFECTS,
    NUM_ANOMALIES,
    NUM_CARDS,
    NUM_COMPANIONS,
    NUM_DILEMMAS,
    NUM_DOCTORS,
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
    TIMINGS,
    Content,
    Effect,
    build_tables,
    load_content,
)
from .observe import OBS_SIZE
from .odds import meet_probability

EFFECT_COLOUR_WORDS = COLOURS + ("any", "coloured")


def _doctors_check(value: str) -> str | None:
    if value in ("default", "random"):
        return None
    names = [part.strip() for part in value.split(",") if part.strip()]
    try:
        for name in names:
            load_content().doctor_index(name)
    except ValueError as exc:
        return str(exc)
    if len(set(n.lower() for n in names)) != len(names):
        return "each Doctor may play once"
    return None


SPEC = GameSpec(
    env_id=ENV_ID,
    name="Time of the Daleks",
    version=2,
    rulebook="Doctor Who: Time of the Daleks",
    min_players=1,
    max_players=4,
    chance=True,
    hidden_information=True,
    status="complete",
    utility="general_sum",
    throughput_target=0.5e6,
    first_run_seconds=90,
    cooperative=True,
    loads_checkpoints_of=("time_of_the_daleks_v0", "time_of_the_daleks_v1"),
    options={
        "num_players": Option(2, "Doctors (players), 1-4", kind=int, choices=(1, 2, 3, 4)),
        "doctors": Option(
            "default",
            "'default' (First, Fourth, Eleventh, Twelfth by seat), 'random' (drawn each game) or "
            "the Doctors' names, comma separated (seated in regeneration order)",
            kind=str,
            check=_doctors_check,
        ),
        "first_game": Option(
            False,
            "the rulebook's first-game changes: 3 anomaly markers (VIII, XI, XIV), no advanced "
            "cards, Fixed Point / Time Locked / Time Breach ignored",
            kind=bool,
        ),
        "track_length": Option(18, "space of Gallifrey on the Web of Time (Skaro is 0, Earth 2)", kind=int, minimum=16, maximum=24),
        "max_rounds": Option(60, "rounds (every Doctor and the Daleks) before truncation", kind=int, minimum=1, maximum=1000),
        "tardis_faces": Option(
            3, "TARDIS faces of the six-sided TARDIS die (the others are question marks)", kind=int, minimum=0, maximum=6
        ),
    },
)


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


class TimeOfTheDaleks(Game):
    """Time of the Daleks; see :mod:`tardis_envs.time_of_the_daleks_v2` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, batch, hidden, check, heuristic)
    game_over = (L.STAGE, L.S_OVER)

    def _build(self) -> None:
        self.content: Content = load_content()
        o = self.options
        n = o["num_players"]
        if o["doctors"] == "default":
            seat_doctors = tuple(range(n))
        elif o["doctors"] == "random":
            seat_doctors = (-1,) * n
        else:
            names = [part.strip() for part in o["doctors"].split(",") if part.strip()]
            if len(names) != n:
                raise ValueError(f"time_of_the_daleks_v2: option 'doctors' names {len(names)} Doctors for {n} players")
            seat_doctors = tuple(sorted(self.content.doctor_index(x) for x in names))
        self.tables = build_tables(self.content, n, seat_doctors, o["first_game"], o["track_length"], o["max_rounds"], o["tardis_faces"])
        self.num_players = n
        self.agent_names = tuple(f"player_{i}" for i in range(n))
        self.num_actions = L.NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.observation_high = 4.0
        self.state_size = L.STATE_SIZE
        self.max_game_length = 200 * o["max_rounds"] * n
        c = self.content  # a draw picks from a deck, a hand, the Doctors or a die
        self.max_chance_outcomes = max(len(c.companions), len(c.cards), len(c.locations), len(c.dilemmas), len(c.anomalies), 6, n)
        self._row_names = self._ability_names()

    def _observation_denominators(self) -> np.ndarray:
        """The denominators of the fractions in observe.py's layout: the round out of
        ``max_rounds``, Sonic counters out of 5, hands out of 8, Dalek markers in a zone out of
        3, the three decks out of their sizes, each Time Anomaly's task progress out of what
        it needs and its prisoners out of 3, challenge symbols out of 4, gathered dice out of 8
        and dice left to select out of 8; every other entry is 0/1."""
        from . import observe as O
        from .content import AN_PROGRESS_NEEDED, ANOMALY_FIELDS, T_ANOMALIES, T_MAX_ROUNDS

        d = np.ones(OBS_SIZE, dtype=np.int64)
        d[O.O_ROUND] = self.tables[T_MAX_ROUNDS]
        for r in range(4):
            base = O.O_SEATS + r * O.SEAT_BLOCK
            d[base + O.SB_SONIC] = 5
            d[base + O.SB_HAND] = 8
        for slot in range(L.MAX_SLOTS):
            for z in range(L.ZONES_PER_SLOT):
                d[O.O_SLOTS + slot * O.SLOT_BLOCK + O.LB_ZONES + z * O.ZONE_BLOCK + O.ZB_DALEKS] = 3
        d[O.O_DECKS : O.O_DECKS + 3] = (O.NUM_CARDS, O.NUM_LOCATIONS, O.NUM_DILEMMAS)
        for a in range(O.NUM_ANOMALIES):
            base = O.O_ANOMALIES + a * O.ANOMALY_BLOCK
            d[base + 5] = max(int(self.tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_PROGRESS_NEEDED]), 1)
            d[base + 6] = 3
        d[O.O_CHALLENGE : O.O_CHALLENGE + O.NUM_SYMBOLS] = 4
        d[O.O_POOLS : O.O_POOLS + 2 * O.NUM_COLOURS] = 8
        d[O.O_SEL_LEFT] = 8
        return d

    # --- names ------------------------------------------------------------------------
    def ability_field(self, r: int, field: int) -> int:
        return int(self.tables[T_ABILITIES + r * ABILITY_FIELDS + field])

    def owner_name(self, r: int) -> str:
        kind, owner = self.ability_field(r, ABILITY_OWNER_KIND), self.ability_field(r, ABILITY_OWNER)
        if kind == OWN_DOCTOR:
            return self.content.doctors[owner].name
        if kind == OWN_COMPANION:
            return self.content.companions[owner].name
        return self.content.cards[owner].name

    def ability_words(self, r: int) -> str:
        words = _effect_words(
            self.ability_field(r, ABILITY_EFFECT),
            self.ability_field(r, ABILITY_COUNT),
            self.ability_field(r, ABILITY_COLOUR),
            self.ability_field(r, ABILITY_MODE),
            self.ability_field(r, ABILITY_SYMBOL),
        )
        if self.ability_field(r, ABILITY_EFFECT2):
            words += " and " + _effect_words(self.ability_field(r, ABILITY_EFFECT2), self.ability_field(r, ABILITY_COUNT2))
        return words

    def _ability_names(self) -> list[str]:
        names: list[str] = []
        seen: dict[str, int] = {}
        for r in range(L.MAX_ABILITIES):
            if r >= int(self.tables[T_NUM_ABILITIES]):
                names.append(f"ability row {r + 1} (unused)")
                continue
            kind = self.ability_field(r, ABILITY_OWNER_KIND)
            verb = "play" if kind == OWN_CARD and self.content.cards[self.ability_field(r, ABILITY_OWNER)].type != 0 else "use"
            text = f"{verb} {self.owner_name(r)}: {self.ability_words(r)}".lower()
            seen[text] = seen.get(text, 0) + 1
            names.append(text if seen[text] == 1 else f"{text} ({seen[text]})")
        return names

    def seat_name(self, seat: int) -> str:
        return self.agent_names[seat]

    def zone_name(self, state: np.ndarray, zone: int) -> str:
        slot, z = divmod(zone, L.ZONES_PER_SLOT)
        kind = int(state[L.SLOT_KIND + slot])
        if kind == L.SLOT_EARTH:
            return self.content.earth[z].name
        if kind == L.SLOT_TILE:
            if z < 2:
                return self.content.locations[int(state[L.SLOT_ID + slot])].zones[z].name
        if kind == L.SLOT_ANOMALY and z == 0:
            return self.content.anomalies[int(state[L.SLOT_ID + slot])].name
        return f"location slot {slot + 1} zone {z + 1}"

    def die_name(self, state: np.ndarray, d: int) -> str:
        colour = int(state[L.DIE_COLOUR + d])
        if colour < 0:
            return f"die {d + 1}"
        owner = "" if d < L.POOL_DICE else " (helper)"
        return f"{COLOURS[colour]} die {d + 1}{owner} ({SYMBOLS[int(state[L.DIE_FACE + d])]})"

    def _done_name(self, state: np.ndarray) -> str:
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

    def _seat_words(self, state: np.ndarray, j: int) -> str:
        n = self.num_players
        mover = int(state[CURRENT_PLAYER])
        if j >= n - 1:
            return f"seat +{j + 1}"
        return self.seat_name((mover + j + 1) % n)

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        return self._action_words(state, action).lower()

    def _action_words(self, state: np.ndarray, action: int) -> str:
        a = int(action)
        if not 0 <= a < L.NUM_ACTIONS:
            raise ValueError(f"{self.spec.env_id}: action {a} is outside 0..{L.NUM_ACTIONS - 1}")
        cards, comps = self.content.cards, self.content.companions
        stage = int(state[L.STAGE])
        if a == L.A_DONE:
            return self._done_name(state)
        if a < L.A_UNINSTALL:
            return f"install {cards[a - L.A_INSTALL].name}".lower()
        if a < L.A_DISMISS:
            return f"uninstall {cards[a - L.A_UNINSTALL].name}".lower()
        if a < L.A_ABILITY:
            return f"dismiss {comps[a - L.A_DISMISS].name}".lower()
        if a < L.A_TRADE:
            return self._row_names[a - L.A_ABILITY]
        if a < L.A_SEAT:
            return f"trade library card for {cards[a - L.A_TRADE].name}".lower()
        if a < L.A_STAY:
            who = self._seat_words(state, a - L.A_SEAT)
            if stage == L.S_CALL_HELP:
                return f"call {who} for help"
            if stage == L.S_GIVE:
                return f"give the card to {who}"
            return f"switch tardis tune-up with {who}"
        if a == L.A_STAY:
            return "stay"
        if a < L.A_ROLL_TARDIS:
            return f"travel to {self.zone_name(state, a - L.A_GOTO)}".lower()
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
                return f"keep {self.content.locations[tile].name}, go to {self.content.locations[tile].zones[z].name}".lower()
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
            return f"choose {self.die_name(state, a - L.A_SELECT)}"
        if a == L.A_COMMIT:
            return "re-roll the chosen dice"
        if a < L.A_SONIC_FACE:
            return f"re-roll {self.die_name(state, a - L.A_SONIC_REROLL)} for 2 sonic"
        if a < L.A_BLACK_REROLL:
            d, s = divmod(a - L.A_SONIC_FACE, NUM_SYMBOLS)
            return f"turn {self.die_name(state, d)} to {SYMBOLS[s]} for 3 sonic"
        if a < L.A_FAIL_OPTION:
            return f"discard {self.die_name(state, a - L.A_BLACK_REROLL)} to re-roll the rest"
        if a < L.A_PAY_SONIC:
            k = a - L.A_FAIL_OPTION
            words = ""
            if stage == L.S_FAIL_CHOICE:
                d = int(state[L.FAIL_DILEMMA])
                words = ": " + effect_list_words(
                    (e.effect, e.place if e.effect == 10 else e.count)
                    for e in (self.content.dilemmas[d].fail[k] if k < len(self.content.dilemmas[d].fail) else ())
                )
            return f"fail cost {k + 1}{words}"
        if a == L.A_PAY_SONIC:
            return "pay with sonic"
        if a < L.A_LOSE_COMPANION:
            return f"discard {cards[a - L.A_DISCARD_CARD].name}".lower()
        return f"give up {comps[a - L.A_LOSE_COMPANION].name}".lower()

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        wanted = " ".join(str(text).lower().split())
        names = [self.action_to_string(state, a) for a in range(L.NUM_ACTIONS)]
        for a, name in enumerate(names):
            if name.lower() == wanted:
                return a
        legal = [names[a] for a in self.legal_actions(state)] if state[STATUS] == RUNNING else []
        raise ValueError(f"{self.spec.env_id}: unknown action {text!r}; legal now: {'; '.join(legal) or 'none'}")

    # --- state checks -----------------------------------------------------------------
    def _check_fields(self, state: np.ndarray) -> None:
        env_id = self.spec.env_id
        n = self.num_players
        track = int(self.tables[T_TRACK])

        def bad(what: str) -> ValueError:
            return ValueError(f"{env_id}: corrupt state: {what}")

        if not 0 <= state[L.STAGE] < len(L.STAGE_NAMES) or (state[L.STAGE] == L.S_OVER) != (state[STATUS] != RUNNING):
            raise bad(f"stage {state[L.STAGE]} disagrees with status {state[STATUS]}")
        if not 0 <= state[L.ACTIVE] < n:
            raise bad(f"active Doctor {state[L.ACTIVE]} is not a seat")
        if not 0 <= state[L.SHIP] <= track:
            raise bad(f"Dalek Ship on space {state[L.SHIP]}, outside 0..{track}")
        for p in range(n):
            if not 0 <= state[L.DOCTOR + p] < NUM_DOCTORS:
                raise bad(f"seat {p} plays Doctor {state[L.DOCTOR + p]}")
            if not 0 <= state[L.TARDIS + p] <= track:
                raise bad(f"seat {p}'s TARDIS on space {state[L.TARDIS + p]}")
            if not 0 <= state[L.SONIC + p] <= L.SONIC_LIMIT:
                raise bad(f"seat {p} holds {state[L.SONIC + p]} Sonic tokens (0..{L.SONIC_LIMIT})")
            if not -1 <= state[L.AT_SLOT + p] < L.MAX_SLOTS:
                raise bad(f"seat {p}'s Doctor on slot {state[L.AT_SLOT + p]}")
        if len(set(int(state[L.DOCTOR + p]) for p in range(n))) != n:
            raise bad("two seats play the same Doctor")
        places = state[L.CARD_PLACE : L.CARD_PLACE + NUM_CARDS]
        ok = (places >= L.PLACE_DISCARD) & ((places < n) | ((places >= L.PLACE_INSTALLED) & (places < L.PLACE_INSTALLED + n)))
        giving = int(state[L.GIVE_CARD])
        if 0 <= giving < NUM_CARDS and places[giving] == L.PLACE_GIVING:
            ok[giving] = True
        if not ok.all():
            raise bad(f"Timey-Wimey card {int(np.flatnonzero(~ok)[0])} has place {int(places[~ok][0])}")
        for p in range(n):
            slots = state[L.EQUIPMENT + p * L.EQUIPMENT_SLOTS : L.EQUIPMENT + (p + 1) * L.EQUIPMENT_SLOTS]
            installed = sorted(int(c) for c in np.flatnonzero(places == L.PLACE_INSTALLED + p))
            if sorted(int(c) for c in slots if c >= 0) != installed:
                raise bad(f"seat {p}'s Equipment slots disagree with the cards installed")
            spaces = state[L.COMPANION + p * L.COMPANION_SPACES : L.COMPANION + (p + 1) * L.COMPANION_SPACES]
            on = sorted(int(k) for k in np.flatnonzero(state[L.COMPANION_PLACE : L.COMPANION_PLACE + NUM_COMPANIONS] == p))
            if sorted(int(k) for k in spaces if k >= 0) != on:
                raise bad(f"seat {p}'s Companion spaces disagree with the Companions' places")
        comp = state[L.COMPANION_PLACE : L.COMPANION_PLACE + NUM_COMPANIONS]
        if ((comp < L.PLACE_DISCARD) | (comp >= n)).any():
            raise bad("a Companion has an impossible place")
        for zone in range(L.MAX_ZONES):
            d = int(state[L.ZONE_DILEMMA + zone])
            if d >= NUM_DILEMMAS or (d >= 0 and state[L.DILEMMA_PLACE + d] != zone):
                raise bad(f"zone {zone}'s Dilemma {d} disagrees with the Dilemma's place")
        dil = state[L.DILEMMA_PLACE : L.DILEMMA_PLACE + NUM_DILEMMAS]
        for placed in np.flatnonzero(dil >= 0):
            if state[L.ZONE_DILEMMA + int(dil[placed])] != placed:
                raise bad(f"Dilemma {int(placed)} is placed on a zone that does not hold it")
        if (
            int(state[L.ZONE_DALEKS : L.ZONE_DALEKS + L.MAX_ZONES].sum()) > L.MAX_DALEKS
            or (state[L.ZONE_DALEKS : L.ZONE_DALEKS + L.MAX_ZONES] < 0).any()
        ):
            raise bad("more than six Dalek markers, or a negative count")
        if state[L.SLOT_KIND] != L.SLOT_EARTH:
            raise bad("slot 0 must be Earth")
        if not 0 <= state[L.OBL_COUNT] <= L.MAX_OBLIGATIONS:
            raise bad(f"{state[L.OBL_COUNT]} obligations queued")

    # --- words ------------------------------------------------------------------------
    def _card(self, c: int) -> dict:
        card = self.content.cards[c]
        return {"name": card.name, "type": ("equipment", "event", "transfer")[card.type], "cost": card.cost}

    def describe(self, state: np.ndarray) -> dict:
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
        c = self.content
        n = self.num_players
        status = int(state[STATUS])
        out: dict = {
            "phase": L.STAGE_NAMES[int(state[L.STAGE])],
            "status": STATUS_NAMES[status],
            "round": int(state[L.ROUND]) + 1,
            "current_player": self.seat_name(int(state[CURRENT_PLAYER])) if status == RUNNING else None,
            "active_player": self.seat_name(int(state[L.ACTIVE])),
            "winner": ("doctors" if int(state[L.WINNER]) == L.WIN_DOCTORS else "daleks") if int(state[L.WINNER]) else None,
            "reason": L.WIN_NAMES[int(state[L.WINNER])] if int(state[L.WINNER]) else None,
            "rewards": {self.seat_name(p): int(state[REWARDS + p]) for p in range(n)},
            "web_of_time": {
                "gallifrey": int(self.tables[T_TRACK]),
                "dalek_ship": int(state[L.SHIP]),
                "anomaly_markers": sorted(int(m) for m in state[L.MARKER : L.MARKER + L.MARKER_SLOTS] if m >= 0),
                "tardis": {self.seat_name(p): int(state[L.TARDIS + p]) for p in range(n)},
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
            doctors[self.seat_name(p)] = {
                "doctor": c.doctors[int(state[L.DOCTOR + p])].name,
                "sonic": int(state[L.SONIC + p]),
                "hand": [c.cards[k].name for k in range(NUM_CARDS) if state[L.CARD_PLACE + k] == p],
                "companions": comps,
                "equipment": [
                    c.cards[int(k)].name
                    for k in state[L.EQUIPMENT + p * L.EQUIPMENT_SLOTS : L.EQUIPMENT + (p + 1) * L.EQUIPMENT_SLOTS]
                    if k >= 0
                ],
                "at": "TARDIS console" if slot < 0 else self.zone_name(state, slot * L.ZONES_PER_SLOT + int(state[L.AT_ZONE + p])),
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
                        "name": self.zone_name(state, zone),
                        "dilemma": (c.dilemmas[d].name if state[L.ZONE_FACE_UP + zone] else "face down") if d >= 0 else None,
                        "daleks": int(state[L.ZONE_DALEKS + zone]),
                        "doctors": [self.seat_name(p) for p in range(n) if state[L.AT_SLOT + p] == slot and state[L.AT_ZONE + p] == z],
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
                            "owner": self.seat_name(int(state[L.ACTIVE]) if d < L.POOL_DICE else helper),
                            "colour": COLOURS[colour],
                            "face": SYMBOLS[int(state[L.DIE_FACE + d])],
                            "chosen": bool((int(state[L.SEL_MASK]) >> d) & 1),
                        }
                    )
            adventure = {
                "zone": self.zone_name(state, zone),
                "challenge": [SYMBOLS[s] for s in range(NUM_SYMBOLS) for _ in range(int(state[L.CHALLENGE + s]))],
                "conditions": [CONDITIONS[b] for b in range(3) if (int(state[L.ADV_CONDITIONS]) >> b) & 1],
                "helper": self.seat_name(helper) if helper >= 0 else None,
                "help": ("none", "from afar", "at the location")[int(state[L.HELP_MODE])],
                "pools_before_roll": {
                    "helped": {COLOURS[k]: int(state[L.POOL + k]) for k in range(4)},
                    "helper": {COLOURS[k]: int(state[L.POOL + 4 + k]) for k in range(4)},
                },
                "dice": dice,
                "odds": self.odds(state),
            }
        out["adventure"] = adventure
        out["obligations"] = [
            {"seat": self.seat_name(int(state[L.OBLIGATIONS + 3 * i])), "kind": L.OBLIGATION_NAMES[int(state[L.OBLIGATIONS + 3 * i + 1])]}
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
            else {"seat": self.seat_name(int(state[L.LAST_RESULT_SEAT])), "result": ("success", "failure")[result - 1]},
        }
        out["daleks_placed"] = int(state[L.DALEKS_PLACED])
        return self.with_ending(state, out)

    def odds(self, state: np.ndarray) -> float:
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

    # --- drawing ------------------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["TimeOfTheDaleks", "SPEC", "Effect", "TIMINGS", "MAX_EFFECTS", "DOCTOR_NAMES"]

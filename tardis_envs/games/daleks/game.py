"""Time of the Daleks bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import RUNNING, STATUS
from . import ENV_ID, batch, check, heuristic, hidden, notation, observe, rules
from . import layout as L
from .content import (
    DOCTOR_NAMES,
    MAX_EFFECTS,
    NUM_CARDS,
    NUM_COMPANIONS,
    NUM_DILEMMAS,
    NUM_DOCTORS,
    T_TRACK,
    TIMINGS,
    Content,
    Effect,
    build_tables,
    load_content,
)
from .layout import LAYOUT_VERSION
from .observe import OBS_SIZE


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


class TimeOfTheDaleks(Game):
    """Time of the Daleks; see :mod:`tardis_envs.time_of_the_daleks_v2` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, observe, batch, hidden, check, heuristic)
    layout_version = LAYOUT_VERSION
    earlier_layouts = check.EARLIER_LAYOUTS
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
        self._row_names = notation.ability_names(self)

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

    # --- words (notation.py) ---------------------------------------------------------
    def ability_field(self, r: int, field: int) -> int:
        """:func:`.notation.ability_field`."""
        return notation.ability_field(self, r, field)

    def owner_name(self, r: int) -> str:
        """:func:`.notation.owner_name`."""
        return notation.owner_name(self, r)

    def ability_words(self, r: int) -> str:
        """:func:`.notation.ability_words`."""
        return notation.ability_words(self, r)

    def seat_name(self, seat: int) -> str:
        """:func:`.notation.seat_name`."""
        return notation.seat_name(self, seat)

    def zone_name(self, state: np.ndarray, zone: int) -> str:
        """:func:`.notation.zone_name`."""
        return notation.zone_name(self, state, zone)

    def die_name(self, state: np.ndarray, d: int) -> str:
        """:func:`.notation.die_name`."""
        return notation.die_name(self, state, d)

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """:func:`.notation.action_to_string`."""
        return notation.action_to_string(self, state, action)

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """:func:`.notation.string_to_action`."""
        return notation.string_to_action(self, state, text)

    def describe(self, state: np.ndarray) -> dict:
        """:func:`.notation.describe`."""
        return notation.describe(self, state)

    def odds(self, state: np.ndarray) -> float:
        """:func:`.notation.odds`."""
        return notation.odds(self, state)

    # --- drawing ------------------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["TimeOfTheDaleks", "SPEC", "Effect", "TIMINGS", "MAX_EFFECTS", "DOCTOR_NAMES"]

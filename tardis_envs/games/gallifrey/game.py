"""Ghosts of Gallifrey duel bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import re

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import ENV_ID, SIMULTANEOUS, batch, check, heuristic, hidden, rules
from .content import (
    ASPECTS,
    CONDITIONS,
    DECK_SIZE,
    MAX_ACQUIRED,
    MODES,
    T_MODE,
    T_NUM_CHARACTERS,
    T_NUM_SCENES,
    T_THREAT,
    THREATS,
    Content,
    build_tables,
    load_content,
)
from .rules import (
    DECK,
    DECK_POS,
    EXCHANGE,
    F_ACQUIRED_USED,
    F_CHARACTER,
    F_DEFEAT,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    FLUX,
    L_ACTION,
    L_ATTACK,
    L_CARD,
    L_CONDITION,
    L_DEFENCE,
    L_EDGE,
    L_FORCED,
    L_INJURIES,
    L_LEVELS,
    L_SOURCE,
    LAST_ATTACKER,
    LAST_OUTCOME,
    LAST_WINNER,
    NUM_ACTIONS,
    OBS_SIZE,
    PENDING,
    PHASE,
    PHASE_CHOOSE,
    PHASE_OVER,
    SCENE,
    STATE_SIZE,
    WINNER,
    killed_at,
    last,
    side,
)

SEAT_NAMES = ("first", "second")  # seat 0 commits first, seat 1 second (without seeing it)
DEFEAT_NAMES = ("none", "restrained", "subdued", "out of action", "killed")
OUTCOME_NAMES = ("none", "decided", "continues")
SOURCE_NAMES = ("none", "drawn", "acquired upright", "acquired reversed")
PHASE_NAMES = {PHASE_CHOOSE: "choose", PHASE_OVER: "over"}


def _pair_check(value: str) -> str | None:
    if value == "random":
        return None
    names = [part.strip() for part in value.split(",")]
    if len(names) != 2:
        return "write 'random' or two roster names separated by a comma, e.g. 'The Doctor, Dalek'"
    try:
        for name in names:
            load_content().character_index(name)
    except ValueError as exc:
        return str(exc)
    return None


def _scene_check(value: str) -> str | None:
    if value == "random":
        return None
    try:
        load_content().scene_index(value)
    except ValueError as exc:
        return str(exc)
    return None


SPEC = GameSpec(
    env_id=ENV_ID,
    name="Ghosts of Gallifrey duel",
    version=1,
    rulebook="Ghosts of Gallifrey",
    min_players=2,
    max_players=2,
    chance=True,
    hidden_information=True,
    status="complete",
    utility="zero_sum",
    throughput_target=10e6,
    first_run_seconds=25,
    simultaneous=SIMULTANEOUS,
    options={
        "mode": Option("climactic", "how combat is handled", kind=str, choices=MODES),
        "threat": Option("dangerous", "the Threat Level: which defeat conditions may be chosen", kind=str, choices=THREATS),
        "forced_draw_p": Option(
            0.25, "chance per side and exchange that the GM insists on a Time Card", kind=float, minimum=0.0, maximum=1.0
        ),
        "max_exchanges": Option(50, "exchanges before the fight is truncated as a draw", kind=int, minimum=1),
        "pair": Option("random", "'random' (drawn each episode) or two roster names, 'The Doctor, Dalek'", kind=str, check=_pair_check),
        "scene": Option("random", "'random' (drawn each episode) or a scene name", kind=str, check=_scene_check),
    },
)


def healing_schedule(stasis: int, injuries: int) -> list[dict]:
    """How each injury heals after the fight (rulebook ladder, least serious
    first), with the high-Stasis rules: Stasis 7 and 8 may enter a healing coma
    (8: heals all; 7: all but injuries at or beyond Stasis), Stasis 9's first
    four injuries fade within minutes, Stasis 10 heals everything at once.
    Ruling: "equal to or just below Stasis" is the injury numbered Stasis or
    Stasis - 1 (from the second injury on)."""
    ladder = {
        1: "fades as soon as combat is over",
        2: "rest or basic medical attention (Medicine 1)",
        3: "bed rest or skilled medical attention (Medicine 2)",
        4: "prolonged rest, drugs or hospitalisation (Medicine 3)",
    }
    out = []
    for n in range(1, injuries + 1):
        if n > stasis:
            heals = "extraordinary medical measures only (Medicine 6)"
        elif n >= 2 and n >= stasis - 1:
            heals = "a mortal wound: advanced surgery (Medicine 5)"
        else:
            heals = ladder.get(n, "surgery or weeks of invalidity (Medicine 4)")
        if stasis >= 10:
            heals = "healed moments after it was inflicted (Stasis 10)"
        elif stasis == 9 and n <= 4:
            heals = "fades within minutes (Stasis 9)"
        elif stasis == 8:
            heals += "; or a healing coma (Stasis 8)"
        elif stasis == 7 and n < stasis:
            heals += "; or a healing coma (Stasis 7)"
        out.append({"injury": n, "heals_with": heals})
    return out


def _title(name: str) -> str:
    """'Dalek' -> 'The Dalek'; 'The Doctor' stays."""
    return name if name.startswith("The ") else f"The {name}"


def _card_text(choice: int, acquired: list[str]) -> str:
    if choice == rules.CARD_NONE:
        return "no card"
    if choice == rules.CARD_DRAW:
        return "draw a time card"
    slot, reversed_ = divmod(choice - 2, 2)
    name = f" ({acquired[slot]})" if slot < len(acquired) else ""
    return f"acquired card {slot + 1}{name} {'reversed' if reversed_ else 'upright'}"


class GallifreyDuel(Game):
    """Ghosts of Gallifrey duel; see :mod:`tardis_envs.gallifrey_duel_v1` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, batch, hidden, check, heuristic)
    game_over = (PHASE, PHASE_OVER)

    def _build(self) -> None:
        self.content: Content = load_content()
        o = self.options
        pair = (-1, -1)
        if o["pair"] != "random":
            first, second = (part.strip() for part in o["pair"].split(","))
            pair = (self.content.character_index(first), self.content.character_index(second))
        scene = -1 if o["scene"] == "random" else self.content.scene_index(o["scene"])
        self.tables = build_tables(self.content, o["mode"], o["threat"], o["forced_draw_p"], o["max_exchanges"], pair, scene)
        rules.fill_aspect_entries(self.tables)
        self.num_players = 2
        self.agent_names = ("first", "second")
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.observation_low = -1.0
        self.observation_high = 1.0
        self.state_size = STATE_SIZE
        self.max_game_length = 2 * o["max_exchanges"]
        # a shuffle step of the deck, a character or scene drawn for the pairing
        self.max_chance_outcomes = int(max(DECK_SIZE, self.tables[T_NUM_CHARACTERS], self.tables[T_NUM_SCENES]))

    def _observation_denominators(self) -> np.ndarray:
        """Aspects out of 10, injuries and fight values out of 16, Edges out of 3, card levels
        out of 3, acquired modifiers and escalations out of 2, the deck out of 36 cards, the
        exchange out of ``max_exchanges``; the rest are 0/1 (the layout in rules.py)."""
        r = rules
        d = np.ones(OBS_SIZE, dtype=np.int64)
        d[r.O_OWN_ASPECTS : r.O_OPP_EFFECTIVE + 4] = 10
        d[r.O_INJURIES : r.O_KILLED_AT + 2] = 16
        d[r.O_EDGES : r.O_EDGES + 2] = 3
        for i in range(3):
            d[r.O_ACQUIRED + 3 * i + 1 : r.O_ACQUIRED + 3 * i + 3] = 2
        d[r.O_DECK_SIZE] = DECK_SIZE
        d[r.O_EXCHANGE] = max(int(self.tables[r.T_MAX_EXCHANGES]), 1)
        for k in range(2):
            base = r.O_LAST + k * r.LAST_BLOCK
            d[base + r.LB_LEVELS] = 3
            d[base + r.LB_ATTACK_VALUE : base + r.LB_INJURIES + 1] = 16
        return d

    # --- notation -------------------------------------------------------------------
    def acquired_names(self, state: np.ndarray, seat: int) -> list[str]:
        c = self.content.characters[int(state[side(seat, F_CHARACTER)])]
        return [self.content.cards[k].name for k in c.acquired]

    def action_words(self, action: int, acquired: list[str]) -> str:
        words = (
            f"attack with {ASPECTS[rules.action_attack(action)]}, defend with {ASPECTS[2 + rules.action_defence(action)]}, "
            f"fight to {CONDITIONS[rules.action_condition(action)]}, {_card_text(rules.action_card(action), acquired)}"
        )
        return words + (", edge" if rules.action_edge(action) else "")

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{self.spec.env_id}: action {action} is outside 0..{NUM_ACTIONS - 1}")
        return self.action_words(int(action), self.acquired_names(state, int(state[CURRENT_PLAYER])))

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """Inverse of :meth:`action_to_string` (case and spacing ignored; the
        Acquired card's name in brackets may be left out)."""

        def norm(words: str) -> str:
            return " ".join(re.sub(r"\s*\([^)]*\)", "", words).lower().split())

        wanted = norm(str(text))
        acquired = self.acquired_names(state, int(state[CURRENT_PLAYER]))
        for a in range(NUM_ACTIONS):
            if norm(self.action_words(a, acquired)) == wanted:
                return a
        raise ValueError(
            f"{self.spec.env_id}: unknown action {text!r}; write e.g. 'attack with dynamism, defend with stasis, "
            "fight to wound, draw a time card, edge' (card: no card / draw a time card / acquired card N upright|reversed)"
        )

    # --- words ------------------------------------------------------------------------
    def _combatant(self, state: np.ndarray, s: int) -> dict:
        c = self.content.characters[int(state[side(s, F_CHARACTER)])]
        scene = self.content.scenes[int(state[SCENE])]
        stasis = c.aspects[2]
        modifiers = [{"kind": m.kind, "aspect": ASPECTS[m.aspect], "levels": m.levels, "why": m.why} for m in c.modifiers]
        modifiers += [
            {"kind": "situational", "aspect": ASPECTS[m.aspect], "levels": m.levels, "why": f"{m.why} ({scene.name})"}
            for m in scene.modifiers
        ]
        return {
            "name": c.name,
            "kind": c.kind,
            "aspects": dict(zip(ASPECTS, c.aspects)),
            "effective_aspects": {a: int(rules.effective_aspect(state, self.tables, s, i)) for i, a in enumerate(ASPECTS)},
            "modifiers": modifiers,
            "powers": list(c.powers),
            "edges_left": int(state[side(s, F_EDGES_LEFT)]),
            "acquired_cards": [self.content.cards[k].name for k in c.acquired],
            "acquired_used": bool(state[side(s, F_ACQUIRED_USED)]),
            "war_card": self.content.cards[c.war_card].name,
            "fault_card": self.content.cards[c.fault_card].name,
            "injuries": int(state[side(s, F_INJURIES)]),
            "out_of_action_at": stasis,
            "killed_at": int(killed_at(stasis)),
            "defeat": DEFEAT_NAMES[int(state[side(s, F_DEFEAT)])],
            "gm_insists_on_a_draw": bool(state[side(s, F_FORCED)]) if state[STATUS] == RUNNING else False,
        }

    def narrate(self, state: np.ndarray) -> str | None:
        """The last exchange in words, or None before the first."""
        if state[last(0, L_ACTION)] < 0:
            return None
        mode = MODES[int(self.tables[T_MODE])]
        parts = []
        for s in range(2):
            c = self.content.characters[int(state[side(s, F_CHARACTER)])]
            a = int(state[last(s, L_ACTION)])
            card = int(state[last(s, L_CARD)])
            levels = int(state[last(s, L_LEVELS)])
            source = int(state[last(s, L_SOURCE)])
            bits = []
            if mode != "contest" or int(state[LAST_ATTACKER]) == s:
                attack = ASPECTS[rules.action_attack(a)].capitalize()
                base = int(rules.effective_aspect(state, self.tables, s, rules.action_attack(a)))
                bits.append(f"attacks with {attack} {base}{levels:+d}" if source else f"attacks with {attack} {base}")
            if mode != "contest" or int(state[LAST_ATTACKER]) != s:
                defence = ASPECTS[2 + rules.action_defence(a)].capitalize()
                base = int(rules.effective_aspect(state, self.tables, s, 2 + rules.action_defence(a)))
                bits.append(f"defends with {defence} {base}{levels:+d}" if source else f"defends with {defence} {base}")
            text = _title(c.name) + " " + " and ".join(bits)
            text += f", fighting to {CONDITIONS[int(state[last(s, L_CONDITION)])]}"
            if card >= 0:
                name = self.content.cards[card].name
                flux = " (the Flux card)" if card == int(state[FLUX]) else ""
                how = "draws" if source == rules.SOURCE_DRAWN else f"plays its Acquired card, {SOURCE_NAMES[source].split()[1]},"
                forced = " as the GM insists" if state[last(s, L_FORCED)] else ""
                text += f"; {how} {name}{flux}{forced} ({levels:+d})"
            if state[last(s, L_EDGE)]:
                text += "; uses an Edge"
            if state[last(s, L_INJURIES)]:
                text += f"; takes {int(state[last(s, L_INJURIES)])} injur{'y' if state[last(s, L_INJURIES)] == 1 else 'ies'}"
            parts.append(text + ".")
        outcome = int(state[LAST_OUTCOME])
        if outcome == rules.OUTCOME_CONTINUES:
            parts.append("The fight goes on.")
        else:
            w = int(state[LAST_WINNER])
            for s in range(2):
                d = int(state[side(s, F_DEFEAT)])
                if d:
                    parts.append(f"{_title(self.content.characters[int(state[side(s, F_CHARACTER)])].name)} is {DEFEAT_NAMES[d]}.")
            if w < 0:
                both = all(int(state[side(s, F_DEFEAT)]) for s in range(2))
                parts.append("Both fall: a draw." if both else "Equal totals and no Edge: a draw.")
            else:
                parts.append(f"{_title(self.content.characters[int(state[side(w, F_CHARACTER)])].name)} wins the fight.")
        return " ".join(parts)

    def describe(self, state: np.ndarray) -> dict:
        """The whole state in the game's words.

        Keys: ``mode``, ``threat``, ``scene``, ``flux_card``, ``exchange``,
        ``phase``, ``status``, ``current_player``, ``winner``, ``rewards``,
        ``combatants`` (per seat: name, kind, Aspects and effective Aspects,
        modifiers with their reasons, powers, Edges left, Acquired cards and
        whether used, War/Fault cards, injuries, ``out_of_action_at``,
        ``killed_at``, defeat, whether the GM insists on a draw now),
        ``deck`` (cards left, names drawn since the last shuffle),
        ``first_choice_committed``, ``last_exchange`` (per seat: choice in
        words, card, levels, attack/defence values, injuries, Edge; outcome,
        winner, ``narration``) and, once over, ``healing`` (per seat, how
        each injury heals).
        """
        status = int(state[STATUS])
        winner = int(state[WINNER])
        out = {
            "mode": MODES[int(self.tables[T_MODE])],
            "threat": THREATS[int(self.tables[T_THREAT])],
            "scene": self.content.scenes[int(state[SCENE])].name,
            "flux_card": self.content.cards[int(state[FLUX])].name,
            "exchange": int(state[EXCHANGE]),
            "phase": PHASE_NAMES[int(state[PHASE])],
            "status": STATUS_NAMES[status],
            "current_player": self.agent_names[int(state[CURRENT_PLAYER])] if status == RUNNING else None,
            "winner": self.agent_names[winner] if status == TERMINATED and winner >= 0 else None,
            "rewards": {self.agent_names[s]: int(state[REWARDS + s]) for s in range(2)},
            "combatants": {self.agent_names[s]: self._combatant(state, s) for s in range(2)},
            "deck": {
                "cards_left": DECK_SIZE - int(state[DECK_POS]),
                "drawn": [self.content.cards[int(k)].name for k in state[DECK : DECK + int(state[DECK_POS])]],
            },
            "first_choice_committed": bool(state[PENDING] >= 0),
            "last_exchange": None,
            "healing": None,
        }
        if state[last(0, L_ACTION)] >= 0:
            seats = {}
            for s in range(2):
                card = int(state[last(s, L_CARD)])
                seats[self.agent_names[s]] = {
                    "choice": self.action_words(int(state[last(s, L_ACTION)]), self.acquired_names(state, s)),
                    "card": self.content.cards[card].name if card >= 0 else None,
                    "card_source": SOURCE_NAMES[int(state[last(s, L_SOURCE)])],
                    "card_levels": int(state[last(s, L_LEVELS)]),
                    "condition": CONDITIONS[int(state[last(s, L_CONDITION)])],
                    "attack": int(state[last(s, L_ATTACK)]),
                    "defence": int(state[last(s, L_DEFENCE)]),
                    "injuries_taken": int(state[last(s, L_INJURIES)]),
                    "edge_used": bool(state[last(s, L_EDGE)]),
                    "forced_draw": bool(state[last(s, L_FORCED)]),
                }
            lw = int(state[LAST_WINNER])
            out["last_exchange"] = {
                "seats": seats,
                "outcome": OUTCOME_NAMES[int(state[LAST_OUTCOME])],
                "winner": self.agent_names[lw] if lw >= 0 else None,
                "narration": self.narrate(state),
            }
        if status != RUNNING:
            out["healing"] = {
                self.agent_names[s]: healing_schedule(
                    self.content.characters[int(state[side(s, F_CHARACTER)])].aspects[2], int(state[side(s, F_INJURIES)])
                )
                for s in range(2)
            }
        return self.with_ending(state, out)

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["GallifreyDuel", "SPEC", "healing_schedule", "MAX_ACQUIRED"]

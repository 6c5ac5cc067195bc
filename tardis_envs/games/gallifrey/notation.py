"""The Ghosts of Gallifrey duel in words: each action as table talk and back, the exchange just
resolved as a sentence (``narrate``), the whole state as a dictionary (``describe``) and the
healing schedule of an injured combatant."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import layout, rules
from .content import (
    ASPECTS,
    CONDITIONS,
    DECK_SIZE,
    MODES,
    T_MODE,
    T_THREAT,
    THREATS,
)
from .rules import killed_at

if TYPE_CHECKING:
    from .game import GallifreyDuel

SEAT_NAMES = ("first", "second")  # seat 0 commits first, seat 1 second (without seeing it)

DEFEAT_NAMES = ("none", "restrained", "subdued", "out of action", "killed")

OUTCOME_NAMES = ("none", "decided", "continues")

SOURCE_NAMES = ("none", "drawn", "acquired upright", "acquired reversed")

PHASE_NAMES = {layout.PHASE_CHOOSE: "choose", layout.PHASE_OVER: "over"}


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
    if choice == layout.CARD_NONE:
        return "no card"
    if choice == layout.CARD_DRAW:
        return "draw a time card"
    slot, reversed_ = divmod(choice - 2, 2)
    name = f" ({acquired[slot]})" if slot < len(acquired) else ""
    return f"acquired card {slot + 1}{name} {'reversed' if reversed_ else 'upright'}"


def acquired_names(game: GallifreyDuel, state: np.ndarray, seat: int) -> list[str]:
    c = game.content.characters[int(state[layout.side(seat, layout.F_CHARACTER)])]
    return [game.content.cards[k].name for k in c.acquired]


def action_words(game: GallifreyDuel, action: int, acquired: list[str]) -> str:
    words = (
        f"attack with {ASPECTS[layout.action_attack(action)]}, defend with {ASPECTS[2 + layout.action_defence(action)]}, "
        f"fight to {CONDITIONS[layout.action_condition(action)]}, {_card_text(layout.action_card(action), acquired)}"
    )
    return words + (", edge" if layout.action_edge(action) else "")


def action_to_string(game: GallifreyDuel, state: np.ndarray, action: int) -> str:
    if not 0 <= action < layout.NUM_ACTIONS:
        raise ValueError(f"{game.spec.env_id}: action {action} is outside 0..{layout.NUM_ACTIONS - 1}")
    return game.action_words(int(action), game.acquired_names(state, int(state[CURRENT_PLAYER])))


def string_to_action(game: GallifreyDuel, state: np.ndarray, text: str) -> int:
    """Inverse of :meth:`action_to_string` (case and spacing ignored; the
    Acquired card's name in brackets may be left out)."""

    def norm(words: str) -> str:
        return " ".join(re.sub(r"\s*\([^)]*\)", "", words).lower().split())

    wanted = norm(str(text))
    acquired = game.acquired_names(state, int(state[CURRENT_PLAYER]))
    for a in range(layout.NUM_ACTIONS):
        if norm(game.action_words(a, acquired)) == wanted:
            return a
    raise ValueError(
        f"{game.spec.env_id}: unknown action {text!r}; write e.g. 'attack with dynamism, defend with stasis, "
        "fight to wound, draw a time card, edge' (card: no card / draw a time card / acquired card N upright|reversed)"
    )


# --- words ------------------------------------------------------------------------


def _combatant(game: GallifreyDuel, state: np.ndarray, s: int) -> dict:
    c = game.content.characters[int(state[layout.side(s, layout.F_CHARACTER)])]
    scene = game.content.scenes[int(state[layout.SCENE])]
    stasis = c.aspects[2]
    modifiers = [{"kind": m.kind, "aspect": ASPECTS[m.aspect], "levels": m.levels, "why": m.why} for m in c.modifiers]
    modifiers += [
        {"kind": "situational", "aspect": ASPECTS[m.aspect], "levels": m.levels, "why": f"{m.why} ({scene.name})"} for m in scene.modifiers
    ]
    return {
        "name": c.name,
        "kind": c.kind,
        "aspects": dict(zip(ASPECTS, c.aspects)),
        "effective_aspects": {a: int(rules.effective_aspect(state, game.tables, s, i)) for i, a in enumerate(ASPECTS)},
        "modifiers": modifiers,
        "powers": list(c.powers),
        "edges_left": int(state[layout.side(s, layout.F_EDGES_LEFT)]),
        "acquired_cards": [game.content.cards[k].name for k in c.acquired],
        "acquired_used": bool(state[layout.side(s, layout.F_ACQUIRED_USED)]),
        "war_card": game.content.cards[c.war_card].name,
        "fault_card": game.content.cards[c.fault_card].name,
        "injuries": int(state[layout.side(s, layout.F_INJURIES)]),
        "out_of_action_at": stasis,
        "killed_at": int(killed_at(stasis)),
        "defeat": DEFEAT_NAMES[int(state[layout.side(s, layout.F_DEFEAT)])],
        "gm_insists_on_a_draw": bool(state[layout.side(s, layout.F_FORCED)]) if state[STATUS] == RUNNING else False,
    }


def narrate(game: GallifreyDuel, state: np.ndarray) -> str | None:
    """The last exchange in words, or None before the first."""
    if state[layout.last(0, layout.L_ACTION)] < 0:
        return None
    mode = MODES[int(game.tables[T_MODE])]
    parts = []
    for s in range(2):
        c = game.content.characters[int(state[layout.side(s, layout.F_CHARACTER)])]
        a = int(state[layout.last(s, layout.L_ACTION)])
        card = int(state[layout.last(s, layout.L_CARD)])
        levels = int(state[layout.last(s, layout.L_LEVELS)])
        source = int(state[layout.last(s, layout.L_SOURCE)])
        bits = []
        if mode != "contest" or int(state[layout.LAST_ATTACKER]) == s:
            attack = ASPECTS[layout.action_attack(a)].capitalize()
            base = int(rules.effective_aspect(state, game.tables, s, layout.action_attack(a)))
            bits.append(f"attacks with {attack} {base}{levels:+d}" if source else f"attacks with {attack} {base}")
        if mode != "contest" or int(state[layout.LAST_ATTACKER]) != s:
            defence = ASPECTS[2 + layout.action_defence(a)].capitalize()
            base = int(rules.effective_aspect(state, game.tables, s, 2 + layout.action_defence(a)))
            bits.append(f"defends with {defence} {base}{levels:+d}" if source else f"defends with {defence} {base}")
        text = _title(c.name) + " " + " and ".join(bits)
        text += f", fighting to {CONDITIONS[int(state[layout.last(s, layout.L_CONDITION)])]}"
        if card >= 0:
            name = game.content.cards[card].name
            flux = " (the Flux card)" if card == int(state[layout.FLUX]) else ""
            how = "draws" if source == layout.SOURCE_DRAWN else f"plays its Acquired card, {SOURCE_NAMES[source].split()[1]},"
            forced = " as the GM insists" if state[layout.last(s, layout.L_FORCED)] else ""
            text += f"; {how} {name}{flux}{forced} ({levels:+d})"
        if state[layout.last(s, layout.L_EDGE)]:
            text += "; uses an Edge"
        if state[layout.last(s, layout.L_INJURIES)]:
            text += f"; takes {int(state[layout.last(s, layout.L_INJURIES)])} injur{'y' if state[layout.last(s, layout.L_INJURIES)] == 1 else 'ies'}"
        parts.append(text + ".")
    outcome = int(state[layout.LAST_OUTCOME])
    if outcome == layout.OUTCOME_CONTINUES:
        parts.append("The fight goes on.")
    else:
        w = int(state[layout.LAST_WINNER])
        for s in range(2):
            d = int(state[layout.side(s, layout.F_DEFEAT)])
            if d:
                parts.append(
                    f"{_title(game.content.characters[int(state[layout.side(s, layout.F_CHARACTER)])].name)} is {DEFEAT_NAMES[d]}."
                )
        if w < 0:
            both = all(int(state[layout.side(s, layout.F_DEFEAT)]) for s in range(2))
            parts.append("Both fall: a draw." if both else "Equal totals and no Edge: a draw.")
        else:
            parts.append(f"{_title(game.content.characters[int(state[layout.side(w, layout.F_CHARACTER)])].name)} wins the fight.")
    return " ".join(parts)


def describe(game: GallifreyDuel, state: np.ndarray) -> dict:
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
    winner = int(state[layout.WINNER])
    out = {
        "mode": MODES[int(game.tables[T_MODE])],
        "threat": THREATS[int(game.tables[T_THREAT])],
        "scene": game.content.scenes[int(state[layout.SCENE])].name,
        "flux_card": game.content.cards[int(state[layout.FLUX])].name,
        "exchange": int(state[layout.EXCHANGE]),
        "phase": PHASE_NAMES[int(state[layout.PHASE])],
        "status": STATUS_NAMES[status],
        "current_player": game.agent_names[int(state[CURRENT_PLAYER])] if status == RUNNING else None,
        "winner": game.agent_names[winner] if status == TERMINATED and winner >= 0 else None,
        "rewards": {game.agent_names[s]: int(state[REWARDS + s]) for s in range(2)},
        "combatants": {game.agent_names[s]: _combatant(game, state, s) for s in range(2)},
        "deck": {
            "cards_left": DECK_SIZE - int(state[layout.DECK_POS]),
            "drawn": [game.content.cards[int(k)].name for k in state[layout.DECK : layout.DECK + int(state[layout.DECK_POS])]],
        },
        "first_choice_committed": bool(state[layout.PENDING] >= 0),
        "last_exchange": None,
        "healing": None,
    }
    if state[layout.last(0, layout.L_ACTION)] >= 0:
        seats = {}
        for s in range(2):
            card = int(state[layout.last(s, layout.L_CARD)])
            seats[game.agent_names[s]] = {
                "choice": game.action_words(int(state[layout.last(s, layout.L_ACTION)]), game.acquired_names(state, s)),
                "card": game.content.cards[card].name if card >= 0 else None,
                "card_source": SOURCE_NAMES[int(state[layout.last(s, layout.L_SOURCE)])],
                "card_levels": int(state[layout.last(s, layout.L_LEVELS)]),
                "condition": CONDITIONS[int(state[layout.last(s, layout.L_CONDITION)])],
                "attack": int(state[layout.last(s, layout.L_ATTACK)]),
                "defence": int(state[layout.last(s, layout.L_DEFENCE)]),
                "injuries_taken": int(state[layout.last(s, layout.L_INJURIES)]),
                "edge_used": bool(state[layout.last(s, layout.L_EDGE)]),
                "forced_draw": bool(state[layout.last(s, layout.L_FORCED)]),
            }
        lw = int(state[layout.LAST_WINNER])
        out["last_exchange"] = {
            "seats": seats,
            "outcome": OUTCOME_NAMES[int(state[layout.LAST_OUTCOME])],
            "winner": game.agent_names[lw] if lw >= 0 else None,
            "narration": game.narrate(state),
        }
    if status != RUNNING:
        out["healing"] = {
            game.agent_names[s]: healing_schedule(
                game.content.characters[int(state[layout.side(s, layout.F_CHARACTER)])].aspects[2],
                int(state[layout.side(s, layout.F_INJURIES)]),
            )
            for s in range(2)
        }
    return game.with_ending(state, out)

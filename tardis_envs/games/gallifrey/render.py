"""Drawing the duel: a text card per combatant (ansi) and an RGB image (rgb_array)."""

from __future__ import annotations

import numpy as np

from ...core.render import Canvas, ending_line

SEAT_COLOR = ((214, 64, 56), (70, 140, 235))

PLAY_HELP = """\
Each exchange both combatants choose at once; the first's choice stays hidden until the second
has chosen. A choice reads "attack with A, defend with P, fight to C, CARD[, edge]":
  attack with dynamism / memory     the active Aspect your attack scores with
  defend with stasis / foresight    the passive Aspect your defence scores with
  fight to restrain / subdue / wound / kill    the defeat you fight for (the threat allows two)
  no card                           no Time Card this exchange
  draw a time card                  its levels (-2..+2) add to both Aspects you use
  acquired card N upright/reversed  your once-per-fight Acquired card N: its modifier as printed
                                    (upright) or negated (reversed)
  edge                              spend your Edge: it wins an exchange whose scores are equal
In climactic combat an attack above the defence inflicts injuries equal to the margin."""


LEGEND = (
    "Legend: an Aspect reads base->effective where modifiers change it (scores use the effective level, "
    "the injury thresholds the base Stasis); injuries [#] up to | out of action, up to ] killed"
)


def aspect_words(combatant: dict) -> str:
    """The four Aspects in words: ``dynamism 8->6`` where modifiers change the base level."""
    parts = []
    for aspect, base in combatant["aspects"].items():
        effective = combatant["effective_aspects"][aspect]
        parts.append(f"{aspect} {base}" if effective == base else f"{aspect} {base}->{effective}")
    return ", ".join(parts)


def injury_bar(injuries: int, out_of_action_at: int, killed_at: int) -> str:
    """``[#######|##..]``: one cell per injury up to death, ``|`` after the injury that puts
    the combatant out of action; injuries beyond death fill the bar and no more."""
    cells = ["#" if k < injuries else "." for k in range(killed_at)]
    return "[" + "".join(cells[:out_of_action_at]) + "|" + "".join(cells[out_of_action_at:]) + "]"


def render_ansi(game, state: np.ndarray) -> str:
    """Both combatants (Aspects base->effective, injuries against their thresholds,
    Edges, Acquired cards), the scene and Flux card, and the last exchange in words."""
    info = game.describe(state)
    lines = [
        f"Ghosts of Gallifrey duel - {info['mode']} combat, threat {info['threat']}, exchange {info['exchange']}",
        f"Scene: {info['scene']}; Flux card: {info['flux_card']}; Time Deck: {info['deck']['cards_left']} cards left",
    ]
    for seat, c in info["combatants"].items():
        acquired = ", ".join(c["acquired_cards"]) or "none"
        defeat = "not defeated" if c["defeat"] == "none" else c["defeat"]
        lines.append(f"{seat:>6}: {c['name']} ({c['kind']}): {aspect_words(c)}")
        lines.append(
            f"        injuries {injury_bar(c['injuries'], c['out_of_action_at'], c['killed_at'])} {c['injuries']} "
            f"(out of action at {c['out_of_action_at']}, killed at {c['killed_at']}); "
            f"Edges left {c['edges_left']}; Acquired card {acquired}{' (used)' if c['acquired_used'] else ''}; {defeat}"
        )
    if info["last_exchange"]:
        lines.append("Last exchange: " + info["last_exchange"]["narration"])
    lines.append(LEGEND)
    if info["status"] != "running":
        lines.append(ending_line(info, f"Fight over: {info['status']}, winner {info['winner'] or 'none'}"))
    else:
        lines.append(f"To choose: {info['current_player']}")
    return "\n".join(lines)


def render_rgb(game, state: np.ndarray) -> np.ndarray:
    """Two panels: each combatant's four Aspect bars (base dark, effective
    light) and injury pips up to the kill threshold (out-of-action mark)."""
    info = game.describe(state)
    canvas = Canvas(240, 480)
    for s, (_seat, c) in enumerate(info["combatants"].items()):
        left = 12 + s * 240
        color = SEAT_COLOR[s]
        canvas.frame(8, left, 224, 216, color, 2)
        canvas.text(16, left + 8, c["name"][:16], color)
        for i, (aspect, value) in enumerate(c["aspects"].items()):
            top = 44 + i * 24
            canvas.text(top, left + 8, aspect[:3].upper(), (220, 220, 220))
            canvas.rect(top, left + 48, 12, 15 * c["effective_aspects"][aspect], tuple(min(255, v + 60) for v in color))
            canvas.rect(top, left + 48, 12, 15 * value, color)
        for k in range(c["killed_at"]):
            filled = k < c["injuries"]
            x = left + 12 + (k % 8) * 24
            y = 160 + (k // 8) * 24
            canvas.disc(y, x + 8, 8, (230, 60, 60) if filled else (70, 70, 80))
            if k + 1 == c["out_of_action_at"]:
                canvas.frame(int(y) - 10, x - 2, 20, 20, (240, 240, 240), 1)
        if c["defeat"] != "none":
            canvas.text(212, left + 8, c["defeat"].upper(), (250, 220, 90))
    return canvas.array

"""Drawing the duel: a text card per combatant (ansi) and an RGB image (rgb_array)."""

from __future__ import annotations

import numpy as np

from ...core.render import Canvas, ending_line

SEAT_COLOR = ((214, 64, 56), (70, 140, 235))


def render_ansi(game, state: np.ndarray) -> str:
    """Both combatants (Aspects, injuries against their thresholds, Edges,
    Acquired cards), the scene and Flux card, and the last exchange in words."""
    info = game.describe(state)
    lines = [
        f"Ghosts of Gallifrey duel - {info['mode']} combat, threat {info['threat']}, exchange {info['exchange']}",
        f"Scene: {info['scene']}; Flux card: {info['flux_card']}; Time Deck: {info['deck']['cards_left']} cards left",
    ]
    for seat, c in info["combatants"].items():
        aspects = " ".join(f"{a[:3].capitalize()} {v}({c['effective_aspects'][a]})" for a, v in c["aspects"].items())
        bar = "#" * c["injuries"] + "." * max(c["out_of_action_at"] - c["injuries"], 0)
        acquired = ", ".join(c["acquired_cards"]) or "none"
        lines.append(f"{seat:>6}: {c['name']} ({c['kind']}): {aspects}")
        lines.append(
            f"        injuries [{bar}] {c['injuries']}/{c['out_of_action_at']} (killed at {c['killed_at']}); "
            f"Edges {c['edges_left']}; acquired {acquired}{' (used)' if c['acquired_used'] else ''}; {c['defeat']}"
        )
    if info["last_exchange"]:
        lines.append("Last exchange: " + info["last_exchange"]["narration"])
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

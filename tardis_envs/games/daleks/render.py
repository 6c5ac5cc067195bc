"""Drawing Time of the Daleks: a text table (ansi) and a picture (rgb_array) with the Web
of Time, the Locations with their Dilemmas and Dalek markers, every console and the dice."""

from __future__ import annotations

import numpy as np

from ...core.render import Canvas, ending_line

SEAT_COLOR = ((214, 64, 56), (70, 140, 235), (80, 190, 90), (235, 190, 60))
DIE_COLOR = {"black": (30, 30, 30), "green": (60, 170, 80), "blue": (60, 110, 220), "red": (200, 60, 50)}
SYMBOL_LETTER = {"running": "R", "cunning": "C", "diplomacy": "D", "tactics": "T", "science": "S", "strength": "X"}
DALEK = (240, 200, 60)
SHIP = (200, 40, 40)
TEXT = (225, 225, 225)
DIM = (140, 140, 150)

# the rulebook's names and effects of an adventure's conditions (describe() gives identifiers)
CONDITION_WORDS = {
    "fixed_point": "Fixed Point: no re-rolls by cards or Sonic (discarding a Black die still re-rolls)",
    "time_locked": "Time Locked: no changing die facings by cards or Sonic",
    "time_breach": "Time Breach: a Dice Pool of at most seven dice",
}
HELP_WORDS = {"from afar": "helps from afar", "at the location": "helps at the Location"}

PLAY_HELP = """\
You are one Doctor; the other seats are your team-mates. A turn: prepare (install or uninstall
Equipment, dismiss Companions), travel (to a Time Zone of a Location in play, by the TARDIS die or
a new Location), recruit a Companion, call a team-mate for help, then the adventure: roll your
Dice Pool to match every symbol of the Challenge (the Dilemma's symbols added to the zone's).
  end prepare / stop / pass / no help       go on to the next step of the turn
  travel to <zone>                          fly the TARDIS there
  roll the tardis die / draw a location     find a new Location instead
  call <seat> for help                      a team-mate adds its dice (from afar or at the Location)
  re-roll <die> for N sonic                 re-roll one die, paying Sonic Charge tokens
  turn <die> to <symbol> for N sonic        change one die's facing
  discard black die N to re-roll the rest   the Black die's own re-roll
  play <card> / use <doctor or companion>   a card or character ability, as its text says
  fail cost N                               which Fail cost to pay after a failed adventure
A failed adventure (the dice do not show every Challenge symbol) adds a Dalek marker at the
Location, dismisses Part-Time Companions and costs the Dilemma's Fail cost."""


def symbol_counts(symbols: list[str]) -> str:
    """``cunning x2, science``: symbols with their counts, in first-seen order."""
    counts: dict[str, int] = {}
    for symbol in symbols:
        counts[symbol] = counts.get(symbol, 0) + 1
    return ", ".join(f"{s} x{n}" if n > 1 else s for s, n in counts.items())


def challenge_words(challenge: list[str], dice: list[dict]) -> str:
    """Which symbols of the Challenge the dice on the table meet (one die each) and which
    they still miss: an adventure succeeds when nothing is missing."""
    faces = [die["face"] for die in dice]
    met, missing = [], []
    for symbol in challenge:
        if symbol in faces:
            faces.remove(symbol)
            met.append(symbol)
        else:
            missing.append(symbol)
    return f"the dice meet {symbol_counts(met) or 'nothing'}; missing {symbol_counts(missing) or 'nothing (met)'}"


def seat_lines(game, state: np.ndarray, seat: int) -> list[str]:
    """What only ``seat`` sees: its hand with each card's text (the table shows the other
    Doctors' hand sizes only)."""
    name = game.seat_name(seat)
    hand = game.describe(state)["doctors"][name]["hand"]
    texts = {card.name: card.text for card in game.content.cards}
    if not hand:
        return [f"Your hand ({name}): no cards"]
    return [f"Your hand ({name}):"] + [f"  {card}: {texts.get(card, '')}" for card in hand]


def render_ansi(game, state: np.ndarray) -> str:
    info = game.describe(state)
    web = info["web_of_time"]
    g = web["gallifrey"]
    track = []
    for space in range(g + 1):
        here = []
        if web["dalek_ship"] == space:
            here.append("S")
        here += [name[-1] for name, v in web["tardis"].items() if v == space]
        mark = "*" if space in web["anomaly_markers"] else "."
        track.append(("".join(here) or mark).ljust(2))
    lines = [
        f"Time of the Daleks - round {info['round']}, {info['active_player']}'s turn, {info['phase']}",
        "Web of Time (Skaro 0 .. Gallifrey %d; S ship, digits TARDIS, * anomaly marker):" % g,
        "  " + " ".join(track),
    ]
    lines.append("Locations:")
    for loc in info["locations"]:
        zones = "; ".join(
            f"{z['name']}: {z['dilemma'] or 'solved'}"
            + (f", {z['daleks']} dalek(s)" if z["daleks"] else "")
            + (f" [{', '.join(z['doctors'])}]" if z["doctors"] else "")
            for z in loc["zones"]
        )
        if loc["kind"] == "time anomaly":
            zones = "a Time Anomaly challenge" + (f" [{', '.join(loc['zones'][0]['doctors'])}]" if loc["zones"][0]["doctors"] else "")
        lines.append(f"  {loc['name']} ({loc['kind']}): {zones}")
    for a in info["anomalies"]:
        lines.append(f"  anomaly {a['name']} ({a['kind']}), progress {a['progress']}, imprisoned {a['imprisoned_dice']}")
    lines.append("Consoles:")
    for seat, d in info["doctors"].items():
        comps = ", ".join(c["name"] + (" (part-time)" if c["part_time"] else "") for c in d["companions"]) or "none"
        lines.append(
            f"  {seat}: {d['doctor']} at {d['at']}, sonic {d['sonic']}, {len(d['hand'])} card(s) in hand; "
            f"companions: {comps}; equipment: {', '.join(d['equipment']) or 'none'}"
        )
    adv = info["adventure"]
    if adv:
        pooled = adv["dice"] or any(n for pool in adv["pools_before_roll"].values() for n in pool.values())
        helping = HELP_WORDS.get(adv["help"])
        lines.append(
            f"Adventure at {adv['zone']}: challenge {' '.join(adv['challenge'])}"
            + (f"; {adv['helper']} {helping}" if adv["helper"] and helping else "")
            + (f"; odds {100 * adv['odds']:.0f}%" if pooled else "")
        )
        for condition in adv["conditions"]:
            lines.append(f"  {CONDITION_WORDS.get(condition, condition)}")
        if adv["dice"]:
            lines.append(
                "  dice (number:colour=face, * chosen for the ability in use): "
                + "  ".join(f"{x['die']}:{x['colour']}={x['face']}{'*' if x['chosen'] else ''}" for x in adv["dice"])
            )
            lines.append("  " + challenge_words(adv["challenge"], adv["dice"]))
    last = info["last"]
    if last["adventure"]:
        result = last["adventure"]["result"]
        if result == "failure":
            result = "failed (its dice did not show every symbol of the Challenge)"
        lines.append(
            f"Last adventure: {last['adventure']['seat']} {result}"
            + (f"; last anomaly: {last['anomaly_drawn']}" if last["anomaly_drawn"] else "")
        )
    if info["status"] != "running":
        lines.append(
            ending_line(
                info,
                f"Game over: {info['status']}, winner {info['winner'] or 'none'} ({info['reason'] or 'no result'}), rewards {info['rewards']}",
                team=game.spec.cooperative,
            )
        )
    else:
        lines.append(f"To decide: {info['current_player']}")
    return "\n".join(lines)


def render_rgb(game, state: np.ndarray) -> np.ndarray:
    info = game.describe(state)
    web = info["web_of_time"]
    g = web["gallifrey"]
    canvas = Canvas(420, 640)
    # the Web of Time: a row of spaces, Skaro on the left, Gallifrey on the right
    cell = min(30, 600 // (g + 1))
    for space in range(g + 1):
        x = 16 + space * cell
        color = (70, 70, 110) if 0 < space < g else ((150, 50, 50) if space == 0 else (200, 170, 60))
        canvas.rect(16, x, 40, cell - 3, color)
        if space in web["anomaly_markers"]:
            canvas.disc(22, x + cell // 2 - 2, 4, (200, 120, 255))
        if web["dalek_ship"] == space:
            canvas.rect(30, x + 3, 8, cell - 9, SHIP)
        for k, (_, v) in enumerate(web["tardis"].items()):
            if v == space:
                canvas.rect(42, x + 2 + 6 * k, 10, 5, SEAT_COLOR[k])
    canvas.text(62, 16, "SKARO", DIM)
    canvas.text(62, 16 + g * cell - 40, "GALLIFREY", DIM)
    # Locations: a tile per Location in play, a box per zone
    seats = list(info["doctors"])
    for i, loc in enumerate(info["locations"][:10]):
        top = 84 + (i // 5) * 100
        left = 16 + (i % 5) * 124
        canvas.frame(top, left, 92, 118, (90, 90, 120) if loc["kind"] != "time anomaly" else (200, 120, 255), 2)
        canvas.text(top + 4, left + 4, loc["name"][:18].upper(), TEXT, scale=1)
        for z, zone in enumerate(loc["zones"]):
            zt = top + 14 + z * 26
            canvas.rect(zt, left + 4, 22, 110, (45, 45, 60))
            canvas.text(zt + 2, left + 6, zone["name"][:20].upper(), DIM, scale=1)
            if zone["dilemma"]:
                canvas.text(
                    zt + 11, left + 6, zone["dilemma"][:16].upper(), (250, 150, 150) if zone["dilemma"] != "face down" else DIM, scale=1
                )
            for k in range(zone["daleks"]):
                canvas.disc(zt + 6, left + 100 - 8 * k, 3, DALEK)
            for who in zone["doctors"]:
                k = seats.index(who)
                canvas.rect(zt + 14, left + 80 + 7 * k, 6, 6, SEAT_COLOR[k])
    # consoles
    for k, (_seat, d) in enumerate(info["doctors"].items()):
        top = 290
        left = 16 + k * 154
        canvas.frame(top, left, 70, 148, SEAT_COLOR[k], 2)
        canvas.text(top + 4, left + 4, d["doctor"].upper()[:20], SEAT_COLOR[k], scale=1)
        for j in range(d["sonic"]):
            canvas.disc(top + 18, left + 8 + 10 * j, 3, (120, 220, 255))
        canvas.text(top + 14, left + 64, f"{len(d['hand'])} CARDS", DIM, scale=1)
        for j, comp in enumerate(d["companions"]):
            canvas.text(top + 26 + 9 * j, left + 4, comp["name"].upper()[:24], TEXT if not comp["part_time"] else DIM, scale=1)
        for j, eq in enumerate(d["equipment"]):
            canvas.text(top + 54 + 8 * j, left + 4, eq.upper()[:24], (200, 200, 120), scale=1)
    # the dice of the current adventure
    adv = info["adventure"]
    if adv:
        canvas.text(370, 16, ("CHALLENGE " + " ".join(SYMBOL_LETTER[s] for s in adv["challenge"]))[:40], TEXT)
        for j, die in enumerate(adv["dice"]):
            x = 16 + j * 38
            canvas.rect(390, x, 24, 24, DIE_COLOR[die["colour"]])
            canvas.frame(390, x, 24, 24, (250, 250, 250) if die["chosen"] else (120, 120, 120), 1)
            canvas.text(395, x + 9, SYMBOL_LETTER[die["face"]], TEXT)
    return canvas.array

"""The card list of Time of the Daleks in words, generated from the shipped content.

``python -m tardis_envs.games.daleks.cardlist --write docs/games/time_of_the_daleks.md``
rewrites the page; a test fails when the page and the data disagree.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .content import (
    ANOMALY_KINDS,
    CARD_TYPES,
    COLOURS,
    CONDITIONS,
    EFFECT_COLOURS,
    EFFECTS,
    ONGOING,
    REROLL_MODES,
    SYMBOLS,
    TIMINGS,
    Ability,
    Content,
    Effect,
    load_content,
)


def effect_words(e: Effect) -> str:
    name = EFFECTS[e.effect]
    colour = EFFECT_COLOURS[e.colour] if e.colour >= 0 else ""
    if name == "add_die":
        return f"+{e.count} {colour} {'die' if e.count == 1 else 'dice'}"
    if name == "focus":
        return "focus: exchange a Black die for a " + " or ".join(COLOURS[c] for c in e.colours) + " die"
    if name == "reroll":
        mode = REROLL_MODES[e.mode]
        if mode == "number":
            return f"re-roll up to {e.count} {colour} {'die' if e.count == 1 else 'dice'}"
        return f"re-roll {'any or all' if mode == 'any' else 'all'} {colour} dice"
    if name == "change_face":
        return f"change one {colour} die to {SYMBOLS[e.symbol].capitalize()}"
    if name in ("move_tardis", "move_ship"):
        what = "your TARDIS" if name == "move_tardis" else "the Dalek Ship"
        return f"move {what} {'forward' if e.count > 0 else 'back'} {abs(e.count)}"
    if name == "place_dalek":
        return "place a Dalek marker " + ("on Earth (the zone with fewest)" if e.place else "here")
    if name == "equipment_discount":
        return f"Equipment costs {e.count} Sonic less"
    if name == "first_doctor_travel":
        return "instead of rolling the TARDIS die, draw a Location and move to it, then draw a Timey-Wimey card"
    plain = {
        "gain_sonic": "gain {} Sonic",
        "lose_sonic": "discard {} Sonic",
        "draw": "draw {} Timey-Wimey",
        "remove_dalek": "remove {} Dalek marker(s) here",
        "discard_cards": "discard {} Timey-Wimey card(s)",
        "discard_companion": "discard {} Companion(s)",
        "dismiss_companion": "dismiss {} Companion(s)",
        "free_die": "free {} imprisoned die",
        "progress": "place {} Progress marker(s)",
    }
    if name in plain:
        return plain[name].format(e.count)
    return {
        "regenerate": "the Doctors regenerate",
        "trade_equipment": "trade this card for an Equipment card on another console",
        "swap_random_card": "switch this card with a random card from another Doctor's hand",
    }[name]


def ability_words(a: Ability) -> str:
    text = effect_words(a.effect)
    extra = []
    if TIMINGS[a.timing] != "passive":
        extra.append(TIMINGS[a.timing].replace("_", " "))
    if a.cost:
        extra.append(f"costs {a.cost} Sonic")
    if a.with_doctor:
        extra.append(f"with the {a.with_doctor}")
    return text + (f" ({', '.join(extra)})" if extra else "")


def dice_words(dice) -> str:
    return ", ".join(f"{n} {COLOURS[c]}" for c, n in enumerate(dice) if n) or "none"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


BALANCE_FILE = Path("docs/results/time_of_the_daleks_v2/balance.txt")


def card_list_markdown(content: Content, balance: str | None = None) -> str:
    """The page; ``balance`` is the output of ``benchmarks/daleks_balance.py`` to include."""
    out = [
        "# Time of the Daleks: every card",
        "",
        "Generated from `tardis_envs/games/daleks/content/*.yaml` by",
        "`python -m tardis_envs.games.daleks.cardlist --write docs/games/time_of_the_daleks.md`; do not edit by hand.",
        "Origin: **rulebook** (effect printed in the rulebook), **publisher** (from the publisher's previews),",
        "**designed** (designed for this project from the closed vocabulary of effects).",
        "",
        "Who an effect acts for: an ability or a Timey-Wimey card acts once, for the Doctor using it. A Reward",
        "(Earth, Locations, Location Time Anomalies) goes to the Doctor of the adventure and once more to a helper",
        "who came; a Fail cost is paid by the Doctor and once more by a helper who came (the rulebook's help rules).",
        "An instant Time Anomaly says per effect: **once** (for the table) or **each Doctor**.",
        "",
    ]
    out += ["## Doctors", "", "| Doctor | origin | dice | abilities | Linked |", "|---|---|---|---|---|"]
    for d in content.doctors:
        out.append(
            f"| {d.name} | {d.origin} | {dice_words(d.dice)} | {_cell('; '.join(ability_words(a) for a in d.abilities) or '-')} | {d.linked} |"
        )
    out += ["", "## Companions", "", "| Companion | deck | origin | dice | abilities | links | groups |", "|---|---|---|---|---|---|---|"]
    for c in content.companions:
        out.append(
            f"| {c.name} | {c.deck} | {c.origin} | {dice_words(c.dice)} | {_cell('; '.join(ability_words(a) for a in c.abilities) or '-')} "
            f"| {', '.join(c.links) or '-'} | {', '.join(c.groups) or '-'} |"
        )
    out += ["", "## Timey-Wimey cards", "", "| card | type | cost | timing | origin | effect |", "|---|---|---|---|---|---|"]
    for k in content.cards:
        effects = "; ".join(effect_words(e) for e in k.effects)
        if k.use_cost:
            effects += f" (using it costs {k.use_cost} Sonic)"
        out.append(
            f"| {k.name} | {CARD_TYPES[k.type]} | {k.cost} | {TIMINGS[k.timing].replace('_', ' ')} | {k.origin} | {_cell(effects)} |"
        )
    out += ["", "## Earth", "", "| Time Zone | challenge | reward |", "|---|---|---|"]
    for z in content.earth:
        out.append(f"| {z.name} | {', '.join(SYMBOLS[s] for s in z.challenge)} | {'; '.join(effect_words(e) for e in z.reward)} |")
    out += ["", "## Locations", "", "| Location | origin | Time Zone | challenge | reward | links |", "|---|---|---|---|---|---|"]
    for loc in content.locations:
        for z in loc.zones:
            out.append(
                f"| {loc.name} | {loc.origin} | {z.name} | {', '.join(SYMBOLS[s] for s in z.challenge)} "
                f"| {'; '.join(effect_words(e) for e in z.reward)} | {', '.join(loc.links) or '-'} |"
            )
    out += [
        "",
        "## Dilemmas",
        "",
        "| Dilemma | origin | challenge | conditions | advanced | fail cost | links |",
        "|---|---|---|---|---|---|---|",
    ]
    for d in content.dilemmas:
        conds = ", ".join(CONDITIONS[b].replace("_", " ") for b in range(3) if (d.conditions >> b) & 1) or "-"
        fail = " **or** ".join("; ".join(effect_words(e) for e in option) for option in d.fail)
        out.append(
            f"| {d.name} | {d.origin + (f' ({d.origin_note})' if d.origin_note else '')} | {', '.join(SYMBOLS[s] for s in d.challenge)} | {conds} | {'yes' if d.advanced else '-'} "
            f"| {fail} | {', '.join(d.links) or '-'} |"
        )
    out += ["", "## Time Anomalies", "", "| anomaly | kind | origin | advanced | what it does |", "|---|---|---|---|---|"]
    for a in content.anomalies:
        kind = ANOMALY_KINDS[a.kind]
        if kind == "location":
            what = (
                f"challenge {', '.join(SYMBOLS[s] for s in a.challenge)}; reward: {'; '.join(effect_words(e) for e in a.reward)}; "
                f"fail: {'; '.join(effect_words(e) for e in a.fail)}"
            )
            if a.travel_tax:
                what += "; while in play, moving to a Location that is not a Time Anomaly costs 2 Sonic or a card"
        elif kind == "task":
            parts = []
            if a.imprison_count:
                parts.append(f"imprisons {a.imprison_count} {COLOURS[a.imprison_colour]} dice")
            if a.ongoing:
                parts.append(
                    {
                        "extra_ship": "the Dalek Ship moves one extra space each Dalek turn",
                        "time_breach": "every adventure is a Time Breach",
                        "fixed_point": "every adventure is a Fixed Point",
                        "time_locked": "every adventure is Time Locked",
                    }[ONGOING[a.ongoing]]
                )
            trig = []
            if a.trigger_symbols:
                trig.append("a success whose Challenge had " + " or ".join(SYMBOLS[s] for s in a.trigger_symbols))
            if a.trigger_earth:
                trig.append("a success on Earth")
            parts.append(
                f"each {' or '.join(trig)} {'frees a die' if a.imprison_count else 'adds a Progress marker'}; "
                f"discarded after {a.progress_needed}"
            )
            what = "; ".join(parts)
        else:
            what = "; ".join(f"{'each Doctor' if e.each_doctor else 'once'}: {effect_words(e)}" for e in a.effects)
            if a.replace:
                what += "; then draw another Time Anomaly"
        conds = ", ".join(CONDITIONS[b].replace("_", " ") for b in range(3) if (a.conditions >> b) & 1)
        if conds:
            what = conds + "; " + what
        out.append(f"| {a.name} | {kind} | {a.origin} | {'yes' if a.advanced else '-'} | {_cell(what)} |")
    designed = [
        x.name
        for group in (content.doctors, content.companions, content.cards, content.locations, content.dilemmas, content.anomalies)
        for x in group
        if x.origin == "designed"
    ]
    out += ["", f"## Designed here ({len(designed)})", "", ", ".join(designed), ""]
    out += [
        "Rulebook Dilemmas keep the name, conditions and Fail cost the rulebook prints; their challenge symbols are",
        "not printed and are designed here, except The Weeping Angels' (the rulebook's example). The Challenge of",
        "Into the Dalek is designed too.",
        "",
    ]
    if balance:
        out += [
            "## Balance",
            "",
            "Teams of heuristic Doctors (and random ones) over the same seeds, by `python benchmarks/daleks_balance.py`",
            f"(`{BALANCE_FILE}`):",
            "",
            "```",
            balance.strip(),
            "```",
            "",
        ]
    return "\n".join(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="PATH", help="write the page there (default: print it)")
    args = parser.parse_args(argv)
    balance = BALANCE_FILE.read_text() if BALANCE_FILE.exists() else None
    text = card_list_markdown(load_content(), balance)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(text)
        print(f"wrote {args.write}")
    else:
        print(text)


if __name__ == "__main__":
    main()

"""The shipped content: counts, the cards the rulebook and the publisher name, validation errors."""

import copy
from pathlib import Path

import pytest

from tardis_envs.core.options import read_yaml
from tardis_envs.games.daleks import content as C
from tardis_envs.games.daleks.cardlist import card_list_markdown

from .helpers import CONTENT

ROOT = Path(__file__).resolve().parents[2]


def raw_files():
    return {name: read_yaml(C.CONTENT_DIR / f"{name}.yaml") for name in C.FILES}


def test_component_counts():
    assert [d.name for d in CONTENT.doctors] == ["First Doctor", "Fourth Doctor", "Eleventh Doctor", "Twelfth Doctor"]
    assert sum(c.deck == "earth" for c in CONTENT.companions) == 15
    assert sum(c.deck == "alien" for c in CONTENT.companions) == 12
    assert len(CONTENT.cards) == 30 and len(CONTENT.locations) == 20 and len(CONTENT.dilemmas) == 25
    assert len(CONTENT.anomalies) == 8 and len(CONTENT.earth) == 3
    assert all(len(loc.zones) == 2 for loc in CONTENT.locations)
    assert "Captain Jack" not in {c.name for c in CONTENT.companions}, "an expansion card"
    for group in (CONTENT.doctors, CONTENT.companions, CONTENT.cards, CONTENT.locations, CONTENT.dilemmas, CONTENT.anomalies):
        assert all(x.origin in C.ORIGINS for x in group)


def effects(abilities):
    return [(C.EFFECTS[a.effect.effect], C.TIMINGS[a.timing]) for a in abilities]


def test_named_cards_keep_their_stated_effects():
    doc = {d.name: d for d in CONTENT.doctors}
    comp = {c.name: c for c in CONTENT.companions}
    cards = {k.name: k for k in CONTENT.cards}
    assert doc["First Doctor"].linked == "Susan" and ("first_doctor_travel", "travel") in effects(doc["First Doctor"].abilities)
    susan = comp["Susan"]
    assert susan.deck == "alien" and "Barbara Wright" in susan.links
    assert any(a.effect.effect == C.E_GAIN_SONIC and a.with_doctor == "First Doctor" and a.timing == C.TM_PREPARE for a in susan.abilities)
    assert comp["Barbara Wright"].deck == "earth"
    fourth = doc["Fourth Doctor"]
    assert fourth.linked == "Sarah Jane Smith"
    assert any(a.effect.effect == C.E_REROLL and a.effect.colour == C.COLOUR_COLOURED and a.effect.count == 1 for a in fourth.abilities)
    sarah = comp["Sarah Jane Smith"]
    assert any(a.effect.effect == C.E_FOCUS and a.effect.colours == (C.GREEN,) for a in sarah.abilities)
    assert any(a.effect.effect == C.E_REROLL and a.effect.colour == C.GREEN for a in sarah.abilities)
    eleventh = doc["Eleventh Doctor"]
    assert eleventh.dice == (4, 0, 1, 0) and eleventh.linked == "Amy Pond"
    assert any(a.effect.effect == C.E_REROLL and a.effect.colour == C.BLACK and a.effect.count == 2 for a in eleventh.abilities)
    assert any(a.effect.effect == C.E_EQUIPMENT_DISCOUNT and a.effect.count == 1 for a in eleventh.abilities)
    amy = comp["Amy Pond"]
    assert amy.dice[C.GREEN] == 1 and "Rory Williams" in amy.links
    assert any(
        a.effect.effect == C.E_CHANGE_FACE and a.effect.colour == C.GREEN and C.SYMBOLS[a.effect.symbol] == "diplomacy"
        for a in amy.abilities
    )
    assert comp["Rory Williams"].deck == "earth" and comp["Rory Williams"].dice[C.BLUE] == 1
    assert any(a.effect.effect == C.E_FOCUS and a.effect.colours == (C.BLUE,) for a in comp["Rory Williams"].abilities)
    twelfth = doc["Twelfth Doctor"]
    assert twelfth.linked == "Clara Oswald"
    assert any(a.effect.effect == C.E_REROLL and a.effect.colour == C.BLACK and a.effect.count == 2 for a in twelfth.abilities)
    clara = comp["Clara Oswald"]
    assert clara.dice[C.GREEN] == 1 and clara.dice[C.RED] == 1
    assert any(a.effect.effect == C.E_FOCUS and a.effect.colours == (C.BLUE,) for a in clara.abilities)
    k9 = comp["K-9"]
    assert any(a.effect.effect == C.E_ADD_DIE and a.effect.colour == C.COLOUR_ANY and a.cost == 1 for a in k9.abilities)
    for name in ("River Song", "The Brigadier"):
        assert any(a.effect.effect == C.E_FOCUS and C.RED in a.effect.colours for a in comp[name].abilities)
    assert "UNIT" in comp["The Brigadier"].links and len(CONTENT.groups["UNIT"]) >= 3
    fez = cards["Fez"]
    assert C.CARD_TYPES[fez.type] == "equipment" and fez.effects[0].effect == C.E_ADD_DIE and fez.effects[0].colour == C.BLACK
    library = cards["The Doctor's Library Card"]
    assert C.CARD_TYPES[library.type] == "equipment" and library.timing == C.TM_PREPARE and library.use_cost == 1
    assert library.effects[0].effect == C.E_TRADE_EQUIPMENT
    assert C.TIMINGS[cards["Fish Fingers & Custard"].timing] == "any_adventure" and cards["Fish Fingers & Custard"].type == 1
    tune = cards["TARDIS Tune-Up"]
    assert C.CARD_TYPES[tune.type] == "transfer" and tune.timing == C.TM_PREPARE and tune.effects[0].effect == C.E_SWAP_RANDOM_CARD
    assert "Timescoop" in cards
    mars = {loc.name: loc for loc in CONTENT.locations}["Mars"]
    zones = {z.name: z for z in mars.zones}
    assert {C.EFFECTS[e.effect]: e.count for e in zones["Mars Past"].reward} == {"move_tardis": 1, "gain_sonic": 1, "draw": 1}
    assert {C.EFFECTS[e.effect]: e.count for e in zones["Mars Future"].reward} == {"move_tardis": 2, "gain_sonic": 2, "draw": 1}
    orient = {z.name: z for loc in CONTENT.locations for z in loc.zones}["The Orient Express"]
    assert {C.EFFECTS[e.effect]: e.count for e in orient.reward} == {"gain_sonic": 1, "draw": 2, "move_tardis": 2}
    assert "Gallifrey" in {loc.name for loc in CONTENT.locations}
    dil = {d.name: d for d in CONTENT.dilemmas}
    angels = sorted(C.SYMBOLS[s] for s in zones["Mars Future"].challenge + dil["The Weeping Angels"].challenge)
    assert angels == sorted(["running"] * 4 + ["cunning", "tactics"]), "the rulebook's example challenge"
    assert [[(C.EFFECTS[e.effect], e.count) for e in o] for o in dil["The Silence"].fail] == [[("move_ship", 3)]]
    assert [[(C.EFFECTS[e.effect], e.count) for e in o] for o in dil["Sutekh"].fail] == [[("move_ship", 2)]]
    astronaut = dil["The Impossible Astronaut"]
    assert astronaut.conditions == C.COND_FIXED_POINT and astronaut.advanced
    assert [[(C.EFFECTS[e.effect], e.count) for e in o] for o in astronaut.fail] == [[("discard_cards", 2), ("move_ship", 2)]]
    teller = dil["The Teller"]
    assert teller.conditions == C.COND_TIME_LOCKED
    assert [[(C.EFFECTS[e.effect], e.count) for e in o] for o in teller.fail] == [[("discard_companion", 1), ("move_ship", 2)]]
    assert "The Impossible Astronaut" in teller.origin_note, "read as the Astronaut's wrapped second Fail line"
    anomalies = {a.name: a for a in CONTENT.anomalies}
    destiny = anomalies["Destiny of the Daleks"]
    assert destiny.kind == C.AK_TASK and destiny.imprison_colour == C.GREEN and destiny.imprison_count == 3
    assert {C.SYMBOLS[s] for s in destiny.trigger_symbols} == {"running", "diplomacy"}
    doctor = anomalies["The Time of the Doctor"]
    assert doctor.kind == C.AK_INSTANT and doctor.replace
    assert [C.EFFECTS[e.effect] for e in doctor.effects] == ["regenerate", "dismiss_companion", "draw", "gain_sonic"]
    assert [e.each_doctor for e in doctor.effects] == [False, True, True, True], "the Doctors regenerate; each Doctor must ..."
    stolen = anomalies["The Stolen Earth"]
    assert [(C.EFFECTS[e.effect], e.each_doctor) for e in stolen.effects] == [("place_dalek", False)], "ONE marker"
    invasion = anomalies["The Dalek Invasion of Earth"]
    assert [e.each_doctor for e in invasion.effects] == [True, True], "every Doctor discards ... and moves"
    dalek = anomalies["Into the Dalek"]
    assert dalek.kind == C.AK_LOCATION and dalek.travel_tax
    assert [(C.EFFECTS[e.effect], e.count) for e in dalek.reward] == [("move_ship", -1), ("move_tardis", 2)]
    assert [(C.EFFECTS[e.effect], e.count) for e in dalek.fail] == [("move_ship", 1)]


def test_every_symbol_appears_in_challenges():
    seen = {s for z in CONTENT.earth for s in z.challenge}
    seen |= {s for loc in CONTENT.locations for z in loc.zones for s in z.challenge}
    seen |= {s for d in CONTENT.dilemmas for s in d.challenge}
    assert seen == set(range(6))


@pytest.mark.parametrize(
    "file, edit, message",
    [
        (
            "timey_wimey",
            lambda d: d["cards"][0]["effects"].__setitem__(0, {"effect": "teleport", "count": 1}),
            r"timey_wimey.yaml': cards\[0\] \(.*\)\.effects\[0\]\.effect: unknown or not allowed here: 'teleport'",
        ),
        ("timey_wimey", lambda d: d["cards"].pop(), r"timey_wimey.yaml': cards: the base game has 30, got 29"),
        (
            "companions",
            lambda d: d["companions"][1].__setitem__("links", ["Captain Jack"]),
            r"companions.yaml': .*\.links: 'Captain Jack' is neither a Companion nor a group",
        ),
        (
            "dilemmas",
            lambda d: d["dilemmas"][0].__setitem__("challenge", ["running", "swimming"]),
            r"dilemmas.yaml': dilemmas\[0\] \(.*\)\.challenge\[1\]: must be one of running, .*got 'swimming'",
        ),
        (
            "locations",
            lambda d: d["locations"][2]["zones"].pop(),
            r"locations.yaml': locations\[2\] \(.*\)\.zones: a Location tile has two Time Zones, got 1",
        ),
        (
            "doctors",
            lambda d: d["doctors"][0].__setitem__("linked", "Nobody"),
            r"doctors.yaml': First Doctor.linked: 'Nobody' is not a Companion",
        ),
        (
            "companions",
            lambda d: d["companions"][0]["abilities"].append({"timing": "passive", "effect": "reroll", "colour": "red", "mode": "all"}),
            r"companions.yaml': companions\[0\] \(.*\)\.abilities\[\d\]\.timing: only add_die, focus and equipment_discount are passive",
        ),
        (
            "anomalies",
            lambda d: d["anomalies"][0].__setitem__("kind", "eternal"),
            r"anomalies.yaml': anomalies\[0\] \(.*\)\.kind: must be one of location, task, instant",
        ),
        (
            "anomalies",
            lambda d: d["anomalies"][6]["effects"][0].pop("who"),
            r"anomalies.yaml': anomalies\[6\] \(The Stolen Earth\)\.effects\[0\]\.who: must be one of once, each_doctor, got None",
        ),
        (
            "anomalies",
            lambda d: d["anomalies"][7]["effects"][0].__setitem__("who", "once"),
            r"anomalies.yaml': anomalies\[7\] .*\.effects\[0\]\.who: 'lose_sonic' acts on a Doctor's own things: it must be each_doctor",
        ),
        ("earth", lambda d: d["zones"].pop(), r"earth.yaml': zones: Earth has 3 Time Zones, got 2"),
    ],
)
def test_content_errors_name_file_card_and_field(file, edit, message):
    files = copy.deepcopy(raw_files())
    edit(files[file])
    with pytest.raises(C.ContentError, match=message):
        C.parse_content(files)


def test_the_card_list_page_is_up_to_date():
    page = ROOT / "docs" / "games" / "time_of_the_daleks.md"
    balance = (ROOT / "docs" / "results" / "time_of_the_daleks_v2" / "balance.txt").read_text()
    assert page.read_text() == card_list_markdown(CONTENT, balance), (
        "regenerate: python -m tardis_envs.games.daleks.cardlist --write docs/games/time_of_the_daleks.md"
    )

"""Scripted exchanges for every rule of the duel (rulebook and the rulings of gallifrey_duel_v1)."""

import numpy as np
import pytest

from tardis_envs import gallifrey_duel_v1
from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, TERMINATED, TRUNCATED
from tardis_envs.games.gallifrey import layout, observe, rules
from tardis_envs.games.gallifrey.content import DECK_SIZE, load_content, parse_content
from tardis_envs.games.gallifrey.layout import (
    CARD_DRAW,
    DECK,
    DECK_POS,
    F_ACQUIRED_USED,
    F_DEFEAT,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    KILL,
    L_ATTACK,
    L_CONDITION,
    L_DEFENCE,
    L_LEVELS,
    RESTRAIN,
    SUBDUE,
    WOUND,
    last,
    make_action,
    side,
)
from tardis_envs.games.gallifrey.notation import healing_schedule

CONTENT = load_content()
DYN, MEM, STA, FOR = 0, 1, 0, 1  # attack index (Dynamism/Memory), defence index (Stasis/Foresight)


def game(pair, mode="climactic", threat="deadly", scene="London, 21st century", **extra):
    return gallifrey_duel_v1.Game(pair=pair, mode=mode, threat=threat, scene=scene, forced_draw_p=0.0, **extra)


def start(g, *next_cards):
    """A new fight whose Time Deck deals ``next_cards`` first."""
    state = g.new_state(7)
    ids = [CONTENT.card_index(name) for name in next_cards]
    rest = [c for c in range(DECK_SIZE) if c not in ids]
    state[DECK : DECK + DECK_SIZE] = ids + rest
    state[DECK_POS] = 0
    return state


def exchange(g, state, first, second):
    for action in (first, second):
        mask = np.zeros(g.num_actions, dtype=np.int8)
        rules.legal_mask(state, g.tables, mask)
        assert mask[action], g.action_to_string(state, action)
        rules.step(state, g.tables, action)
    return state


def A(attack=DYN, defence=STA, condition=WOUND, card=0, edge=0):
    return make_action(attack, defence, condition, card, edge)


# --- the golden rule, contest ----------------------------------------------------------
def test_contest_higher_score_wins_and_the_loser_is_defeated_by_the_winners_condition():
    g = game("UNIT Soldier, Companion", mode="contest")
    state = start(g)
    # seat 0 attacks first: Dynamism 4 + rifle 1 = 5 against the Companion's Stasis 3: wound, 5 - 3 = 2 injuries
    exchange(g, state, A(DYN, 0, WOUND), A(0, STA, KILL))
    assert state[STATUS] == TERMINATED and state[layout.WINNER] == 0 and state[REWARDS] == 1 and state[REWARDS + 1] == -1
    assert state[last(0, L_ATTACK)] == 5 and state[last(1, L_DEFENCE)] == 3
    assert state[side(1, F_INJURIES)] == 2 and state[side(1, F_DEFEAT)] == layout.DEFEAT_OUT_OF_ACTION  # wounded


@pytest.mark.parametrize(
    "condition, injuries, defeat",
    [
        (RESTRAIN, 0, layout.DEFEAT_RESTRAINED),
        (SUBDUE, 1, layout.DEFEAT_SUBDUED),
        (WOUND, 2, layout.DEFEAT_OUT_OF_ACTION),  # wounding: 5 - 3 = 2 injuries; the defeat is a wound
        (KILL, 5, layout.DEFEAT_KILLED),  # killing: the winner's score, 5 injuries: killed at 5 (Stasis 3)
    ],
)
def test_each_defeat_condition_causes_the_rulebooks_injuries(condition, injuries, defeat):
    threat = {RESTRAIN: "trivial", SUBDUE: "trivial", WOUND: "deadly", KILL: "deadly"}[condition]
    g = game("UNIT Soldier, Companion", mode="contest", threat=threat)
    state = start(g)
    low = {"trivial": RESTRAIN, "deadly": WOUND}[threat]
    exchange(g, state, A(DYN, 0, condition), A(0, STA, low))
    assert state[side(1, F_INJURIES)] == injuries
    assert state[side(1, F_DEFEAT)] == (layout.DEFEAT_OUT_OF_ACTION if condition == WOUND else defeat)


def test_contest_defender_can_win_and_ties_continue_with_roles_swapped():
    g = game("Companion, UNIT Soldier", mode="contest")
    state = start(g)
    # the Companion attacks with Memory 4 against the soldier's Stasis 3... and wins
    exchange(g, state, A(MEM, 0, WOUND), A(0, STA, WOUND))
    assert state[layout.WINNER] == 0
    state = start(g)
    # Dynamism 3 against Stasis 3: equal, the fight goes on, seat 1 attacks next
    exchange(g, state, A(DYN, 0, WOUND), A(0, STA, WOUND))
    assert state[STATUS] == RUNNING and state[layout.LAST_OUTCOME] == layout.OUTCOME_CONTINUES
    assert rules.contest_attacker(state) == 1
    mask = np.zeros(256, dtype=np.int8)
    rules.legal_mask(state, g.tables, mask)
    assert not mask[A(MEM, 0, WOUND)] and mask[A(0, STA, WOUND)] and mask[A(0, FOR, WOUND)]  # seat 0 now defends


def test_an_edge_breaks_a_tie_and_is_spent_only_then():
    g = game("Companion, UNIT Soldier", mode="contest")
    state = start(g)
    exchange(g, state, A(DYN, 0, WOUND), A(0, STA, WOUND, edge=1))  # 3 vs 3: the soldier's Edge wins
    assert state[layout.WINNER] == 1 and state[side(1, F_EDGES_LEFT)] == 0
    state = start(g)
    exchange(g, state, A(MEM, 0, WOUND), A(0, STA, WOUND, edge=1))  # 4 vs 3: no tie, the Edge stays
    assert state[layout.WINNER] == 0 and state[side(1, F_EDGES_LEFT)] == 1


def test_both_edges_on_a_tie_cancel_and_are_spent():
    g = game("UNIT Soldier, Sontaran", mode="dramatic")
    state = start(g)
    # totals: soldier Dyn 5 + Sta 3 = 8; Sontaran Memory 4 + Foresight 4 = 8
    exchange(g, state, A(DYN, STA, WOUND, edge=1), A(MEM, FOR, WOUND, edge=1))
    assert state[side(0, F_EDGES_LEFT)] == 0 and state[side(1, F_EDGES_LEFT)] == 0
    # dramatic: the tie stands, a draw (contest fights on, see the contest test above)
    assert state[STATUS] == TERMINATED and state[layout.WINNER] == -1


# --- dramatic -----------------------------------------------------------------------
def test_dramatic_higher_total_wins_but_the_winner_may_still_be_injured():
    g = game("The Doctor, UNIT Soldier", mode="dramatic")
    state = start(g)
    # Doctor: Memory 8 + Foresight 7 + sonic 1 = 16; soldier: Dynamism 4 + rifle 1 + Stasis 3 = 8;
    # the soldier's attack 5 does not get through the Doctor's defence 8
    exchange(g, state, A(MEM, FOR, WOUND), A(DYN, STA, WOUND))
    assert state[layout.WINNER] == 0 and state[side(0, F_INJURIES)] == 0
    assert state[side(1, F_INJURIES)] == 8 - 3  # wounding: the Doctor's attack (Memory 8) against the soldier's defence (Stasis 3)
    assert state[side(1, F_DEFEAT)] == layout.DEFEAT_KILLED  # 5 injuries kill at Stasis 3
    state = start(g)
    # Dynamism 5 + Stasis 7 = 12 still beats 8, and the soldier's 5 does not beat Stasis 7
    exchange(g, state, A(DYN, STA, WOUND), A(DYN, STA, WOUND))
    assert state[layout.WINNER] == 0 and state[side(0, F_INJURIES)] == 0


def test_dramatic_winner_injured_when_the_losers_attack_gets_through():
    g = game("Dalek, The Doctor", mode="dramatic")
    state = start(g)
    # Dalek: Dynamism 9 + Stasis 9 = 18 beats the Doctor's Memory 8 + Stasis 7 = 15,
    # and the Doctor's Memory 8 does not get through Stasis 9
    exchange(g, state, A(DYN, STA, KILL), A(MEM, STA, KILL))
    assert state[layout.WINNER] == 0 and state[side(0, F_INJURIES)] == 0
    state = start(g)
    # the Dalek defends with Foresight 3: 12 < 15, the Doctor wins; but the Dalek's attack 9 beats
    # Stasis 7: the Doctor takes 9 injuries (killing: the attacker's score), out of action at 7
    exchange(g, state, A(DYN, FOR, KILL), A(MEM, STA, KILL))
    assert state[side(1, F_INJURIES)] == 9 and state[side(1, F_DEFEAT)] == layout.DEFEAT_OUT_OF_ACTION
    # the higher total still wins, out of action or not; the Dalek takes the Doctor's Memory 8
    # (killing: the attacker's Aspect), defending with Foresight 3
    assert state[STATUS] == TERMINATED and state[layout.WINNER] == 1
    assert state[side(0, F_INJURIES)] == 8 and state[side(0, F_DEFEAT)] == layout.DEFEAT_KILLED
    assert state[REWARDS] == -1 and state[REWARDS + 1] == 1
    assert "The Doctor wins the fight." in g.narrate(state)


def test_dramatic_equal_totals_without_an_edge_are_a_draw():
    g = game("UNIT Soldier, UNIT Soldier", mode="dramatic")
    state = start(g)
    totals = [rules.effective_aspect(state, g.tables, s, MEM) + rules.effective_aspect(state, g.tables, s, STA) for s in range(2)]
    assert totals[0] == totals[1], totals
    exchange(g, state, A(MEM, STA, WOUND), A(MEM, STA, WOUND))  # no card, no Edge
    assert state[STATUS] == TERMINATED and state[layout.WINNER] == -1
    assert state[REWARDS] == 0 and state[REWARDS + 1] == 0
    assert "Equal totals and no Edge: a draw." in g.narrate(state)


# --- climactic ----------------------------------------------------------------------
def test_climactic_injuries_are_the_margin_and_defeat_at_stasis():
    g = game("Dalek, UNIT Soldier", mode="climactic", threat="dangerous")
    state = start(g)
    # Dalek Dynamism 9 vs soldier Stasis 3: margin 6, wound caps at killed_at(3) - 1 = 4
    exchange(g, state, A(DYN, STA, WOUND), A(DYN, STA, WOUND))
    assert state[side(1, F_INJURIES)] == 4 and state[side(1, F_DEFEAT)] == layout.DEFEAT_OUT_OF_ACTION
    assert state[side(0, F_INJURIES)] == 0  # soldier's 5 does not beat Stasis 9
    assert state[layout.WINNER] == 0


def test_climactic_restrain_and_subdue_caps():
    g = game("Dalek, UNIT Soldier", mode="climactic", threat="trivial")
    state = start(g)
    exchange(g, state, A(DYN, STA, RESTRAIN), A(DYN, STA, RESTRAIN))
    assert state[side(1, F_INJURIES)] == 1 and state[side(1, F_DEFEAT)] == layout.DEFEAT_RESTRAINED
    g = game("Sontaran, The Doctor", mode="climactic", threat="trivial")
    state = start(g)
    # Sontaran Dynamism 8 vs the Doctor's Foresight 8: no hit; the Doctor's Memory 8 vs Stasis 5:
    # margin 3, within the subdue cap of 3: subdued
    exchange(g, state, A(DYN, STA, SUBDUE), A(MEM, FOR, SUBDUE))
    assert state[side(1, F_INJURIES)] == 0 and state[side(0, F_INJURIES)] == 3
    assert state[side(0, F_DEFEAT)] == layout.DEFEAT_SUBDUED and state[layout.WINNER] == 1
    g = game("Dalek, The Doctor", mode="climactic", threat="trivial")
    state = start(g)
    # Dalek Dynamism 9 vs Stasis 7: margin 2, subdual needs 3 injuries: the fight goes on
    exchange(g, state, A(DYN, STA, SUBDUE), A(DYN, STA, SUBDUE))
    assert state[side(1, F_INJURIES)] == 2 and state[STATUS] == RUNNING
    exchange(g, state, A(DYN, STA, SUBDUE), A(DYN, STA, SUBDUE))  # +2, capped at 3: subdued
    assert state[side(1, F_INJURIES)] == 3 and state[side(1, F_DEFEAT)] == layout.DEFEAT_SUBDUED


def test_climactic_edge_turns_an_even_attack_into_a_hit():
    g = game("Sontaran, The Doctor", mode="climactic", threat="dangerous")
    state = start(g)
    # Sontaran Dynamism 8 vs Foresight 8: even; with the Edge, a hit of 1
    exchange(g, state, A(DYN, STA, WOUND, edge=1), A(DYN, FOR, WOUND))
    assert state[side(1, F_INJURIES)] == 1 and state[side(0, F_EDGES_LEFT)] == 0


def test_climactic_kill_has_no_cap_and_kills_above_one_and_a_half_stasis():
    g = game("Dalek, Companion", mode="climactic", threat="deadly")
    state = start(g)
    # Dalek Dynamism 9 vs Companion Stasis 3: 6 injuries >= 5: killed
    exchange(g, state, A(DYN, STA, KILL), A(DYN, STA, WOUND))
    assert state[side(1, F_INJURIES)] == 6 and state[side(1, F_DEFEAT)] == layout.DEFEAT_KILLED


@pytest.mark.parametrize(
    "stasis, out_at, killed", [(2, 2, 4), (3, 3, 5), (4, 4, 7), (5, 5, 8), (6, 6, 10), (7, 7, 11), (8, 8, 13), (9, 9, 14), (10, 10, 16)]
)
def test_injury_thresholds_for_stasis_2_to_10(stasis, out_at, killed):
    assert rules.out_of_action_at(stasis) == out_at and rules.killed_at(stasis) == killed
    assert killed > 1.5 * stasis >= killed - 1  # the first count above 1.5 x Stasis
    assert rules.injury_defeat(out_at - 1, stasis) == layout.DEFEAT_NONE
    assert rules.injury_defeat(out_at, stasis) == layout.DEFEAT_OUT_OF_ACTION
    assert rules.injury_defeat(killed - 1, stasis) == layout.DEFEAT_OUT_OF_ACTION
    assert rules.injury_defeat(killed, stasis) == layout.DEFEAT_KILLED


def test_stasis_10_heals_between_exchanges():
    g = game("Dalek, Weeping Angel", mode="climactic", threat="dangerous")
    state = start(g)
    # Dalek Dynamism 9 vs the Angel's Stasis 10: no hit. Memory vs Foresight 2: 4 - 2 = 2 injuries, healed at once
    exchange(g, state, A(MEM, STA, WOUND), A(MEM, FOR, WOUND))
    assert state[last(1, layout.L_INJURIES)] == 2 and state[side(1, F_INJURIES)] == 0 and state[STATUS] == RUNNING


# --- cards ------------------------------------------------------------------------
def levels_of(g, card, seat=0, reversed_=False, flux=None):
    state = start(g)
    if flux is not None:
        state[layout.FLUX] = CONTENT.card_index(flux)
    return rules.card_levels(state, g.tables, seat, CONTENT.card_index(card), reversed_)


def test_flux_vortex_war_and_fault_cards():
    g = game("UNIT Soldier, Companion")
    assert levels_of(g, "Gallifrey") == 1 and levels_of(g, "The Doctor") == 2  # plain useful / positive
    assert levels_of(g, "Gallifrey", flux="Gallifrey") == 2  # the Flux card: one step stronger
    assert levels_of(g, "The Doctor", flux="The Doctor") == 3  # positive -> super-positive
    assert levels_of(g, "The Master", flux="The Master") == -3
    assert levels_of(g, "Earth", flux="Earth") == 0  # a neutral card stays neutral
    assert levels_of(g, "The Vortex") == 2  # The Vortex always counts as the Flux card
    assert levels_of(g, "UNIT", seat=0) == 2  # the soldier's War card: one step better
    assert levels_of(g, "The Daleks", seat=0) == -3  # its Fault card: one step worse
    assert levels_of(g, "The Weeping Angels", seat=1) == -3 and levels_of(g, "The Companion", seat=1) == 2
    assert levels_of(g, "Gallifrey", reversed_=True) == -1


@pytest.mark.parametrize("scene", [s.name for s in CONTENT.scenes])
def test_the_observation_shows_each_seats_base_and_effective_aspects_in_every_scene(scene):
    """Both seats' Aspects as their rule (``effective_aspect``: character and scene
    modifiers, never below 0) gives them, for every character in every scene, in float32
    and compact; the observation reads them from words the tables keep per character and
    scene (``fill_aspect_entries``)."""
    names = [c.name for c in CONTENT.characters]
    for i, name in enumerate(names):
        g = game(f"{name}, {names[(i + 1) % len(names)]}", scene=scene)
        state = g.new_state(3)
        for player in range(2):
            fractions = np.zeros(layout.OBS_SIZE, dtype=np.float32)
            numerators = np.zeros(layout.OBS_SIZE, dtype=np.int8)
            observe.observe(state, g.tables, player, fractions)
            observe.observe(state, g.tables, player, numerators)
            for k, seat in enumerate((player, 1 - player)):
                base = [rules.base_aspect(state, g.tables, seat, a) for a in range(4)]
                effective = [min(rules.effective_aspect(state, g.tables, seat, a), 10) for a in range(4)]
                at = layout.O_OWN_ASPECTS + 8 * k
                assert numerators[at : at + 8].tolist() == base + effective, (name, scene, seat)
                assert fractions[at : at + 8].tolist() == [np.float32(v / 10) for v in base + effective]


def test_a_drawn_card_adds_to_every_aspect_used_and_escalation_raises_the_condition():
    g = game("UNIT Soldier, Companion", mode="climactic", threat="trivial")
    state = start(g, "The Daleks")  # -2, escalation 2; the soldier's Fault card: -3
    exchange(g, state, A(DYN, STA, RESTRAIN, card=CARD_DRAW), A(DYN, FOR, RESTRAIN))
    assert state[last(0, L_LEVELS)] == -3 and state[last(0, L_ATTACK)] == 5 - 3 and state[last(0, L_DEFENCE)] == 3 - 3
    assert state[last(0, L_CONDITION)] == WOUND  # restrain escalated two steps, beyond the trivial threat
    # the Companion's Dynamism 3 against Stasis 0: margin 3, restrain cap 1
    assert state[side(0, F_INJURIES)] == 1 and state[side(0, F_DEFEAT)] == layout.DEFEAT_RESTRAINED


def test_acquired_card_upright_or_reversed_once_per_fight():
    g = game("The Doctor, Dalek", mode="climactic", threat="dangerous")
    state = start(g)
    tardis_upright = make_action(MEM, FOR, WOUND, 2, 0)  # acquired card 1 (The TARDIS, +2)
    exchange(g, state, tardis_upright, A(DYN, STA, WOUND))
    assert state[last(0, L_LEVELS)] == 2 and state[side(0, F_ACQUIRED_USED)] == 1
    assert state[last(0, layout.L_SOURCE)] == layout.SOURCE_UPRIGHT and state[DECK_POS] == 0  # no card drawn
    mask = np.zeros(256, dtype=np.int8)
    rules.legal_mask(state, g.tables, mask)
    assert not any(mask[make_action(a, d, c, k, 0)] for a in range(2) for d in range(2) for c in range(4) for k in range(2, 8))
    state = start(g)
    exchange(g, state, make_action(MEM, FOR, WOUND, 3, 0), A(DYN, STA, WOUND))  # reversed: -2
    assert state[last(0, L_LEVELS)] == -2
    mask = np.zeros(256, dtype=np.int8)
    rules.legal_mask(start(g), g.tables, mask)
    assert mask[make_action(0, 0, WOUND, 5, 0)] and not mask[make_action(0, 0, WOUND, 6, 0)]  # two cards held, not three


def test_gm_insisting_on_a_draw_removes_no_card_but_allows_the_acquired_card():
    g = game("The Doctor, Dalek", threat="dangerous")
    state = start(g)
    state[side(0, F_FORCED)] = 1
    legal = {g.action_to_string(state, int(a)) for a in g.legal_actions(state)}
    assert not any("no card" in text for text in legal)
    assert any("draw a time card" in text for text in legal) and any("acquired card 1" in text for text in legal)


def test_threat_level_limits_the_defeat_conditions():
    for threat, allowed in (("trivial", {RESTRAIN, SUBDUE}), ("dangerous", {SUBDUE, WOUND}), ("deadly", {WOUND, KILL})):
        g = game("The Doctor, Dalek", threat=threat)
        conditions = {layout.action_condition(int(a)) for a in g.legal_actions(start(g))}
        assert conditions == allowed, threat


def test_edge_needs_edges_left():
    g = game("Dalek, The Doctor")
    state = start(g)
    assert not any(layout.action_edge(int(a)) for a in g.legal_actions(state))  # the Dalek has none


def test_deck_reshuffles_when_empty_and_truncation():
    g = game("UNIT Soldier, Companion", mode="contest", max_exchanges=3)
    state = start(g)
    state[DECK_POS] = DECK_SIZE
    exchange(g, state, A(DYN, 0, WOUND, card=CARD_DRAW, edge=0), A(0, STA, WOUND, card=CARD_DRAW))
    assert state[DECK_POS] in (1, 2) and sorted(state[DECK : DECK + DECK_SIZE]) == list(range(DECK_SIZE))
    g = game("Companion, UNIT Soldier", mode="contest", max_exchanges=2)
    state = start(g)
    exchange(g, state, A(DYN, 0, WOUND), A(0, STA, WOUND))  # 3 vs 3
    exchange(g, state, A(0, STA, WOUND), A(DYN, 0, WOUND))  # soldier 5 vs Companion Stasis 3? it wins
    assert state[STATUS] in (TERMINATED, TRUNCATED)


def test_truncation_after_max_exchanges():
    g = game("Auton, Auton", max_exchanges=2)
    state = start(g)
    for _ in range(2):  # Autons: Memory 2 cannot get through Stasis 9
        exchange(g, state, A(MEM, STA, WOUND), A(MEM, STA, WOUND))
    assert state[STATUS] == TRUNCATED and state[REWARDS] == 0


# --- healing ---------------------------------------------------------------------
@pytest.mark.parametrize("stasis", range(2, 11))
def test_healing_schedule(stasis):
    injuries = rules.killed_at(stasis) - 1
    schedule = healing_schedule(stasis, injuries)
    assert [row["injury"] for row in schedule] == list(range(1, injuries + 1))
    text = [row["heals_with"] for row in schedule]
    if stasis == 10:
        assert all("Stasis 10" in t for t in text)
        return
    if stasis == 9:
        assert all("Stasis 9" in t for t in text[:4]) and "Medicine 6" in text[-1]
        return
    assert "fades as soon as combat is over" in text[0]
    assert "Medicine 5" in text[stasis - 1] and "Medicine 6" in text[stasis]  # mortal at Stasis, beyond it extraordinary
    if stasis >= 6:
        assert "Medicine 1" in text[1] and "Medicine 2" in text[2] and "Medicine 3" in text[3]
    if stasis == 8:
        assert all("healing coma" in t for t in text)
    if stasis == 7:
        assert all("healing coma" in t for t in text[:6]) and "healing coma" not in text[6]


# --- simultaneity and words ------------------------------------------------------------
def test_second_movers_view_does_not_depend_on_the_first_choice():
    for mode in ("contest", "dramatic", "climactic"):
        g = gallifrey_duel_v1.Game(mode=mode, pair="The Doctor, The Master")
        base = g.new_state(3)
        views, masks = set(), set()
        for a in g.legal_actions(base):
            state = base.copy()
            rules.step(state, g.tables, int(a))
            assert state[CURRENT_PLAYER] == 1
            views.add(g.observation(state, 1).tobytes())
            masks.add(g.legal_actions(state).tobytes())
        assert len(views) == 1 and len(masks) == 1, mode


def test_narration_and_notation():
    g = game("Dalek, The Doctor", mode="climactic", threat="dangerous")
    state = start(g, "The Daleks")
    exchange(g, state, A(DYN, STA, WOUND, card=CARD_DRAW), A(MEM, FOR, WOUND))  # escalation 2: wound -> kill
    text = g.describe(state)["last_exchange"]["narration"]
    assert text.startswith("The Dalek attacks with Dynamism 9-1 and defends with Stasis 9-1, fighting to kill; draws The Daleks")
    assert g.string_to_action(
        state, "Attack with Memory, defend with Foresight, fight to wound, acquired card 2 upright, edge"
    ) == make_action(MEM, FOR, WOUND, 4, 1)
    with pytest.raises(ValueError, match="unknown action"):
        g.string_to_action(state, "run away")


def test_content_errors_name_the_file_and_key():
    import yaml

    from tardis_envs.games.gallifrey.content import CONTENT_DIR

    deck, roster, scenes = (yaml.safe_load((CONTENT_DIR / f"{n}.yaml").read_text()) for n in ("time_deck", "roster", "scenes"))
    with pytest.raises(ValueError, match="36 cards"):
        parse_content({"cards": deck["cards"][:35]}, roster, scenes)
    bad = {"characters": [dict(roster["characters"][0], war_card="Davros")] + roster["characters"][1:]}
    with pytest.raises(ValueError, match="war_card: 'Davros' is not a Time Deck card"):
        parse_content(deck, bad, scenes)
    bad = {
        "characters": [dict(roster["characters"][0], aspects={"dynamism": 11, "memory": 1, "stasis": 1, "foresight": 1})]
        + roster["characters"][1:]
    }
    with pytest.raises(ValueError, match="aspects.dynamism: must be an integer in \\[1, 10\\]"):
        parse_content(deck, bad, scenes)
    assert len(CONTENT.characters) >= 8 and {c.kind for c in CONTENT.characters} >= {
        "Time Lord",
        "Dalek",
        "Cyberman",
        "Sontaran",
        "human soldier",
        "companion",
    }


@pytest.mark.parametrize("mode", ["contest", "dramatic", "climactic"])
def test_the_mask_is_each_actions_rule_over_random_fights(mode):
    """The mask is written a block of 16 actions at a time; every action's entry must
    still be its own rule: the Aspects of the role (contest), the two conditions of
    the Threat Level, a card held (no card only when the GM does not insist, the
    Acquired cards only while unused) and an Edge only with Edges left."""
    from tardis_envs.games.gallifrey.content import C_NUM_ACQUIRED, T_THREAT
    from tardis_envs.games.gallifrey.layout import character_base
    from tardis_envs.games.gallifrey.rules import contest_attacker

    rng = np.random.default_rng(0)
    for threat in ("trivial", "dangerous", "deadly"):
        g = gallifrey_duel_v1.Game(mode=mode, threat=threat, forced_draw_p=0.3)
        state = g.new_state(int(rng.integers(1000)))
        mask = np.zeros(g.num_actions, dtype=np.int8)
        for _ in range(300):
            rules.legal_mask(state, g.tables, mask)
            if state[STATUS] != RUNNING:
                assert not mask.any()
                state = g.new_state(int(rng.integers(1000)))
                continue
            seat = state[CURRENT_PLAYER]
            held = g.tables[character_base(g.tables, state[side(seat, layout.F_CHARACTER)]) + C_NUM_ACQUIRED]
            low = g.tables[T_THREAT]
            for a in range(g.num_actions):
                attack, defence = layout.action_attack(a), layout.action_defence(a)
                card, edge = layout.action_card(a), layout.action_edge(a)
                role_ok = True
                if mode == "contest":
                    role_ok = defence == 0 if seat == contest_attacker(state) else attack == 0
                card_ok = (
                    (card == layout.CARD_NONE and state[side(seat, F_FORCED)] == 0)
                    or card == CARD_DRAW
                    or (card >= 2 and state[side(seat, F_ACQUIRED_USED)] == 0 and card < 2 + 2 * held)
                )
                expected = (
                    role_ok
                    and low <= layout.action_condition(a) < low + 2
                    and card_ok
                    and (edge == 0 or state[side(seat, F_EDGES_LEFT)] > 0)
                )
                assert mask[a] == expected, (mode, threat, g.action_to_string(state, a))
            rules.step(state, g.tables, int(rng.choice(np.flatnonzero(mask))))

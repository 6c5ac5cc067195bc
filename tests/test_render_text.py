"""The renders say what they show in words a player reads: legends, thresholds, the
rulebook's names; the pictures draw every character the games' names use."""

import numpy as np
import pytest

import tardis_envs
from tardis_envs.core.render import _FONT, Canvas
from tardis_envs.games.daleks.render import CONDITION_WORDS, challenge_words
from tardis_envs.games.gallifrey.layout import F_INJURIES, side
from tardis_envs.games.gallifrey.render import injury_bar

from .tardis_run.helpers import WHITE_FACES_FOR, setup

DALEKS = next(e for e in tardis_envs.ENV_IDS if e.startswith("time_of_the_daleks"))  # the current version's id


def duel(seed=0):
    env = tardis_envs.make("gallifrey_duel_v1", render_mode="ansi")
    env.reset(seed=seed)
    return env


def test_duel_injury_bar_stops_at_death_and_marks_out_of_action():
    assert injury_bar(9, 7, 11) == "[#######|##..]"
    assert injury_bar(0, 3, 5) == "[...|..]"
    assert injury_bar(30, 3, 5) == "[###|##]"  # more injuries than death: the bar is full, no longer


def test_duel_render_shows_injuries_past_out_of_action_within_the_bar():
    env = duel()
    raw = env.unwrapped
    state = raw.get_state()
    first = raw.describe()["combatants"]["first"]
    state[side(0, F_INJURIES)] = first["out_of_action_at"] + 2
    raw.set_state(state)
    text = env.render()
    line = next(ln for ln in text.splitlines() if "injuries [" in ln)
    bar = line[line.index("[") : line.index("]") + 1]
    assert len(bar) == first["killed_at"] + 3  # the brackets and the out-of-action mark
    assert bar.index("|") == first["out_of_action_at"] + 1
    assert f"{first['out_of_action_at'] + 2}/{first['out_of_action_at']}" not in text
    assert f"(out of action at {first['out_of_action_at']}, killed at {first['killed_at']})" in line


def test_duel_render_names_base_and_effective_aspects_with_a_legend():
    env = duel()
    info = env.unwrapped.describe()
    text = env.render()
    assert "Legend: an Aspect reads base->effective" in text
    for c in info["combatants"].values():
        words = [
            f"{aspect} {base}->{c['effective_aspects'][aspect]}" if c["effective_aspects"][aspect] != base else f"{aspect} {base}"
            for aspect, base in c["aspects"].items()
        ]
        assert f"({c['kind']}): {', '.join(words)}\n" in text
    assert any("->" in line for line in text.splitlines()[2:4])  # seed 0: modifiers change an Aspect
    assert "Dyn " not in text and "; none" not in text


def test_tardis_run_render_explains_shortcut_arrows_and_the_pending_extra_move():
    env = tardis_envs.make("tardis_run_v0", render_mode="ansi", illegal_action="raise")
    env.reset(seed=0)
    assert "Legend: >n a shortcut arrow to square n, Tn a teleport to square n" in env.render()
    setup(env, WHITE_FACES_FOR[2], doctors=[3], to_move="doctors")
    env.step(env.unwrapped.string_to_action("move piece 1"))
    text = env.render()
    assert "doctors may follow the shortcut arrow from 5 to 10 (take extra move) or stay on 5 (decline extra move)" in text
    assert "extra move (shortcut arrow or teleport) pending" in text
    env.step(env.unwrapped.string_to_action("take extra move"))
    assert "extra move (shortcut arrow or teleport) taken to 10" in env.render()


def test_daleks_challenge_words_say_what_the_dice_meet_and_miss():
    dice = [{"face": "cunning"}, {"face": "strength"}, {"face": "science"}]
    words = challenge_words(["cunning", "cunning", "tactics", "science"], dice)
    assert words == "the dice meet cunning, science; missing cunning, tactics"
    assert challenge_words(["running"], [{"face": "running"}]) == "the dice meet running; missing nothing (met)"


def daleks_states(seed, steps=300):
    """States of a random Time of the Daleks game, one per step."""
    env = tardis_envs.make(DALEKS, render_mode="ansi")
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = raw.legal_actions()
        if not env.agents or not legal:
            return
        yield env
        env.step(int(rng.choice(legal)))


def test_daleks_render_words_the_adventure_plainly():
    seen = {"no pool": False, "dice": False, "condition": False}
    for seed in range(6):
        for env in daleks_states(seed):
            adv = env.unwrapped.describe()["adventure"]
            if not adv:
                continue
            text = env.render()
            line = next(ln for ln in text.splitlines() if ln.startswith("Adventure at"))
            assert "helped none" not in text and not any(condition in text for condition in CONDITION_WORDS)
            pooled = adv["dice"] or any(n for pool in adv["pools_before_roll"].values() for n in pool.values())
            if not pooled:
                assert "odds" not in line  # no "odds 0%" before a pool exists
                seen["no pool"] = True
            if adv["dice"]:
                assert "  " + challenge_words(adv["challenge"], adv["dice"]) in text
                seen["dice"] = True
            for condition in adv["conditions"]:
                assert CONDITION_WORDS[condition] in text and condition not in text
                seen["condition"] = True
        if all(seen.values()):
            break
    assert all(seen.values()), seen


def test_daleks_render_says_why_the_last_adventure_failed():
    for seed in range(6):
        for env in daleks_states(seed):
            last = env.unwrapped.describe()["last"]["adventure"]
            if last and last["result"] == "failure":
                assert "failed (its dice did not show every symbol of the Challenge)" in env.render()
                return
    pytest.fail("no failed adventure in six random games")


def test_canvas_draws_an_apostrophe_not_a_question_mark():
    def drawn(text):
        canvas = Canvas(12, 40, background=(0, 0, 0))
        canvas.text(0, 0, text, (255, 255, 255))
        return canvas.array

    assert not np.array_equal(drawn("'"), drawn("?"))
    assert np.array_equal(drawn("\u2019"), drawn("'"))  # a curly apostrophe draws as a straight one


def test_every_character_of_the_names_in_pictures_has_a_glyph():
    content = tardis_envs.make(DALEKS).unwrapped.game.content
    names = [x.name for group in (content.cards, content.companions, content.doctors, content.locations, content.dilemmas) for x in group]
    names += [zone.name for loc in content.locations for zone in getattr(loc, "zones", ())]
    duel_info = duel().unwrapped.describe()
    names += [c["name"] for c in duel_info["combatants"].values()] + [duel_info["scene"]]
    missing = sorted({ch for name in names for ch in name.upper() if ch not in _FONT})
    assert not missing, missing

"""The DESIGN.md contract, checked for every registered env id."""

import dataclasses
import importlib
import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import tardis_envs
from tardis_envs import vector
from tardis_envs.core.state import RNG_COUNTER, RUNNING, STATUS

from .helpers import random_legal


def test_registry_lists_every_module():
    assert "tardis_run_v0" in tardis_envs.ENV_IDS
    for env_id in tardis_envs.ENV_IDS:
        module = importlib.import_module(f"tardis_envs.{env_id}")
        assert module.SPEC.env_id == env_id
        assert callable(module.env) and callable(module.raw_env)
        assert getattr(tardis_envs, env_id) is module
    with pytest.raises(ValueError, match="unknown env id"):
        tardis_envs.make("no_such_game_v0")


@pytest.mark.parametrize("retired", sorted(tardis_envs.RETIRED_ENV_IDS))
def test_retired_env_id_names_its_successor(retired):
    successor, _ = tardis_envs.RETIRED_ENV_IDS[retired]
    assert successor in tardis_envs.ENV_IDS and retired not in tardis_envs.ENV_IDS
    with pytest.raises(ValueError, match=f"{retired}' was replaced by '{successor}'"):
        tardis_envs.make(retired)
    with pytest.raises(AttributeError, match=f"make '{successor}' instead"):
        getattr(tardis_envs, retired)


def test_the_registry_is_read_from_the_game_folders():
    from tardis_envs import games

    pages = sorted(p.stem for p in Path(tardis_envs.__file__).parent.glob("*_v[0-9]*.py"))
    assert pages == sorted(tardis_envs.ENV_IDS), "every env page belongs to a registered game folder and back"
    for folder, package in zip(games.FOLDERS, games.packages()):
        module = tardis_envs.env_module(package.ENV_ID)
        assert module.Game.__module__ == f"tardis_envs.games.{folder}.game"
        assert module.SPEC.env_id == package.ENV_ID and module.SPEC.simultaneous == package.SIMULTANEOUS
        for retired in package.RETIRED_ENV_IDS:
            assert (
                retired.rpartition("_v")[0] == package.ENV_ID.rpartition("_v")[0] and int(retired.rpartition("_v")[2]) < module.SPEC.version
            )


def test_spec_version_is_the_id_suffix(env_id):
    spec = tardis_envs.env_module(env_id).SPEC
    assert env_id.endswith(f"_v{spec.version}")
    with pytest.raises(ValueError, match="does not match"):
        dataclasses.replace(spec, version=spec.version + 1)


def test_pettingzoo_registry(env_id):
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("installed PettingZoo has no registry")
    env = pettingzoo.make("aec", f"tardis_envs/{env_id}")
    env.reset(seed=0)
    assert env.unwrapped.game.spec.env_id == env_id


def test_pettingzoo_registry_has_the_parallel_api_and_the_retired_ids():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("installed PettingZoo has no registry")
    with_parallel = [env_id for env_id in tardis_envs.ENV_IDS if hasattr(tardis_envs.env_module(env_id), "parallel_env")]
    assert with_parallel == list(tardis_envs._PARALLEL_ENV_IDS)
    for env_id in with_parallel:
        par = pettingzoo.make("parallel", f"tardis_envs/{env_id}")
        observations, _ = par.reset(seed=0)
        assert set(observations) == set(par.possible_agents)
    for retired, (successor, _) in tardis_envs.RETIRED_ENV_IDS.items():
        for api in ("aec", "parallel"):
            with pytest.raises(ValueError, match=f"'{retired}' was replaced by '{successor}'"):
                pettingzoo.make(api, f"tardis_envs/{retired}")


def test_api_test(env_id):
    api_test(tardis_envs.make(env_id), num_cycles=300)


def test_api_test_raw_env(env_id):
    api_test(tardis_envs.env_module(env_id).raw_env(), num_cycles=300)


def test_seed_test(env_id):
    module = tardis_envs.env_module(env_id)
    seed_test(module.env, num_cycles=300)


def test_make_equals_env(env_id):
    a = tardis_envs.make(env_id)
    b = tardis_envs.env_module(env_id).env()
    a.reset(seed=5)
    b.reset(seed=5)
    assert np.array_equal(a.unwrapped.get_state(), b.unwrapped.get_state())
    assert type(a) is type(b)


def play_random(env, rng, max_steps=10_000):
    actions = []
    for _agent in env.agent_iter(max_iter=max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = random_legal(rng, obs["action_mask"])
        actions.append(action)
        env.step(action)
    return actions


def test_observation_and_mask_dtypes(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=0)
    for agent in env.agents:
        obs = env.observe(agent)
        assert obs["action_mask"].dtype == np.int8
        assert env.observation_space(agent).contains(obs)
    mover = env.agent_selection
    others = [a for a in env.agents if a != mover]
    for agent in others:
        assert env.observe(agent)["action_mask"].sum() == 0, "only the mover has legal actions"


def test_same_seed_same_game(env_id):
    logs = []
    for _ in range(2):
        env = tardis_envs.make(env_id)
        env.reset(seed=123)
        rng = np.random.default_rng(9)
        actions = play_random(env, rng, 400)
        logs.append((actions, json.dumps(env.unwrapped.describe(), sort_keys=True)))
    assert logs[0] == logs[1]


def test_different_seeds_differ(env_id):
    env = tardis_envs.make(env_id)
    states = []
    for seed in range(2):
        env.reset(seed=seed)
        play_random(env, np.random.default_rng(0), 50)
        states.append(env.unwrapped.get_state())
    assert not np.array_equal(states[0], states[1])


def test_state_round_trip_replays_identically(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=11)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    play_random(env, rng, 30)
    saved = raw.get_state()
    saved_copy = saved.copy()
    first, actions = [], []
    for _agent in env.agent_iter(max_iter=60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        action = random_legal(rng, obs["action_mask"])
        actions.append(action)
        env.step(action)
        first.append((raw.get_state().tobytes(), json.dumps(raw.describe(), sort_keys=True)))
    assert np.array_equal(saved, saved_copy), "get_state must return a copy"
    raw.set_state(saved)
    second = []
    for action in actions:
        env.step(action)
        second.append((raw.get_state().tobytes(), json.dumps(raw.describe(), sort_keys=True)))
    assert first == second


def test_set_state_rejects_corrupt_states(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=0)
    raw = env.unwrapped
    good = raw.get_state()
    with pytest.raises(ValueError, match="length"):
        raw.set_state(good[:-1])
    with pytest.raises(ValueError, match="integers"):
        raw.set_state(good.astype(np.float64))
    bad = good.copy()
    bad[0] = 99
    with pytest.raises(ValueError, match="current player"):
        raw.set_state(bad)
    bad = good.copy()
    bad[RNG_COUNTER] = -5
    with pytest.raises(ValueError, match="generator"):
        raw.set_state(bad)
    raw.set_state(good)  # the env still works after refused states
    assert np.array_equal(raw.get_state(), good)


def test_describe_is_json(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=2)
    play_random(env, np.random.default_rng(2), 40)
    info = env.unwrapped.describe()
    json.dumps(info)
    assert "phase" in info


def test_action_strings_round_trip(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=3)
    raw = env.unwrapped
    for action in range(raw.game.num_actions):
        text = raw.action_to_string(action)
        assert text and raw.string_to_action(text) == action
        assert raw.string_to_action("  " + text.upper() + " ") == action
    with pytest.raises(ValueError, match="unknown action"):
        raw.string_to_action("dance a jig")


def test_illegal_action_terminates_with_penalty(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=0)
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match=f"illegal action {illegal}"):
        env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1
    # a cooperative game's team shares the outcome of an illegal action (every Doctor -1)
    team = env.unwrapped.game.spec.cooperative
    assert all(env._cumulative_rewards[a] == (-1 if team else 0) for a in env.agents if a != offender)
    # every game tells the same story afterwards: no winner, who broke the rules, in
    # describe() and in the picture, also after the state is saved and restored
    raw = env.unwrapped
    penalty = "every seat -1: the team shares the outcome" if team else f"{offender} -1, the others 0"
    for _ in range(2):
        words = raw.describe()
        assert words["winner"] is None and words["illegal_action_by"] == offender, words
        assert f"Game over: illegal action by {offender} ({penalty})" in raw.game.render_ansi(raw.get_state())
        raw.set_state(raw.get_state())
    fresh = tardis_envs.make(env_id)
    fresh.reset(seed=0)
    assert "illegal_action_by" not in fresh.unwrapped.describe()


def test_illegal_action_raise_mode(env_id):
    env = tardis_envs.make(env_id, illegal_action="raise")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=f"illegal action {illegal}.*phase.*legal actions"):
        env.step(illegal)
    with pytest.raises(ValueError, match="illegal action 9999"):
        env.step(9999)
    assert np.array_equal(env.unwrapped.get_state(), before)


def test_bad_env_options(env_id):
    module = tardis_envs.env_module(env_id)
    with pytest.raises(ValueError, match="unknown option 'no_such_option'"):
        module.env(no_such_option=1)
    with pytest.raises(ValueError, match="render_mode"):
        module.env(render_mode="hologram")
    with pytest.raises(ValueError, match="illegal_action"):
        module.env(illegal_action="ignore")
    env = module.env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


def test_render_modes(env_id):
    env = tardis_envs.make(env_id, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) > 3
    env = tardis_envs.make(env_id, render_mode="rgb_array")
    env.reset(seed=4)
    play_random(env, np.random.default_rng(4), 20)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] >= 100 and image.shape[1] >= 100
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 4, "the image shows more than a background"
    env = tardis_envs.make(env_id)
    env.reset(seed=4)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_pickle(env_id):
    env = tardis_envs.env_module(env_id).raw_env()
    env.reset(seed=1)
    clone = pickle.loads(pickle.dumps(env))
    clone.reset(seed=1)
    assert np.array_equal(clone.get_state(), env.get_state())


def test_vector_matches_single_env(env_id):
    n, seed = 6, 40
    vec = vector.make(env_id, n, seed=seed)
    obs, masks, players = vec.reset()
    envs = []
    for i in range(n):
        env = tardis_envs.env_module(env_id).raw_env()
        env.reset(seed=seed + i)
        envs.append(env)
    rng = np.random.default_rng(0)
    finished = np.zeros(n, dtype=bool)
    for _ in range(400):
        for i, env in enumerate(envs):
            if finished[i]:
                continue
            assert np.array_equal(vec.states[i], env.get_state())
            seen = env.observe(env.agent_selection)
            assert np.array_equal(obs[i], seen["observation"])
            assert np.array_equal(masks[i], seen["action_mask"])
            assert players[i] == env.agent_name_mapping[env.agent_selection]
        actions = np.array([random_legal(rng, m) for m in masks])
        for i, env in enumerate(envs):
            if not finished[i]:
                env.step(int(actions[i]))
        obs, masks, players, rewards, term, trunc = vec.step(actions)
        for i, env in enumerate(envs):
            if finished[i]:
                continue
            expected = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
            assert np.array_equal(rewards[i], expected)
            done = any(env.terminations.values()) or any(env.truncations.values())
            assert bool(term[i] or trunc[i]) == done
            finished[i] |= done
    assert finished.any(), "at least one game ended (auto-reset exercised)"


def test_step_and_mask_equals_step_then_legal_mask(env_id):
    """The batched API's fused kernel leaves the same state and the same mask as
    ``step`` followed by ``legal_mask``, over random playouts (game ends included)."""
    vec = vector.make(env_id, 32, seed=3)
    _, masks, _ = vec.reset()
    k, tables = vec.game.kernels, vec.game.tables
    rng = np.random.default_rng(3)
    fused_mask = np.empty(vec.num_actions, dtype=np.int8)
    plain_mask = np.empty(vec.num_actions, dtype=np.int8)
    checked = ended = 0
    for _ in range(150):
        actions = np.array([random_legal(rng, m) for m in masks])
        for i in range(vec.num_envs):
            fused, plain = vec.states[i].copy(), vec.states[i].copy()
            fused_mask[:] = 7  # stale bytes must not survive
            k.step_and_mask(fused, tables, actions[i], fused_mask)
            k.step(plain, tables, actions[i])
            k.legal_mask(plain, tables, plain_mask)
            assert np.array_equal(fused, plain), f"state after action {actions[i]} in game {i}"
            assert np.array_equal(fused_mask, plain_mask), f"mask after action {actions[i]} in game {i}"
            checked += 1
            ended += plain[STATUS] != RUNNING
        _, masks, _, _, _, _ = vec.step(actions)
    assert checked == 150 * 32 and ended > 0


def test_vector_rejects_illegal_actions(env_id):
    vec = vector.make(env_id, 4, seed=0)
    _, masks, _ = vec.reset()
    actions = masks.argmax(axis=1)
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(masks[2] == 0)[0])
    with pytest.raises(ValueError, match="game 2"):
        vec.step(bad)
    with pytest.raises(ValueError, match="shape"):
        vec.step(actions[:3])
    with pytest.raises(ValueError, match="num_envs"):
        vector.make(env_id, 0)


def test_vector_is_reproducible(env_id):
    runs = []
    for _ in range(2):
        vec = vector.make(env_id, 16, seed=7)
        _, masks, _ = vec.reset()
        for _ in range(300):
            _, masks, _, _, _, _ = vec.step(masks.argmax(axis=1))
        runs.append(vec.states.copy())
    assert np.array_equal(runs[0], runs[1])


def test_batch_kernels_are_cacheable(env_id):
    """numba silently recompiles kernels it cannot cache; fail loudly instead."""
    vec = vector.make(env_id, 2, seed=0)
    _, masks, _ = vec.reset()
    vec.step(masks.argmax(axis=1))
    kernels = vec.game.kernels
    for kernel in (kernels.batch_reset, kernels.batch_step, kernels.step, kernels.legal_mask, kernels.observe):
        for overload in kernel.overloads.values():
            assert not overload.library.has_dynamic_globals, f"{kernel.__name__} cannot be cached"


def test_unseeded_resets_follow_the_last_seed(env_id):
    env = tardis_envs.make(env_id)
    runs = []
    for _ in range(2):
        env.reset(seed=21)
        env.reset()
        runs.append(env.unwrapped.get_state())
    assert np.array_equal(runs[0], runs[1])


def test_no_warnings_on_normal_play(env_id):
    env = tardis_envs.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0)
        play_random(env, np.random.default_rng(0), 200)


def test_vector_without_observations_plays_the_same_games(env_id):
    runs = []
    for observations in (True, False):
        vec = vector.make(env_id, 8, seed=3, observations=observations)
        _, masks, _ = vec.reset()
        for _ in range(200):
            _, masks, _, rewards, _, _ = vec.step(masks.argmax(axis=1))
        runs.append((vec.states.copy(), vec.masks.copy()))
        if not observations:
            assert vec.obs.shape == (8, 0)
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def test_clear_errors_for_bad_input():
    env = tardis_envs.make("gallifrey_duel_v1", illegal_action="terminate")
    with pytest.raises(ValueError, match="option 'forced_draw_p' got nan; expected a float in"):
        tardis_envs.make("gallifrey_duel_v1", forced_draw_p=float("nan"))
    env = tardis_envs.make("tardis_run_v0")
    env.reset(seed=0)
    with pytest.raises(AssertionError, match=r"action 99 by monsters is not in the action space Discrete\("):
        env.step(99)
    with pytest.raises(ValueError, match="int64 array as get_state.. returns it, got int32"):
        env.unwrapped.set_state(env.unwrapped.get_state().astype(np.int32))
    vec = vector.make("tardis_run_v0", 2)
    with pytest.raises(ValueError, match=r"call reset\(\) before step\(\)"):
        vec.step(np.zeros(2, dtype=np.int64))
    game = tardis_envs.tardis_run_v0.Game()
    with pytest.raises(ValueError, match=r"position\(black_paddle_owner='daleks'\): expected a side, 'monsters' or 'doctors'"):
        game.position(black_paddle_owner="daleks")


@pytest.mark.parametrize(
    "env_id, made, other",
    [
        ("keys_to_the_tardis_v0", {"num_players": 2}, {"num_players": 4}),
        ("tardis_run_v0", {}, {"board": "configs/tardis_run/boards/grand_tour.yaml"}),
        ("gallifrey_duel_v1", {"mode": "contest"}, {"mode": "climactic"}),
        ("time_of_the_daleks_v2", {"num_players": 2}, {"num_players": 2, "first_game": True}),
    ],
)
def test_set_state_refuses_a_state_of_another_variant(env_id, made, other):
    source = tardis_envs.make(env_id, **made)
    source.reset(seed=0)
    state = source.unwrapped.get_state()
    target = tardis_envs.make(env_id, **other)
    target.reset(seed=0)
    with pytest.raises(ValueError, match="made under other rule options"):
        target.unwrapped.set_state(state)
    same = tardis_envs.make(env_id, **made)
    same.reset(seed=1)
    same.unwrapped.set_state(state)  # the same options: accepted
    assert np.array_equal(same.unwrapped.get_state(), state)


def test_a_chess_position_from_any_fen_fits_an_env_of_the_same_rules():
    env = tardis_envs.make("timelord_chess_v1", doctor=False)
    env.reset(seed=0)
    state = env.unwrapped.game.from_fen("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1")
    env.unwrapped.set_state(state)
    variant = tardis_envs.make("timelord_chess_v1")
    with pytest.raises(ValueError, match="made under other rule options"):
        variant.unwrapped.set_state(state)

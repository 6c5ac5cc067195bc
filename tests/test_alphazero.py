"""Search guided by a policy/value network (tardis_envs.core.guided, agents.alphazero) and
its training (--algo az): scripted positions, batched = one by one, training targets, no
hidden information in the search, a tiny run that eval plays and resume continues, and
bad checkpoints and specs refused by name."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import tardis_envs
from agents import make_agent
from agents.alphazero import AZAgent, build_net, load_checkpoint, parse_spec, save_checkpoint
from agents.checkpoint import CheckpointError
from tardis_envs.core.guided import G_DETERMINIZE, GuidedSearch, considered_visits
from tardis_envs.core.state import CURRENT_PLAYER, RNG_COUNTER, RNG_KEY, STATUS

from .test_search import BACK_RANK, DEFENCE, state_of


def uniform(game):
    """A network that knows nothing: uniform priors over the legal actions, value 0."""

    def evaluate(obs, masks):
        priors = masks.astype(np.float32)
        priors /= priors.sum(axis=1, keepdims=True)
        return priors, np.zeros((len(masks), game.num_players), dtype=np.float32)

    return evaluate


def hashed(game):
    """A deterministic evaluator that depends on every entry of the observation."""

    def evaluate(obs, masks):
        flat = obs.reshape(len(obs), -1).astype(np.float64)
        weights = np.cos(np.arange(flat.shape[1]) * 0.37)
        code = flat @ weights
        logits = np.sin(code[:, None] * (1 + np.arange(game.num_actions))[None, :])
        priors = np.exp(logits) * masks
        priors /= priors.sum(axis=1, keepdims=True)
        values = np.tanh(code[:, None] * (1 + np.arange(game.num_players))[None, :] * 0.1)
        return priors.astype(np.float32), values.astype(np.float32)

    return evaluate


def random_states(game, count, seed, max_moves=60):
    """``count`` running states with a choice, from random playouts of up to ``max_moves`` moves."""
    rng = np.random.default_rng(seed)
    found = []
    for k in range(count * 20):
        state = game.new_state(seed * 1000 + k)
        for _ in range(int(rng.integers(0, max_moves))):
            if state[STATUS]:
                break
            if len(game.legal_actions(state)) > 1:
                found.append(state.copy())
            game.kernels.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
        if len(found) >= 4 * count:
            break
    picked = rng.choice(len(found), size=count, replace=False)
    return np.stack([found[i] for i in picked])


def masks_of(game, states):
    masks = np.zeros((len(states), game.num_actions), dtype=np.int8)
    for i, state in enumerate(states):
        game.kernels.legal_mask(state, game.tables, masks[i])
    return masks


def test_sequential_halving_visits_the_best_half_in_rounds():
    table = considered_visits(4, 8)
    # four actions once each, then the two best twice more: 1 + 1 + 3 + 3 visits
    assert table[4].tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    assert table[1].tolist() == list(range(8))
    assert table[3].tolist() == [0, 0, 0, 1, 1, 2, 2, 3]  # three once, then the best two
    table = considered_visits(16, 64)
    for m in range(2, 17):  # every row starts by visiting each considered action once
        assert table[m, :m].tolist() == [0] * m


@pytest.mark.parametrize("gumbel_root", [True, False])
def test_guided_search_finds_the_mate_in_one_with_a_uniform_prior(gumbel_root):
    """No knowledge in the network: the mate is found from the game's own reward at the leaf."""
    for fen, mate in ((BACK_RANK, "a1a8"), (DEFENCE, "a8a1")):
        game, state = state_of("timelord_chess_v1", doctor=False, fen=fen)
        search = GuidedSearch(game, 400, gumbel_root=gumbel_root, max_considered=64, seed=0)
        actions, policy, visits = search.run(state[None], uniform(game))
        assert game.action_to_string(state, int(actions[0])) == mate
        assert policy[0].argmax() == actions[0]


def test_a_trained_prior_finds_the_mate_with_fewer_simulations():
    game, state = state_of("timelord_chess_v1", doctor=False, fen=BACK_RANK)
    mate = game.string_to_action(state, "a1a8")

    def knows(obs, masks):
        priors, values = uniform(game)(obs, masks)
        if masks[0, mate]:  # the root: a prior that points at the mate
            priors[0] = 0.01 * masks[0]
            priors[0, mate] = 1.0
            priors[0] /= priors[0].sum()
        return priors, values

    found_uniform = GuidedSearch(game, 4, max_considered=4, seed=0).run(state[None], uniform(game))[0][0]
    found_prior = GuidedSearch(game, 4, max_considered=4, seed=0).run(state[None], knows)[0][0]
    assert found_prior == mate and found_uniform != mate


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_targets_are_distributions_over_the_legal_actions_and_a_batch_equals_one_by_one(env_id):
    game = tardis_envs.make(env_id).unwrapped.game
    states = random_states(game, 6, seed=2)
    masks = masks_of(game, states)
    keys = np.arange(len(states), dtype=np.int64) * 7919 + 1
    search = GuidedSearch(game, 12, seed=0)
    actions, policy, visits = search.run(states, hashed(game), keys=keys)
    assert np.allclose(policy.sum(axis=1), 1.0, atol=1e-5)
    assert (policy[masks == 0] == 0).all() and (visits[masks == 0] == 0).all()
    assert (masks[np.arange(len(states)), actions] == 1).all()
    assert (visits.sum(axis=1) == 12).all()
    for i in range(len(states)):
        one = GuidedSearch(game, 12, seed=0).run(states[i : i + 1], hashed(game), keys=keys[i : i + 1])
        assert one[0][0] == actions[i]
        assert np.array_equal(one[2][0], visits[i])
        assert np.allclose(one[1][0], policy[i])
    # an inactive row is left alone
    active = np.ones(len(states), dtype=bool)
    active[1] = False
    again = GuidedSearch(game, 12, seed=0).run(states, hashed(game), active=active, keys=keys)
    assert again[0][1] == -1 and again[0][0] == actions[0]


def test_the_search_of_a_hidden_information_game_redeals_and_never_reads_the_hidden_cards():
    """Time of the Daleks redeals what a Doctor cannot see the same way whatever the hidden
    cards are: two roots that differ only there (twins) give the same search, simulation for
    simulation, while a search that skips the redeal tells them apart."""
    game = tardis_envs.make("time_of_the_daleks_v2").unwrapped.game
    assert GuidedSearch(game, 4).params[G_DETERMINIZE] == 1
    assert GuidedSearch(tardis_envs.make("tardis_run_v0").unwrapped.game, 4).params[G_DETERMINIZE] == 0
    roots = random_states(game, 8, seed=5, max_moves=200)
    twins = roots.copy()
    for twin in twins:
        key, counter = twin[RNG_KEY], twin[RNG_COUNTER]
        twin[RNG_KEY], twin[RNG_COUNTER] = 424242, 0
        game.kernels.resample_hidden(twin, game.tables, int(twin[CURRENT_PLAYER]))
        twin[RNG_KEY], twin[RNG_COUNTER] = key, counter
    differ = [i for i in range(len(roots)) if not np.array_equal(roots[i], twins[i])]
    assert differ, "the twins must differ in their hidden cards"
    keys = np.arange(len(roots), dtype=np.int64) + 11
    seen = GuidedSearch(game, 16, seed=0).run(roots, hashed(game), keys=keys)
    twin_seen = GuidedSearch(game, 16, seed=0).run(twins, hashed(game), keys=keys)
    assert np.array_equal(seen[2], twin_seen[2]) and np.allclose(seen[1], twin_seen[1])
    peeking = [GuidedSearch(game, 16, determinize=False, seed=0).run(r, hashed(game), keys=keys) for r in (roots, twins)]
    assert not (np.array_equal(peeking[0][2], peeking[1][2]) and np.allclose(peeking[0][1], peeking[1][1]))


def test_az_specs_and_checkpoints_are_refused_by_name(tmp_path):
    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    assert parse_spec("run.zip:sims=64:net") == {"path": "run.zip", "sims": 64, "c": 1.25, "considered": 16, "net": True}
    for bad, words in (("run.zip:sims=0", "sims must be in"), ("run.zip:depth=3", "unknown setting 'depth=3'"), ("", "give a checkpoint")):
        with pytest.raises(ValueError, match=words):
            make_agent(f"az:{bad}", game)
    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent(f"az:{tmp_path / 'none.zip'}", game)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="corrupt or not a checkpoint"):
        make_agent(f"az:{broken}", game)
    from agents.baselines import az_available

    without = next(env_id for env_id in tardis_envs.ENV_IDS if env_id not in az_available())
    with pytest.raises(CheckpointError, match=f"no shipped az baseline for '{without}'"):
        make_agent("az:baseline", tardis_envs.make(without).unwrapped.game)
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, hidden=8, layers=1)
    path = save_checkpoint(tmp_path / "net.zip", net, game, 0)
    with pytest.raises(CheckpointError, match="not an az checkpoint"):
        load_checkpoint(tardis_envs_baseline("tardis_run_v0"), game)
    with pytest.raises(CheckpointError, match="trained on 'tardis_run_v0', not 'gallifrey_duel_v1'"):
        make_agent(f"az:{path}", tardis_envs.make("gallifrey_duel_v1").unwrapped.game)
    with pytest.raises(CheckpointError, match="is an az checkpoint"):
        make_agent(f"ppo:{path}", game)
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(damaged, "w") as copy:
        for name in source.namelist():
            copy.writestr(name, source.read(name)[:40] if name.endswith(".pt") else source.read(name))
    with pytest.raises(CheckpointError, match="could not be loaded"):
        make_agent(f"az:{damaged}", game)
    agent = make_agent(f"az:{path}:sims=4", game, seed=0)
    assert isinstance(agent, AZAgent) and agent.search.simulations == 4


def tardis_envs_baseline(env_id):
    from agents.baselines import baseline_path

    return baseline_path(env_id)


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_az_agents_play_legal_moves_with_search_and_with_the_network_alone(env_id, tmp_path):
    game = tardis_envs.make(env_id).unwrapped.game
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, hidden=16, layers=1)
    path = save_checkpoint(tmp_path / "net.zip", net, game, 0)
    states = random_states(game, 4, seed=3)
    masks = masks_of(game, states)
    observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    for spec in (f"az:{path}:sims=8", f"az:{path}:net"):
        actions = make_agent(spec, game, seed=0).act_batch(states, observations, masks)
        assert (masks[np.arange(len(states)), actions] == 1).all(), spec


def test_every_shipped_az_baseline_loads_and_plays_legal_moves():
    from agents.baselines import az_available

    for env_id in az_available():
        game = tardis_envs.make(env_id).unwrapped.game
        states = random_states(game, 3, seed=4)
        masks = masks_of(game, states)
        for spec in ("az:baseline:sims=8", "az:baseline:net"):
            agent = make_agent(spec, game, seed=0)
            observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
            actions = agent.act_batch(states, observations, masks)
            assert (masks[np.arange(len(states)), actions] == 1).all(), (env_id, spec)


def test_a_tiny_az_run_writes_a_checkpoint_that_eval_plays_and_resume_continues(tmp_path, capsys):
    from tardis_envs.cli import main

    config = tmp_path / "tiny.yaml"
    config.write_text("az: {simulations: 2, eval_simulations: 2, max_considered: 2, hidden: 16, layers: 1, batch_size: 64}\n")
    run = tmp_path / "run"
    common = ["train", "tardis_run_v0", "--algo", "az", "--config", str(config), "--run-dir", str(run)]
    common += ["--eval-games", "4", "--num-envs", "16", "--no-progress"]
    assert main([*common, "--timesteps", "300", "--eval-every", "150"]) == 0
    for name in ("config.yaml", "eval.csv", "summary.md", "winrate.png", "stats.json", "checkpoints/last.zip", "checkpoints/best.zip"):
        assert (run / name).exists(), name
    assert load_checkpoint(run / "checkpoints" / "last.zip")[1]["num_timesteps"] >= 300
    assert "- self-play decisions: " in (run / "summary.md").read_text()
    with zipfile.ZipFile(run / "checkpoints" / "last.zip") as archive:
        assert "az_optimizer.pt" in archive.namelist()
    first_rows = len((run / "eval.csv").read_text().splitlines())
    assert main([*common, "--timesteps", "600", "--eval-every", "150", "--resume"]) == 0
    assert load_checkpoint(run / "checkpoints" / "last.zip")[1]["num_timesteps"] >= 600
    assert len((run / "eval.csv").read_text().splitlines()) > first_rows  # the first run's rows are kept
    capsys.readouterr()
    assert main(["train", "tardis_run_v0", "--run-dir", str(run), "--resume", "--no-progress"]) == 2
    assert "was trained with --algo az" in capsys.readouterr().err
    out = tmp_path / "eval"
    best = run / "checkpoints" / "best.zip"
    assert main(["eval", "tardis_run_v0", "--agents", f"az:{best}:sims=2,random", "--games", "4", "--out", str(out)]) == 0
    assert "az" in capsys.readouterr().out

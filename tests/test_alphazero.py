"""Search guided by a policy/value network (tardis_envs.core.guided, agents.alphazero) and
its training (--algo az): scripted positions, batched = one by one, training targets, no
hidden information in the search, a tiny run that eval plays and resume continues, and
bad checkpoints and specs refused by name."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

import tardis_envs
from agents import make_agent
from agents.alphazero import AZAgent, NetEvaluator, build_net, load_checkpoint, parse_spec, save_checkpoint
from agents.checkpoint import CheckpointError
from tardis_envs.core.guided import (
    G_DETERMINIZE,
    T_EDGE_ACTION,
    T_EDGE_CHILD,
    T_EDGE_NEXT,
    T_EDGE_VISITS,
    T_NODE_COUNT,
    T_NODE_FIRST_EDGE,
    T_NODE_MOVER,
    T_NODE_VALUE,
    GuidedSearch,
    considered_visits,
)
from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RNG_COUNTER, RNG_KEY, STATUS

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


def observed_positions(game, count, seed):
    """(states, their movers' observations, their legal masks) of ``count`` random positions."""
    states = random_states(game, count, seed=seed)
    obs = np.stack([game.observation(state, int(state[CURRENT_PLAYER])) for state in states])
    return states, obs, masks_of(game, states)


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


def test_the_root_value_is_the_mean_return_of_the_roots_mover_over_the_search():
    """A network that tells every mover it wins by 0.5 gives a root value of exactly 0.5 far
    from any end; with no knowledge (value 0) the mate in one is all the return the search
    sees, so the root value is above 0; a row not searched reads 0."""
    game = tardis_envs.make("timelord_chess_v1").unwrapped.game
    opening = np.stack([game.new_state(0), game.new_state(1)])

    def hopeful(obs, masks):
        priors, _ = uniform(game)(obs, masks)
        return priors, np.full((len(masks), game.num_players), 0.5, dtype=np.float32)

    search = GuidedSearch(game, 32, seed=0)
    search.run(opening, hopeful, active=np.array([True, False]))
    assert search.root_values().tolist() == [0.5, 0.0]
    mate, state = state_of("timelord_chess_v1", doctor=False, fen=BACK_RANK)
    search = GuidedSearch(mate, 64, seed=0)
    search.run(state[None], uniform(mate))
    assert 0 < search.root_values()[0] <= 1


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


@pytest.mark.parametrize("env_id", ["timelord_chess_v1", "keys_to_the_tardis_v0"])
def test_an_evaluator_that_reads_states_gets_the_world_each_leaf_reached(env_id):
    """``reads_states`` (``benchmarks/leaf_values.py``'s heuristic values): each row's state is
    the one the leaf's observation and mask were taken from (in Keys a redealt world), and
    reading them changes nothing in the search."""
    game = tardis_envs.make(env_id).unwrapped.game
    roots = random_states(game, 4, seed=3)
    keys = np.arange(len(roots), dtype=np.int64) + 5
    network = hashed(game)
    rows = []

    class Reader:
        reads_states = True

        def __call__(self, obs, masks, states):
            for o, m, state in zip(obs, masks, states):
                assert np.array_equal(game.observation(state, int(state[CURRENT_PLAYER])), o)
                assert np.array_equal(masks_of(game, state[None])[0], m)
            rows.append(len(states))
            return network(obs, masks)

    read = GuidedSearch(game, 12, seed=0).run(roots, Reader(), keys=keys)
    plain = GuidedSearch(game, 12, seed=0).run(roots, network, keys=keys)
    assert sum(rows) == 13 * len(roots)
    assert np.array_equal(read[0], plain[0]) and np.array_equal(read[2], plain[2]) and np.allclose(read[1], plain[1])


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


def test_the_clairvoyant_search_rolls_the_games_own_dice_and_reads_the_hidden_cards():
    """The oracle of ``benchmarks/oracle.py``: its simulations keep the root's generator, so
    the simulation keys change nothing, and the dice it rolls on a line are the ones the game
    rolls (here: the state a two-action line reaches in the search is the game's own); it
    redeals nothing, so Time of the Daleks twins that differ only in hidden cards are told apart."""
    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    roots = random_states(game, 8, seed=4)
    oracle = GuidedSearch(game, 16, seed=0, clairvoyant=True)
    assert oracle.params[G_DETERMINIZE] == 0
    first = oracle.run(roots, hashed(game), keys=np.arange(8, dtype=np.int64))
    again = GuidedSearch(game, 16, seed=0, clairvoyant=True).run(roots, hashed(game), keys=np.arange(8) + 99)
    assert np.array_equal(first[2], again[2]) and np.allclose(first[1], again[1])
    fair = [GuidedSearch(game, 16, seed=0).run(roots, hashed(game), keys=k) for k in (np.arange(8), np.arange(8) + 99)]
    assert not np.array_equal(fair[0][2], fair[1][2]), "with fresh dice the keys must matter"
    # the node a line reaches holds the value the evaluator gave the game's own state there
    tree = oracle.tree
    checked = 0
    for i, root in enumerate(roots):
        e = tree[T_EDGE_CHILD][i]
        edge = int(tree[T_NODE_FIRST_EDGE][i, 0])
        while edge >= 0 and e[edge] < 0:
            edge = int(tree[T_EDGE_NEXT][i, edge])
        if edge < 0:
            continue
        state = root.copy()
        game.kernels.step(state, game.tables, int(tree[T_EDGE_ACTION][i, edge]))
        if state[STATUS]:
            continue
        mover = int(state[CURRENT_PLAYER])
        masks = masks_of(game, state[None])
        _, values = hashed(game)(game.observation(state, mover)[None].astype(np.float32), masks)
        assert tree[T_NODE_VALUE][i, e[edge]] == pytest.approx(values[0, 0], abs=1e-6)
        checked += 1
    assert checked >= 6  # a fair search (fresh dice) matches the game's own state in 2 of these 8
    daleks = tardis_envs.make("time_of_the_daleks_v2").unwrapped.game
    roots = random_states(daleks, 8, seed=5, max_moves=200)
    twins = np.stack([twin_of(daleks, root, key=424242) for root in roots])
    assert any(not np.array_equal(a, b) for a, b in zip(roots, twins))
    keys = np.arange(8, dtype=np.int64)
    seen = [GuidedSearch(daleks, 16, seed=0, clairvoyant=True).run(r, hashed(daleks), keys=keys) for r in (roots, twins)]
    assert not (np.array_equal(seen[0][2], seen[1][2]) and np.allclose(seen[0][1], seen[1][1]))


def twin_of(game, state: np.ndarray, key: int) -> np.ndarray:
    """``state`` with what its mover cannot see redealt by the game's own kernel (``key``)."""
    twin = state.copy()
    twin[RNG_KEY], twin[RNG_COUNTER] = key, 0
    game.kernels.resample_hidden(twin, game.tables, int(twin[CURRENT_PLAYER]))
    twin[RNG_KEY], twin[RNG_COUNTER] = state[RNG_KEY], state[RNG_COUNTER]
    return twin


@pytest.mark.parametrize("env_id", ["keys_to_the_tardis_v0", "gallifrey_duel_v1"])
def test_over_many_searches_twins_that_differ_only_in_hidden_cards_are_searched_alike(env_id):
    """Keys and the duel redeal from the cards they replace, so one search of a root and of
    its twin differ; over 1,024 searches (keys) each, the mean improved policy of the twin
    differs from the root's no more than two sets of keys on the root itself do (noise),
    while a search that skips the redeal moves it far beyond that noise. Summed over roots
    (in some roots the hidden cards cannot matter: the peeking search is the same there)."""
    game = tardis_envs.make(env_id).unwrapped.game
    copies = 1024

    def mean_policy(root, first_key, determinize=True):
        """The mean improved policy (it weighs each root action by its value, where a few
        visits split by sequential halving alone would not tell worlds apart)."""
        batch = np.repeat(root[None], copies, axis=0)
        keys = first_key + np.arange(copies, dtype=np.int64)
        return GuidedSearch(game, 16, determinize=determinize, seed=0).run(batch, hashed(game), keys=keys)[1].mean(axis=0)

    def distance(a, b):
        return 0.5 * float(np.abs(a - b).sum())

    noise = twins = peeking = 0.0
    checked = 0
    for root in random_states(game, 6, seed=9, max_moves=40):
        twin = twin_of(game, root, key=777)
        if np.array_equal(root, twin):
            continue
        checked += 1
        first = mean_policy(root, 0)
        noise += distance(first, mean_policy(root, 10**6))
        twins += distance(first, mean_policy(twin, 10**6))
        peeking += distance(mean_policy(root, 0, False), mean_policy(twin, 10**6, False))
    assert checked >= 4
    assert twins < 1.5 * noise + 0.002, (twins, noise)
    assert peeking > 4 * noise, (peeking, noise)


def children_by_node(tree, i):
    """Tree ``i``'s nodes: ``{node: (mover, {edge: child})}`` for the edges that lead to a node."""
    out = {}
    for node in range(tree[T_NODE_COUNT][i]):
        edges = {}
        e = tree[T_NODE_FIRST_EDGE][i, node]
        while e >= 0:
            if tree[T_EDGE_CHILD][i, e] >= 0:
                edges[e] = int(tree[T_EDGE_CHILD][i, e])
            e = tree[T_EDGE_NEXT][i, e]
        out[node] = (int(tree[T_NODE_MOVER][i, node]), edges)
    return out


def test_in_the_duel_every_choice_a_later_seat_cannot_see_leads_to_one_node_of_that_seat():
    """The duel's seat 1 chooses without seeing seat 0's committed choice, so in the search
    every committed choice of a seat-0 node leads to one seat-1 node (its statistics gather
    over them); once the exchange is revealed, each of seat 1's choices has a node of its own.
    In TARDIS Run (no simultaneous choices) each action keeps its own node."""
    duel = tardis_envs.make("gallifrey_duel_v1").unwrapped.game
    roots = random_states(duel, 24, seed=3, max_moves=20)
    roots = roots[roots[:, CURRENT_PLAYER] == 0]
    assert len(roots) >= 4
    search = GuidedSearch(duel, 48, max_considered=8, seed=0)
    search.run(roots, hashed(duel))
    shared = 0
    for i in range(len(roots)):
        nodes = children_by_node(search.tree, i)
        for node, (mover, edges) in nodes.items():
            movers = {nodes[c][0] for c in edges.values()}
            if mover == 0 and 1 in movers:
                later = {c for c in edges.values() if nodes[c][0] == 1}
                assert len(later) == 1, f"tree {i}, node {node}: seat 0's choices lead to {len(later)} seat-1 nodes"
                visited = [e for e in edges if search.tree[T_EDGE_VISITS][i, e] > 0]
                shared += len(visited) > 1
            if mover == 1:
                assert len(set(edges.values())) == len(edges), "a revealed exchange's choices share a node"
    assert shared >= len(roots), "the searches must pass through several committed choices of one node"
    run_game = tardis_envs.make("tardis_run_v0").unwrapped.game
    roots = random_states(run_game, 8, seed=3)
    search = GuidedSearch(run_game, 48, seed=0)
    search.run(roots, hashed(run_game))
    for i in range(len(roots)):
        for _, edges in children_by_node(search.tree, i).values():
            assert len(set(edges.values())) == len(edges)


def test_az_specs_and_checkpoints_are_refused_by_name(tmp_path, monkeypatch):
    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    assert parse_spec("run.zip:sims=64:net") == {
        "path": "run.zip",
        "sims": 64,
        "c": 1.25,
        "considered": 16,
        "net": True,
        "search": None,
        "plies": 1,
        "depth": None,
        "redeals": None,
        "given": ["sims"],
    }
    for bad, words in (("run.zip:sims=0", "sims must be in"), ("run.zip:width=3", "unknown setting 'width=3'"), ("", "give a checkpoint")):
        with pytest.raises(ValueError, match=words):
            make_agent(f"az:{bad}", game)
    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent(f"az:{tmp_path / 'none.zip'}", game)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="corrupt or not a checkpoint"):
        make_agent(f"az:{broken}", game)
    from agents import baselines

    with monkeypatch.context() as patch:  # a package that ships az networks for two games only
        for env_id in ("tardis_run_v0", "gallifrey_duel_v1"):
            (tmp_path / "shipped" / "az").mkdir(parents=True, exist_ok=True)
            (tmp_path / "shipped" / "az" / f"{env_id}.zip").write_bytes(b"")
        patch.setattr(baselines, "folder", lambda: tmp_path / "shipped")
        words = "no shipped az baseline for 'timelord_chess_v1' (az:baseline exists for: gallifrey_duel_v1, tardis_run_v0)"
        with pytest.raises(CheckpointError, match=re.escape(words)):
            make_agent("az:baseline", tardis_envs.make("timelord_chess_v1").unwrapped.game)
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


def test_an_az_checkpoint_written_during_a_ctrl_c_is_whole_and_a_refused_folder_sends_it_to_the_working_directory(tmp_path, monkeypatch):
    """SIGINT mid-write: the checkpoint is written whole (with its extra members) and the
    interrupt is raised after it; a run folder that refuses the file sends it to ./<run>-<name>."""
    import os
    import signal
    import time

    import agents.alphazero as alphazero

    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, hidden=8, layers=1)
    real_write_meta = alphazero.write_meta

    def interrupted_write_meta(path, meta):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the signal is delivered here, between the zip's members and its metadata
        real_write_meta(path, meta)

    target = tmp_path / "run" / "checkpoints" / "last.zip"
    with monkeypatch.context() as patch:
        patch.setattr(alphazero, "write_meta", interrupted_write_meta)
        with pytest.raises(KeyboardInterrupt):
            save_checkpoint(target, net, game, 7, members={"az_optimizer.pt": b"state"})
    assert load_checkpoint(target, game)[1]["num_timesteps"] == 7
    with zipfile.ZipFile(target) as archive:
        assert archive.read("az_optimizer.pt") == b"state"
    assert not target.with_name("last.zip.tmp").exists()
    # a run folder that is a file now: the checkpoint goes to the working directory
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    monkeypatch.chdir(tmp_path)
    where = save_checkpoint(blocked / "checkpoints" / "best.zip", net, game, 9)
    assert where.resolve() == (tmp_path / "blocked-best.zip").resolve()
    assert load_checkpoint(where, game)[1]["num_timesteps"] == 9


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


@pytest.mark.parametrize("num_players", [3, 4])
def test_a_two_player_network_searches_games_of_more_players_as_the_mover_against_each(num_players, tmp_path):
    """Keys to the TARDIS observes the same in games of 2-4 players: a network trained for two
    values the mover (its column 0) and every other seat as its one opponent (column 1)."""
    two = tardis_envs.make("keys_to_the_tardis_v0").unwrapped.game
    net = build_net(int(np.prod(two.observation_shape)), two.num_actions, two.num_players, hidden=16, layers=1)
    path = save_checkpoint(tmp_path / "net.zip", net, two, 0)
    game = tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players).unwrapped.game
    states = random_states(game, 6, seed=5)
    masks = masks_of(game, states)
    observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states]).astype(np.float32)
    with pytest.warns(UserWarning, match="num_players: trained 2"):
        agent = make_agent(f"az:{path}:sims=8", game, seed=0)
    _, values = agent.evaluate(observations, masks)
    _, two_columns = NetEvaluator(net, compiled=True)(observations, masks)  # as the agent evaluates
    assert values.shape == (len(states), num_players)
    assert np.array_equal(values[:, 0], two_columns[:, 0])
    assert all(np.array_equal(values[:, j], two_columns[:, 1]) for j in range(1, num_players))
    actions = agent.act_batch(states, observations, masks)
    assert (masks[np.arange(len(states)), actions] == 1).all()


def test_every_shipped_az_baseline_loads_and_plays_legal_moves():
    from agents.baselines import az_available, az_player_counts

    for env_id in az_available():
        for players in [None, *az_player_counts(env_id)]:
            game = tardis_envs.make(env_id, **({} if players is None else {"num_players": players})).unwrapped.game
            states = random_states(game, 3, seed=4)
            masks = masks_of(game, states)
            # the search it was trained with (TARDIS Run's: one ply of expectation), the guided
            # search (every network's) and the network alone
            for spec in ("az:baseline", "az:baseline:search=gumbel:sims=8", "az:baseline:net"):
                agent = make_agent(spec, game, seed=0)
                trained = agent.meta["options"].get("num_players", game.num_players)
                assert players is None or trained == players, (env_id, players, trained)
                observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
                actions = agent.act_batch(states, observations, masks)
                assert (masks[np.arange(len(states)), actions] == 1).all(), (env_id, players, spec)


def test_az_baseline_chooses_the_network_trained_on_the_games_player_count(tmp_path, monkeypatch):
    """``az:baseline`` in a game of ``n`` players loads ``az/<env_id>/players<n>.zip`` where the
    package ships one and the game's network otherwise; an export of a network trained on
    another player count than the game's default goes to that file, never over the default."""
    from agents import baselines
    from agents.alphazero import checkpoint_file

    monkeypatch.setattr(baselines, "folder", lambda: tmp_path)
    (tmp_path / "az" / "keys_to_the_tardis_v0").mkdir(parents=True)
    default = tmp_path / "az" / "keys_to_the_tardis_v0.zip"
    three = tmp_path / "az" / "keys_to_the_tardis_v0" / "players3.zip"
    default.write_bytes(b"")
    three.write_bytes(b"")
    assert baselines.az_player_counts("keys_to_the_tardis_v0") == [3]
    assert baselines.az_available() == ["keys_to_the_tardis_v0"]
    for players, expected in ((2, default), (3, three), (4, default)):
        game = tardis_envs.make("keys_to_the_tardis_v0", num_players=players).unwrapped.game
        assert checkpoint_file("baseline", game) == expected
        assert checkpoint_file("az:baseline", game) == expected
    assert checkpoint_file("other.zip", game) == Path("other.zip")
    keys = {"env_id": "keys_to_the_tardis_v0"}
    assert baselines.az_export_target({**keys, "options": {"num_players": 4}}) == tmp_path / "az" / "keys_to_the_tardis_v0" / "players4.zip"
    assert baselines.az_export_target({**keys, "options": {"num_players": 2}}) == default
    assert baselines.az_export_target({**keys, "options": {}}) == default
    with pytest.raises(CheckpointError, match="no shipped az baseline for 'tardis_run_v0'.*keys_to_the_tardis_v0"):
        baselines.az_baseline_path("tardis_run_v0", 2)


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_a_ppo_policy_as_the_search_prior_gives_its_own_distribution_and_critic(env_id):
    """``mcts:N:prior=ppo:baseline``'s evaluator: the priors are the PPO policy's masked
    distribution (its mode is the move ppo:baseline plays), the values its critic, clipped,
    shared by a cooperative team and split against a zero-sum table; the search over it
    plays legal moves (through the policy's own observation options in chess)."""
    from agents.policy_agent import PolicyEvaluator

    game = tardis_envs.make(env_id).unwrapped.game
    policy_agent = make_agent("ppo:baseline", game, seed=0)
    view = policy_agent.view or game
    states = random_states(game, 4, seed=5)
    masks = masks_of(game, states)
    observations = np.stack([view.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    evaluate = PolicyEvaluator(policy_agent.policy, game.num_players, game.spec.cooperative)
    priors, values = evaluate(observations.reshape(len(states), -1), masks)
    assert np.allclose(priors.sum(axis=1), 1.0, atol=1e-5) and (priors[masks == 0] == 0).all()
    played = policy_agent.act_batch(states, np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states]), masks)
    assert (np.argmax(priors, axis=1) == played).all()
    assert values.shape == (len(states), game.num_players) and (np.abs(values) <= 1).all()
    if game.spec.cooperative:
        assert (values == values[:, :1]).all()
    else:
        assert np.allclose(values.sum(axis=1), 0.0, atol=1e-6)
    kind = "ismcts" if game.spec.hidden_information else "mcts"
    agent = make_agent(f"{kind}:8:prior=ppo:baseline", game, seed=0)
    assert agent.name == f"{kind}:8:prior=ppo:baseline" and agent.search.params[G_DETERMINIZE] == float(game.spec.hidden_information)
    actions = agent.act_batch(states, observations, masks)
    assert (masks[np.arange(len(states)), actions] == 1).all()


def test_search_prior_specs_are_checked():
    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    keys = tardis_envs.make("keys_to_the_tardis_v0").unwrapped.game
    for spec, where, message in [
        ("mcts:10:prior=", game, "prior needs an agent"),
        ("mcts:10:prior=random", game, "prior must be a ppo: or az: agent"),
        ("mcts:10:rollout=5:prior=ppo:baseline", game, "rollout and playout do not apply"),
        ("mcts:10:prior=ppo:nowhere.zip", game, "nowhere.zip"),
        ("mcts:10:prior=ppo:baseline", keys, "use ismcts"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_agent(spec, where)


def test_a_tiny_az_run_writes_a_checkpoint_that_eval_plays_and_resume_continues(tmp_path, capsys):
    import torch

    from tardis_envs.cli import main

    config = tmp_path / "tiny.yaml"
    config.write_text("az: {simulations: 2, eval_simulations: 2, max_considered: 2, hidden: 16, layers: 1, batch_size: 64}\n")
    run = tmp_path / "run"
    common = ["train", "tardis_run_v0", "--algo", "az", "--config", str(config), "--run-dir", str(run)]
    common += ["--eval-games", "4", "--num-envs", "16", "--no-progress"]
    assert main([*common, "--timesteps", "1200", "--eval-every", "600"]) == 0
    for name in ("config.yaml", "eval.csv", "summary.md", "winrate.png", "stats.json", "checkpoints/last.zip", "checkpoints/best.zip"):
        assert (run / name).exists(), name
    assert load_checkpoint(run / "checkpoints" / "last.zip")[1]["num_timesteps"] >= 1200
    assert "- self-play decisions: " in (run / "summary.md").read_text()
    # the value head scored on games it had not learned from, a row per evaluation
    header, *rows = (run / "value_fit.csv").read_text().splitlines()
    assert header == "num_timesteps,minutes,r2_unseen_games,decisions_scored" and rows
    assert all(int(row.split(",")[3]) > 0 and float(row.split(",")[2]) <= 1 for row in rows)
    with zipfile.ZipFile(run / "checkpoints" / "last.zip") as archive:
        assert "az_optimizer.pt" in archive.namelist()
    first_rows = len((run / "eval.csv").read_text().splitlines())
    capsys.readouterr()
    # --resume alone goes on with the run's own settings (its config.yaml): az, the tiny network
    # (the default one would be refused as another shape), 4 games an evaluation
    assert main(["train", "tardis_run_v0", "--run-dir", str(run), "--resume", "--timesteps", "1500", "--no-progress"]) == 0
    assert (
        "settings other than the run's config.yaml (which records them once the run goes on): total_timesteps 1200 -> 1500"
        in capsys.readouterr().out
    )
    assert load_checkpoint(run / "checkpoints" / "last.zip")[1]["num_timesteps"] >= 1500
    rows = (run / "eval.csv").read_text().splitlines()
    assert len(rows) > first_rows and rows[-1].split(",")[rows[0].split(",").index("games")] == "4"  # the first run's rows kept
    recorded = yaml.safe_load((run / "config.yaml").read_text())
    assert (recorded["algo"], recorded["hidden"], recorded["total_timesteps"]) == ("az", 16, 1500)
    assert main(["train", "tardis_run_v0", "--run-dir", str(run), "--resume", "--algo", "ppo", "--no-progress"]) == 2
    assert "config.yaml' records a run of --algo az: give --algo az or leave it out" in capsys.readouterr().err
    # a resume with another step size learns with it (the saved optimizer state brings the old one)
    config.write_text(config.read_text().replace("batch_size: 64}", "batch_size: 64, learning_rate: 0.002}"))
    assert main([*common, "--timesteps", "1800", "--eval-every", "600", "--resume"]) == 0
    assert "learning_rate 0.001 -> 0.002" in capsys.readouterr().out
    with zipfile.ZipFile(run / "checkpoints" / "last.zip") as archive:
        saved = torch.load(io.BytesIO(archive.read("az_optimizer.pt")), weights_only=True)
    assert {group["lr"] for group in saved["param_groups"]} == {0.002}
    out = tmp_path / "eval"
    best = run / "checkpoints" / "best.zip"
    assert main(["eval", "tardis_run_v0", "--agents", f"az:{best}:sims=2,random", "--games", "4", "--out", str(out)]) == 0
    assert "az" in capsys.readouterr().out
    # the shipped form: the optimizer state dropped, the network and metadata kept
    from agents.baselines import export

    shipped = export(best, tmp_path / "shipped.zip")
    with zipfile.ZipFile(shipped) as archive:
        assert "az_optimizer.pt" not in archive.namelist() and "az_model.pt" in archive.namelist()
    assert load_checkpoint(shipped)[1]["num_timesteps"] == load_checkpoint(best)[1]["num_timesteps"]


@pytest.mark.slow
def test_ctrl_c_ends_an_az_run_with_a_resumable_checkpoint(tmp_path):
    from agents.training.az_train import OPTIMIZER_MEMBER
    from tardis_envs.cli import main

    from .helpers import ctrl_c_after_first_evaluation

    config = tmp_path / "tiny.yaml"
    config.write_text("az: {simulations: 2, eval_simulations: 2, max_considered: 2, hidden: 16, layers: 1, batch_size: 64}\n")
    run = tmp_path / "run"
    common = ["train", "tardis_run_v0", "--algo", "az", "--config", str(config), "--run-dir", str(run)]
    common += ["--eval-games", "4", "--num-envs", "16", "--eval-every", "600", "--no-progress"]
    ctrl_c_after_first_evaluation([*common, "--timesteps", "100000000"], run, timeout=120)
    meta = load_checkpoint(run / "checkpoints" / "last.zip")[1]
    assert meta["interrupted"] is True and meta["num_timesteps"] > 0
    with zipfile.ZipFile(run / "checkpoints" / "last.zip") as archive:
        assert OPTIMIZER_MEMBER in archive.namelist()
    assert main([*common, "--timesteps", str(meta["num_timesteps"] + 600), "--resume"]) == 0
    assert load_checkpoint(run / "checkpoints" / "last.zip")[1]["num_timesteps"] > meta["num_timesteps"]


def test_the_value_fit_is_scored_on_the_games_just_ended():
    from agents.training.az_train import ValueFit
    from agents.training.replay import ReplayBuffer

    buffer = ReplayBuffer(16, (3,), np.float32, 4, 2, 4)
    obs = np.arange(18, dtype=np.float32).reshape(6, 3)
    ones = np.ones((6, 4), dtype=np.int32)
    buffer.add(
        obs,
        np.packbits(ones.astype(bool), axis=1),
        ones[:, :4],
        ones[:, :4].astype(np.float32),
        np.array([0, 1, 0, 1, 0, 1]),
        np.array([7, 7, 8, 8, 9, 9]),
    )
    rows = buffer.finish(np.array([8, 7]), np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert sorted(rows.tolist()) == [0, 1, 2, 3]  # game 9 goes on, not scored
    assert buffer.outcome[np.sort(rows), 0].tolist() == [-1.0, 1.0, 1.0, -1.0]  # each mover's own outcome
    assert buffer.finish(np.array([8]), np.array([[1.0, -1.0]])).size == 0  # each game scored once
    fit = ValueFit(per_step=3, seed=0)
    fit.score(lambda o: buffer.outcome[(o[:, 0] / 3).astype(int), 0], buffer.obs, buffer.outcome, rows)
    assert fit.take() == (1.0, 3)  # a perfect value; at most per_step rows a step
    fit.score(lambda o: np.zeros(len(o), np.float32), buffer.obs, buffer.outcome, np.array([0, 2]))
    assert fit.take() == (0.0, 2)  # the mean knows nothing
    fit.score(lambda o: -buffer.outcome[(o[:, 0] / 3).astype(int), 0], buffer.obs, buffer.outcome, np.array([0, 2]))
    assert fit.take()[0] == -3.0  # confidently wrong is below 0
    assert np.isnan(fit.take()[0])


def test_the_buffer_samples_the_ended_games_decisions_uniformly():
    """Whether most rows are ready (drawn from the whole buffer, the unready ones thrown back)
    or few (drawn from the list of ready rows), a sample holds only decisions whose game has
    ended, each about equally often; an overwritten row is not ready until its new game ends."""
    from agents.training.replay import ReplayBuffer

    def buffer_with(episodes, ended):
        buffer = ReplayBuffer(8, (1,), np.float32, 2, 2, 2)
        n = len(episodes)
        ones = np.ones((n, 2), dtype=np.int32)
        obs = np.arange(n, dtype=np.float32).reshape(n, 1)
        buffer.add(obs, np.packbits(ones.astype(bool), axis=1), ones, ones.astype(np.float32), np.zeros(n, np.int64), np.array(episodes))
        buffer.finish(np.array(ended), np.zeros((len(ended), 2), np.float32))
        return buffer

    rng = np.random.default_rng(0)
    for episodes, ended, ready in (
        ([1, 1, 1, 2, 2, 2, 3, 3], [1, 2], [0, 1, 2, 3, 4, 5]),  # 6 of 8 ready: rejection
        ([1, 2, 2, 3, 3, 3, 3, 3], [1, 2], [0, 1, 2]),  # 3 of 8: the list of ready rows
    ):
        buffer = buffer_with(episodes, ended)
        obs, *_ = buffer.sample(rng, 60_000)
        counts = np.bincount(obs[:, 0].astype(int), minlength=8)
        assert np.flatnonzero(counts).tolist() == ready
        expected = 60_000 / len(ready)
        assert np.all(np.abs(counts[ready] - expected) < 5 * np.sqrt(expected))  # binomial sd < sqrt(mean)
    buffer = buffer_with([1, 1, 1, 2, 2, 2, 3, 3], [1, 2])
    ones = np.ones((4, 2), dtype=np.int32)
    buffer.add(
        np.full((4, 1), 9.0, np.float32),
        np.packbits(ones.astype(bool), axis=1),
        ones,
        ones.astype(np.float32),
        np.zeros(4, np.int64),
        np.full(4, 4),
    )
    assert buffer.ready.tolist() == [False] * 4 + [True, True, False, False]  # rows 0-3 hold game 4's decisions now
    obs, *_ = buffer.sample(rng, 1_000)
    assert set(obs[:, 0].tolist()) == {4.0, 5.0}
    assert buffer_with([1, 1], []).sample(rng, 4) is None


def test_the_value_target_mixes_the_outcome_with_the_search_root_value_at_its_share():
    from agents.training.az_train import AZConfig
    from agents.training.replay import ReplayBuffer

    buffer = ReplayBuffer(4, (1,), np.float32, 2, 2, 2, root_value_share=0.25)
    ones = np.ones((2, 2), dtype=np.int32)
    buffer.add(
        np.zeros((2, 1), np.float32),
        np.packbits(ones.astype(bool), axis=1),
        ones,
        ones.astype(np.float32),
        np.array([0, 1]),
        np.array([5, 5]),
        np.array([0.6, -0.2], np.float32),
    )
    buffer.finish(np.array([5]), np.array([[1.0, -1.0]]))
    *_, target = buffer.sample(np.random.default_rng(0), 64)
    mover_wins = target[:, 1] == -1.0  # the first decision's mover (seat 0) won
    assert mover_wins.any() and (~mover_wins).any()
    assert np.allclose(target[mover_wins, 0], 0.75 * 1.0 + 0.25 * 0.6)
    assert np.allclose(target[~mover_wins, 0], 0.75 * -1.0 + 0.25 * -0.2)
    assert buffer.outcome[:2].tolist() == [[1.0, -1.0], [-1.0, 1.0]]  # the outcome itself is kept as it was
    for share in (1.5, -0.1, True):
        with pytest.raises(ValueError, match="'root_value_share' must be a number in"):
            AZConfig.from_dict({"root_value_share": share})


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_a_minibatch_is_the_buffers_rows_as_the_learner_takes_them(env_id):
    """The compiled sampling pass gives, bit for bit, what numpy makes of the rows it draws:
    the observations as the game decodes them (compact ones divided by their denominators,
    chess's packed planes unpacked), the legal masks unpacked, the policy's entries, the
    outcome with the mover's column mixed with the root value."""
    from agents.training.replay import ReplayBuffer
    from tardis_envs import vector
    from tardis_envs.core.observation import is_packed

    game = tardis_envs.env_module(env_id).Game()
    vec = vector.make(env_id, 16, seed=3, obs_dtype="packed" if game.packed_plane_kinds is not None else "compact")
    vec.reset()
    decode = {"unpack": lambda o: game.float_observations(o, vec.obs_dtype)} if is_packed(vec.obs_dtype) else {}
    buffer = ReplayBuffer(
        400,
        vec.obs.shape[1:],
        vec.obs.dtype,
        game.num_actions,
        game.num_players,
        8,
        0.3,
        denominators=game.observation_denominators,
        **decode,
    )
    rng = np.random.default_rng(0)
    while buffer.added < 400:
        n, k = vec.num_envs, buffer.entries
        buffer.add(
            vec.obs.copy(),
            np.packbits(vec.masks, axis=1),
            rng.integers(0, game.num_actions, (n, k)).astype(np.int32),
            rng.random((n, k)).astype(np.float32),
            rng.integers(0, game.num_players, n),
            buffer.added + np.arange(n),
            rng.standard_normal(n).astype(np.float32),
        )
        vec.step(np.array([rng.choice(np.flatnonzero(legal)) for legal in vec.masks]))
    buffer.finish(np.arange(400), rng.choice([-1.0, 0.0, 1.0], (400, game.num_players)).astype(np.float32))
    pick = buffer.draw(np.random.default_rng(1), 300)
    obs, masks, index, weight, target = buffer.sample(np.random.default_rng(1), 300)
    assert obs.dtype == np.float32 and obs.shape == (300, int(np.prod(game.observation_shape)))
    expected = game.float_observations(buffer.obs[pick], vec.obs_dtype).reshape(300, -1)
    assert np.array_equal(obs.view(np.uint32), expected.view(np.uint32))
    assert np.array_equal(masks, np.unpackbits(buffer.masks[pick], axis=1, count=game.num_actions).astype(bool))
    assert index.dtype == np.int64 and np.array_equal(index, buffer.policy_index[pick])
    assert np.array_equal(weight, buffer.policy_weight[pick])
    mixed = buffer.outcome[pick]
    mixed[:, 0] += buffer.root_value_share * (buffer.root_value[pick] - mixed[:, 0])
    assert np.array_equal(target.view(np.uint32), mixed.view(np.uint32))
    assert len(set(pick.tolist())) > 150  # rows of many games, not one row over and over
    with pytest.raises(ValueError, match="denominators: 5 entries for observations of"):
        ReplayBuffer(4, vec.obs.shape[1:], vec.obs.dtype, game.num_actions, game.num_players, 8, denominators=np.ones(5))


def test_the_trainers_allocator_keeps_freed_memory_on_glibc(monkeypatch):
    import platform

    from agents.training.memory import keep_freed_memory

    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert keep_freed_memory() is True  # glibc took both settings
    monkeypatch.setattr(platform, "libc_ver", lambda *a, **k: ("musl", ""))
    assert keep_freed_memory() is False  # elsewhere nothing is changed


def test_a_warm_start_imitates_its_teacher_before_self_play(tmp_path):
    """``bc_decisions``: the network first learns the teacher's moves, then a DAgger round
    (``bc_dagger_rounds``) plays with the network and learns the teacher's labels of those
    positions too; on held-out decisions it picks the heuristic's move far more often than a
    uniformly random legal move would, the record of both rounds is in bc.json and the
    checkpoint, and the warm start's time counts in the run."""
    import json

    from agents.training.az_train import AZConfig, AZTrainer

    config = AZConfig.from_dict(
        {
            "env_id": "tardis_run_v0",
            "total_timesteps": 50,
            "num_envs": 16,
            "simulations": 2,
            "eval_simulations": 2,
            "max_considered": 2,
            "hidden": 64,
            "layers": 1,
            "batch_size": 256,
            "eval_games": 2,
            "eval_every": 100_000,
            "bc_decisions": 20_000,
            "bc_epochs": 3,
            "bc_dagger_rounds": 1,
        }
    )
    trainer = AZTrainer(config, tmp_path / "run", progress=False)
    stats = trainer.run()
    record = json.loads((tmp_path / "run" / "bc.json").read_text())
    assert record["teacher"] == "heuristic" and record["decisions"] == 40_000
    assert [(r["round"], r["played_by"], r["decisions"]) for r in record["rounds"]] == [(0, "teacher", 20_000), (1, "network", 20_000)]
    assert record["games"] == sum(r["games"] for r in record["rounds"])
    assert -10 < record["held_out_value_r2"] <= 1  # judged on held-out games, not decisions
    assert [e["epoch"] for e in record["held_out_by_epoch"]] == [1, 2, 3]
    assert record["held_out_by_epoch"] == record["rounds"][-1]["held_out_by_epoch"]
    assert record["held_out_by_epoch"][-1]["value_r2"] == record["held_out_value_r2"]
    # on positions with a choice, a uniformly random legal move agrees with the heuristic on
    # 1 / (legal moves) of them; the warm-started network alone must do far better
    game = trainer.game
    states = random_states(game, 200, seed=8)
    masks = masks_of(game, states)
    observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    teacher = make_agent("heuristic", game, seed=0).act_batch(states, observations, masks)
    network = AZAgent(game, trainer.net, net_only=True).act_batch(states, observations, masks)
    chance = float(np.mean(1 / masks.sum(axis=1)))
    assert np.mean(network == teacher) > chance + 0.2, (np.mean(network == teacher), chance, record)
    assert load_checkpoint(tmp_path / "run" / "checkpoints" / "last.zip")[1]["warm_start"]["decisions"] == 40_000
    # all three are rounded to 0.1 s, so the sum of two may pass the total by their rounding
    assert stats["seconds"] >= record["record_seconds"] + record["fit_seconds"] - 0.15
    with pytest.raises(ValueError, match="'bc_explore' must be a number in"):
        AZConfig.from_dict({"bc_explore": 2})
    with pytest.raises(ValueError, match="'bc_dagger_rounds' must be an integer >= 0"):
        AZConfig.from_dict({"bc_dagger_rounds": -1})
    with pytest.raises(ValueError, match="unknown agent"):
        AZTrainer(AZConfig.from_dict({"bc_decisions": 10, "bc_teacher": "grandmaster"}), tmp_path / "bad", progress=False).run()
    assert not (tmp_path / "bad").exists()


def test_init_from_starts_self_play_from_an_az_network_and_refuses_what_does_not_fit(tmp_path, capsys):
    """``init_from`` (``--init-from``): the run's network starts as the shipped ``az:baseline``
    (weights equal before the first move), the record is in the checkpoint; a network of
    another shape, a PPO checkpoint, a missing file, two warm starts and ``--init-from`` for
    PPO are refused in one line, before the run folder is made."""
    import torch

    from agents import baselines
    from agents.baselines import az_baseline_path
    from agents.training.az_train import AZConfig, AZTrainer
    from tardis_envs.cli import main

    tiny = {"simulations": 2, "eval_simulations": 2, "max_considered": 2, "num_envs": 16, "eval_games": 2, "eval_every": 100_000}
    trainer = AZTrainer(AZConfig.from_dict({**tiny, "init_from": "baseline", "total_timesteps": 50}), tmp_path / "run", progress=False)
    trainer.run_dir.mkdir()
    trainer._build()
    shipped, _ = load_checkpoint(az_baseline_path("tardis_run_v0"))
    for name, weights in shipped.state_dict().items():
        assert torch.equal(trainer.net.state_dict()[name], weights), name
    assert trainer.warm["checkpoint"] == str(az_baseline_path("tardis_run_v0"))

    run = tmp_path / "cli"
    config = tmp_path / "tiny.yaml"
    config.write_text(f"az: {tiny}\n".replace("'", ""))
    common = ["train", "tardis_run_v0", "--algo", "az", "--config", str(config), "--timesteps", "40", "--no-progress"]
    assert main([*common, "--init-from", "az:baseline", "--run-dir", str(run)]) == 0
    assert "warm start: the network of" in capsys.readouterr().out
    assert load_checkpoint(run / "checkpoints" / "last.zip")[1]["warm_start"]["init_from"] == "az:baseline"

    ppo = baselines.folder() / "tardis_run_v0.zip"
    refusals = [
        (["--init-from", str(ppo)], "is not an az checkpoint"),
        (["--init-from", str(tmp_path / "missing.zip")], "does not exist"),
        (["--init-from", "baseline", "--config", str(tmp_path / "narrow.yaml")], "holds a network of shape"),
        (["--init-from", "baseline", "--config", str(tmp_path / "both.yaml")], "'init_from' and 'bc_decisions' are two warm starts"),
        (["--init-from", "baseline", "--algo", "ppo"], "--init-from starts --algo az"),
    ]
    (tmp_path / "narrow.yaml").write_text("az: {hidden: 16, layers: 1}\n")
    (tmp_path / "both.yaml").write_text("az: {bc_decisions: 100}\n")
    for k, (extra, message) in enumerate(refusals):
        bad = tmp_path / f"bad{k}"
        assert main([*common, "--run-dir", str(bad), *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
        assert not bad.exists()


def test_init_from_a_ppo_policy_copies_its_policy_network_and_refuses_another_shape(tmp_path, capsys):
    """``init_from: ppo:baseline`` copies the PPO policy's hidden layers and action layer into a
    tanh network: before self-play its logits are the policy's (so the network alone plays
    ``ppo:baseline``'s moves) and its value is 0; the compiled evaluator gives the same priors;
    a run records the warm start; a config without tanh units, a network of other widths and a
    PPO policy of another head (Dr. Who Chess's move squares) are refused in one line."""
    import torch

    from agents.alphazero import copy_ppo_policy
    from agents.baselines import baseline_path
    from agents.training.az_train import AZConfig, AZTrainer
    from tardis_envs.cli import main

    game = tardis_envs.env_module("time_of_the_daleks_v2").Game()
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, 256, 2, activation="tanh")
    record = copy_ppo_policy(net, "ppo:baseline", game)
    assert record["checkpoint"] == str(baseline_path("time_of_the_daleks_v2")) and record["its_decisions"] > 0
    ppo = make_agent("ppo:baseline", game, seed=0)
    states = random_states(game, 48, seed=5)
    masks = masks_of(game, states)
    observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    with torch.no_grad():
        seen = torch.from_numpy(observations.astype(np.float32))
        theirs = ppo.policy.get_distribution(seen, action_masks=masks.astype(bool)).distribution.probs.numpy()
    priors, values = NetEvaluator(net)(observations, masks)
    np.testing.assert_allclose(priors, theirs, atol=1e-5)
    assert not values.any()
    compiled_priors, _ = NetEvaluator(net, compiled=True)(observations, masks)
    np.testing.assert_allclose(compiled_priors, theirs, atol=1e-5)
    alone = AZAgent(game, net, net_only=True)
    np.testing.assert_array_equal(alone.act_batch(states, observations, masks), ppo.act_batch(states, observations, masks))

    tiny = {"simulations": 2, "eval_simulations": 2, "max_considered": 2, "num_envs": 16, "eval_games": 2, "eval_every": 100_000}
    tiny |= {"init_from": "ppo:baseline", "activation": "tanh", "total_timesteps": 40}
    run = tmp_path / "run"
    assert AZTrainer(AZConfig.from_dict(tiny), run, progress=False).run()["num_timesteps"] >= 40
    assert "warm start: the policy network of" in capsys.readouterr().out
    _, meta = load_checkpoint(run / "checkpoints" / "last.zip")
    assert meta["warm_start"]["init_from"] == "ppo:baseline" and meta["net"]["activation"] == "tanh"

    with pytest.raises(ValueError, match="set 'activation: tanh' and 'head: mlp'"):
        AZConfig.from_dict({"init_from": "ppo:baseline"})
    with pytest.raises(ValueError, match="'activation' must be one of relu, tanh, got 'gelu'"):
        AZConfig.from_dict({"activation": "gelu"})
    settings = "az: {simulations: 2, max_considered: 2, num_envs: 16, eval_games: 2, activation: tanh, hidden: 128}\n"
    common = ["--algo", "az", "--timesteps", "40", "--no-progress", "--init-from", "ppo:baseline"]
    for env_id, options, message in (
        ("tardis_run_v0", "", "holds a policy network of 2 x 256, 256 of Tanh units; the config's network is 2 x 128 of Tanh units"),
        (
            "timelord_chess_v1",
            "options: {threat_planes: true, history_planes: 0}\n",  # the chess ppo:baseline's observation
            "is not a PPO policy of an MLP over the flat observation and a linear action layer",
        ),
    ):
        bad, config = tmp_path / env_id, tmp_path / f"{env_id}.yaml"
        config.write_text(options + settings)
        assert main(["train", env_id, *common, "--config", str(config), "--run-dir", str(bad)]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
        assert not bad.exists()


@pytest.mark.parametrize(
    "env_id,options,head",
    [
        ("timelord_chess_v1", {"threat_planes": True, "history_planes": 0}, "mlp"),
        ("timelord_chess_v1", {"threat_planes": True, "history_planes": 0}, "move_squares"),
        ("keys_to_the_tardis_v0", {"route_lengths": True}, "mlp"),
    ],
)
def test_a_network_trained_under_other_observation_options_plays_the_default_game(env_id, options, head, tmp_path):
    """Dr. Who Chess's az recipe observes with threat planes and no history, Keys' route-length
    recipe with the route lengths; the trained network plays the default game (which observes
    otherwise) through a game of its own options (for the move-squares head, the squares'
    planes are read where its own options put them)."""
    own = tardis_envs.make(env_id, **options).unwrapped.game
    default = tardis_envs.make(env_id).unwrapped.game
    assert own.observation_shape != default.observation_shape
    net = build_net(int(np.prod(own.observation_shape)), own.num_actions, own.num_players, hidden=16, layers=1, head=head, game=own)
    path = save_checkpoint(tmp_path / "net.zip", net, own, 0)
    states = random_states(default, 4, seed=5)
    masks = masks_of(default, states)
    observations = np.stack([default.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    own_observations = np.stack([own.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    alone = make_agent(f"az:{path}:net", default, seed=0).act_batch(states, observations, masks)
    assert alone.tolist() == make_agent(f"az:{path}:net", own, seed=0).act_batch(states, own_observations, masks).tolist()
    searched = make_agent(f"az:{path}:sims=8", default, seed=0).act_batch(states, observations, masks)
    assert (masks[np.arange(len(states)), searched] == 1).all()
    loaded, meta = load_checkpoint(path, default)
    assert meta["net"].get("head", "mlp") == head and loaded.shape == net.shape
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        obs = torch.from_numpy(own_observations.astype(np.float32))
        assert torch.equal(loaded(obs)[0], net(obs)[0])


def test_the_move_squares_head_trains_in_chess_and_is_refused_where_no_piece_moves(tmp_path):
    """``head: move_squares``: a tiny Dr. Who Chess run writes a checkpoint of that head which
    plays; asking for an unknown head, or for move squares in a game without them, is refused
    by name."""
    from agents.training.az_train import AZConfig, AZTrainer

    config = {"env_id": "timelord_chess_v1", "options": {"threat_planes": True, "history_planes": 0}, "head": "move_squares"}
    tiny = {"num_envs": 8, "simulations": 2, "eval_simulations": 2, "max_considered": 2, "hidden": 16, "layers": 1, "batch_size": 32}
    tiny.update(total_timesteps=64, eval_every=64, eval_games=2, eval_opponents=["random"])
    AZTrainer(AZConfig.from_dict({**config, **tiny}), tmp_path / "run", progress=False).run()
    net, meta = load_checkpoint(tmp_path / "run" / "checkpoints" / "last.zip")
    assert meta["net"]["head"] == "move_squares" and type(net.policy).__name__ == "MoveSquaresHead"
    game = tardis_envs.make("timelord_chess_v1").unwrapped.game
    states = random_states(game, 2, seed=1)
    masks = masks_of(game, states)
    actions = make_agent(f"az:{tmp_path / 'run' / 'checkpoints' / 'last.zip'}:sims=4", game, seed=0).act_batch(states, None, masks)
    assert (masks[np.arange(len(states)), actions] == 1).all()
    with pytest.raises(ValueError, match="'head' must be one of mlp, move_squares, got 'conv'"):
        AZConfig.from_dict({**config, "head": "conv"})
    with pytest.raises(ValueError, match="'head' move_squares needs a game whose actions move pieces between squares, not tardis_run_v0"):
        AZConfig.from_dict({"env_id": "tardis_run_v0", "head": "move_squares"})


def test_self_play_against_a_fixed_opponent_searches_and_records_only_the_learners_seat():
    """``opponents: {self: 0.5, heuristic: 0.5}``: about half the games are against the
    heuristic, which moves every seat but the learner's (drawn per game); only the learner's
    decisions are searched and stored, the heuristic chooses every other move; kinds and
    weights that do not fit are refused by name."""
    from agents.training.az_train import AZConfig, SelfPlay

    config = AZConfig.from_dict({"num_envs": 32, "simulations": 2, "max_considered": 2, "opponents": {"self": 0.5, "heuristic": 0.5}})
    game = tardis_envs.env_module("tardis_run_v0").Game()
    selfplay = SelfPlay(config, build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, 16, 1), seed=3)
    heuristic = selfplay.pool.agents[0]
    asked = []

    class Spy:
        needs_observations = heuristic.needs_observations

        def act_batch(self, states, observations, masks):
            asked.append(states[:, CURRENT_PLAYER].copy())
            return heuristic.act_batch(states, observations, masks)

    selfplay.pool.agents[0] = Spy()
    drawn, stored, opponent_moves = [selfplay.opponent.copy()], 0, 0
    for _ in range(60):
        vec = selfplay.vec
        row_of = {int(e): r for r, e in enumerate(selfplay.episodes)}
        against = selfplay.opponent >= 0
        choice = vec.masks.sum(axis=1) > 1
        theirs = against & choice & (vec.current_player != selfplay.learner_seat)
        expected_turns = np.sort(vec.current_player[theirs])
        learner_seat, movers_before, episodes_before = selfplay.learner_seat.copy(), vec.current_player.copy(), selfplay.episodes.copy()
        asked.clear()
        out = selfplay.step()
        assert np.array_equal(np.sort(np.concatenate(asked)) if asked else np.zeros(0, np.int64), expected_turns)
        opponent_moves += int(theirs.sum())
        for episode, mover in zip(out.get("episodes", ()), out.get("movers", ())):
            row = row_of[int(episode)]
            assert mover == movers_before[row]
            assert not against[row] or mover == learner_seat[row], "a decision of the opponent's seat was stored"
            stored += 1
        if "root_values" in out:
            assert out["root_values"].shape == out["movers"].shape and (np.abs(out["root_values"]) <= 1).all()
        drawn.append(selfplay.opponent[selfplay.episodes != episodes_before])  # the games that restarted
    assert stored > 0 and opponent_moves > 0
    share = np.mean(np.concatenate(drawn) < 0)
    assert 0.3 < share < 0.7, share

    for opponents, message in (
        ({"snapshot": 1.0}, "unknown kind 'snapshot'"),
        ({"self": 0.0}, "no kind has a weight > 0"),
        ({"self": 1.0, "heuristic": -1}, "the weight of 'heuristic' must be"),
        ({"self": 1.0, "grandmaster": 1}, "unknown kind 'grandmaster'"),
    ):
        with pytest.raises(ValueError, match=message):
            AZConfig.from_dict({"opponents": opponents})
    assert SelfPlay(AZConfig.from_dict({"num_envs": 4, "simulations": 2}), selfplay.net, seed=0).pool is None  # the default: itself


def test_the_learner_takes_replay_ratio_samples_a_decision_whatever_the_minibatch_or_burst(tmp_path):
    """A step's decisions x ``replay_ratio`` (16 duel games: about 64 samples) against a
    minibatch of 48: the learner takes whole minibatches and keeps the remainder for the next
    step, so over a run it learns ``replay_ratio`` samples a decision (less the few steps before
    the first game ends, when there is nothing to learn from), not a minibatch more each step;
    with ``learner_burst`` it waits for that many minibatches and takes them in a row."""
    from agents.training.az_train import AZConfig, AZTrainer

    tiny = {
        "env_id": "gallifrey_duel_v1",
        "total_timesteps": 3000,
        "num_envs": 16,
        "simulations": 2,
        "max_considered": 2,
        "hidden": 16,
        "layers": 1,
        "batch_size": 48,
        "replay_ratio": 4.0,
        "eval_games": 2,
        "eval_every": 100_000,
        "eval_simulations": 2,
    }
    stats = AZTrainer(AZConfig.from_dict(tiny), tmp_path / "run", progress=False).run()
    decisions = stats["num_timesteps"]
    assert stats["learner_samples"] % 48 == 0
    assert 3.5 * decisions <= stats["learner_samples"] <= 4 * decisions, (stats["learner_samples"], decisions)

    # learner_burst: 5 minibatches or more at a time, the same samples a decision
    trainer = AZTrainer(AZConfig.from_dict(tiny | {"learner_burst": 5}), tmp_path / "burst", progress=False)
    learn, bursts = trainer._learn, []
    trainer._learn = lambda minibatches: bursts.append(minibatches) or learn(minibatches)
    stats = trainer.run()
    decisions = stats["num_timesteps"]
    assert len(bursts) > 10 and min(bursts) >= 5, bursts
    assert stats["learner_samples"] == 48 * sum(bursts)
    assert 3.3 * decisions <= stats["learner_samples"] <= 4 * decisions, (stats["learner_samples"], decisions)
    for burst in (0, 2.5, True):
        with pytest.raises(ValueError, match="'learner_burst' must be a positive integer"):
            AZConfig.from_dict({"learner_burst": burst})


def test_bf16_evaluates_as_fp32_within_its_rounding_and_trains(tmp_path):
    """``precision: bf16``: the evaluator's priors stay distributions over the legal actions
    and within bfloat16's rounding of the float32 ones; a run trains at it and its checkpoint
    holds float32 weights; an unknown precision is refused by name."""
    import torch

    from agents.training.az_train import AZConfig, AZTrainer

    game = tardis_envs.env_module("keys_to_the_tardis_v0").Game()
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, 64, 2)
    states = random_states(game, 64, seed=5)
    masks = masks_of(game, states)
    observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    exact_priors, exact_values = NetEvaluator(net)(observations, masks)
    priors, values = NetEvaluator(net, "bf16")(observations, masks)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert np.allclose(priors.sum(axis=1), 1, atol=1e-5) and not priors[masks == 0].any()
    assert np.abs(priors - exact_priors).max() < 0.02 and np.abs(values - exact_values).max() < 0.02
    assert not np.array_equal(priors, exact_priors), "bf16 ran in float32"

    tiny = {"env_id": "tardis_run_v0", "total_timesteps": 3000, "num_envs": 16, "simulations": 2, "max_considered": 2, "hidden": 16}
    tiny |= {"layers": 1, "batch_size": 64, "eval_games": 2, "eval_every": 100_000, "eval_simulations": 2, "precision": "bf16"}
    trainer = AZTrainer(AZConfig.from_dict(tiny), tmp_path / "run", progress=False)
    stats = trainer.run()
    assert stats["learner_samples"] > 0
    assert stats["learner_samples_per_second"] == pytest.approx(stats["learner_samples"] / trainer.timing["learner"])
    trained, meta = load_checkpoint(tmp_path / "run" / "checkpoints" / "last.zip")
    assert meta["config"]["precision"] == "bf16"
    assert all(w.dtype == torch.float32 for w in trained.state_dict().values())
    with pytest.raises(ValueError, match="'precision' must be one of fp32, bf16, got 'fp16'"):
        AZConfig.from_dict({"precision": "fp16"})
    with pytest.raises(ValueError, match="precision must be one of"):
        NetEvaluator(net, "half")


@pytest.mark.parametrize("layers, activation", [(1, "relu"), (3, "relu"), (2, "tanh")])
def test_the_compiled_evaluator_computes_the_torch_network(layers, activation):
    """The compiled MLP kernel (tardis_envs.core.mlp) gives torch's priors and values to float
    rounding, for trunks of one layer and of three, of ReLU or tanh units, with seats mapped as
    in torch; a row without a legal action gets no prior; a network of the move-squares head,
    or bf16, stays in torch; an agent evaluates with the kernel on the weights it was made with."""
    import torch

    game = tardis_envs.env_module("keys_to_the_tardis_v0").Game(num_players=3)
    torch.manual_seed(layers)
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, 2, 48, layers, activation=activation)
    states = random_states(game, 64, seed=layers)
    masks = masks_of(game, states)
    masks[5] = 0
    observations = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in states])
    torch_priors, torch_values = NetEvaluator(net, seats=3)(observations, masks)
    compiled = NetEvaluator(net, seats=3, compiled=True)
    assert compiled.compiled is not None
    priors, values = compiled(observations, masks)
    assert priors.dtype == np.float32 and values.shape == (64, 3)
    legal = masks.sum(axis=1) > 0
    np.testing.assert_allclose(priors[legal], torch_priors[legal], atol=1e-5)
    np.testing.assert_allclose(values, torch_values, atol=1e-5)
    assert not priors[5].any() and not priors[masks == 0].any()
    assert np.allclose(priors[legal].sum(axis=1), 1, atol=1e-5)

    chess = tardis_envs.env_module("timelord_chess_v1").Game()
    squares = build_net(int(np.prod(chess.observation_shape)), chess.num_actions, 2, 16, 1, head="move_squares", game=chess)
    assert NetEvaluator(squares, compiled=True).compiled is None
    assert NetEvaluator(net, "bf16", compiled=True).compiled is None

    agent = AZAgent(game, net)
    assert agent.evaluate.compiled is not None
    with torch.no_grad():
        next(net.parameters()).add_(1.0)  # the agent keeps the weights it was made with
    np.testing.assert_array_equal(agent.evaluate(observations, masks)[1], values)


def test_the_value_fit_benchmark_scores_a_shipped_value_head(capsys):
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "value_fit.py"))
    assert module["main"](["tardis_run_v0", "baseline", "--teacher", "heuristic", "--decisions", "6000", "--num-envs", "16"]) == 0
    out = capsys.readouterr().out
    r2 = float(out.split("R^2 ")[1].split(",")[0])
    assert "games of heuristic" in out and 0 < r2 < 1  # TARDIS Run's self-play value knows something, not all


def test_the_fitted_value_benchmark_fits_a_value_and_searches_with_it(capsys):
    """``benchmarks/fitted_value.py``: a fresh value fitted to a teacher's games predicts held-out
    outcomes better than chance (TARDIS Run's heuristic games), the searched match with it plays
    its games; the evaluator's priors are the network's and its values the fitted value's for the
    mover, the opposite for the other seat; bad settings and games are refused by name."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "fitted_value.py"))
    args = ["tardis_run_v0", "--decisions", "30000", "--epochs", "2", "--sims", "4", "--games", "4", "--hidden", "48"]
    assert module["main"](args) == 0
    out = capsys.readouterr().out
    assert "the fitted network: 2 x 48" in out  # the width given, the shipped network's depth
    fitted = [float(line.split("R^2 ")[1].split()[0]) for line in out.splitlines() if line.startswith("epoch ")]
    assert len(fitted) == 2 and 0 < fitted[-1] < 1
    assert "az:baseline's value on them: R^2" in out and "fitted value, sims=4" in out and "4 games in" in out
    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    states, obs, masks = observed_positions(game, 5, seed=4)
    prior = hashed(game)

    def value(obs, masks):  # another evaluator than the prior's: its values alone are read
        flat = obs.reshape(len(obs), -1)
        return masks / masks.sum(axis=1, keepdims=True), np.tanh(flat[:, :2] - flat[:, 2:4]).astype(np.float32)

    priors, values = module["FittedValue"](prior, value)(obs, masks)
    assert np.allclose(priors, prior(obs, masks)[0])
    assert np.allclose(values[:, 0], value(obs, masks)[1][:, 0]) and np.allclose(values[:, 1], -values[:, 0])
    for flags, named in (
        (["--games", "3"], "--games 3"),
        (["--network", "heuristic"], "--network"),
        (["--decisions", "10"], "--decisions 10"),
        (["--layers", "0"], "--layers 0"),
    ):
        with pytest.raises(SystemExit):
            module["main"](["tardis_run_v0", *flags])
        assert named in capsys.readouterr().err
    with pytest.raises(SystemExit):
        module["main"](["time_of_the_daleks_v2"])
    assert "two-player zero-sum" in capsys.readouterr().err


def test_the_throughput_benchmark_counts_the_flops_torch_counts():
    """``benchmarks/az_throughput.py``'s FLOPs a row, forward and in a training step (no
    gradient for the observation), equal torch's own count of the multiplies it runs."""
    import runpy

    import torch
    from torch.utils.flop_counter import FlopCounterMode

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "az_throughput.py"))
    net = build_net(30, 7, 2, hidden=16, layers=2)
    obs = torch.randn(4, 30)
    with FlopCounterMode(display=False) as forward, torch.no_grad():
        net(obs)
    with FlopCounterMode(display=False) as training:
        logits, values = net(obs)
        (logits.sum() + values.sum()).backward()
    assert [4 * n for n in module["net_flops"](net.shape)] == [forward.get_total_flops(), training.get_total_flops()]


def test_the_throughput_benchmark_times_the_learners_own_step_on_a_minibatch_shaped_as_the_buffers():
    """The benchmark's minibatch has the replay buffer's dtypes and shapes, targets on legal
    actions only and summing to 1, and the training run's :func:`learner_step` learns it."""
    import runpy

    from agents.training.az_train import AZConfig, learner_optimizer, learner_step
    from agents.training.replay import ReplayBuffer
    from tardis_envs import vector

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "az_throughput.py"))
    vec = vector.make("keys_to_the_tardis_v0", 5, seed=0)
    vec.reset()
    game = vec.game
    batch = module["learner_minibatch"](vec, 12, 4)
    obs_size = int(np.prod(game.observation_shape))
    buffer = ReplayBuffer(12, (obs_size,), np.float32, game.num_actions, game.num_players, 4)
    ones = np.ones((12, 4), dtype=np.int32)
    buffer.add(batch[0], np.packbits(batch[1], axis=1), ones, ones.astype(np.float32), np.zeros(12, np.int64), np.ones(12, np.int64))
    buffer.finish(np.array([1]), np.zeros((1, game.num_players), np.float32))
    sampled = buffer.sample(np.random.default_rng(0), 12)
    assert [(a.dtype, a.shape) for a in batch] == [(a.dtype, a.shape) for a in sampled]
    obs, masks, index, weight, outcome = batch
    assert np.array_equal(masks[5:10], masks[:5]) and masks.any(axis=1).all()
    assert np.take_along_axis(masks, index, axis=1)[weight > 0].all()
    assert np.allclose(weight.sum(axis=1), 1) and set(np.unique(outcome)) <= {-1.0, 1.0}
    net = build_net(obs_size, game.num_actions, game.num_players, hidden=16, layers=1)
    optimizer = learner_optimizer(net, AZConfig())
    first = [loss.item() for loss in learner_step(net, optimizer, batch, "fp32", 1.0)]
    for _ in range(50):
        last = [loss.item() for loss in learner_step(net, optimizer, batch, "fp32", 1.0)]
    assert last[0] < first[0] and last[1] < first[1], (first, last)


def test_the_learners_fused_adamw_steps_as_the_loop_and_a_resumed_run_keeps_it():
    """The learner's AdamW runs torch's fused step, the same update as the per-tensor loop;
    an optimizer state saved by that loop (runs saved before the learner fused its step)
    resumes into the fused step with its moments."""
    import torch

    from agents.training.az_train import AZConfig, learner_optimizer, load_optimizer_state

    config = AZConfig()
    torch.manual_seed(0)
    fused_net, loop_net = build_net(8, 5, 2, hidden=16, layers=1), build_net(8, 5, 2, hidden=16, layers=1)
    loop_net.load_state_dict(fused_net.state_dict())
    fused = learner_optimizer(fused_net, config)
    loop = learner_optimizer(loop_net, config, fused=False)
    assert fused.param_groups[0]["fused"] and not loop.param_groups[0]["fused"]
    obs = torch.randn(32, 8)

    def step(net, optimizer):
        logits, values = net(obs)
        optimizer.zero_grad(set_to_none=True)
        (logits.logsumexp(dim=1).mean() + values.pow(2).mean()).backward()
        optimizer.step()

    for _ in range(3):
        step(fused_net, fused), step(loop_net, loop)
    for a, b in zip(fused_net.parameters(), loop_net.parameters()):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)
    resumed = learner_optimizer(loop_net, config)
    load_optimizer_state(resumed, loop.state_dict())
    assert all(group["fused"] for group in resumed.param_groups)
    step(loop_net, resumed), step(fused_net, fused)
    for a, b in zip(fused_net.parameters(), loop_net.parameters()):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)  # the moments came with it: a fresh one steps 1e-3 away


def test_the_learning_rate_anneals_down_a_half_cosine_over_the_runs_budget(tmp_path, monkeypatch):
    """``learning_rate_end``: the learner's step size goes from ``learning_rate`` to it down a
    half cosine over the larger of the decisions' and the minutes' share of the budget, and
    stays there; without it the step size is constant; an end above the start, or below 0, is
    refused by name."""
    from agents.training.az_train import AZConfig, AZTrainer

    config = AZConfig.from_dict({"learning_rate": 1e-3, "learning_rate_end": 1e-5, "total_timesteps": 1000, "max_minutes": 10})
    trainer = AZTrainer(config, tmp_path / "run", progress=False)
    monkeypatch.setattr(trainer, "seconds", lambda: 0.0)
    rates = []
    for decisions in (0, 250, 500, 1000, 5000):
        trainer.num_timesteps = decisions
        rates.append(trainer.learning_rate())
    half = 1e-5 + (1e-3 - 1e-5) / 2
    assert rates == pytest.approx([1e-3, 1e-5 + (1e-3 - 1e-5) * (1 + 2**-0.5) / 2, half, 1e-5, 1e-5], rel=1e-9)
    trainer.num_timesteps = 0
    monkeypatch.setattr(trainer, "seconds", lambda: 300.0)  # half the minutes, no decisions yet
    assert trainer.learning_rate() == pytest.approx(half, rel=1e-9)
    trainer.seconds_before = 600.0  # resumed after 10 minutes, for 10 more: 15 of 20 minutes
    monkeypatch.setattr(trainer, "seconds", lambda: 900.0)
    assert trainer.learning_rate() == pytest.approx(1e-5 + (1e-3 - 1e-5) * (1 - 2**-0.5) / 2, rel=1e-9)
    trainer.config = AZConfig.from_dict({"learning_rate": 1e-3, "total_timesteps": 1000})
    assert trainer.learning_rate() == 1e-3
    for data, message in (
        ({"learning_rate": 1e-4, "learning_rate_end": 1e-3}, "'learning_rate_end' 0.001 is above 'learning_rate' 0.0001"),
        ({"learning_rate_end": -1e-5}, "'learning_rate_end' must be a number >= 0"),
    ):
        with pytest.raises(ValueError, match=message):
            AZConfig.from_dict(data)


def test_the_per_minute_curves_read_opponents_and_team_mates(tmp_path, capsys):
    """``benchmarks/az_vs_ppo.py``: a run's points against one opponent, from the ``opponent``
    column or, in an az run of Time of the Daleks, the ``partner`` column; a run without that
    opponent is refused by name."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "az_vs_ppo.py"))
    header = "timesteps,seconds,{},games,wins,draws,losses,win_rate,ci_low,ci_high\n"
    (tmp_path / "az.csv").write_text(
        header.format("partner") + "0,60,heuristic,400,220,0,180,0.55,0.5,0.6\n0,60,random,400,0,0,400,0,0,0.01\n"
    )
    (tmp_path / "ppo.csv").write_text(header.format("opponent") + "0,120,heuristic,400,100,0,300,0.25,0.21,0.3\n")
    out = tmp_path / "curve.png"
    runs = ["--run", f"az={tmp_path / 'az.csv'}", "--run", f"ppo={tmp_path / 'ppo.csv'}"]
    assert module["main"]([*runs, "--opponent", "heuristic", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "az: 1 min 55.0% [50.0, 60.0]" in printed and "ppo: 2 min 25.0% [21.0, 30.0]" in printed
    assert out.stat().st_size > 0
    with pytest.raises(SystemExit, match="no evaluation against 'greedy'"):
        module["main"]([*runs, "--opponent", "greedy", "--out", str(out)])


def test_the_leaf_values_benchmark_values_a_leaf_by_the_chess_heuristics_search(capsys):
    """``benchmarks/leaf_values.py``: its evaluator's value of a leaf is the squashed search value
    of the heuristic for the leaf's mover (the other seat the opposite), its priors the given
    network's or uniform; bad settings are refused by name."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "leaf_values.py"))
    game = tardis_envs.make("timelord_chess_v1").unwrapped.game
    heuristic = game.heuristic
    states, obs, masks = observed_positions(game, 4, seed=2)
    leaves = module["HeuristicLeaves"](game, None, depth=0, scale=400.0)
    priors, values = leaves(obs, masks, states)
    expected = [np.tanh(heuristic.search_value(s.copy(), game.tables, heuristic.DEFAULT_WEIGHTS, 0) / 400) for s in states]
    assert np.allclose(values[:, 0], expected, atol=1e-6) and np.allclose(values[:, 1], -values[:, 0])
    assert np.allclose(priors, masks / masks.sum(axis=1, keepdims=True))
    network = hashed(game)
    assert np.allclose(module["HeuristicLeaves"](game, network, depth=0, scale=400.0)(obs, masks, states)[0], network(obs, masks)[0])
    for flags, named in ((["--depth", "4"], "--depth 4"), (["--games", "3"], "--games 3"), (["--prior", "ppo:baseline"], "--prior")):
        with pytest.raises(SystemExit):
            module["main"](flags)
        assert named in capsys.readouterr().err


def test_the_leaf_values_benchmark_values_a_keys_leaf_by_the_route_planners_lead(capsys):
    """``benchmarks/leaf_values.py --env keys_to_the_tardis_v0``: a leaf's value is the squashed
    route lead of the heuristic for the leaf's mover (the other seat the opposite), its priors
    the network's; more than two players, and a search depth, which only chess's leaves have,
    are refused."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "leaf_values.py"))
    game = tardis_envs.make("keys_to_the_tardis_v0").unwrapped.game
    heuristic = game.heuristic
    states, obs, masks = observed_positions(game, 6, seed=3)
    network = hashed(game)
    priors, values = module["RouteLeaves"](game, network, scale=3.0)(obs, masks, states)
    lead = np.zeros(len(states))
    heuristic.route_leads(states, game.tables, heuristic.DEFAULT_WEIGHTS, lead)
    assert np.unique(lead).size > 1
    assert np.allclose(values[:, 0], np.tanh(lead / 3.0), atol=1e-6) and np.allclose(values[:, 1], -values[:, 0])
    assert np.allclose(priors, network(obs, masks)[0])
    _, mixed = module["RouteLeaves"](game, network, scale=3.0, mix=0.75)(obs, masks, states)
    assert np.allclose(mixed, 0.75 * values + 0.25 * network(obs, masks)[1], atol=1e-6)
    with pytest.raises(ValueError, match="2-player"):
        module["RouteLeaves"](tardis_envs.make("keys_to_the_tardis_v0", num_players=3).unwrapped.game, None, scale=3.0)
    for flags, named in (
        (["--depth", "1"], "--depth 1"),
        (["--mix", "1.5"], "--mix 1.5"),
        (["--mix", "0.5", "--prior", "uniform"], "needs an az network's value head"),
    ):
        with pytest.raises(SystemExit):
            module["main"](["--env", "keys_to_the_tardis_v0", *flags])
        assert named in capsys.readouterr().err


def test_the_one_ply_benchmark_takes_the_exact_expectation_over_the_paddles(capsys):
    """``benchmarks/one_ply.py``: an action's value is the exact expectation over its paddle
    throws of the value for the deciding seat, an extra move taken at its best option; checked
    against the average over 3,000 throws sampled by the game's own generator. Games with hidden
    information, odd game counts and a value that is no network are refused by name."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "one_ply.py"))
    game = tardis_envs.make("tardis_run_v0").unwrapped.game

    def judged(state, seat):  # a smooth judgement of the position for `seat`
        if state[STATUS]:
            return float(state[REWARDS + seat])
        return float(np.tanh((sum(game.progress(state, seat)) - sum(game.progress(state, 1 - seat))) / 20))

    def value(obs, masks, states):  # the columns counted from each position's mover, as a network's
        return np.array([[judged(s, int(s[CURRENT_PLAYER])), judged(s, 1 - int(s[CURRENT_PLAYER]))] for s in states])

    # pieces before the shortcut at square 5 (an extra move to 10) and the teleport at 7
    state = game.position(monsters=[12, 3], doctors=[4, 2, 1], black_paddle_owner="doctors", to_move="doctors")
    exact = module["OnePly"](game, value).action_values(state)
    assert sorted(exact) == [int(a) for a in game.legal_actions(state)] and len(exact) >= 4
    rng = np.random.default_rng(0)
    extra_moves = 0
    for action, expected in exact.items():
        outcomes = []
        for _ in range(3000):
            after = state.copy()
            after[RNG_KEY], after[RNG_COUNTER] = int(rng.integers(1 << 62)), 0
            game.kernels.step(after, game.tables, action)
            if not after[STATUS] and after[CURRENT_PLAYER] == state[CURRENT_PLAYER]:  # the extra move: its best option
                extra_moves += 1
                options = []
                for then in game.legal_actions(after):
                    taken = after.copy()
                    game.kernels.step(taken, game.tables, then)
                    options.append(judged(taken, 1))
                outcomes.append(max(options))
            else:
                outcomes.append(judged(after, 1))
        assert abs(np.mean(outcomes) - expected) < 4 * np.std(outcomes) / np.sqrt(3000) + 1e-9, (action, expected)
    assert extra_moves > 0  # the position offers extra moves: the best option is checked too
    for argv, message in (
        (["keys_to_the_tardis_v0"], "perfect information"),
        (["tardis_run_v0", "--games", "3"], "--games 3"),
        (["tardis_run_v0", "--value", "heuristic"], "--value 'heuristic'"),
    ):
        with pytest.raises(SystemExit):
            module["main"](argv)
        assert message in capsys.readouterr().err


def test_the_oracle_benchmark_plays_fair_and_clairvoyant_on_the_same_seeds(capsys):
    """``benchmarks/oracle.py``: the fair search and the oracle on the same seeds; in TARDIS Run
    knowing the coming dice wins more (over 2,000 games 59.1% against 55.7%); a spec
    without search, a game count that seats cannot share and an oracle team outside a
    cooperative game or of another spec are refused by name."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "oracle.py"))
    assert module["main"](["tardis_run_v0", "az:baseline:search=gumbel", "heuristic", "--games", "400"]) == 0
    out = capsys.readouterr().out
    rates = {kind: float(out.split(f"az:baseline:search=gumbel ({kind})")[1].split("%")[0].split()[-1]) for kind in ("fair", "oracle")}
    assert rates["oracle"] > rates["fair"] + 2, rates  # 57.8% against 55.0% on these 400 seeds
    for argv, message in (
        (["tardis_run_v0", "az:baseline:net", "heuristic"], "an az agent with search"),
        (["keys_to_the_tardis_v0", "az:baseline", "heuristic", "--games", "3", "--oracle-only"], "positive multiple"),
        (["tardis_run_v0", "az:baseline", "heuristic", "--oracle-team"], "tardis_run_v0 is competitive"),
        (["time_of_the_daleks_v2", "az:baseline", "heuristic", "--oracle-team"], "must be the agent's own spec"),
    ):
        with pytest.raises(SystemExit):
            module["main"](argv)
        assert message in capsys.readouterr().err


def test_the_mixed_player_benchmark_plays_the_strong_move_at_its_share(capsys):
    """``benchmarks/mixed_player.py``: at share 1 the player makes the strong agent's move in
    every game, at 0 the weak one's, in between each move is one of the two and both occur;
    a share outside [0, 1] and a game count the seats cannot share are refused by name."""
    import runpy

    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "mixed_player.py"))
    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    states, obs, masks = observed_positions(game, 300, seed=4)
    strong, weak = make_agent("heuristic", game, seed=0), make_agent("random", game, seed=1)
    expected_strong = strong.act_batch(states, obs, masks)
    mixed = {share: module["MixedPlayer"](game, strong, make_agent("random", game, seed=1), share, seed=2) for share in (0.0, 0.5, 1.0)}
    assert np.array_equal(mixed[1.0].act_batch(states, obs, masks), expected_strong)
    expected_weak = weak.act_batch(states, obs, masks)
    assert np.array_equal(mixed[0.0].act_batch(states, obs, masks), expected_weak)
    half = mixed[0.5].act_batch(states, obs, masks)
    differ = expected_strong != expected_weak  # the same random agent's draws: mixed[0.5]'s weak is seeded alike
    assert np.all((half == expected_strong) | (half == expected_weak))
    assert 0 < np.count_nonzero(half[differ] == expected_strong[differ]) < np.count_nonzero(differ)
    with pytest.raises(ValueError, match="share must be in"):
        module["MixedPlayer"](game, strong, weak, 1.5)
    assert module["main"](["tardis_run_v0", "heuristic", "random", "random", "--share", "1", "--games", "20"]) == 0
    assert "heuristic 1 / random" in capsys.readouterr().out
    for argv, message in (
        (["tardis_run_v0", "heuristic", "random", "random", "--share", "-0.1"], "--share -0.1"),
        (["tardis_run_v0", "heuristic", "random", "random", "--share", "0.5", "--games", "3"], "positive multiple"),
    ):
        with pytest.raises(SystemExit):
            module["main"](argv)
        assert message in capsys.readouterr().err


def test_the_move_time_benchmark_times_a_game_of_three_and_refuses_an_unknown_option(monkeypatch, capsys):
    """``benchmarks/move_time.py``: ``--num-players 3`` times the network ``az:baseline`` loads in
    Keys games of three; a player count in a game without one is refused in one line."""
    import runpy

    import numba
    import torch

    # the script asks numba for one thread before numba starts; here numba runs already, with its own
    monkeypatch.setenv("NUMBA_NUM_THREADS", str(numba.config.NUMBA_NUM_THREADS))
    module = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "move_time.py"))
    threads = torch.get_num_threads()
    try:
        spec = "az:baseline:search=gumbel:sims=4"  # the network's search (az:baseline there plays the turn search)
        assert module["main"](["keys_to_the_tardis_v0", spec, "--num-players", "3", "--positions", "3"]) == 0
        assert f"keys_to_the_tardis_v0, 3 players {spec}: " in capsys.readouterr().out
        with pytest.raises(SystemExit):
            module["main"](["tardis_run_v0", "az:baseline", "--num-players", "3"])
        last = capsys.readouterr().err.splitlines()[-1]  # "<prog>: error: ...", prog from sys.argv
        assert last.endswith(": error: tardis_run_v0: unknown option 'num_players'; allowed options: board, max_turns")
    finally:
        torch.set_num_threads(threads)  # the benchmark times one thread

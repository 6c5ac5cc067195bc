"""The Ray RLlib backend's pieces: masking, legal play in every game, checkpoints that
``eval`` loads. Skipped where the ``distributed`` extra is not installed."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

import tardis_envs  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.checkpoint import CheckpointError  # noqa: E402
from agents.tournament import play_match  # noqa: E402
from agents.training.config import TrainConfig  # noqa: E402
from agents.training.rllib_backend import MAIN, RANDOM, MaskedPPOModule, learner_steps, ppo_config, save_checkpoint, spaces  # noqa: E402

# every game and player count the project ships
VARIANTS = [
    ("tardis_run_v0", {}),
    ("keys_to_the_tardis_v0", {"num_players": 2}),
    ("keys_to_the_tardis_v0", {"num_players": 3}),
    ("keys_to_the_tardis_v0", {"num_players": 4}),
    ("timelord_chess_v1", {}),
    ("timelord_chess_v1", {"doctor": False}),
    ("gallifrey_duel_v1", {}),
    ("time_of_the_daleks_v0", {"num_players": 1}),
    ("time_of_the_daleks_v0", {"num_players": 2}),
    ("time_of_the_daleks_v0", {"num_players": 3}),
    ("time_of_the_daleks_v0", {"num_players": 4}),
]


@pytest.fixture(scope="module")
def local_ray():
    """A Ray of our own (never an existing cluster), ended by ray.shutdown(), which stops
    exactly the processes this init started."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _alternate(agent_id, episode, **kwargs):
    """The learner and the random module share out the seats, differently per episode."""
    return MAIN if (hash(episode.id_) + hash(agent_id)) % 2 else RANDOM


def test_masked_module_puts_no_probability_on_illegal_actions():
    observation_space, action_space, _ = spaces("keys_to_the_tardis_v0")
    module = MaskedPPOModule(observation_space=observation_space, action_space=action_space, model_config={"fcnet_hiddens": [16]})
    rng = np.random.default_rng(0)
    masks = (rng.random((32, action_space.n)) < 0.05).astype(np.int8)
    masks[:, 0] = 1
    obs = rng.random((32, *observation_space["observation"].shape)).astype(np.float32)
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, dim=-1).detach().numpy()
        assert np.all(probs[masks == 0] == 0) and np.allclose(probs.sum(axis=1), 1)


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=[f"{e}-{'-'.join(f'{k}{v}' for k, v in o.items())}" for e, o in VARIANTS])
def test_sampled_episodes_hold_no_illegal_action(local_ray, env_id, options):
    # the env raises on an illegal action (illegal_action="raise"), so sampling would fail
    algo = ppo_config(env_id, options, num_env_runners=0, hidden=(32,), policy_mapping_fn=_alternate).build_algo()
    try:
        episodes = algo.env_runner.sample(num_timesteps=1500, random_actions=False)
        modules = {episode.module_for(agent) for episode in episodes for agent in episode.agent_ids}
        assert sum(len(e) for e in episodes) >= 1500 and modules == {MAIN, RANDOM}
    finally:
        algo.stop()


@pytest.mark.parametrize("env_id,options", [("tardis_run_v0", {}), ("keys_to_the_tardis_v0", {"num_players": 3})])
def test_tiny_run_writes_a_checkpoint_that_eval_plays(local_ray, tmp_path, env_id, options):
    game = tardis_envs.env_module(env_id).Game(**options)
    config = TrainConfig(env_id=env_id, options=options)
    algo = ppo_config(
        env_id,
        options,
        num_env_runners=1,
        hidden=(32,),
        train_batch_size=400,
        minibatch_size=200,
        num_epochs=1,
        policy_mapping_fn=_alternate,
    ).build_algo()
    try:
        result = algo.train()
        steps = learner_steps(result)
        assert steps > 0
        path = save_checkpoint(algo, tmp_path / "last", config, game, steps)
    finally:
        algo.stop()
    agent = make_agent(f"rllib:{path}", game, seed=0)
    assert agent.meta["num_timesteps"] == steps and agent.meta["backend"] == "rllib"
    names = ["rllib"] + ["random"] * (game.num_players - 1)
    match = play_match(env_id, [agent] + [make_agent("random", game, seed=1)] * (game.num_players - 1), names, 20, seed=3, options=options)
    assert match.record(0)["games"] == 20  # every game played to its end (the batched API raises on an illegal action)
    other = tardis_envs.env_module("gallifrey_duel_v1").Game()
    with pytest.raises(CheckpointError, match=f"was trained on '{env_id}', not 'gallifrey_duel_v1'"):
        make_agent(f"rllib:{path}", other)
    with pytest.raises(CheckpointError, match="has no tardis_meta.json"):
        make_agent(f"rllib:{tmp_path}", game)

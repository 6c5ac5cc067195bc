"""The move-squares policy network (agents/training/policies.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tardis_envs
from agents.move_squares import MoveSquaresHead
from agents.training.policies import policy_spec
from tardis_envs import keys_to_the_tardis_v0, tardis_run_v0, timelord_chess_v1
from tardis_envs.games.chess import rules


def test_each_move_adds_its_from_score_and_the_to_score_of_the_moving_kind():
    game = timelord_chess_v1.Game(threat_planes=True, history_planes=2)
    layout = game.move_squares_layout()
    torch.manual_seed(0)
    head = MoveSquaresHead(hidden_dim=8, width=16, **layout)
    for p in head.parameters():  # weights far from their near-zero start
        torch.nn.init.normal_(p, std=0.5)
    state = game.new_state(3)
    rng = np.random.default_rng(0)
    for _ in range(30):  # a position with pieces off their start squares
        rules.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
    observation = torch.as_tensor(game.observation(state, 0).reshape(1, -1))
    hidden = torch.randn(1, 8)
    logits = head(torch.cat([hidden, observation], dim=1))[0].detach().numpy()
    # the same sum, written out square by square
    board = observation.reshape(layout["channels"], 64)
    per_square = torch.relu(head.square_in(board[None]) + head.context(hidden)[:, :, None])
    scores = head.square_out(per_square)[0].detach().numpy()
    plain = head.linear(hidden)[0].detach().numpy()
    kinds = np.array([board[planes].sum(0).numpy() for planes in layout["piece_planes"]])
    checked = 0
    for action, (frm, to) in enumerate(zip(layout["move_from"], layout["move_to"])):
        expected = plain[action]
        if frm >= 0:
            expected += scores[0, frm] + sum(kinds[k, frm] * scores[1 + k, to] for k in range(6))
            checked += kinds[:, frm].any()
        assert logits[action] == pytest.approx(expected, abs=1e-4), action
    assert checked > 100  # moves of real pieces were among them
    # Dr. Who, TARDIS and time-travel actions keep the MLP's logit alone
    assert layout["move_from"][4672:] == [-1] * 101


def test_move_squares_geometry_follows_the_action_encoding():
    layout = timelord_chess_v1.Game().move_squares_layout()
    game = timelord_chess_v1.Game()
    state = game.new_state(0)
    for action in game.legal_actions(state):  # the opening moves, white's frame = the board
        frm, to = layout["move_from"][action], layout["move_to"][action]
        if action >= 4672:
            assert frm == to == -1  # Dr. Who's steps
            continue
        uci = game.action_to_string(state, int(action))
        assert uci[:4] == "abcdefgh"[frm & 7] + str(frm // 8 + 1) + "abcdefgh"[to & 7] + str(to // 8 + 1)


def test_the_move_squares_policy_builds_the_head_as_its_only_action_layer():
    """The policy's action layer is the head, with sb3's orthogonal start for the rest (gain
    sqrt(2) in the MLP, 1 for the value), and its optimizer holds every parameter; no dense
    layer from the actor latent to all actions is built on the way (its orthogonal start was
    seconds of QR for each policy built)."""
    import gymnasium as gym

    game = timelord_chess_v1.Game(threat_planes=True, history_planes=0)
    policy_class, kwargs = policy_spec("move_squares", game, [16])
    size = int(np.prod(game.observation_shape))
    observation_space = gym.spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
    built = []
    original = torch.nn.Linear.__init__
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.nn.Linear, "__init__", lambda self, i, o, *a, **k: built.append((i, o)) or original(self, i, o, *a, **k))
        policy = policy_class(observation_space, gym.spaces.Discrete(game.num_actions), lambda _: 1e-3, **kwargs)
    assert isinstance(policy.action_net, MoveSquaresHead)
    assert (16 + size, game.num_actions) not in built  # the dense layer the head stands in for
    optimised = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert optimised == {id(p) for p in policy.parameters()}
    first = policy.mlp_extractor.policy_net[0].weight.detach()
    rows = first @ first.T  # orthogonal rows of norm sqrt(2): 16 rows over the board's inputs
    assert torch.allclose(rows, 2.0 * torch.eye(16), atol=1e-4)
    value = policy.value_net.weight.detach()
    assert torch.allclose(value @ value.T, torch.ones(1, 1), atol=1e-4)


def test_move_squares_is_refused_for_games_without_moves():
    with pytest.raises(ValueError, match="policy 'move_squares' needs a game whose actions move pieces"):
        policy_spec("move_squares", tardis_run_v0.Game(), [8])


def test_observation_only_options_let_a_checkpoint_play_the_default_game():
    from agents.checkpoint import CheckpointError, check_compatible, observation_option_differences

    trained = timelord_chess_v1.Game(threat_planes=True, history_planes=0)
    meta = {
        "env_id": trained.spec.env_id,
        "env_version": trained.spec.version,
        "observation_shape": list(trained.observation_shape),
        "num_actions": trained.num_actions,
        "options": dict(trained.options),
    }
    default = timelord_chess_v1.Game()
    assert observation_option_differences(meta, default) == {"history_planes": 0, "threat_planes": True}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # same rules: not even a warning
        check_compatible(meta, default, "x.zip")
    # a rule option differing as well: a warning, and it still observes through its own options
    with pytest.warns(UserWarning, match="max_plies: trained 512, now 100"):
        check_compatible(meta, timelord_chess_v1.Game(max_plies=100), "x.zip")
    # observations that cannot fit whatever the options: refused
    with pytest.raises(CheckpointError, match="observations of shape"):
        check_compatible({**meta, "observation_shape": [99, 8, 8]}, default, "x.zip")


def test_a_checkpoint_trained_before_an_observation_option_existed_observed_its_default():
    """Keys' ``route_lengths`` came after ``ppo:baseline`` was trained: the record lacks it, so
    the policy observed the option's default and keeps observing that in a game with the option."""
    from agents.checkpoint import check_compatible, observation_option_differences, observation_view

    trained = keys_to_the_tardis_v0.Game()
    meta = {
        "env_id": trained.spec.env_id,
        "env_version": trained.spec.version,
        "observation_shape": list(trained.observation_shape),
        "num_actions": trained.num_actions,
        "options": {k: v for k, v in trained.options.items() if k != "route_lengths"},
    }
    routes = keys_to_the_tardis_v0.Game(route_lengths=True)
    assert observation_option_differences(meta, routes) == {"route_lengths": False}
    assert observation_view(meta, routes).observation_shape == trained.observation_shape
    check_compatible(meta, routes, "x.zip")
    assert observation_option_differences(meta, trained) == {}
    assert observation_option_differences({k: v for k, v in meta.items() if k != "options"}, routes) == {}


def test_a_checkpoint_of_an_earlier_compatible_version_loads():
    """time_of_the_daleks_v2 (rule fixes) and v1 (float rounding) kept the observation and
    action encodings: v0 and v1 checkpoints load on v2; a checkpoint of another game does not."""
    from agents.checkpoint import CheckpointError, check_compatible

    game = tardis_envs.make("time_of_the_daleks_v2").unwrapped.game
    meta = {
        "env_id": "time_of_the_daleks_v0",
        "env_version": 0,
        "observation_shape": list(game.observation_shape),
        "num_actions": game.num_actions,
        "options": dict(game.options),
    }
    check_compatible(meta, game, "v0.zip")
    check_compatible({**meta, "env_id": "time_of_the_daleks_v1", "env_version": 1}, game, "v1.zip")
    with pytest.raises(CheckpointError, match="trained on 'keys_to_the_tardis_v0', not 'time_of_the_daleks_v2'"):
        check_compatible({**meta, "env_id": "keys_to_the_tardis_v0"}, game, "keys.zip")

"""Packed observations (``obs_dtype="packed"``): one int64 word a plane, the float observation bit for bit.

Dr. Who Chess's observe kernel writes its planes through the core's plane writers
(``mark``, ``mark_bits``, ``fill``, ``put_one``), so compiled for an ``int64`` output it
writes one word a plane. These tests unpack those words (numpy in the core, torch in the
RLlib module) and compare them with the float32 kernel's planes over random playouts, in a
scripted position, in the batched API and in the training VecEnv, and check the errors.
"""

import numpy as np
import pytest

import tardis_envs
from tardis_envs import vector
from tardis_envs.core.observation import PACKED_DTYPE, PLANE_BITS, PLANE_CONSTANT, PLANE_ONE_ENTRY, resolve_obs_dtype, unpack_planes
from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.chess import layout

from ..helpers import random_legal

ENV_ID = "timelord_chess_v1"
OPTION_SETS = [{}, {"doctor": False, "history_planes": 2}, {"history_planes": 0, "max_plies": 100}]


def game_of(**options):
    return tardis_envs.env_module(ENV_ID).Game(**options)


def test_unpack_planes_reads_each_kind():
    kinds = np.array([PLANE_BITS, PLANE_CONSTANT, PLANE_ONE_ENTRY, PLANE_CONSTANT])
    denominators = np.array([1, 3, 10, 6])
    words = np.array([np.int64(-(1 << 63)) | 0b101, 2, (7 << 6) | 9, -4], dtype=np.int64)
    expected = np.zeros((4, 64), dtype=np.float32)
    expected[0, [0, 2, 63]] = 1.0  # square 63 is the sign bit
    expected[1, :] = np.float32(2 / 3)
    expected[2, 9] = np.float32(7 / 10)
    expected[3, :] = np.float32(-4 / 6)
    batch = np.broadcast_to(words, (2, 3, 4)).copy()
    out = unpack_planes(batch, kinds, denominators)
    assert out.shape == (2, 3, 256) and out.dtype == np.float32
    assert np.array_equal(out.reshape(2, 3, 4, 64), np.broadcast_to(expected, (2, 3, 4, 64)))
    assert np.array_equal(unpack_planes(np.zeros(4, dtype=np.int64), kinds, denominators), np.zeros(256, np.float32))
    into = np.full((2, 3, 256), 9.0, dtype=np.float32)
    assert unpack_planes(batch, kinds, denominators, into) is into and np.array_equal(into, out)
    with pytest.raises(ValueError, match="C-contiguous float32"):
        unpack_planes(batch, kinds, denominators, np.zeros((2, 3, 512), np.float32)[:, :, ::2])


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_packed_observation_is_the_float_observation(options):
    game = game_of(**options)
    packed = resolve_obs_dtype(game, "packed")
    low, high = game.observation_space_bounds(packed)
    kinds = game.packed_plane_kinds
    seen = {PLANE_ONE_ENTRY: 0, "negative constant": 0, "sign bit": 0}
    rng = np.random.default_rng(len(options))
    for g in range(8):
        state = game.new_state(100 + g)
        for _ in range(300):
            for seat in range(2):
                words = game.observation(state, seat, packed)
                assert words.dtype == PACKED_DTYPE and words.shape == (len(kinds),)
                assert (words >= low).all() and (words <= high).all()
                exact = game.observation(state, seat, np.float32)
                unpacked = game.float_observations(words, packed)
                assert np.array_equal(unpacked.view(np.int32), exact.view(np.int32)), (
                    f"planes {np.flatnonzero((unpacked != exact).any(axis=(1, 2)))} differ"
                )
                seen[PLANE_ONE_ENTRY] += int((words[kinds == PLANE_ONE_ENTRY] != 0).any())
                seen["negative constant"] += int((words[kinds == PLANE_CONSTANT] < 0).any())
                seen["sign bit"] += int((words[kinds == PLANE_BITS] < 0).any())
            if state[STATUS] != RUNNING:
                break
            mask = np.zeros(game.num_actions, dtype=np.int8)
            game.kernels.legal_mask(state, game.tables, mask)
            game.kernels.step(state, game.tables, random_legal(rng, mask))
    assert seen["sign bit"] > 0  # a piece on h8 (or h1 in Black's frame)
    if options.get("doctor", True) and options.get("history_planes", 10) == 10:
        # the TARDIS away (its one square's value) and an evicted piece (a negative constant
        # for the opponent's) show up in these playouts
        assert seen[PLANE_ONE_ENTRY] > 0 and seen["negative constant"] > 0


def test_start_position_words():
    game = game_of(doctor=False)
    packed = resolve_obs_dtype(game, "packed")
    state = game.new_state(1)
    white, black = (game.observation(state, seat, packed) for seat in range(2))
    own, opponent = layout.P_HISTORY, layout.P_HISTORY + 6  # pawn, knight, bishop, rook, queen, king
    for words in (white, black):  # each side sees its own pieces on ranks 1-2 of its frame
        assert words[own + 0] == 0xFF00
        assert words[own + 1] == (1 << 1) | (1 << 6)
        assert words[own + 5] == 1 << 4
        assert words[opponent + 0] == 0xFF << 48
        assert words[opponent + 3] == np.int64(-(1 << 63)) | (1 << 56)  # a8 and h8: h8 is the sign bit
        assert words[opponent + 4] == 1 << 59
        assert (words[layout.P_HISTORY + 12 : layout.P_COLOUR] == 0).all()  # no earlier position yet
        assert (words[layout.P_CASTLING : layout.P_CASTLING + 4] == 1).all()
        assert words[layout.P_PLY] == 0 and words[layout.P_HALFMOVE] == 0
    assert white[layout.P_COLOUR] == 0 and black[layout.P_COLOUR] == 1
    denominators = game.packed_plane_denominators
    assert denominators[layout.P_PLY] == 512 and denominators[layout.P_HALFMOVE] == 100 and denominators[own] == 1


def test_batched_packed_equals_batched_float():
    exact = vector.make(ENV_ID, 8, seed=5)
    packed = vector.make(ENV_ID, 8, seed=5, obs_dtype="packed")
    assert packed.obs.shape == (8, layout.NUM_PLANES) and packed.obs.dtype == np.int64
    assert packed.observation_shape == exact.observation_shape
    exact.reset()
    packed.reset()
    rng = np.random.default_rng(0)
    restarts = 0
    for _ in range(150):
        actions = np.array([random_legal(rng, m) for m in exact.masks])
        *_, terminated, truncated = exact.step(actions)
        packed.step(actions)
        restarts += int((terminated | truncated).sum())
        assert np.array_equal(packed.masks, exact.masks)
        assert np.array_equal(packed.float_observations(), exact.obs)
    rows = np.arange(8)
    seats = packed.current_player.copy()
    moves, status, _, _ = packed.step_until_seats(np.full(8, -1), 1 - seats, np.ones(8, dtype=bool))
    exact.step_until_seats(np.full(8, -1), 1 - seats, np.ones(8, dtype=bool))
    assert np.array_equal(packed.float_observations(), exact.obs)
    assert np.array_equal(packed.float_terminal_observations(rows), exact.float_terminal_observations(rows))


def test_aec_env_with_packed_observations():
    from pettingzoo.test import api_test

    env = tardis_envs.make(ENV_ID, obs_dtype="packed")
    api_test(env, num_cycles=40)
    env.reset(seed=3)
    space = env.observation_space(env.agent_selection)["observation"]
    assert space.dtype == np.int64 and space.shape == (layout.NUM_PLANES,)
    observation = env.observe(env.agent_selection)["observation"]
    game = env.unwrapped.game
    seat = int(env.unwrapped.get_state()[CURRENT_PLAYER])
    assert np.array_equal(game.float_observations(observation, env.unwrapped.obs_dtype), game.observation(env.unwrapped.get_state(), seat))


def test_packed_is_refused_where_it_cannot_hold_the_planes():
    with pytest.raises(ValueError, match="threat_planes=True"):
        vector.make(ENV_ID, 2, obs_dtype="packed", threat_planes=True)
    with pytest.raises(ValueError, match="'packed' is not available.*64-entry planes"):
        tardis_envs.make("tardis_run_v0", obs_dtype="packed")
    from agents.training.config import TrainConfig

    with pytest.raises(ValueError, match="packed is not available for keys_to_the_tardis_v0"):
        TrainConfig(env_id="keys_to_the_tardis_v0", obs_dtype="packed").validate("test config")
    TrainConfig(env_id=ENV_ID, obs_dtype="packed").validate("test config")


def test_selfplay_vecenv_unpacks_for_the_learner():
    from agents.training.selfplay import OpponentPool, SelfPlayVecEnv

    game = game_of()
    envs = [SelfPlayVecEnv(ENV_ID, 4, OpponentPool(game, {"random": 1.0}, seed=0), seed=2, obs_dtype=d) for d in ("float32", "packed")]
    observations = [vec.reset() for vec in envs]
    rng = np.random.default_rng(1)
    for _ in range(20):
        assert np.array_equal(observations[0], observations[1]) and observations[1].dtype == np.float32
        actions = np.array([random_legal(rng, m) for m in envs[0].action_masks()])
        observations = [vec.step(actions)[0] for vec in envs]


def test_rllib_module_unpacks_in_torch():
    pytest.importorskip("ray.rllib")
    import torch

    from agents.rllib_modules import unpack_planes
    from agents.training.rllib_backend import module_model_config

    game = game_of()
    packed = resolve_obs_dtype(game, "packed")
    config = module_model_config(ENV_ID, {}, [8], "packed")
    kinds, denominators = torch.tensor(config["obs_packed_kinds"]), torch.tensor(config["obs_packed_denominators"])
    rng = np.random.default_rng(2)
    state = game.new_state(7)
    words, exact = [], []
    for _ in range(120):
        seat = int(state[CURRENT_PLAYER])
        words.append(game.observation(state, seat, packed))
        exact.append(game.observation(state, seat).ravel())
        mask = np.zeros(game.num_actions, dtype=np.int8)
        game.kernels.legal_mask(state, game.tables, mask)
        if state[STATUS] != RUNNING:
            break
        game.kernels.step(state, game.tables, random_legal(rng, mask))
    unpacked = unpack_planes(torch.from_numpy(np.array(words)), kinds, denominators).numpy()
    assert np.array_equal(unpacked.view(np.int32), np.array(exact).view(np.int32))

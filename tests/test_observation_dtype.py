"""Compact observations (``obs_dtype``) carry exactly the float observation's values.

Over random playouts of every game and variant, each seat's compact observation
divided by the game's denominators equals its float32 observation bit for bit,
and every numerator lies inside the compact observation space's bounds.
"""

import numpy as np
import pytest

import tardis_envs
from tardis_envs import vector
from tardis_envs.core.observation import resolve_obs_dtype, to_float32
from tardis_envs.core.state import RUNNING, STATUS

from .helpers import random_legal

VARIANTS = [
    ("tardis_run_v0", {}),
    ("keys_to_the_tardis_v0", {"num_players": 2}),
    ("keys_to_the_tardis_v0", {"num_players": 3, "reveal_tiles": True}),
    ("keys_to_the_tardis_v0", {"num_players": 4}),
    ("keys_to_the_tardis_v0", {"num_players": 3, "route_lengths": True}),
    ("timelord_chess_v1", {}),
    ("timelord_chess_v1", {"doctor": False, "history_planes": 2}),
    ("timelord_chess_v1", {"threat_planes": True, "max_plies": 300}),
    ("gallifrey_duel_v1", {}),
    ("gallifrey_duel_v1", {"mode": "dramatic"}),
    ("gallifrey_duel_v1", {"mode": "contest"}),
    ("time_of_the_daleks_v2", {"num_players": 1}),
    ("time_of_the_daleks_v2", {"num_players": 4, "first_game": False}),
]
IDS = [f"{e}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for e, o in VARIANTS]
# the dtype each game's numerators need (chess: the ply plane counts up to max_plies)
EXPECTED_DTYPE = {
    "tardis_run_v0": np.int8,
    "keys_to_the_tardis_v0": np.uint8,
    "timelord_chess_v1": np.int16,
    "gallifrey_duel_v1": np.int8,
    "time_of_the_daleks_v2": np.uint8,
}


def game_of(env_id, options):
    return tardis_envs.make(env_id, **options).unwrapped.game


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=IDS)
def test_compact_observation_is_the_float_observation(env_id, options):
    game = game_of(env_id, options)
    dtype = game.compact_dtype
    # Keys' route lengths count tenths of a step up to 300
    assert dtype == (np.uint16 if options.get("route_lengths") else EXPECTED_DTYPE[env_id])
    denominators = game.observation_denominators.astype(np.float32)
    low, high = game.observation_space_bounds(dtype)
    rng = np.random.default_rng(0)
    checked = fractions = 0
    games = {"timelord_chess_v1": 2, "gallifrey_duel_v1": 40}.get(env_id, 6)  # duel fights last ~5 decisions
    for g in range(games):
        state = game.new_state(1000 + g)
        for _ in range(150):
            for seat in range(game.num_players):
                exact = game.observation(state, seat)
                compact = game.observation(state, seat, dtype=dtype)
                assert compact.dtype == dtype
                assert np.array_equal(to_float32(compact, denominators).view(np.int32), exact.view(np.int32)), (
                    f"seat {seat}: entries {np.flatnonzero(to_float32(compact, denominators) != exact)[:10]} differ"
                )
                assert (compact >= low).all() and (compact <= high).all()
                checked += 1
                fractions += int(np.count_nonzero((exact != 0) & (exact != np.round(exact))))
            if state[STATUS] != RUNNING:
                break
            game.kernels.step(state, game.tables, random_legal(rng, _mask(game, state)))
    assert checked > 100
    # the playouts reach fractional entries, so the denominators were exercised
    assert fractions > 0


def _mask(game, state):
    mask = np.zeros(game.num_actions, dtype=np.int8)
    game.kernels.legal_mask(state, game.tables, mask)
    return mask


@pytest.mark.parametrize("env_id", sorted(EXPECTED_DTYPE))
def test_batched_compact_equals_batched_float(env_id):
    exact = vector.make(env_id, 16, seed=3)
    compact = vector.make(env_id, 16, seed=3, obs_dtype="compact")
    assert compact.obs.dtype == EXPECTED_DTYPE[env_id] and compact.obs.shape == exact.obs.shape
    exact.reset()
    compact.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        actions = np.array([random_legal(rng, m) for m in exact.masks])
        exact.step(actions)
        compact.step(actions)
        assert np.array_equal(compact.masks, exact.masks)
        assert np.array_equal(compact.float_observations(), exact.obs)
        assert np.array_equal(to_float32(compact.obs, compact.observation_denominators), exact.obs)


def test_observe_seats_skips_rows_and_keeps_their_last_observation():
    vec = vector.make("tardis_run_v0", 8, seed=0, obs_dtype="compact")
    reference = vector.make("tardis_run_v0", 8, seed=0, obs_dtype="compact")
    vec.reset()
    reference.reset()
    vec.observe_seats[:4, 1] = False  # rows 0-3 write nothing when seat 1 is to move
    rng = np.random.default_rng(0)
    skipped = 0
    for _ in range(60):
        before = vec.obs.copy()
        actions = np.array([random_legal(rng, m) for m in vec.masks])
        vec.step(actions)
        reference.step(actions)
        assert np.array_equal(vec.masks, reference.masks)
        for row in range(8):
            if row < 4 and vec.current_player[row] == 1:
                assert np.array_equal(vec.obs[row], before[row])
                skipped += 1
            else:
                assert np.array_equal(vec.obs[row], reference.obs[row])
    assert skipped > 20


def test_obs_dtype_is_validated():
    game = game_of("timelord_chess_v1", {})
    assert resolve_obs_dtype(game, "float32") == np.float32
    assert resolve_obs_dtype(game, "compact") == np.int16
    with pytest.raises(ValueError, match="cannot hold this game's observation numerators"):
        resolve_obs_dtype(game, "uint8")
    with pytest.raises(ValueError, match="obs_dtype must be one of"):
        vector.make("tardis_run_v0", 2, obs_dtype="float16")
    with pytest.raises(ValueError, match="obs_dtype must be one of"):
        tardis_envs.make("tardis_run_v0", obs_dtype="bits")
    # a short game's ply plane fits one byte
    assert game_of("timelord_chess_v1", {"max_plies": 100, "doctor": False}).compact_dtype == np.int8

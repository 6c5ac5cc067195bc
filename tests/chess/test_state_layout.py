"""Dr. Who Chess' stored state: the packed history ring, and states saved under the
layout before it was packed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tardis_envs
from tardis_envs.games.chess import layout
from tardis_envs.games.chess.check import EARLIER_SNAP_SIZE, EARLIER_STATE_SIZE
from tardis_envs.games.chess.tardis import history_slot, snapshot_code, snapshot_id

RECORDS = json.loads((Path(__file__).parent / "data" / "earlier_layout_states.json").read_text())


def _nonzero(values) -> list[list[int]]:
    flat = np.asarray(values).reshape(-1)
    return [[int(i), int(flat[i])] for i in np.flatnonzero(flat)]


def _env(options):
    env = tardis_envs.make("timelord_chess_v1", obs_dtype="compact", **options)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: json.dumps(r["options"]))
def test_a_state_saved_under_the_earlier_layout_loads_as_the_same_position(record):
    """States that ``get_state()`` returned before the history ring was packed (a word per
    square in each of the eleven entries), saved by that code with its ``describe()``,
    observation and legal mask (tests/chess/data/earlier_layout_states.json), load as
    the same position: the same view, mask and story, and a backward time travel into
    the converted history lands where that code's travel landed."""
    env = _env(record["options"])
    saved = np.array(record["state"], dtype=np.int64)
    assert saved.size == EARLIER_STATE_SIZE > layout.STATE_SIZE
    env.unwrapped.set_state(saved)
    assert env.unwrapped.get_state().size == layout.STATE_SIZE
    assert env.unwrapped.describe() == record["describe"]
    view = env.observe(env.agent_selection)
    assert _nonzero(view["observation"]) == record["observation_nonzero"]
    assert _nonzero(view["action_mask"]) == record["mask_nonzero"]
    if "travel_action" in record:
        env.step(record["travel_action"])
        view = env.observe(env.agent_selection)
        assert env.unwrapped.describe() == record["after_travel_describe"]
        assert _nonzero(view["observation"]) == record["after_travel_observation_nonzero"]
        assert _nonzero(view["action_mask"]) == record["after_travel_mask_nonzero"]


def test_a_corrupt_earlier_layout_state_is_refused_naming_the_entry():
    record = RECORDS[0]
    corrupt = np.array(record["state"], dtype=np.int64)
    corrupt[layout.HIST + 3 * EARLIER_SNAP_SIZE + 10] = -5
    with pytest.raises(ValueError, match="earlier layout.*history entry 3"):
        _env(record["options"]).unwrapped.set_state(corrupt)


def test_every_history_entry_holds_the_position_it_was_taken_from():
    """After each step the newest entry is the board as it stands, square by square
    (code and piece id), and the occupied-squares word lists exactly its pieces; the
    entry before it is what the newest was one step earlier."""
    env = _env({})
    rng = np.random.default_rng(4)
    previous = None
    for _ in range(120):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        state = env.unwrapped.get_state()
        at = history_slot(state, 0)
        board = state[layout.BOARD : layout.BOARD + 64]
        ids = state[layout.PIECE_ID : layout.PIECE_ID + 64]
        if state[layout.PHASE] == layout.PHASE_MOVE:  # the entry is taken when a turn starts
            assert [snapshot_code(state, at, sq) for sq in range(64)] == board.tolist()
            assert [snapshot_id(state, at, sq) for sq in range(64)] == ids.tolist()
            occupied = int(state[at + layout.SNAP_OCCUPIED]) & (1 << 64) - 1
            assert [sq for sq in range(64) if occupied >> sq & 1] == np.flatnonzero(board).tolist()
            if previous is not None and state[layout.HIST_COUNT] > 1 and previous[0] != state[layout.HIST_TOP]:
                earlier = history_slot(state, 1)
                assert [snapshot_code(state, earlier, sq) for sq in range(64)] == previous[1]
            previous = (int(state[layout.HIST_TOP]), board.tolist())
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda state, at: state.__setitem__(at + layout.SNAP_CODES, state[at + layout.SNAP_CODES] | 15),
            r"history entry at index \d+ is -?\d+, expected piece codes the game uses",
        ),
        (
            lambda state, at: state.__setitem__(at + layout.SNAP_OCCUPIED, state[at + layout.SNAP_OCCUPIED] ^ (1 << 30)),
            r"history entry's occupied squares at index \d+ is -?\d+, expected the squares its pieces stand on",
        ),
    ],
    ids=["bad code", "occupied word"],
)
def test_a_state_with_a_damaged_history_entry_is_refused(damage, message):
    env = _env({})
    for _ in range(2):  # two turns: three entries in the ring
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    state = env.unwrapped.get_state()
    assert state[layout.HIST_COUNT] == 3
    damage(state, history_slot(state, 1))
    with pytest.raises(ValueError, match=f"^not a valid timelord_chess_v1 state: {message}"):
        env.unwrapped.set_state(state)

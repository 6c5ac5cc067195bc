"""The kernels run without numba's reference-counting runtime (tardis_envs.core.jit):
none of them returns an array argument, an ``_alloc`` kernel keeps its runtime under a
caller without it, and the state copy and stack buffers that replace allocations work."""

from __future__ import annotations

import ast
from pathlib import Path

import numba
import numpy as np
import pytest

from tardis_envs import env_module
from tardis_envs.core.chance import replay
from tardis_envs.core.jit import njit, njit_alloc, stack_empty
from tardis_envs.core.state import RUNNING, STATUS, copy_state
from tardis_envs.games.chess.layout import A_TRAVEL, MAX_TRAVEL

ROOT = Path(__file__).resolve().parents[1]

# kernels without the runtime that return one of their parameters, each an integer
RETURNS_AN_INTEGER_PARAMETER = {
    ("tardis_envs/games/tardis_run/rules.py", "square_of", "progress"),
    ("tardis_envs/games/tardis_run/rules.py", "roll_outcome", "white"),
    ("tardis_envs/games/chess/board.py", "gen_piece_moves", "n"),
    ("tardis_envs/games/chess/board.py", "gen_castling", "n"),
    ("tardis_envs/games/chess/layout.py", "queen_if_last_rank", "code"),
    ("tardis_envs/games/chess/check.py", "_board_code", "doctor"),  # a bool flag
    ("tardis_envs/games/daleks/components/locations.py", "zone_record", "z"),
    ("tardis_envs/games/daleks/phases/abilities.py", "reach", "own_pool"),
    ("tardis_envs/games/gallifrey/rules.py", "out_of_action_at", "stasis"),
    ("tardis_envs/games/gallifrey/rules.py", "rulebook_injuries", "winner_value"),
}
WITHOUT_RUNTIME = {"njit", "njit_parallel", "njit_parallel_fastmath", "njit_inline", "njit_shared_body"}


def parameters_returned_without_runtime(path: str, source: str) -> set[tuple[str, str, str]]:
    """``(path, function, parameter)`` for each ``return`` of a parameter (alone or in a
    tuple) by a function decorated to run without the runtime. numba refuses to return
    a new array from such a function but accepts an argument, and an ``_alloc`` caller
    then releases a reference that was never taken: the array is freed while in use."""
    found = set()
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef):
            continue
        if not any(ast.unparse(d) in WITHOUT_RUNTIME for d in function.decorator_list):
            continue
        parameters = {a.arg for a in function.args.args}
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and node.value is not None:
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                found.update((path, function.name, v.id) for v in values if isinstance(v, ast.Name) and v.id in parameters)
    return found


def test_no_kernel_without_the_runtime_returns_an_array_argument():
    found = set()
    for root in ("tardis_envs", "agents"):
        for path in sorted((ROOT / root).rglob("*.py")):
            found |= parameters_returned_without_runtime(path.relative_to(ROOT).as_posix(), path.read_text())
    assert found - RETURNS_AN_INTEGER_PARAMETER == set(), "check that these return integers, then list them above"
    assert RETURNS_AN_INTEGER_PARAMETER - found == set(), "gone from the code: take them off the list"


def test_the_check_finds_a_kernel_returning_its_argument():
    source = """
@njit
def hands_back(state, tables):
    return state

@njit_alloc
def allocates(n):
    return n

@njit
def tuple_back(state, k):
    return k, state
"""
    assert parameters_returned_without_runtime("x.py", source) == {
        ("x.py", "hands_back", "state"),
        ("x.py", "tuple_back", "k"),
        ("x.py", "tuple_back", "state"),
    }


@njit_alloc
def _allocate_and_copy(source):
    target = np.zeros(source.shape[0], dtype=np.int64)
    copy_state(target, source)
    return target.sum()


@njit
def _caller_without_runtime(source):
    return _allocate_and_copy(source) + 1


def test_an_alloc_kernel_keeps_its_runtime_under_a_caller_without_it():
    # numba lets a callee inherit the caller's setting unless it sets its own
    assert _caller_without_runtime(np.arange(5, dtype=np.int64)) == 11
    assert _allocate_and_copy.targetoptions["_nrt"] is True
    assert _caller_without_runtime.targetoptions["_nrt"] is False


def test_copy_state_copies_the_state_and_leaves_a_longer_source_s_tail():
    source = np.arange(7, dtype=np.int64) * 3
    target = np.full(7, -1, dtype=np.int64)
    copy_state(target, source)
    np.testing.assert_array_equal(target, source)
    short = np.full(4, -1, dtype=np.int64)  # a state without the chance tape that follows it
    copy_state(short, source)
    np.testing.assert_array_equal(short, source[:4])


STACK_WORDS = 6


@njit
def _stack_sum(values):
    scratch = stack_empty(STACK_WORDS, np.int64)
    for i in range(STACK_WORDS):
        scratch[i] = values[i] * 2
    total = 0
    for i in range(scratch.shape[0]):
        total += scratch[i]
    return total, scratch.shape[0]


@njit
def _many_stack_calls(values, calls):
    # a buffer is reserved once per call of the kernel that holds it, not per loop turn
    total = 0
    for _ in range(calls):
        total += _stack_sum(values)[0]
    return total


def test_stack_empty_is_a_scratch_array_of_the_constant_size():
    values = np.arange(STACK_WORDS, dtype=np.int64)
    assert _stack_sum(values) == (30, STACK_WORDS)
    assert _many_stack_calls(values, 1_000_000) == 30_000_000  # a stack growing per call would overflow


def test_stack_empty_refuses_a_size_known_only_at_run_time():
    @njit
    def sized_by_argument(n):
        return stack_empty(n, np.int64).shape[0]

    with pytest.raises(numba.core.errors.TypingError):
        sized_by_argument(3)


def test_chess_steps_the_same_with_a_chance_tape_attached():
    # a time travel is tested on a copy of the state in a stack buffer of the state's
    # size; with a chance tape after the state (OpenSpiel's chance nodes) only the state
    # is copied (copying the whole taped array overran the buffer: a crash)
    game = env_module("timelord_chess_v1").Game()
    rng = np.random.default_rng(0)
    travels_open = 0
    for key in range(3):
        state = game.new_state(key)
        for _ in range(300):
            legal = game.legal_actions(state)
            if state[STATUS] != RUNNING or legal.size == 0:
                break
            travels_open += int(np.any(legal >= A_TRAVEL) and np.any(legal < A_TRAVEL + 2 * MAX_TRAVEL))
            action = int(rng.choice(legal))
            taped, _ = replay(game, state, action, ())
            game.kernels.step(state, game.tables, action)
            np.testing.assert_array_equal(taped, state)
    assert travels_open > 0, "no position with a time travel open: the test checked nothing"


@pytest.mark.parametrize("decorator", ["njit", "njit_parallel", "njit_parallel_fastmath", "njit_inline", "njit_shared_body"])
def test_kernel_decorators_run_without_the_runtime(decorator):
    from tardis_envs.core import jit

    @getattr(jit, decorator)
    def fill(out):
        for i in range(out.shape[0]):
            out[i] = i

    assert fill.targetoptions["_nrt"] is False

    @getattr(jit, decorator)
    def allocates(n):
        return np.zeros(n).sum()

    with pytest.raises(numba.core.errors.TypingError):
        allocates(3)

"""Every game's compiled ``check_state`` (its ``check.py``): every state that play reaches
passes it, and a state with a wild word is refused with one line naming the field."""

import numpy as np
import pytest

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS, VALID
from tests.golden.playthrough import SEED

# Time of the Daleks' id, whatever its version
DALEKS = next(env_id for env_id in tardis_envs.ENV_IDS if env_id.startswith("time_of_the_daleks_v"))

# every variant whose state layout or ranges differ: player counts, boards, modes, classic chess
VARIANTS = [
    ("tardis_run_v0", {}),
    ("tardis_run_v0", {"board": "configs/tardis_run/boards/grand_tour.yaml"}),
    ("keys_to_the_tardis_v0", {"num_players": 2}),
    ("keys_to_the_tardis_v0", {"num_players": 3}),
    ("keys_to_the_tardis_v0", {"num_players": 4}),
    ("keys_to_the_tardis_v0", {"num_players": 2, "reveal_tiles": True}),
    ("timelord_chess_v1", {}),
    ("timelord_chess_v1", {"doctor": False}),
    ("gallifrey_duel_v1", {"mode": "contest"}),
    ("gallifrey_duel_v1", {"mode": "dramatic"}),
    ("gallifrey_duel_v1", {"mode": "climactic"}),
    (DALEKS, {"num_players": 1}),
    (DALEKS, {"num_players": 2}),
    (DALEKS, {"num_players": 3}),
    (DALEKS, {"num_players": 4}),
    (DALEKS, {"num_players": 2, "first_game": True}),
]


def game_of(env_id, options):
    return tardis_envs.env_module(env_id).raw_env(**options).game


def playout_states(game, seed, max_plies=3000):
    """Every state of one random game from its opening to its end (or ``max_plies``)."""
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    yield state.copy()
    for _ in range(max_plies):
        if state[STATUS] != RUNNING:
            return
        game.kernels.legal_mask(state, game.tables, mask)
        legal = np.flatnonzero(mask)
        game.kernels.step(state, game.tables, int(legal[rng.integers(legal.size)]))
        yield state.copy()


def first_problem(game, state):
    code, index = game.kernels.check_state(state, game.tables)
    if code == VALID:
        return None
    return f"code {code} ({game.kernels.state_problems[code]}) at index {index} = {state[index] if index >= 0 else None}"


@pytest.mark.parametrize("env_id, options", VARIANTS)
def test_every_state_of_random_playouts_passes_check_state(env_id, options):
    game = game_of(env_id, options)
    checked = 0
    for seed in range(200):  # at least four games and 400 states
        if seed >= 4 and checked >= 400:
            break
        for ply, state in enumerate(playout_states(game, seed)):
            problem = first_problem(game, state)
            assert problem is None, f"{env_id} {options} seed {seed} ply {ply}: {problem}"
            game.check_state(state)
            checked += 1
            if ply % 5 == 2 and state[STATUS] == RUNNING:
                # the game ended here by an illegal action of the seat to move (the envs' terminate mode)
                game.end_by_illegal_action(state, int(state[CURRENT_PLAYER]))
                problem = first_problem(game, state)
                assert problem is None, f"{env_id} {options} seed {seed} ply {ply}, ended by an illegal action: {problem}"


def test_the_golden_playthroughs_states_pass_check_state(env_id):
    """The golden playthrough's game (``tests/golden/playthrough.py``: its seed and its way of
    choosing actions), every state of it through ``check_state``."""
    env = tardis_envs.make(env_id)
    env.reset(seed=SEED)
    raw = env.unwrapped
    rng = np.random.default_rng(SEED)
    for ply, _ in enumerate(env.agent_iter(max_iter=2000)):
        problem = first_problem(raw.game, raw.get_state())
        assert problem is None, f"{env_id} ply {ply}: {problem}"
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(legal.size)])
        env.step(action)


@pytest.mark.parametrize(
    "env_id, index, field",
    [
        ("gallifrey_duel_v1", 14, "Flux card"),
        ("timelord_chess_v1", 151, "TARDIS's previous square"),
        (DALEKS, 16, "Time Anomaly marker"),
    ],
)
def test_a_wild_word_that_crashed_the_next_last_is_refused_naming_the_field(env_id, index, field):
    """The issue's three reproductions: one word set to 10**9 made the next ``last()`` write
    outside the state (a segfault); now ``set_state`` refuses it with one line."""
    env = tardis_envs.make(env_id)
    env.reset(seed=0)
    state = env.unwrapped.get_state()
    state[index] = 10**9
    with pytest.raises(ValueError, match=rf"^not a valid {env_id} state: {field} at index {index} is 1000000000, expected "):
        env.unwrapped.set_state(state)


def test_an_array_of_zeros_is_not_a_state_of_this_game(env_id):
    env = tardis_envs.make(env_id)
    env.reset(seed=0)
    zeros = np.zeros_like(env.unwrapped.get_state())
    with pytest.raises(ValueError, match=f"^{env_id}: not a state of this game"):
        env.unwrapped.set_state(zeros)


def test_the_batched_api_takes_states_only_through_the_check():
    from tardis_envs import vector

    env = tardis_envs.make("gallifrey_duel_v1")
    env.reset(seed=3)
    state = env.unwrapped.get_state()
    vec = vector.make("gallifrey_duel_v1", 2, seed=0)
    vec.reset()
    obs, masks, players = vec.set_states(np.stack([state, state]))
    assert np.array_equal(vec.states[1], state)
    assert np.array_equal(masks[0], env.unwrapped.observe(env.unwrapped.agent_selection)["action_mask"])
    before = vec.states.copy()
    wild = state.copy()
    wild[14] = 10**9
    with pytest.raises(ValueError, match=r"^game 1: not a valid gallifrey_duel_v1 state: Flux card at index 14"):
        vec.set_states(np.stack([state, wild]))
    assert np.array_equal(vec.states, before), "a refused batch changes no game"


def test_an_unpickled_chance_node_is_rebuilt_from_its_checked_base_state():
    import pickle

    from tardis_envs.core.chance import Position, _restore

    game = game_of("tardis_run_v0", {})
    position = Position.from_state(game, game.new_state(5))
    position.apply_action(position.legal_actions()[0])  # choosing a piece rolls the paddles
    assert position.is_chance_node()
    again = pickle.loads(pickle.dumps(position))
    assert again.is_chance_node() and again.shape == position.shape and np.array_equal(again.base, position.base)
    game_class, options, state, base, move, forced, shape = position.__reduce__()[1]
    wild = base.copy()
    wild[game.state_size - 1] = 10**9
    with pytest.raises(ValueError, match="^not a valid tardis_run_v0 state: "):
        _restore(game_class, options, state, wild, move, forced, shape)
    with pytest.raises(ValueError, match="chance outcome 7 is not legal"):
        _restore(game_class, options, state, base, move, (7,), shape)


@pytest.mark.parametrize("env_id, options", VARIANTS)
def test_each_earlier_layout_has_its_own_length_and_upgrades_in_version_order(env_id, options):
    """A saved state's layout is told by its length: the layouts in ``earlier_layouts`` are
    1 .. ``layout_version - 1`` in order, no two (nor the current one) of the same length, so
    ``upgrade_layout`` can never take a current state for an old one."""
    game = game_of(env_id, options)
    earlier = game.earlier_layouts
    assert [layout.version for layout in earlier] == list(range(1, game.layout_version))
    sizes = [layout.state_size for layout in earlier] + [game.state_size]
    assert len(set(sizes)) == len(sizes)
    state = game.new_state(SEED)
    assert game.upgrade_layout(state) is state


def test_a_state_two_layouts_old_is_upgraded_through_each_version_in_turn():
    """``upgrade_layout`` runs every upgrade from the saved state's layout on, oldest first."""
    from tardis_envs.core.game import EarlierLayout

    game = game_of("tardis_run_v0", {})
    current = game.new_state(SEED)
    calls = []

    def to_version(n, size):
        def upgrade(g, state):
            calls.append(n)
            return np.resize(state, size) if size != game.state_size else current

        return upgrade

    layouts = (EarlierLayout(1, 7, to_version(2, 9)), EarlierLayout(2, 9, to_version(3, game.state_size)))
    game.earlier_layouts = layouts  # on this instance only
    assert game.upgrade_layout(np.zeros(7, dtype=np.int64)) is current and calls == [2, 3]
    calls.clear()
    assert game.upgrade_layout(np.zeros(9, dtype=np.int64)) is current and calls == [3]
    assert game.check_state(np.zeros(7, dtype=np.int64)).tolist() == current.tolist()

"""The OpenSpiel adapter (tardis_envs.openspiel): OpenSpiel's own checks on every game,
and agreement with the PettingZoo env on the same actions and chance outcomes."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import tardis_envs  # noqa: E402
from tardis_envs import openspiel as tardis_openspiel  # noqa: E402
from tardis_envs.core.chance import OPENING, sampled_draws  # noqa: E402
from tardis_envs.core.state import RNG_KEY, VARIANT  # noqa: E402

VARIANTS = [
    ("tardis_run_v0", {}),
    ("keys_to_the_tardis_v0", {"num_players": 2}),
    ("keys_to_the_tardis_v0", {"num_players": 3}),
    ("timelord_chess_v1", {"max_plies": 120}),
    ("timelord_chess_v1", {"doctor": False, "max_plies": 120}),
    ("gallifrey_duel_v1", {}),
    ("gallifrey_duel_v1", {"mode": "contest"}),
    ("time_of_the_daleks_v2", {"num_players": 1, "max_rounds": 8}),
    ("time_of_the_daleks_v2", {"num_players": 4, "max_rounds": 4}),
]
IDS = [f"{e}-{o}" for e, o in VARIANTS]


def test_every_env_id_is_registered_with_its_game_type():
    names = pyspiel.registered_names()
    for env_id in tardis_envs.ENV_IDS:
        assert env_id in names
        game = pyspiel.load_game(env_id)
        kind = game.get_type()
        spec = game.tardis.spec
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        perfect = kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert perfect == (not spec.hidden_information)
        explicit = kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert explicit == spec.chance
        assert (kind.min_num_players, kind.max_num_players) == (spec.min_players, spec.max_players)
        assert game.max_game_length() == game.tardis.max_game_length
        assert game.max_chance_outcomes() == game.tardis.max_chance_outcomes
        assert game.min_utility() == -1 and game.max_utility() == 1
        assert set(kind.parameter_specification) == set(spec.options)
    assert pyspiel.load_game("keys_to_the_tardis_v0(num_players=3)").num_players() == 3
    assert tardis_openspiel.load_game("keys_to_the_tardis_v0", num_players=4).num_players() == 4


def test_bad_rule_options_are_refused_by_name():
    with pytest.raises(ValueError, match="num_players"):
        tardis_openspiel.load_game("keys_to_the_tardis_v0", num_players=7)
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        tardis_openspiel.load_game("tardis_run_v0", colour="blue")
    with pytest.raises(ValueError, match="unknown env id"):
        tardis_openspiel.load_game("tic_tac_toe")


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=IDS)
def test_openspiel_random_simulation_checks(env_id, options):
    """pyspiel's random simulation test: legal actions, chance outcome sums, clones,
    observation and information-state strings and tensors, returns, and the
    serialization round trip."""
    game = tardis_openspiel.load_game(env_id, **options)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


# text options whose values hold a comma, which OpenSpiel's game strings cannot quote
COMMA_VARIANTS = [
    ("gallifrey_duel_v1", {"pair": "The Doctor, Dalek"}),
    ("time_of_the_daleks_v2", {"num_players": 2, "doctors": "First Doctor, Fourth Doctor", "max_rounds": 4}),
]


@pytest.mark.parametrize("env_id,options", COMMA_VARIANTS, ids=[f"{e}-{o}" for e, o in COMMA_VARIANTS])
def test_game_strings_with_commas_load_back(env_id, options):
    game = tardis_openspiel.load_game(env_id, **options)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.options == game.options
    assert all(game.options[key] == value for key, value in options.items())
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=IDS)
def test_adapter_and_aec_env_agree_on_masks_rewards_and_ends(env_id, options):
    """Fed the same actions and the same chance outcomes (those the env's generator
    draws), the adapter and the PettingZoo env agree at every decision."""
    game_os = tardis_openspiel.load_game(env_id, **options)
    rng = np.random.default_rng(1)
    # 268 games over the nine variants: 40 a variant, 20 for Time of the Daleks, 4 for chess
    games = {"timelord_chess_v1": 4, "time_of_the_daleks_v2": 20}.get(env_id, 40)
    decisions = chance_nodes = 0
    for seed in range(games):
        env = tardis_envs.make(env_id, **options)
        env.reset(seed=seed)
        raw = env.unwrapped
        game = raw.game
        opening = np.zeros(game.state_size, dtype=np.int64)
        opening[RNG_KEY] = raw.get_state()[RNG_KEY]
        opening[VARIANT] = game.variant
        state = game_os.new_initial_state()
        for outcome, _ in sampled_draws(game, opening, OPENING):
            assert state.is_chance_node()
            state.apply_action(outcome)
        for agent in env.agent_iter(max_iter=5000):
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                assert state.is_terminal()
                seat = raw.possible_agents.index(agent)
                assert state.returns()[seat] == pytest.approx(reward)  # the env's final reward of that agent
                env.step(None)
                continue
            seat = raw.possible_agents.index(agent)
            assert not state.is_terminal() and state.current_player() == seat
            assert state.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
            assert np.array_equal(np.asarray(state.observation_tensor(seat), dtype=np.float32), obs["observation"].reshape(-1))
            action = int(rng.choice(state.legal_actions()))
            draws = sampled_draws(game, raw.get_state(), action)
            state.apply_action(action)
            for outcome, _ in draws:
                assert state.is_chance_node()
                state.apply_action(outcome)
            decisions += 1
            chance_nodes += len(draws)
            env.step(action)
        assert state.is_terminal()
    assert decisions >= 2 * games and (chance_nodes > 0) == game.spec.chance, (decisions, chance_nodes)


@pytest.mark.parametrize("env_id", ["keys_to_the_tardis_v0", "gallifrey_duel_v1", "time_of_the_daleks_v2"])
def test_resampled_states_share_the_information_state(env_id):
    game = pyspiel.load_game(env_id)
    rng = np.random.default_rng(2)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    for _ in range(40):  # a duel lasts a few decisions
        if checked >= 200:
            break
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 200:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            player = state.current_player()
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.legal_actions() == state.legal_actions()
            checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 50


def test_information_state_is_the_seats_own_record():
    """Two deals that differ only in the other seat's hand give seat 0 the same
    information state while it has not seen the difference, and different ones for
    seat 1."""
    game = pyspiel.load_game("keys_to_the_tardis_v0")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    info = [state.information_state_string(p) for p in range(2)]
    assert info[0] and info[1] and info[0] != info[1]
    assert game.get_type().provides_information_state_tensor is False
    perfect = pyspiel.load_game("tardis_run_v0")
    s = perfect.new_initial_state()
    assert s.information_state_string(0) == s.history_str()
    assert np.array_equal(np.asarray(s.information_state_tensor(0)), np.asarray(s.observation_tensor(0)))


def test_openspiel_bots_play_through_the_adapter():
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(3)
    game = pyspiel.load_game("tardis_run_v0")
    bot = mcts.MCTSBot(game, 1.4, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    for _ in range(6):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    game = pyspiel.load_game("gallifrey_duel_v1")
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 1.4, 30, random_state=rng)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize(
    "env_id, specs",
    [
        ("tardis_run_v0", ["az:baseline", "heuristic"]),
        ("gallifrey_duel_v1", ["ismcts:4:prior=ppo:baseline", "ppo:baseline"]),
    ],
)
def test_tardis_agents_play_whole_games_as_openspiel_bots(env_id, specs):
    """``AgentBot`` puts any agent spec (search with a learned prior included) into
    OpenSpiel's own game loop; a bot asked at another seat's node and a bad spec are refused."""
    from agents.openspiel_bot import AgentBot

    game = tardis_openspiel.load_game(env_id)
    bots = [AgentBot(game, spec, player, seed=player) for player, spec in enumerate(specs)]
    for seed in range(2):
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match="asked to move at a node where player"):
        bots[1 - state.current_player()].step(state)
    with pytest.raises(ValueError, match="unknown agent"):
        AgentBot(game, "grandmaster", 0)


def test_openspiel_mcts_through_the_adapter_agrees_with_the_compiled_search_on_a_mate():
    """OpenSpiel's MCTSBot, run on the adapter, is the oracle of the compiled search: both
    find the back-rank mate (the compiled search was kept for speed, see benchmarks/search_results.py)."""
    from open_spiel.python.algorithms import mcts

    from agents import make_agent

    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    game = tardis_openspiel.load_game("timelord_chess_v1", doctor=False, fen=fen)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 1.4, 150, mcts.RandomRolloutEvaluator(1, rng, max_length=8), random_state=rng)
    state = game.new_initial_state()
    oracle = bot.step(state)
    assert state.action_to_string(state.current_player(), oracle) == "a1a8"
    compiled, _ = make_agent("mcts:150", game.tardis, seed=0).search(state.position.state, 0)
    assert compiled == oracle


def test_time_of_the_daleks_declares_the_utilities_its_doctors_can_get():
    """A Doctors' win rewards only the Doctors on Gallifrey (+1, the others 0), so team-mates'
    returns can differ: the game must not call itself one of OpenSpiel's identical-utility games."""
    from tardis_envs.core.state import REWARDS
    from tardis_envs.games.daleks import layout as L
    from tardis_envs.games.daleks.components.players import end_game
    from tardis_envs.games.daleks.content import T_TRACK

    raw = tardis_envs.make("time_of_the_daleks_v2", num_players=2).unwrapped
    raw.reset(seed=0)
    state = raw.get_state()
    track = int(raw.game.tables[T_TRACK])
    state[L.TARDIS] = track  # the first Doctor on Gallifrey, the second still on the Web of Time
    state[L.TARDIS + 1] = track - 3
    end_game(state, raw.game.tables, L.WIN_DOCTORS)
    assert list(state[REWARDS : REWARDS + 2]) == [1, 0]
    kind = pyspiel.load_game("time_of_the_daleks_v2").get_type()
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM

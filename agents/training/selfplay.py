"""An SB3 ``VecEnv`` over the batched numba core, with the opponents' moves played inside.

Each of the ``num_envs`` rows is one game of :mod:`tardis_envs.vector`. In every
row the learner holds one seat (drawn per game, or fixed) and an opponent from
the :class:`OpponentPool` (drawn per game) holds all the others. ``step`` plays
the learner's actions, then lets the opponents move in every row until it is the
learner's turn again (a game can end on an opponent's move); finished games
restart at once. The learner's actions and the random opponent's moves run in one
numba call (:meth:`tardis_envs.vector.VectorEnv.step_until_seats`); the other
opponents choose in their ``act_batch`` between such calls. A restarted game's
seats change hands after the batch wrote its first observation, so that one is
written again (``observe_rows``). Observations are always the learner's view; ``action_masks()``
gives MaskablePPO the learner's legal actions. Rewards are the learner's: +1 / -1
at the end of a game (truncation 0), 0 otherwise.

The batched games write observations in ``obs_dtype`` (``"compact"``: the game's
8- or 16-bit numerators, see :mod:`tardis_envs.core.observation`) and only in
rows where the seat to move needs one: the learner's seat, and the opponents'
seats when that opponent reads observations (a snapshot or a fixed policy; not
random, a heuristic or a search agent). The learner still receives ``float32``
observations, converted once per step for the whole batch in :meth:`step_wait`
(bit for bit the observations of a ``float32`` batch).
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from tardis_envs import vector
from tardis_envs.core.batch import WAIT
from tardis_envs.core.state import RUNNING, TRUNCATED

from ..base import Agent
from ..heuristics import HeuristicAgent
from ..policy_agent import PolicyAgent
from ..random_agent import RandomAgent
from ..search_agent import SearchAgent
from .config import check_opponents


class OpponentPool:
    """Opponents the learner meets: random, the game's heuristic, frozen snapshots, search agents
    (an ``opponents`` key such as ``ismcts:50``), fixed learned policies (``ppo:baseline``,
    ``ppo:<checkpoint.zip>``) and guided search over a network (``az:baseline``, ``az:<checkpoint.zip>``).

    ``weights`` gives the chance of each kind per game, renormalised over the
    kinds present (no snapshot until the first one is added); snapshots are
    drawn uniformly, and only the newest ``max_snapshots`` are kept.
    """

    def __init__(self, game, weights: dict[str, float], seed: int = 0, max_snapshots: int = 5, self_play: str = "snapshot"):
        # a typo or a NaN would leave no opponent to draw; ``self_play`` as in check_opponents
        check_opponents(weights, game.spec.env_id, "OpponentPool", self_play)
        self.game = game
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.agents: list[Agent] = []
        self.names: list[str] = []
        self.kinds: list[str] = []
        if weights.get("random", 0) > 0:
            self._add(RandomAgent(game, seed=seed + 101), "random", "random")
        if weights.get("heuristic", 0) > 0:
            self._add(HeuristicAgent(game, seed=seed + 202), "heuristic", "heuristic")
        for number, key in enumerate(sorted(weights)):
            if key.split(":", 1)[0] in ("mcts", "ismcts") and weights[key] > 0:
                kind, _, settings = key.partition(":")
                self._add(SearchAgent(game, seed=seed + 303 + number, kind=kind, settings=settings), key, key)
            if key.startswith("heuristic:") and weights[key] > 0:
                self._add(HeuristicAgent(game, seed=seed + 202 + number, preset=key.split(":", 1)[1]), key, key)
            if key.startswith("ppo:") and weights[key] > 0:
                # a fixed learned opponent (``ppo:baseline``, ``ppo:<checkpoint.zip>``), sampling its moves
                # like the snapshots do
                from ..baselines import ppo_checkpoint_path

                path = ppo_checkpoint_path(key, game.spec.env_id)
                self._add(PolicyAgent.from_checkpoint(path, game, deterministic=False), key, key)
            if key.startswith("az:") and weights[key] > 0:
                # a guided-search opponent (``az:baseline``, ``az:<checkpoint.zip>[:sims=N]``)
                from ..alphazero import AZAgent

                self._add(AZAgent.from_spec(key[3:], game, seed=seed + 404 + number), key, key)

    def _add(self, agent: Agent, name: str, kind: str) -> None:
        self.agents.append(agent)
        self.names.append(name)
        self.kinds.append(kind)
        self._changed()

    def _changed(self) -> None:
        """Per-agent arrays the self-play env reads at every new game."""
        self.random = np.array([kind == "random" for kind in self.kinds], dtype=np.bool_)
        self.reads_observations = np.array([agent.needs_observations for agent in self.agents], dtype=np.bool_)
        self._cdf = self.probabilities().cumsum()
        self._cdf /= self._cdf[-1]

    def add_snapshot(self, agent: Agent, name: str) -> None:
        if self.weights.get("snapshot", 0) <= 0:
            return
        self._add(agent, name, "snapshot")
        snapshots = [i for i, k in enumerate(self.kinds) if k == "snapshot"]
        if len(snapshots) > self.max_snapshots:
            drop = snapshots[0]
            for seq in (self.agents, self.names, self.kinds):
                del seq[drop]
            self._changed()

    def act(self, index: int, vec, rows: np.ndarray) -> np.ndarray:
        """The actions of agent ``index`` in rows ``rows`` of the batched games ``vec``, whose
        seat to move is that agent's (an agent that reads no observation gets none, as in
        tournaments without observations)."""
        agent = self.agents[index]
        obs = vec.float_observations(rows) if agent.needs_observations else np.zeros((rows.size, 0), np.float32)
        return agent.act_batch(vec.states[rows], obs, vec.masks[rows])

    @property
    def snapshot_names(self) -> list[str]:
        return [n for n, k in zip(self.names, self.kinds) if k == "snapshot"]

    def probabilities(self) -> np.ndarray:
        counts = {k: self.kinds.count(k) for k in set(self.kinds)}
        p = np.array([self.weights.get(k, 0) / counts[k] for k in self.kinds], dtype=np.float64)
        return p / p.sum()

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` agent indices drawn with :meth:`probabilities`: the draws of
        ``rng.choice(len(agents), size, p=probabilities())``, without its checks."""
        return np.searchsorted(self._cdf, rng.random(size), side="right")


class SelfPlayVecEnv(VecEnv):
    """``num_envs`` games against opponents from ``pool``; see the module docstring.

    Args:
        env_id, num_envs, seed, options: the batched games (row ``i`` starts as
            ``env.reset(seed=seed + i)``).
        pool: the opponents.
        learner_seat: a fixed seat for the learner, or None to draw one per game.
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        pool: OpponentPool,
        seed: int = 0,
        options: dict | None = None,
        learner_seat: int | None = None,
        obs_dtype: str = "compact",
    ):
        self.vec = vector.make(env_id, num_envs, seed=seed, obs_dtype=obs_dtype, **(options or {}))
        self.game = self.vec.game
        self.pool = pool
        self.render_mode = None
        self.fixed_seat = learner_seat
        self.rng = np.random.default_rng(seed + 7919)
        self.learner_seat = np.zeros(num_envs, dtype=np.int64)
        self.opponent = np.zeros(num_envs, dtype=np.int64)
        self._random_opponent = np.zeros(num_envs, dtype=np.bool_)  # rows whose opponent moves inside numba
        self.opponent_steps = 0
        self._actions = np.zeros(num_envs, dtype=np.int64)
        observation_space = spaces.Box(
            low=self.game.observation_low, high=self.game.observation_high, shape=self.game.observation_shape, dtype=np.float32
        )
        super().__init__(num_envs, observation_space, spaces.Discrete(self.game.num_actions))

    # --- games ---------------------------------------------------------------
    def _new_games(self, rows: np.ndarray) -> None:
        if rows.size == 0:
            return
        if self.fixed_seat is None:
            self.learner_seat[rows] = self.rng.integers(0, self.game.num_players, size=rows.size)
        else:
            self.learner_seat[rows] = self.fixed_seat
        self.opponent[rows] = self.pool.sample(self.rng, rows.size)
        self._random_opponent[rows] = self.pool.random[self.opponent[rows]]
        # observations only where the seat to move reads them
        self.vec.observe_seats[rows] = self.pool.reads_observations[self.opponent[rows]][:, None]
        self.vec.observe_seats[rows, self.learner_seat[rows]] = True
        # the restarted games wrote their first observation under the finished games' seats
        self.vec.observe_rows(rows)

    def _advance(self, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray, infos: list) -> None:
        """One call of the batched games: ``actions`` in every row (``WAIT``: none), then the
        random opponents' moves until the learner is to move; book the learner's reward and
        the games that ended (they have restarted: new seat and opponent)."""
        moves, final_status, seat_rewards, _ = self.vec.step_until_seats(actions, self.learner_seat, self._random_opponent)
        self.opponent_steps += int(moves.sum())
        ended = np.flatnonzero(final_status != RUNNING)
        # the learner's views of the final positions (the rows themselves have restarted)
        terminal = self.vec.float_terminal_observations(ended) if ended.size else None
        for k, row in enumerate(ended.tolist()):
            rewards[row] += seat_rewards[row]
            dones[row] = True
            infos[row]["terminal_observation"] = terminal[k]
            infos[row]["TimeLimit.truncated"] = bool(final_status[row] == TRUNCATED)
            infos[row]["opponent"] = self.pool.names[self.opponent[row]]
        self._new_games(ended)

    def _opponents_move(self, rewards: np.ndarray, dones: np.ndarray, infos: list) -> None:
        """Let the opponents that are not random (they moved inside :meth:`_advance`) move,
        through their ``act_batch``, until the learner is to move everywhere."""
        while True:
            waiting = np.flatnonzero(self.vec.current_player != self.learner_seat)
            if waiting.size == 0:
                return
            actions = np.full(self.num_envs, WAIT, dtype=np.int64)
            which = self.opponent[waiting]
            for k in np.unique(which):
                if self.pool.random[k]:
                    continue  # a restarted game whose random opponent moves first: WAIT lets it
                sub = waiting[which == k]
                actions[sub] = self.pool.act(k, self.vec, sub)
                self.opponent_steps += sub.size
            self._advance(actions, rewards, dones, infos)

    # --- VecEnv API ---------------------------------------------------------------
    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else self.vec.seed
        self.vec.reset(seed=seed)
        self._reset_seeds()
        everything = np.arange(self.num_envs)
        self._new_games(everything)
        scratch_rewards = np.zeros(self.num_envs, dtype=np.float32)
        scratch_dones = np.zeros(self.num_envs, dtype=bool)
        self._opponents_move(scratch_rewards, scratch_dones, [{} for _ in range(self.num_envs)])
        return self.vec.float_observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions[:] = np.asarray(actions).reshape(-1)

    def step_wait(self):
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._advance(self._actions, rewards, dones, infos)
        self._opponents_move(rewards, dones, infos)
        return self.vec.float_observations(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.vec.masks.astype(bool)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        if seed is not None:
            self.vec.seed = seed
            self.rng = np.random.default_rng(seed + 7919)
        return [None if seed is None else seed + i for i in range(self.num_envs)]

"""Search agents: MCTS (``mcts:<simulations>``) and ISMCTS (``ismcts:<simulations>``).

Both run :mod:`tardis_envs.core.search` (compiled, one body for every game) on the
game's own kernels; see that module for the algorithm. Spec grammar:

    mcts:400                  400 simulations per decision
    ismcts:400:c=2:rollout=200  UCT constant 2, playouts cut after 200 steps (scored 0)
    ismcts:50:playout=heuristic playouts follow the game's heuristic instead of random play
    mcts:200:prior=ppo:baseline the PUCT search of ``az`` agents with a PPO policy as its
                              prior and its critic as the leaf value (no playouts);
                              ``prior=`` takes the rest of the spec: ppo:<checkpoint.zip>,
                              ppo:baseline or an az network (az:<checkpoint.zip>)

``mcts`` reads the full state, so it is offered only in games without hidden
information (TARDIS Run, Dr. Who Chess); ``ismcts`` redeals what the mover
cannot see before every simulation and plays every game (in a game without
hidden information it is the same search as ``mcts``). Rows of a batch are
searched on threads (the kernels release the GIL).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tardis_envs.core.search import NUM_PARAMS, P_DETERMINIZE, P_PLAYOUT_POLICY, P_ROLLOUT_LIMIT, P_SIMULATIONS, P_UCT_C, new_generator

from .base import Agent

DEFAULT_UCT_C = 1.4
DEFAULT_PUCT_C = 1.25
MAX_SIMULATIONS = 10_000_000


def parse_search_spec(kind: str, text: str) -> dict:
    """``"400:c=2:rollout=200"`` -> ``{"simulations": 400, "c": 2.0, "rollout": 200}`` (with defaults)."""
    parts = [p.strip() for p in text.split(":")] if text.strip() else []
    usage = (
        f"{kind}:<simulations>[:c=<UCT constant>][:rollout=<max playout steps>][:playout=random|heuristic]"
        f"[:prior=<ppo:... or az:... agent>], e.g. {kind}:400"
    )
    if not parts:
        raise ValueError(f"agent {kind!r} needs a number of simulations: {usage}")
    try:
        simulations = int(parts[0])
    except ValueError:
        raise ValueError(f"agent {kind}:{text}: simulations must be an integer, got {parts[0]!r}; {usage}") from None
    if not 1 <= simulations <= MAX_SIMULATIONS:
        raise ValueError(f"agent {kind}:{text}: simulations must be in 1..{MAX_SIMULATIONS}, got {simulations}")
    out: dict[str, Any] = {"simulations": simulations, "c": None, "rollout": None, "playout": "random", "prior": None}
    for index, part in enumerate(parts[1:], start=1):
        key, _, value = part.partition("=")
        key = key.strip()
        if key == "prior":  # an agent spec with colons of its own: the rest of the text
            out["prior"] = ":".join([value, *parts[index + 1 :]]).strip()
            if not out["prior"]:
                raise ValueError(f"agent {kind}:{text}: prior needs an agent, e.g. prior=ppo:baseline")
            break
        if key == "playout":
            if value not in ("random", "heuristic"):
                raise ValueError(f"agent {kind}:{text}: playout must be random or heuristic, got {value!r}")
            out["playout"] = value
            continue
        if key not in ("c", "rollout") or not value:
            raise ValueError(f"agent {kind}:{text}: unknown setting {part!r}; {usage}")
        try:
            number = float(value) if key == "c" else int(value)
        except ValueError:
            raise ValueError(f"agent {kind}:{text}: {key} must be a number, got {value!r}") from None
        if not np.isfinite(number) or number < (0 if key == "c" else 1):
            raise ValueError(f"agent {kind}:{text}: {key} must be {'>= 0' if key == 'c' else '>= 1'}, got {value!r}")
        out[key] = number
    if out["prior"] is not None and (out["rollout"] is not None or out["playout"] != "random"):
        raise ValueError(
            f"agent {kind}:{text}: a search with a prior values its leaves by the prior's critic; rollout and playout do not apply"
        )
    if out["c"] is None:  # UCT's constant for playouts, PUCT's (scaled by the prior) with a prior
        out["c"] = DEFAULT_UCT_C if out["prior"] is None else DEFAULT_PUCT_C
    return out


def make_search_agent(game, kind: str, settings: str, seed: int | None = None):
    """``mcts:<n>...`` / ``ismcts:<n>...``: a :class:`SearchAgent`, or with ``prior=`` the
    guided search (:class:`agents.alphazero.GuidedAgent`) over that agent's policy and values."""
    parsed = parse_search_spec(kind, settings)
    if parsed["prior"] is None:
        return SearchAgent(game, seed=seed, kind=kind, settings=settings)
    refuse_mcts_with_hidden_information(game, kind)
    from . import make_agent
    from .alphazero import AZAgent, GuidedAgent
    from .policy_agent import PolicyAgent, PolicyEvaluator

    prior = make_agent(parsed["prior"], game, seed=seed)
    if isinstance(prior, PolicyAgent):
        evaluate = PolicyEvaluator(prior.policy, game.num_players, game.spec.cooperative)
        search_game = prior.view  # the policy's own observation options, where they differ
    elif isinstance(prior, AZAgent):
        evaluate, search_game = prior.evaluate, None
    else:
        raise ValueError(f"agent {kind}:{settings}: prior must be a ppo: or az: agent (a policy with values), got {parsed['prior']!r}")
    return GuidedAgent(
        game,
        evaluate,
        seed=seed,
        simulations=parsed["simulations"],
        c=parsed["c"],
        determinize=kind == "ismcts" or game.spec.hidden_information,
        search_game=search_game,
        name=f"{kind}:{parsed['simulations']}:prior={parsed['prior']}",
    )


def refuse_mcts_with_hidden_information(game, kind: str) -> None:
    if kind == "mcts" and game.spec.hidden_information:
        raise ValueError(
            f"agent mcts would read the hidden information of {game.spec.env_id} (other hands, face-down tiles, ...); "
            f"use ismcts:<simulations>, which redeals what the mover cannot see"
        )


class SearchAgent(Agent):
    """MCTS or ISMCTS over the game's kernels (``kind`` is ``"mcts"`` or ``"ismcts"``)."""

    needs_observations = False

    def __init__(self, game, seed: int | None = None, kind: str = "ismcts", settings: str = "400"):
        super().__init__(game, seed)
        if kind not in ("mcts", "ismcts"):
            raise ValueError(f"unknown search agent {kind!r}: mcts or ismcts")
        refuse_mcts_with_hidden_information(game, kind)
        self.kind = kind
        self.settings = parse_search_spec(kind, settings)
        if self.settings["prior"] is not None:
            raise ValueError(f"agent {kind}:{settings}: a search with a prior is built by make_search_agent")
        self.name = f"{kind}:{self.settings['simulations']}" + (":playout=heuristic" if self.settings["playout"] == "heuristic" else "")
        self.params = np.zeros(NUM_PARAMS, dtype=np.float64)
        self.params[P_SIMULATIONS] = self.settings["simulations"]
        self.params[P_UCT_C] = self.settings["c"]
        rollout = self.settings["rollout"]
        self.params[P_ROLLOUT_LIMIT] = rollout if rollout is not None else max(game.max_game_length, 1)
        self.params[P_DETERMINIZE] = 1.0 if kind == "ismcts" else 0.0
        self.weights = np.zeros(1, dtype=np.float64)
        self._search = game.kernels.search
        if self.settings["playout"] == "heuristic":
            from .heuristics import HeuristicAgent

            self.params[P_PLAYOUT_POLICY] = 1.0
            self.weights = HeuristicAgent(game).weights
            self._search = game.kernels.heuristic_search
        self.threads = max(1, min(os.cpu_count() or 1, 8))
        self._pool: ThreadPoolExecutor | None = None
        self.searches = 0  # decisions searched (a single legal action is not searched)
        self.search_seconds = 0.0  # their summed time on one thread each

    def search(self, state: np.ndarray, gen_seed: int) -> tuple[int, np.ndarray]:
        """The chosen action and the root's visit counts for one state."""
        game = self.game
        visits = np.zeros(game.num_actions, dtype=np.int64)
        state = np.ascontiguousarray(state, dtype=np.int64)
        action = self._search(
            state, game.tables, game.num_actions, game.num_players, self.params, self.weights, new_generator(gen_seed), visits
        )
        return int(action), visits

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        seeds: list[int] = [int(x) for x in np.asarray(self.rng.integers(0, 1 << 62, size=states.shape[0]))]
        out = np.empty(states.shape[0], dtype=np.int64)
        rows = range(states.shape[0])

        seconds = np.zeros(states.shape[0])

        def one(i: int) -> int:
            legal = np.flatnonzero(masks[i])
            if legal.size == 1:  # nothing to think about
                return int(legal[0])
            started = time.perf_counter()
            action = self.search(states[i], seeds[i])[0]
            seconds[i] = time.perf_counter() - started
            return action

        if states.shape[0] == 1 or self.threads == 1:
            for i in rows:
                out[i] = one(i)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads)
            for i, action in zip(rows, self._pool.map(one, rows)):
                out[i] = action
        self.searches += int(np.count_nonzero(seconds))
        self.search_seconds += float(seconds.sum())
        return out

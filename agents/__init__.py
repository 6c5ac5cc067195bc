"""Agents for every tardis_envs game behind one interface (:class:`agents.base.Agent`).

``make_agent("random" | "heuristic", game, seed)`` builds one by name;
learned policies join this registry as they land.
"""

from __future__ import annotations

from .base import Agent, uniform_legal
from .heuristics import HeuristicAgent
from .random_agent import RandomAgent

AGENT_KINDS = {"random": RandomAgent, "heuristic": HeuristicAgent}
# every form make_agent accepts, as the unknown-agent error lists them
AGENT_SPECS = (
    *AGENT_KINDS,
    "heuristic:<preset>",
    "ppo:<checkpoint.zip>",
    "ppo:baseline",
    "rllib:<checkpoint folder>",
    "az:<checkpoint.zip>[:sims=<n>][:c=<PUCT constant>][:considered=<n>][:net]",
    "az:baseline",
    *(f"{kind}:<simulations>[:c=<UCT constant>][:rollout=<max playout steps>][:playout=random|heuristic]" for kind in ("mcts", "ismcts")),
)


def make_agent(spec: str, game, seed: int | None = None) -> Agent:
    """An agent by name for ``game`` (an env's ``Game``): ``random``, ``heuristic``,
    ``heuristic:<preset>`` (named weights, e.g. ``heuristic:greedy`` for chess), ``ppo:<checkpoint.zip>`` (an SB3 policy), ``ppo:baseline`` (the game's shipped learned baseline,
    :mod:`agents.baselines`),
    ``rllib:<checkpoint folder>`` (an RLlib policy), loaded and checked against the game, a search agent
    ``mcts:<simulations>`` / ``ismcts:<simulations>`` (more settings after colons: ``mcts:400:c=2:rollout=200``; ``mcts:200:prior=ppo:baseline`` searches with a policy's priors and values),
    or search guided by a network of ``tardis-envs train --algo az``: ``az:<checkpoint.zip>``, ``az:baseline``
    (settings after colons: ``az:baseline:sims=64``, ``:net`` for the network alone; :mod:`agents.alphazero`)."""
    kind = spec.strip()
    head, _, rest = kind.partition(":")
    if head.lower() in ("mcts", "ismcts"):
        from .search_agent import make_search_agent

        return make_search_agent(game, head.lower(), rest, seed=seed)
    if head.lower() == "az":
        from .alphazero import AZAgent

        return AZAgent.from_spec(rest, game, seed=seed)
    if kind.lower().startswith("ppo:"):
        from .baselines import ppo_checkpoint_path
        from .policy_agent import PolicyAgent

        return PolicyAgent.from_checkpoint(ppo_checkpoint_path(kind, game.spec.env_id), game, seed=seed)
    if kind.lower().startswith("rllib:"):
        try:
            from .rllib_agent import RLlibPolicyAgent
        except ImportError as exc:
            raise ValueError(f"agent {spec!r} needs Ray RLlib: pip install -e '.[distributed]' ({exc})") from None
        return RLlibPolicyAgent.from_checkpoint(kind[6:], game, seed=seed)
    kind = kind.lower()
    if kind.startswith("heuristic:"):
        return HeuristicAgent(game, seed=seed, preset=kind.split(":", 1)[1])
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_SPECS)}")
    return AGENT_KINDS[kind](game, seed=seed)


__all__ = ["Agent", "RandomAgent", "HeuristicAgent", "make_agent", "AGENT_KINDS", "AGENT_SPECS", "uniform_legal"]

"""Any agent of :func:`agents.make_agent` as an OpenSpiel bot on the adapter's games
(``pip install -e ".[openspiel]"``).

    import pyspiel
    from agents.openspiel_bot import AgentBot
    from tardis_envs import openspiel as tardis_openspiel

    game = tardis_openspiel.load_game("tardis_run_v0")
    bots = [AgentBot(game, "az:baseline", player=0, seed=0), AgentBot(game, "heuristic", player=1, seed=1)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)

The bot decides at its seat's decision nodes from the adapter's state (the same
``act_batch`` call as in ``eval``, with a batch of one); OpenSpiel samples the chance
nodes. Agents that search redeal what their seat cannot see (``az:``, ``ismcts:``), the
heuristics read only what their seat's observation shows, as in the PettingZoo envs.
"""

from __future__ import annotations

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('agents.openspiel_bot needs OpenSpiel: pip install -e ".[openspiel]"') from exc

from . import make_agent


class AgentBot(pyspiel.Bot):
    """The agent ``spec`` (``"az:baseline"``, ``"heuristic"``, ``"mcts:200:prior=ppo:baseline"``, ...)
    playing seat ``player`` of ``game`` (a :class:`tardis_envs.openspiel.TardisGame`)."""

    def __init__(self, game, spec: str, player: int, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        tardis = getattr(game, "tardis", None)
        if tardis is None:
            raise ValueError(f"AgentBot plays the games of tardis_envs.openspiel, got {game}")
        if not 0 <= player < tardis.num_players:
            raise ValueError(f"AgentBot: player must be in 0..{tardis.num_players - 1}, got {player}")
        self.game = tardis
        self.player = player
        self.agent = make_agent(spec, tardis, seed=seed)

    def step(self, state) -> int:
        seen = state.position.state
        if seen is None or state.current_player() != self.player:
            raise ValueError(f"AgentBot of player {self.player} asked to move at a node where player {state.current_player()} moves")
        game = self.game
        masks = np.zeros((1, game.num_actions), dtype=np.int8)
        masks[0, game.legal_actions(seen)] = 1
        observations = game.observation(seen, self.player)[None] if self.agent.needs_observations else np.zeros((1, 1), np.float32)
        return int(self.agent.act_batch(seen[None], observations, masks)[0])

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

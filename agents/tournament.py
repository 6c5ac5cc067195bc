"""Seat-swapped matches between agents on the batched API.

Every game of a match runs in its own row of a :class:`tardis_envs.vector.VectorEnv`
and counts once (a row's later, auto-reset games are ignored), so short games
are not over-represented. Seats rotate evenly: with two agents, half the
games put each agent in seat 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from tardis_envs import vector

from .base import Agent
from .stats import wilson_interval


@dataclass
class MatchResult:
    """Outcome of every game: ``seats[g, s]`` is the agent index in seat ``s``,
    ``rewards[g, s]`` that seat's final reward, ``lengths[g]`` the decisions taken."""

    env_id: str
    agent_names: list[str]
    seat_names: list[str]
    seats: np.ndarray
    rewards: np.ndarray
    lengths: np.ndarray
    truncated: np.ndarray
    seconds: float = 0.0
    steps: int = 0
    notes: dict = field(default_factory=dict)

    @property
    def num_games(self) -> int:
        return int(self.seats.shape[0])

    def record(self, agent: int, seat: int | None = None) -> dict:
        """Games, wins, draws, losses and the win rate with its 95% interval."""
        rows, cols = np.nonzero(self.seats == agent)
        if seat is not None:
            keep = cols == seat
            rows, cols = rows[keep], cols[keep]
        rewards = self.rewards[rows, cols]
        games = int(rows.size)
        wins = int(np.sum(rewards > 0))
        losses = int(np.sum(rewards < 0))
        draws = games - wins - losses
        low, high = wilson_interval(wins, games)
        return {
            "games": games,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "win_rate": wins / games if games else float("nan"),
            "ci_low": low,
            "ci_high": high,
        }


def play_match(
    env_id: str,
    agents: Sequence[Agent],
    agent_names: Sequence[str],
    games: int,
    seed: int = 0,
    batch: int = 1000,
    options: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MatchResult:
    """Play ``games`` games; game ``g`` seats agent ``(g + s) % len(agents)`` in seat ``s``.

    For two players and two agents that swaps seats every other game. Game
    ``g`` is the vector env's row ``g`` of its chunk, seeded ``seed + g``.
    """
    import time

    options = options or {}
    probe = vector.make(env_id, 1, seed=seed, **options)
    num_players = probe.num_players
    num_agents = len(agents)
    seats = (np.arange(games)[:, None] + np.arange(num_players)[None, :]) % num_agents
    rewards = np.zeros((games, num_players), dtype=np.float32)
    lengths = np.zeros(games, dtype=np.int64)
    truncated = np.zeros(games, dtype=bool)
    started = time.perf_counter()
    total_steps = 0
    for first in range(0, games, batch):
        count = min(batch, games - first)
        vec = vector.make(env_id, count, seed=seed + first, **options)
        obs, masks, players = vec.reset()
        chunk_seats = seats[first : first + count]
        running = np.ones(count, dtype=bool)
        actions = np.zeros(count, dtype=np.int64)
        while running.any():
            movers = chunk_seats[np.arange(count), players]
            for k, agent in enumerate(agents):
                rows = np.flatnonzero(movers == k)
                if rows.size:
                    actions[rows] = agent.act_batch(vec.states[rows], obs[rows], masks[rows])
            obs, masks, players, step_rewards, term, trunc = vec.step(actions)
            lengths[first : first + count] += running
            total_steps += int(running.sum())
            ended = running & (term | trunc)
            if ended.any():
                rewards[first : first + count][ended] = step_rewards[ended]
                truncated[first : first + count][ended] = trunc[ended]
                running &= ~ended
        if progress is not None:
            progress(first + count, games)
    return MatchResult(
        env_id=env_id,
        agent_names=list(agent_names),
        seat_names=list(probe.agent_names),
        seats=seats,
        rewards=rewards,
        lengths=lengths,
        truncated=truncated,
        seconds=time.perf_counter() - started,
        steps=total_steps,
    )


def format_table(result: MatchResult) -> str:
    """A win-rate table: each agent overall and per seat, with 95% intervals."""
    header = f"{'agent':<22}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>8}{'win rate':>10}  95% interval"
    lines = [header, "-" * len(header)]
    for k, name in enumerate(result.agent_names):
        for seat in [None, *range(len(result.seat_names))]:
            rec = result.record(k, seat)
            label = name if seat is None else f"  as {result.seat_names[seat]}"
            lines.append(
                f"{label:<22}{rec['games']:>7}{rec['wins']:>7}{rec['draws']:>7}{rec['losses']:>8}"
                f"{100 * rec['win_rate']:>9.1f}%  [{100 * rec['ci_low']:.1f}%, {100 * rec['ci_high']:.1f}%]"
            )
    lines.append(
        f"mean game length {result.lengths.mean():.1f} decisions; {int(result.truncated.sum())} truncated; "
        f"{result.num_games} games in {result.seconds:.1f} s"
    )
    return "\n".join(lines)

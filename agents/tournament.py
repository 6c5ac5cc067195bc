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

    def team_record(self, agent: int, seat: int | None = None) -> dict:
        """A cooperative game: the games ``agent`` played in (in ``seat``), counted as won
        when its team won (some seat's reward is positive), a draw when truncated."""
        rows, cols = np.nonzero(self.seats == agent)
        if seat is not None:
            keep = cols == seat
            rows, cols = rows[keep], cols[keep]
        rows = np.unique(rows)
        games = int(rows.size)
        wins = int(np.sum(self.rewards[rows].max(axis=1) > 0))
        draws = int(np.sum(self.truncated[rows]))
        low, high = wilson_interval(wins, games)
        return {
            "games": games,
            "wins": wins,
            "draws": draws,
            "losses": games - wins - draws,
            "win_rate": wins / games if games else float("nan"),
            "ci_low": low,
            "ci_high": high,
        }

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
    observations = any(agent.needs_observations for agent in agents)
    probe = vector.make(env_id, 1, seed=seed, observations=False, **options)
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
        vec = vector.make(env_id, count, seed=seed + first, observations=observations, **options)
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


def team_match(
    env_id: str,
    agent: Agent,
    partner: Agent,
    names: tuple[str, str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MatchResult:
    """A cooperative game: ``agent`` in one seat (rotating evenly through the seats),
    ``partner`` in every other seat. ``team_record(0)`` is the team's win rate."""
    num_players = vector.make(env_id, 1, seed=seed, observations=False, **(options or {})).num_players
    agents = [agent] + [partner] * (num_players - 1)
    labels = [names[0]] + [f"{names[1]}#{k}" if k > 1 else names[1] for k in range(1, num_players)]
    return play_match(env_id, agents, labels, games, seed=seed, options=options, progress=progress)


def format_team_table(results: dict[str, MatchResult], partner: str) -> str:
    """Each agent's team win rate (with ``partner`` in the other seats), overall and per seat."""
    lines = [f"{'agent':<28}{'games':>7}{'team wins':>11}{'truncated':>11}{'win rate':>10}  95% interval   by seat"]
    for name, result in results.items():
        rec = result.team_record(0)
        seats = "  ".join(f"{seat} {100 * result.team_record(0, s)['win_rate']:.1f}%" for s, seat in enumerate(result.seat_names))
        lines.append(
            f"{name:<28}{rec['games']:>7}{rec['wins']:>11}{rec['draws']:>11}{100 * rec['win_rate']:>9.1f}%"
            f"  [{100 * rec['ci_low']:.1f}%, {100 * rec['ci_high']:.1f}%]   {seats}"
        )
    lines.append(f"(team: the agent in one seat, {partner} in the others; a win is the Doctors' win)")
    return "\n".join(lines)


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


@dataclass
class RoundRobin:
    """Every pair of agents: ``points[i, j]`` (wins + draws / 2 of i against j),
    ``games[i, j]``, the per-pair match results and Bradley–Terry ratings."""

    env_id: str
    names: list[str]
    points: np.ndarray
    games: np.ndarray
    matches: dict
    ratings: np.ndarray
    seat_records: dict = field(default_factory=dict)

    def win_rate(self, i: int, j: int) -> tuple[float, float, float]:
        n = int(self.games[i, j])
        wins = float(self.matches[(i, j)]["wins"])
        low, high = wilson_interval(wins, n)
        return wins / n if n else float("nan"), low, high


def round_robin(
    env_id: str,
    agents: Sequence[Agent],
    names: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: Callable[[str], None] | None = None,
) -> RoundRobin:
    """Each pair plays ``games`` games, seats rotated evenly.

    With more than two players, agent i takes one seat and copies of agent j
    the others in half of the games, and the other way round in the rest; a
    game counts as i's win if i's seat wins, as j's win if one of j's seats wins.
    """
    from .ratings import bradley_terry, elo

    k = len(agents)
    probe = vector.make(env_id, 1, seed=seed, **(options or {}))
    players = probe.num_players
    points = np.zeros((k, k))
    counts = np.zeros((k, k))
    matches = {}
    seat_records = {}
    for i in range(k):
        for j in range(i + 1, k):
            if players == 2:
                result = play_match(env_id, [agents[i], agents[j]], [names[i], names[j]], games, seed=seed, options=options)
                rec_i, rec_j = result.record(0), result.record(1)
                for a, b, idx in ((i, j, 0), (j, i, 1)):
                    seat_records[(a, b)] = {seat: result.record(idx, s) for s, seat in enumerate(result.seat_names)}
            else:
                half = games // 2 - (games // 2) % players
                a = play_match(
                    env_id,
                    [agents[i]] + [agents[j]] * (players - 1),
                    [names[i]] + [names[j]] * (players - 1),
                    half,
                    seed=seed,
                    options=options,
                )
                b = play_match(
                    env_id,
                    [agents[j]] + [agents[i]] * (players - 1),
                    [names[j]] + [names[i]] * (players - 1),
                    half,
                    seed=seed + half,
                    options=options,
                )
                rec_i = _merge(a.record(0), _field_record(b, exclude=0))
                rec_j = _merge(b.record(0), _field_record(a, exclude=0))
                # per seat: the agent alone in that seat against copies of the other
                seat_records[(i, j)] = {seat: a.record(0, s) for s, seat in enumerate(a.seat_names)}
                seat_records[(j, i)] = {seat: b.record(0, s) for s, seat in enumerate(b.seat_names)}
            matches[(i, j)] = rec_i
            matches[(j, i)] = rec_j
            points[i, j] = rec_i["wins"] + rec_i["draws"] / 2
            points[j, i] = rec_j["wins"] + rec_j["draws"] / 2
            counts[i, j] = counts[j, i] = rec_i["games"]
            if progress is not None:
                progress(f"{names[i]} vs {names[j]}: {rec_i['wins']}-{rec_i['draws']}-{rec_i['losses']} ({rec_i['games']} games)")
    ratings = elo(bradley_terry(points))
    return RoundRobin(env_id, list(names), points, counts, matches, ratings, seat_records)


def _field_record(result: MatchResult, exclude: int) -> dict:
    """Record of the field (every seat not held by agent ``exclude``) as one side."""
    games = result.num_games
    own = result.rewards[result.seats == exclude]
    wins = int(np.sum(own < 0))  # the single agent lost: a field seat won
    draws = int(np.sum(result.truncated))
    return {"games": games, "wins": wins, "draws": draws, "losses": games - wins - draws}


def _merge(a: dict, b: dict) -> dict:
    out = {key: a[key] + b[key] for key in ("games", "wins", "draws", "losses")}
    out["win_rate"] = out["wins"] / out["games"] if out["games"] else float("nan")
    out["ci_low"], out["ci_high"] = wilson_interval(out["wins"], out["games"])
    return out


def format_round_robin(rr: RoundRobin) -> str:
    k = len(rr.names)
    width = max(14, *(len(n) + 2 for n in rr.names))
    lines = ["win rate of row against column, 95% interval, games:"]
    lines.append(" " * width + "".join(f"{n:>26}" for n in rr.names))
    for i in range(k):
        cells = []
        for j in range(k):
            if i == j:
                cells.append(f"{'-':>26}")
                continue
            rate, low, high = rr.win_rate(i, j)
            cells.append(f"{f'{100 * rate:.1f}% [{100 * low:.0f},{100 * high:.0f}] n={int(rr.games[i, j])}':>26}")
        lines.append(f"{rr.names[i]:<{width}}" + "".join(cells))
    lines.append("")
    lines.append("by seat (win rate of the row agent in that seat; with more than two players it is alone there):")
    for (i, j), per_seat in sorted(rr.seat_records.items()):
        parts = [f"{seat} {100 * rec['win_rate']:.1f}% (n={rec['games']})" for seat, rec in per_seat.items()]
        lines.append(f"  {rr.names[i]} vs {rr.names[j]}: " + ", ".join(parts))
    lines.append("")
    lines.append("Bradley-Terry ratings (Elo scale, mean 1500):")
    for i in np.argsort(-rr.ratings):
        lines.append(f"  {rr.names[i]:<{width}}{rr.ratings[i]:8.0f}")
    return "\n".join(lines)


def save_round_robin(rr: RoundRobin, out_dir) -> list:
    """CSV and markdown of the matrix and ratings, and a heat-map PNG."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    k = len(rr.names)
    rows = ["agent,opponent,games,wins,draws,losses,win_rate,ci_low,ci_high"]
    md = ["| agent \\ opponent | " + " | ".join(rr.names) + " |", "|---" * (k + 1) + "|"]
    matrix = np.full((k, k), np.nan)
    for i in range(k):
        cells = []
        for j in range(k):
            if i == j:
                cells.append("-")
                continue
            rec = rr.matches[(i, j)]
            rate, low, high = rr.win_rate(i, j)
            matrix[i, j] = rate
            rows.append(
                f"{rr.names[i]},{rr.names[j]},{rec['games']},{rec['wins']},{rec['draws']},{rec['losses']},{rate:.4f},{low:.4f},{high:.4f}"
            )
            cells.append(f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}] (n={rec['games']})")
        md.append(f"| {rr.names[i]} | " + " | ".join(cells) + " |")
    md += ["", "| agent | Elo (Bradley-Terry) |", "|---|---|"]
    md += [f"| {rr.names[i]} | {rr.ratings[i]:.0f} |" for i in np.argsort(-rr.ratings)]
    (out / "matrix.csv").write_text("\n".join(rows) + "\n")
    (out / "ratings.csv").write_text("agent,elo\n" + "".join(f"{n},{r:.1f}\n" for n, r in zip(rr.names, rr.ratings)))
    (out / "results.md").write_text(f"# {rr.env_id} round robin\n\n" + "\n".join(md) + "\n")
    fig, ax = plt.subplots(figsize=(1.6 * k + 2, 1.3 * k + 1.5))
    image = ax.imshow(100 * matrix, vmin=0, vmax=100, cmap="RdYlGn")
    ax.set_xticks(range(k), rr.names, rotation=30, ha="right")
    ax.set_yticks(range(k), rr.names)
    for i in range(k):
        for j in range(k):
            if i != j:
                ax.text(j, i, f"{100 * matrix[i, j]:.0f}%\nn={int(rr.games[i, j])}", ha="center", va="center", fontsize=8)
    ax.set_title(f"{rr.env_id}: win rate of row vs column")
    fig.colorbar(image, ax=ax, label="win rate (%)")
    fig.tight_layout()
    fig.savefig(out / "heatmap.png", dpi=100)
    plt.close(fig)
    return [out / "matrix.csv", out / "ratings.csv", out / "results.md", out / "heatmap.png"]

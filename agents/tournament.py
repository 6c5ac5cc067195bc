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
from tardis_envs.outputs import write_with_fallback

from .base import Agent
from .stats import wilson_interval

KEEP_GAMES = 100_000
"""Matches of at most this many games also keep every game's seats, rewards and length
(:attr:`MatchResult.seats` ...); longer ones keep only the tallies, so that a match's memory does
not grow with its number of games."""

WIN, DRAW, LOSS = 0, 1, 2  # outcome columns of MatchResult.counts (by the sign of the seat's reward)
TEAM_WIN, TEAM_TRUNCATED, TEAM_LOST = 0, 1, 2  # outcome columns of MatchResult.team_counts


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a match: a ``KeyboardInterrupt`` that carries the finished games
    (``result``, a partial :class:`MatchResult` or :class:`RoundRobin`)."""

    def __init__(self, result):
        super().__init__()
        self.result = result


def rearm_ctrl_c() -> None:
    """Hand Ctrl-C back to Python. LLVM installs its own SIGINT handler the first time numba
    compiles in a process, and with it a Ctrl-C during training or a long match was lost
    (measured: a run whose kernels compiled at start-up kept training after SIGINT; one with a
    warm numba cache stopped). Long loops call this between steps; it costs one system call."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


@dataclass
class MatchResult:
    """The outcome of a match as tallies: ``counts[a, s]`` holds the wins, draws and losses
    (columns ``WIN, DRAW, LOSS``) of agent ``a`` in seat ``s``; ``team_counts[a, s]`` the games
    in which ``a`` sat in seat ``s`` (``s = num_players``: in any seat) that its team won, that
    were truncated, and the rest. Matches of at most :data:`KEEP_GAMES` games also keep every
    game: ``seats[g, s]`` is the agent index in seat ``s``, ``rewards[g, s]`` that seat's final
    reward, ``lengths[g]`` the decisions taken (``None`` for longer matches).
    ``games_requested`` is the match's length; fewer ``num_games`` mean it was interrupted."""

    env_id: str
    agent_names: list[str]
    seat_names: list[str]
    counts: np.ndarray
    team_counts: np.ndarray
    num_games: int = 0
    games_requested: int = 0
    total_length: int = 0
    num_truncated: int = 0
    seats: np.ndarray | None = None
    rewards: np.ndarray | None = None
    lengths: np.ndarray | None = None
    truncated: np.ndarray | None = None
    seconds: float = 0.0
    steps: int = 0
    notes: dict = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        """True when the match ended (Ctrl-C) before all of its games were played."""
        return self.num_games < self.games_requested

    @property
    def mean_length(self) -> float:
        return self.total_length / self.num_games if self.num_games else float("nan")

    def add_games(self, seats: np.ndarray, rewards: np.ndarray, lengths: np.ndarray, truncated: np.ndarray) -> None:
        """Count finished games (one row each) into the tallies."""
        num_players = seats.shape[1]
        outcome = np.where(rewards > 0, WIN, np.where(rewards < 0, LOSS, DRAW))
        np.add.at(self.counts, (seats, np.broadcast_to(np.arange(num_players), seats.shape), outcome), 1)
        team = np.where(rewards.max(axis=1) > 0, TEAM_WIN, np.where(truncated, TEAM_TRUNCATED, TEAM_LOST))
        for agent in range(self.counts.shape[0]):
            here = seats == agent
            for seat in range(num_players):
                np.add.at(self.team_counts[agent, seat], team[here[:, seat]], 1)
            np.add.at(self.team_counts[agent, num_players], team[here.any(axis=1)], 1)
        self.num_games += int(seats.shape[0])
        self.total_length += int(lengths.sum())
        self.num_truncated += int(truncated.sum())

    def team_record(self, agent: int, seat: int | None = None) -> dict:
        """A cooperative game: the games ``agent`` played in (in ``seat``), counted as won
        when its team won (some seat's reward is positive), a draw when truncated."""
        won, truncated, lost = (int(v) for v in self.team_counts[agent, len(self.seat_names) if seat is None else seat])
        games = won + truncated + lost
        low, high = wilson_interval(won, games)
        return {
            "games": games,
            "wins": won,
            "draws": truncated,
            "losses": lost,
            "win_rate": won / games if games else float("nan"),
            "ci_low": low,
            "ci_high": high,
        }

    def record(self, agent: int, seat: int | None = None) -> dict:
        """Games, wins, draws, losses and the win rate with its 95% interval."""
        tally = self.counts[agent].sum(axis=0) if seat is None else self.counts[agent, seat]
        wins, draws, losses = (int(v) for v in tally)
        games = wins + draws + losses
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


@dataclass
class PlayedGames:
    """Finished games of one chunk of a match, handed to ``play_match``'s ``on_games``: game
    ``games[k]`` of the match was ``env.reset(seed=seeds[k])`` followed by ``actions[k]``, with
    agent ``seats[k, s]`` (an index into ``agent_names``) in seat ``s``; ``rewards[k]`` are
    its final rewards."""

    env_id: str
    agent_names: list[str]
    games: np.ndarray
    seeds: np.ndarray
    seats: np.ndarray
    actions: list[np.ndarray]
    rewards: np.ndarray
    match_games: int = 0
    """The number of games the match plays in all."""


def play_match(
    env_id: str,
    agents: Sequence[Agent],
    agent_names: Sequence[str],
    games: int,
    seed: int = 0,
    batch: int = 1000,
    options: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_games: Callable[[PlayedGames], None] | None = None,
) -> MatchResult:
    """Play ``games`` games; game ``g`` seats agent ``(g + s) % len(agents)`` in seat ``s``.

    For two players and two agents that swaps seats every other game. Game
    ``g`` is the vector env's row ``g`` of its chunk, seeded ``seed + g``. Games
    are played ``batch`` at a time and counted into tallies as they end, so the
    memory does not depend on ``games``; ``progress(done, games)`` is called after
    each chunk, and ``on_games`` (when given) receives each chunk's finished games
    with their actions (:class:`PlayedGames`: what a replay file keeps). Ctrl-C
    raises :class:`MatchInterrupted` carrying the games finished so far (those of
    the interrupted chunk included).
    """
    import time

    options = options or {}
    observations = any(agent.needs_observations for agent in agents)
    probe = vector.make(env_id, 1, seed=seed, observations=False, **options)
    num_players = probe.num_players
    num_agents = len(agents)
    keep = games <= KEEP_GAMES
    result = MatchResult(
        env_id=env_id,
        agent_names=list(agent_names),
        seat_names=list(probe.agent_names),
        counts=np.zeros((num_agents, num_players, 3), dtype=np.int64),
        team_counts=np.zeros((num_agents, num_players + 1, 3), dtype=np.int64),
        games_requested=games,
    )
    kept: list[tuple[np.ndarray, ...]] = []
    started = time.perf_counter()

    def count(chunk_seats, rewards, lengths, truncated, first, done, log) -> None:
        result.add_games(chunk_seats[done], rewards[done], lengths[done], truncated[done])
        if keep:
            kept.append((chunk_seats[done], rewards[done], lengths[done], truncated[done]))
        if on_games is not None and done.any():
            rows = np.flatnonzero(done)
            on_games(
                PlayedGames(
                    env_id,
                    list(agent_names),
                    first + rows,
                    seed + first + rows,
                    chunk_seats[rows],
                    [log[r, : lengths[r]].copy() for r in rows],
                    rewards[rows],
                    games,
                )
            )

    try:
        for first in range(0, games, batch):
            rearm_ctrl_c()  # kernels compiled by the first chunk took Ctrl-C away
            n = min(batch, games - first)
            chunk_seats = (np.arange(first, first + n)[:, None] + np.arange(num_players)[None, :]) % num_agents
            rewards = np.zeros((n, num_players), dtype=np.float32)
            lengths = np.zeros(n, dtype=np.int64)
            truncated = np.zeros(n, dtype=bool)
            running = np.ones(n, dtype=bool)
            log = np.zeros((n, 256 if on_games is not None else 0), dtype=np.int64)  # actions, column = step
            try:
                vec = vector.make(env_id, n, seed=seed + first, observations=observations, **options)
                obs, masks, players = vec.reset()
                actions = np.zeros(n, dtype=np.int64)
                step = 0
                while running.any():
                    movers = chunk_seats[np.arange(n), players]
                    for k, agent in enumerate(agents):
                        rows = np.flatnonzero(movers == k)
                        if rows.size:
                            actions[rows] = agent.act_batch(vec.states[rows], obs[rows], masks[rows])
                    if on_games is not None:
                        if step == log.shape[1]:
                            log = np.concatenate([log, np.zeros_like(log)], axis=1)
                        log[running, step] = actions[running]  # every running row is at its step ``step``
                        step += 1
                    obs, masks, players, step_rewards, term, trunc = vec.step(actions)
                    lengths += running
                    result.steps += int(running.sum())
                    ended = running & (term | trunc)
                    if ended.any():
                        rewards[ended] = step_rewards[ended]
                        truncated[ended] = trunc[ended]
                        running &= ~ended
            except KeyboardInterrupt:
                count(chunk_seats, rewards, lengths, truncated, first, ~running, log)
                raise
            count(chunk_seats, rewards, lengths, truncated, first, np.ones(n, dtype=bool), log)
            if progress is not None:
                progress(first + n, games)
    except KeyboardInterrupt:
        result.seconds = time.perf_counter() - started
        _keep_games(result, kept)
        raise MatchInterrupted(result) from None
    result.seconds = time.perf_counter() - started
    _keep_games(result, kept)
    return result


def _keep_games(result: MatchResult, kept: list[tuple[np.ndarray, ...]]) -> None:
    if kept:
        result.seats, result.rewards, result.lengths, result.truncated = (np.concatenate(parts) for parts in zip(*kept))


def team_match(
    env_id: str,
    agent: Agent,
    partner: Agent,
    names: tuple[str, str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_games: Callable[[PlayedGames], None] | None = None,
) -> MatchResult:
    """A cooperative game: ``agent`` in one seat (rotating evenly through the seats),
    ``partner`` in every other seat. ``team_record(0)`` is the team's win rate."""
    num_players = vector.make(env_id, 1, seed=seed, observations=False, **(options or {})).num_players
    agents = [agent] + [partner] * (num_players - 1)
    labels = [names[0]] + [f"{names[1]}#{k}" if k > 1 else names[1] for k in range(1, num_players)]
    return play_match(env_id, agents, labels, games, seed=seed, options=options, progress=progress, on_games=on_games)


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
        f"mean game length {result.mean_length:.1f} decisions; {result.num_truncated} truncated; "
        f"{result.num_games} games in {result.seconds:.1f} s"
    )
    if result.partial:
        lines.append(f"PARTIAL: interrupted after {result.num_games} of {result.games_requested} games")
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
    partial: bool = False
    """True when Ctrl-C ended it early: pairs not played have no games (``games[i, j] == 0``)."""

    def win_rate(self, i: int, j: int) -> tuple[float, float, float]:
        n = int(self.games[i, j])
        if n == 0:  # a pair a partial round robin did not reach
            return float("nan"), float("nan"), float("nan")
        wins = float(self.matches[(i, j)]["wins"])
        low, high = wilson_interval(wins, n)
        return wins / n if n else float("nan"), low, high


def pair_line(first: str, second: str, record: dict) -> str:
    """One pair's result in words, from ``first``'s side: ``a vs b: a won 983, drew 0, lost 1017 (2000 games)``."""
    return f"{first} vs {second}: {first} won {record['wins']}, drew {record['draws']}, lost {record['losses']} ({record['games']} games)"


def round_robin(
    env_id: str,
    agents: Sequence[Agent],
    names: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: Callable[[str], None] | None = None,
    on_games: Callable[[PlayedGames], None] | None = None,
) -> RoundRobin:
    """Each pair plays ``games`` games, seats rotated evenly.

    With more than two players, agent i takes one seat and copies of agent j
    the others in half of the games, and the other way round in the rest; a
    game counts as i's win if i's seat wins, as j's win if one of j's seats wins.
    Ctrl-C raises :class:`MatchInterrupted` carrying the round robin of the pairs
    finished so far (marked ``partial``; a two-player pair interrupted midway
    counts with its finished games).
    """
    from .ratings import bradley_terry, elo

    k = len(agents)
    probe = vector.make(env_id, 1, seed=seed, **(options or {}))
    players = probe.num_players
    points = np.zeros((k, k))
    counts = np.zeros((k, k))
    matches = {}
    seat_records = {}
    partial = False
    for i in range(k):
        for j in range(i + 1, k):
            if partial:
                break
            if players == 2:
                try:
                    result = play_match(
                        env_id, [agents[i], agents[j]], [names[i], names[j]], games, seed=seed, options=options, on_games=on_games
                    )
                except MatchInterrupted as stop:
                    result, partial = stop.result, True
                    if result.num_games == 0:
                        break
                rec_i, rec_j = result.record(0), result.record(1)
                for a, b, idx in ((i, j, 0), (j, i, 1)):
                    seat_records[(a, b)] = {seat: result.record(idx, s) for s, seat in enumerate(result.seat_names)}
            else:
                half = games // 2 - (games // 2) % players
                try:
                    a = play_match(
                        env_id,
                        [agents[i]] + [agents[j]] * (players - 1),
                        [names[i]] + [names[j]] * (players - 1),
                        half,
                        seed=seed,
                        options=options,
                        on_games=on_games,
                    )
                    b = play_match(
                        env_id,
                        [agents[j]] + [agents[i]] * (players - 1),
                        [names[j]] + [names[i]] * (players - 1),
                        half,
                        seed=seed + half,
                        options=options,
                        on_games=on_games,
                    )
                except MatchInterrupted:
                    partial = True  # a pair of two halves counts only whole
                    break
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
                progress(pair_line(names[i], names[j], rec_i))
    ratings = elo(bradley_terry(points))
    rr = RoundRobin(env_id, list(names), points, counts, matches, ratings, seat_records, partial=partial)
    if partial:
        raise MatchInterrupted(rr)
    return rr


def _field_record(result: MatchResult, exclude: int) -> dict:
    """Record of the field (every seat not held by agent ``exclude``) as one side."""
    games = result.num_games
    wins = int(result.counts[exclude, :, LOSS].sum())  # the single agent lost: a field seat won
    draws = result.num_truncated
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
            if i == j or not rr.games[i, j]:
                cells.append(f"{'-' if i == j else 'not played':>26}")
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
    if rr.partial:
        played = int(np.count_nonzero(np.triu(rr.games, 1)))
        lines.append(f"PARTIAL: interrupted after {played} of {k * (k - 1) // 2} pairs")
    return "\n".join(lines)


def save_round_robin(rr: RoundRobin, out_dir) -> list:
    """CSV and markdown of the matrix and ratings, and a heat-map PNG, in ``out_dir``; returns
    where each file went (a file that cannot be written there goes to the working directory,
    :func:`tardis_envs.outputs.write_with_fallback`)."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    k = len(rr.names)
    rows = ["agent,opponent,games,wins,draws,losses,win_rate,ci_low,ci_high"]
    md = ["| agent \\ opponent | " + " | ".join(rr.names) + " |", "|---" * (k + 1) + "|"]
    matrix = np.full((k, k), np.nan)
    for i in range(k):
        cells = []
        for j in range(k):
            if i == j or (i, j) not in rr.matches:
                cells.append("-" if i == j else "not played")
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
    title = f"# {rr.env_id} round robin" + (" (PARTIAL: interrupted, pairs not played are marked)" if rr.partial else "")
    files = [
        write_with_fallback(out / "matrix.csv", lambda p: p.write_text("\n".join(rows) + "\n")),
        write_with_fallback(
            out / "ratings.csv", lambda p: p.write_text("agent,elo\n" + "".join(f"{n},{r:.1f}\n" for n, r in zip(rr.names, rr.ratings)))
        ),
        write_with_fallback(out / "results.md", lambda p: p.write_text(title + "\n\n" + "\n".join(md) + "\n")),
    ]
    fig, ax = plt.subplots(figsize=(1.6 * k + 2, 1.3 * k + 1.5))
    image = ax.imshow(100 * matrix, vmin=0, vmax=100, cmap="RdYlGn")
    ax.set_xticks(range(k), rr.names, rotation=30, ha="right")
    ax.set_yticks(range(k), rr.names)
    for i in range(k):
        for j in range(k):
            if i != j and rr.games[i, j]:
                ax.text(j, i, f"{100 * matrix[i, j]:.0f}%\nn={int(rr.games[i, j])}", ha="center", va="center", fontsize=8)
    ax.set_title(f"{rr.env_id}: win rate of row vs column")
    fig.colorbar(image, ax=ax, label="win rate (%)")
    fig.tight_layout()
    files.append(write_with_fallback(out / "heatmap.png", lambda p: fig.savefig(p, dpi=100)))
    plt.close(fig)
    return files

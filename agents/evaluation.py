"""Evaluations of agents by name, as ``tardis-envs eval`` runs them, for Python callers too.

>>> from agents.evaluation import evaluate, check_output
>>> out = check_output("runs/eval/mine")           # refused now, not after the games
>>> result = evaluate("tardis_run_v0", ["heuristic", "random"], games=200)
>>> print(result.table)
>>> result.save(out)                                # results.json, results.md, match.csv

Two agents play one seat-swapped match (with 3-4 players the first agent takes one seat
and copies of the second the others); three or more play a round robin (a win-rate matrix,
per-seat results, Bradley-Terry ratings); in a cooperative game (Time of the Daleks) each
agent plays beside ``partner`` team-mates and is measured by its team's win rate. Ctrl-C
ends the games early: the finished ones come back marked ``partial``.

An :class:`Evaluation` saves itself into a folder: ``results.json`` (every kind), a
``results.md`` table and the kind's CSV (``match.csv``, ``team.csv``, or a round robin's
``matrix.csv``, ``ratings.csv`` and ``heatmap.png``). :func:`check_output` refuses a folder
that already holds results unless ``overwrite`` is given, and ``save(overwrite=True)`` then
replaces only those files (:data:`EVAL_FILES`), never anything else in the folder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tardis_envs import check_env_id, env_module
from tardis_envs.outputs import check_writable, unused_path, write_with_fallback

EVAL_FILES = ("results.json", "results.md", "match.csv", "team.csv", "matrix.csv", "ratings.csv", "heatmap.png")
"""The files an evaluation writes in its folder (``overwrite`` replaces these, nothing else)."""

DEFAULT_SETTINGS = {"agents": ["heuristic", "random"], "games": 2000, "seed": 0}
"""An ``eval:`` section's keys (a game's config file) and their defaults."""


def default_output(env_id: str) -> Path:
    """A new timestamped folder ``runs/eval/<env_id>/<YYYYmmdd-HHMMSS>`` (numbered when taken;
    not created: :func:`tardis_envs.outputs.claim_folder` claims it when the results are saved)."""
    return unused_path(Path("runs") / "eval" / env_id / time.strftime("%Y%m%d-%H%M%S"))


def results_in(folder: str | Path) -> list[str]:
    """The names of an evaluation's results (:data:`EVAL_FILES`) that ``folder`` holds."""
    folder = Path(folder)
    return [p.name for p in folder.iterdir() if p.name in EVAL_FILES] if folder.is_dir() else []


def check_output(
    out: str | Path | None = None,
    json_path: str | Path | None = None,
    overwrite: bool = False,
    env_id: str = "",
    names: tuple[str, str, str] = ("out", "json_path", "overwrite=True"),
) -> Path:
    """Refuse unusable output places before any game is played (results are never lost to a
    bad path after a long evaluation): ``out`` must be a writable folder that holds no earlier
    results, and ``json_path`` a writable file that does not exist, unless ``overwrite``.
    Returns the folder to save in: ``out``, else :func:`default_output` of ``env_id``.
    ``names`` are the words the errors use for the three (the command line's flags)."""
    if json_path:
        check_writable(json_path, names[1])
        if Path(json_path).exists() and not overwrite:
            raise ValueError(f"{names[1]} {str(json_path)!r} already exists; use {names[2]} to replace it, or another file name")
    if out:
        folder = check_writable(out, names[0], kind="folder")
        ours = results_in(folder)
        if ours and not overwrite:
            raise ValueError(
                f"{names[0]} {str(out)!r} already holds results ({ours[0]}); use {names[2]} to replace them, or another folder"
            )
        return folder
    return check_writable(default_output(env_id), f"{names[0]} (default runs/eval/<env_id>/<time>)", kind="folder")


def check_replays(folder: str | Path, overwrite: bool = False, flag: str = "replays") -> Path:
    """Refuse a replay folder before any game: it must be a writable folder holding no replay
    files of an earlier evaluation (in it or one level down) unless ``overwrite``, which
    replaces the files of the same names and leaves every other file where it is."""
    from tardis_envs.replay import SUFFIX

    path = check_writable(folder, flag, kind="folder")
    if path.is_dir() and not overwrite:
        earlier = next((p for pattern in (f"*{SUFFIX}", f"*/*{SUFFIX}") for p in path.glob(pattern)), None)
        if earlier is not None:
            raise ValueError(
                f"{flag} {str(folder)!r} already holds replays ({earlier.relative_to(path)}); "
                "use overwrite to replace them, or another folder"
            )
    return path


class ReplayWriter:
    """Writes the replay file of each finished game of an evaluation (all of them, or ``sample``
    per match spread evenly), as the games end: ``folder/game-000123.replay.json.gz`` for a
    match, one sub-folder per pair (``a-vs-b``) in a round robin and per agent in a team
    evaluation. ``specs`` maps the match's agent names to the agent specs a replay records."""

    def __init__(self, folder: Path, options: dict, specs: dict[str, str], sample: int | None, by_match: bool):
        self.folder = folder
        self.options = options
        self.specs = specs
        self.sample = sample
        self.by_match = by_match
        self.written = 0

    def where(self, names: list[str]) -> Path:
        from tardis_envs.replay import folder_label

        if not self.by_match:
            return self.folder
        first = names[0]
        other = next((n for n in names[1:] if n.split("#")[0] != first.split("#")[0]), None)
        return self.folder / folder_label(first if other is None else f"{first}-vs-{other}")

    def __call__(self, played) -> None:
        from tardis_envs.replay import file_name, record, sample_indices

        keep = set(sample_indices(played.match_games, self.sample).tolist())
        folder = self.where(played.agent_names)
        for k, g in enumerate(played.games.tolist()):
            if g not in keep:
                continue
            agents = [self.specs.get(played.agent_names[a], played.agent_names[a].split("#")[0]) for a in played.seats[k]]
            replay = record(played.env_id, int(played.seeds[k]), played.actions[k], agents, self.options)
            if not np.allclose(replay.rewards, played.rewards[k]):
                raise RuntimeError(
                    f"{played.env_id}: the replay of game {g} ends with {replay.rewards}, the match saw {played.rewards[k].tolist()}"
                )
            replay.save(folder / file_name(g))
            self.written += 1


def json_safe(value: Any) -> Any:
    """``value`` with NaN (the win rate of no games, after an early Ctrl-C) as null: strict JSON."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def agent_label(name: str) -> str:
    """A short label of an agent spec: ``ppo:runs/x/checkpoints/best.zip`` -> ``ppo:x/best``
    (the same for ``rllib:`` folders and ``az:`` checkpoints, whose settings stay:
    ``az:runs/x/checkpoints/best.zip:sims=64`` -> ``az:x/best:sims=64``); other specs as they are."""
    kind, _, where = name.partition(":")
    settings = ""
    if kind == "az":
        where, colon, rest = where.partition(":")
        settings = colon + rest
    if kind not in ("ppo", "rllib", "az") or "/" not in where:  # baseline, a bare file name
        return name
    path = Path(where.rstrip("/"))
    return f"{kind}:{path.parent.parent.name}/{path.stem}{settings}"


def distinct_names(names: Sequence[str]) -> list[str]:
    """The agents' names, a repeated one numbered (``random``, ``random#2``): one record each."""
    used: set[str] = set()
    distinct = []
    for name in names:
        base, k, candidate = name.split("#")[0], 1, name
        while candidate in used:
            k += 1
            candidate = f"{base}#{k}"
        used.add(candidate)
        distinct.append(candidate)
    return distinct


@dataclass
class Evaluation:
    """The outcome of :func:`evaluate`: ``kind`` (``match``, ``team`` or ``round_robin``),
    ``payload`` (what ``results.json`` holds), ``table`` (the printed summary), the kind's
    text files by name, and the tournament's own ``result`` object."""

    kind: str
    env_id: str
    payload: dict
    table: str
    texts: dict[str, str] = field(default_factory=dict)
    result: Any = None
    replays: ReplayWriter | None = None

    @property
    def partial(self) -> bool:
        """Whether Ctrl-C ended the games early (the finished ones are kept)."""
        return bool(self.payload.get("partial"))

    def save(self, out: str | Path, json_path: str | Path | None = None, overwrite: bool = False) -> list[Path]:
        """Write the results into the folder ``out`` (and ``results.json`` also to ``json_path``);
        returns where each file went. A file that cannot be written there goes to the working
        directory (:func:`tardis_envs.outputs.write_with_fallback`). With ``overwrite``, files of
        an earlier evaluation in ``out`` that this one does not write are removed (only
        :data:`EVAL_FILES`); without it, a folder holding results is refused."""
        out = Path(out)
        if not overwrite:
            check_output(out, json_path, env_id=self.env_id)
        else:
            written = {*self.texts, "results.json", *(ROUND_ROBIN_FILES if self.kind == "round_robin" else ())}
            for name in EVAL_FILES:
                if name not in written and (out / name).is_file():
                    (out / name).unlink()
        saved = []
        if self.kind == "round_robin":
            from .tournament import save_round_robin

            saved += save_round_robin(self.result, out)
        data = json.dumps(json_safe(self.payload), indent=2, allow_nan=False)
        saved += [write_with_fallback(out / name, lambda p, text=text: p.write_text(text)) for name, text in self.texts.items()]
        saved.append(write_with_fallback(out / "results.json", lambda p: p.write_text(data)))
        if json_path:
            saved.append(write_with_fallback(Path(json_path), lambda p: p.write_text(data)))
        return saved


ROUND_ROBIN_FILES = ("results.md", "matrix.csv", "ratings.csv", "heatmap.png")


def evaluate(
    env_id: str,
    agents: Sequence[str],
    games: int = 2000,
    seed: int = 0,
    options: dict | None = None,
    partner: str | None = None,
    progress: Callable[[str], None] | None = None,
    replays: str | Path | None = None,
    replays_sample: int | None = None,
    overwrite_replays: bool = False,
) -> Evaluation:
    """Play ``agents`` (agent specs, :func:`agents.make_agent`) in seat-swapped games of
    ``env_id`` under the rule ``options``: a match of two, a round robin of three or more, or
    in a cooperative game each beside ``partner`` team-mates (default ``heuristic``). Game g
    uses seed ``seed + g``. ``progress`` receives one-line reports (the header, games done,
    notes); none by default. ``replays`` names a folder that receives a replay file of every
    game (:mod:`tardis_envs.replay`), or of ``replays_sample`` games per match spread evenly;
    a folder holding earlier replays is refused unless ``overwrite_replays``. Refuses bad
    settings with a ``ValueError`` before any game."""
    from tardis_envs.core.rng import check_seed

    check_env_id(env_id)
    check_seed(seed)
    say = progress or (lambda text: None)
    names = [n.strip() for n in agents]
    if games < 2:
        raise ValueError(f"games must be at least 2, got {games}")
    if replays_sample is not None:
        if replays is None:
            raise ValueError("replays_sample needs a replays folder")
        if isinstance(replays_sample, bool) or not isinstance(replays_sample, int) or replays_sample < 1:
            raise ValueError(f"replays_sample must be a positive integer, got {replays_sample!r}")
    folder = check_replays(replays, overwrite_replays) if replays is not None else None
    options = dict(options or {})
    game = env_module(env_id).Game(**options)
    writer = (lambda specs, by_match: ReplayWriter(folder, options, specs, replays_sample, by_match)) if folder else None
    if game.spec.cooperative:
        evaluation = _team(env_id, names, games, seed, options, game, partner or "heuristic", say, writer)
    elif partner is not None:
        raise ValueError(f"a partner names the team-mates of a cooperative game; {env_id} is competitive: name every agent")
    elif len(names) < 2:
        raise ValueError(f"an evaluation of {env_id} needs at least 2 agents (e.g. heuristic,random); got {len(names)}: {names}")
    elif len(names) > 2:
        evaluation = _round_robin(env_id, names, games, seed, options, game, say, writer)
    else:
        evaluation = _match(env_id, names, games, seed, options, game, say, writer)
    if evaluation.replays is not None:
        evaluation.payload["replays"] = {"folder": str(folder), "files": evaluation.replays.written}
    return evaluation


def _note_other_rules(game: Any, agents: list, names: list[str], say: Callable[[str], None]) -> None:
    """A learned agent playing under other rule options than it was trained on (a 2-player
    Keys baseline at a 3-4 player table) plays all the same: say so."""
    from .checkpoint import option_differences

    for agent, name in zip(agents, names):
        meta = getattr(agent, "meta", None)
        if meta is None:
            continue
        differing = option_differences(meta.get("options") or {}, game.options, rules_only=True, spec=game.spec)
        if differing:
            say(f"note: {name} was trained under other rule options ({differing}); it plays this game all the same")


def games_progress(what: str, say: Callable[[str], None], every: float = 10.0) -> Callable[[int, int], None]:
    """A ``play_match`` progress callback: games done, rate and time left, at most every
    ``every`` seconds (and at the end), as lines to ``say``."""
    started = time.perf_counter()
    shown = [started]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - shown[0] < every:
            return
        shown[0] = now
        rate = done / max(now - started, 1e-9)
        left = f", about {(total - done) / rate / 60:.1f} min left" if done < total else ""
        say(f"  ... {what}{done:,}/{total:,} games ({rate:,.0f} games/s{left})")

    return progress


def _match(env_id, names, games, seed, options, game, say, writer) -> Evaluation:
    from . import make_agent
    from .tournament import MatchInterrupted, format_table, play_match

    players = game.num_players
    if players > 2:
        # one seat for the first agent, the others for copies of the second
        names = [names[0]] + [f"{names[1]}#{k}" if k > 1 else names[1] for k in range(1, players)]
    names = distinct_names(names)  # random,random: two agents with a record each
    if games % players:
        raise ValueError(f"games must be a multiple of {players} (seats are rotated evenly), got {games}")
    agents = [make_agent(name.split("#")[0], game, seed=seed + k) for k, name in enumerate(names)]
    labels = [agent_label(name) for name in names]
    replays = writer({label: name.split("#")[0] for label, name in zip(labels, names)}, False) if writer else None
    share = f"; a fair share is {100 / players:.1f}%" if players > 2 else ""
    say(f"{env_id}: {' vs '.join(labels)}, {players} players, {games:,} games, seats rotated evenly, seed {seed}{share}")
    _note_other_rules(game, agents, names, say)
    try:
        result = play_match(env_id, agents, labels, games, seed=seed, options=options, progress=games_progress("", say), on_games=replays)
    except MatchInterrupted as stop:
        result = stop.result
    by_seat = {k: {seat: result.record(k, s) for s, seat in enumerate(result.seat_names)} for k in range(len(names))}
    table = format_table(result)
    rows = ["agent,seat,games,wins,draws,losses,win_rate,ci_low,ci_high"]
    for k, label in enumerate(labels):
        for seat, rec in [("all", result.record(k)), *by_seat[k].items()]:
            rows.append(
                f"{label},{seat},{rec['games']},{rec['wins']},{rec['draws']},{rec['losses']},"
                f"{rec['win_rate']:.4f},{rec['ci_low']:.4f},{rec['ci_high']:.4f}"
            )
    payload = {
        "kind": "match",
        "env_id": env_id,
        "agents": names,
        "games": games,
        "games_played": result.num_games,
        "partial": result.partial,
        "seed": seed,
        "options": options,
        "records": {n: result.record(k) for k, n in enumerate(names)},
        "records_by_seat": {n: by_seat[k] for k, n in enumerate(names)},
    }
    texts = {"match.csv": "\n".join(rows) + "\n", "results.md": "```\n" + table + "\n```\n"}
    return Evaluation("match", env_id, payload, table, texts, result, replays)


def _team(env_id, names, games, seed, options, game, partner_name, say, writer) -> Evaluation:
    """A cooperative game: each agent's team win rate with the partner agent in the other seats."""
    from . import make_agent
    from .tournament import MatchInterrupted, format_team_table, team_match

    players = game.num_players
    if games % players:
        raise ValueError(f"games must be a multiple of {players} (seats are rotated evenly), got {games}")
    partner = make_agent(partner_name, game, seed=seed + 99)
    labels = {name: agent_label(name) for name in names}
    specs = {label: name for name, label in labels.items()} | {partner_name: partner_name}
    replays = writer(specs, True) if writer else None
    say(
        f"{env_id}: team win rate of {', '.join(labels.values())} in one seat, {partner_name} in the other "
        f"{players - 1} seat(s); {games:,} games each, {players} players, seats rotated evenly, seed {seed}"
    )
    results = {}
    partial = False
    for k, name in enumerate(names):
        agent = make_agent(name, game, seed=seed + k)
        _note_other_rules(game, [agent], [name], say)
        try:
            results[name] = team_match(
                env_id,
                agent,
                partner,
                (labels[name], partner_name),
                games,
                seed=seed,
                options=options,
                progress=games_progress(f"{labels[name]}: ", say),
                on_games=replays,
            )
        except MatchInterrupted as stop:
            results[name], partial = stop.result, True
        rec = results[name].team_record(0)
        say(f"  {labels[name]}: {rec['wins']}/{rec['games']} team wins")
        if partial:
            break
    table = format_team_table({labels[n]: r for n, r in results.items()}, partner_name)
    records = {n: r.team_record(0) for n, r in results.items()}
    rows = ["agent,partner,games,team_wins,truncated,losses,win_rate,ci_low,ci_high"]
    rows += [
        f"{labels[n]},{partner_name},{r['games']},{r['wins']},{r['draws']},{r['losses']},{r['win_rate']:.4f},{r['ci_low']:.4f},{r['ci_high']:.4f}"
        for n, r in records.items()
    ]
    payload = {
        "kind": "team",
        "env_id": env_id,
        "agents": names,
        "partner": partner_name,
        "games": games,
        "partial": partial,
        "seed": seed,
        "options": options,
        "team_records": records,
    }
    note = "PARTIAL: interrupted; agents after the last row were not played\n\n" if partial else ""
    texts = {"team.csv": "\n".join(rows) + "\n", "results.md": note + "```\n" + table + "\n```\n"}
    return Evaluation("team", env_id, payload, table, texts, results, replays)


def _round_robin(env_id, names, games, seed, options, game, say, writer) -> Evaluation:
    from . import make_agent
    from .tournament import MatchInterrupted, format_round_robin, round_robin

    if len(set(names)) != len(names):
        raise ValueError(f"agents must differ in a round robin: {names}")
    agents = [make_agent(name, game, seed=seed + k) for k, name in enumerate(names)]
    labels = [agent_label(name) for name in names]
    if len(set(labels)) != len(labels):
        labels = names
    pairs = len(names) * (len(names) - 1) // 2
    replays = writer(dict(zip(labels, names)), True) if writer else None
    say(
        f"{env_id}: round robin of {', '.join(labels)}; {games:,} games per pair ({pairs} pairs), "
        f"{game.num_players} players, seats rotated evenly, seed {seed}"
    )
    _note_other_rules(game, agents, names, say)
    try:
        rr = round_robin(env_id, agents, labels, games, seed=seed, options=options, progress=lambda t: say("  " + t), on_games=replays)
    except MatchInterrupted as stop:
        rr = stop.result
    payload = {
        "kind": "round_robin",
        "env_id": env_id,
        "agents": names,
        "labels": labels,
        "games_per_pair": games,
        "partial": rr.partial,
        "seed": seed,
        "options": options,
        "pairs": [{"agent": labels[i], "opponent": labels[j], **rec} for (i, j), rec in sorted(rr.matches.items())],
        "ratings": {label: float(r) for label, r in zip(labels, rr.ratings)},
    }
    return Evaluation("round_robin", env_id, payload, format_round_robin(rr), {}, rr, replays)

"""The ``tardis-envs`` command line: ``list``, ``train``, ``eval``, ``replay``, ``play``, ``serve``, ``bench``, ``perft``.

Each verb reads the game's YAML under ``configs/`` (``configs/<game>/default.yaml``
when run from the project root, or ``--config FILE``); flags override it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from . import ENV_IDS, __version__, check_env_id, env_module, short_name
from .core.options import load_config
from .core.rng import check_seed as seed_accepted
from .outputs import check_writable, claim_folder, write_with_fallback

# argparse prints the description as it is: plain text, none of the docstring's markup
DESCRIPTION = "The tardis-envs command line: list the games, train and evaluate agents, play in the terminal, bench and perft."


def default_config_path(env_id: str) -> Path | None:
    """``configs/<game>/default.yaml`` (``<game>``: :func:`tardis_envs.short_name`) of the
    working folder, else the copy shipped in the package."""
    relative = Path(short_name(env_id)) / "default.yaml"
    candidate = Path("configs") / relative
    if candidate.exists():
        return candidate
    try:
        from importlib.resources import files

        shipped = files("tardis_envs.configs").joinpath(relative.as_posix())  # one argument: Python 3.11's namespace paths take one
        if shipped.is_file():
            return Path(str(shipped))
    except (ModuleNotFoundError, FileNotFoundError):  # a source tree without the mapping
        pass
    source = Path(__file__).resolve().parents[1] / "configs" / relative
    return source if source.exists() else None


def _config(env_id: str, path: str | None) -> dict:
    if path is None:
        found = default_config_path(env_id)
        if found is None:
            return {"options": {}}
        path = str(found)
    data = load_config(path)
    if data.get("env_id") not in (None, env_id):
        raise ValueError(f"config file {path!r} is for {data['env_id']!r}, not {env_id!r}")
    return data


def cmd_list(args: argparse.Namespace) -> int:
    print(f"tardis_envs {__version__}")
    for env_id in ENV_IDS:
        spec = env_module(env_id).SPEC
        players = f"{spec.min_players}" if spec.min_players == spec.max_players else f"{spec.min_players}-{spec.max_players}"
        print(f"  {env_id:<26} {spec.name} ({players} players, {spec.status})")
    return 0


def check_seed(seed: int | None) -> None:
    """Refuse a bad ``--seed`` before any work, by the generators' own rule
    (:func:`tardis_envs.core.rng.check_seed`), in words that name the flag."""
    try:
        seed_accepted(seed)
    except ValueError:
        raise ValueError(f"--seed must be an integer >= 0, got {seed}") from None


def _say(text: str) -> None:
    print(text, flush=True)


def cmd_eval(args: argparse.Namespace) -> int:
    from agents.evaluation import DEFAULT_SETTINGS, check_output, check_replays, evaluate, results_in

    from .bench import aec_steps_per_second, batched_steps_per_second

    check_env_id(args.env_id)
    check_seed(args.seed)
    out = check_output(args.out, args.json, args.overwrite, args.env_id, names=("--out", "--json", "--overwrite"))
    if args.replays_sample is not None and args.replays is None:
        raise ValueError("--replays-sample needs --replays DIR")
    if args.replays is not None:
        check_replays(args.replays, args.overwrite, "--replays")
    config = _config(args.env_id, args.config)
    settings = {**DEFAULT_SETTINGS, **(config.get("eval") or {})}
    unknown = sorted(set(settings) - set(DEFAULT_SETTINGS))
    if unknown:
        raise ValueError(f"eval settings: unknown key {unknown[0]!r}; allowed: {', '.join(DEFAULT_SETTINGS)}")
    names = [n.strip() for n in args.agents.split(",")] if args.agents else list(settings["agents"])
    games = args.games if args.games is not None else int(settings["games"])
    seed = args.seed if args.seed is not None else int(settings["seed"])
    check_seed(seed)
    options = dict(config["options"])
    if args.num_players is not None:
        options["num_players"] = args.num_players
    evaluation = evaluate(
        args.env_id,
        names,
        games,
        seed=seed,
        options=options,
        partner=args.partner,
        progress=_say,
        replays=args.replays,
        replays_sample=args.replays_sample,
        overwrite_replays=args.overwrite,
    )
    print(evaluation.table)
    if evaluation.replays is not None:
        print(f"replays: {evaluation.replays.written:,} games in {args.replays} (tardis-envs replay <file> shows one)")
    try:
        if args.out is None:
            out = claim_folder(out)  # its own folder, even when another evaluation started in the same second
        elif not args.overwrite and results_in(out):
            taken = out
            out = claim_folder(out)
            print(
                f"--out {str(taken)!r} received another evaluation's results while this one played; saving to {str(out)!r}", file=sys.stderr
            )
    except OSError:
        pass  # the folder cannot be made now: save() writes its files to the working folder instead
    saved = evaluation.save(out, args.json, overwrite=True)  # the folder was checked before the games, and is ours
    print("saved: " + ", ".join(str(p) for p in saved), flush=True)
    if evaluation.partial:
        print("interrupted: the finished games are saved, marked partial", file=sys.stderr)
        return 130
    if evaluation.kind == "match" and not args.no_throughput:
        aec = aec_steps_per_second(args.env_id, seconds=1.5, **options)
        batched = batched_steps_per_second(args.env_id, num_envs=1024, seconds=1.5, **options)
        print(
            f"throughput: AEC {aec:,.0f} agent-steps/s (random legal play, env()); "
            f"batched {batched['median']:,.0f} steps/s (tardis_envs.vector, {batched['num_envs']} games, "
            f"{batched['threads']} threads)"
        )
    return 0


def run_record(path: Path, needed: bool) -> dict | None:
    """A run folder's ``config.yaml`` (``path``) read as a config (:func:`load_config`), or None
    where there is none. A file that is not the record a run writes (or cannot be read) is
    refused where the record is ``needed`` (no ``--config`` gives the settings), else passed over."""
    if not path.is_file():
        return None
    try:
        data = load_config(path)
        if "run" in data:
            return data
        problem = f"{str(path)!r} is not the record a run writes (its settings at the top level, with env_id and total_timesteps)"
    except ValueError as exc:
        problem = str(exc)
    if needed:
        raise ValueError(f"--resume: {problem}; give the run's settings with --config")
    return None


def take_recorded(args: argparse.Namespace, recorded: dict, config_path: str | None) -> None:
    """Fill ``train``'s ``--algo``, ``--backend`` and RLlib scale flags left out from
    ``recorded`` (the ``run`` of a run's own config.yaml, :func:`load_config`; empty for a config
    file), then from their defaults; an ``--algo`` other than the recorded one is refused."""
    if args.algo is not None and recorded and args.algo != recorded["algo"]:
        raise ValueError(
            f"config file {config_path!r} records a run of --algo {recorded['algo']}: give --algo {recorded['algo']} or leave it out"
        )
    args.algo = args.algo or recorded.get("algo", "ppo")
    args.backend = args.backend or recorded.get("backend", "sb3")
    for flag, default in (("num_env_runners", 1), ("num_envs_per_env_runner", 1), ("num_learners", 0)):
        if getattr(args, flag) is None:
            setattr(args, flag, recorded.get(flag, default) if recorded.get("backend") == args.backend == "rllib" else default)


def cmd_train(args: argparse.Namespace) -> int:
    from agents.alphazero import LEAF_SEARCHES
    from agents.checkpoint import CheckpointError
    from agents.training.config import TrainConfig
    from agents.training.train import Trainer, default_run_dir, setting_changes

    check_env_id(args.env_id)
    check_seed(args.seed)
    run_dir = Path(args.run_dir) if args.run_dir else default_run_dir(args.env_id)
    # a resumed run goes on with its algo, backend and scale, and without --config with the
    # settings it recorded
    record_path = run_dir / "config.yaml"
    record = run_record(record_path, needed=args.config is None) if args.resume else None
    config_path = args.config if args.config is not None or record is None else str(record_path)
    config_data = _config(args.env_id, config_path)
    if record is not None:
        other = config_data.get("run")  # --config names another run's record
        if other is not None and other["algo"] != record["run"]["algo"]:
            raise ValueError(
                f"--resume: config file {config_path!r} records a run of --algo {other['algo']}, the run in {str(run_dir)!r} is of "
                f"--algo {record['run']['algo']}"
            )
        take_recorded(args, record["run"], str(record_path))
    else:
        take_recorded(args, config_data.get("run") or {}, config_path)
    az = args.algo == "az"
    if az and args.backend != "sb3":
        raise ValueError("--algo az trains on this machine (its own backend): leave out --backend")
    if az and args.snapshot_every is not None:
        raise ValueError("--snapshot-every is for --algo ppo (az trains on pure self-play)")
    if not az and args.init_from is not None:
        raise ValueError("--init-from starts --algo az from another network (PPO's warm start is the config's bc_decisions)")
    # the config file's train: section holds PPO's settings, its az: section az's
    train = dict(config_data.get("az" if az else "train") or {})
    train.setdefault("env_id", args.env_id)
    train.setdefault("options", dict(config_data["options"]))
    if train["env_id"] != args.env_id:
        raise ValueError(f"train config is for {train['env_id']!r}, not {args.env_id!r}")
    for flag, key in (
        ("timesteps", "total_timesteps"),
        ("minutes", "max_minutes"),
        ("seed", "seed"),
        ("num_envs", "num_envs"),
        ("eval_every", "eval_every"),
        ("eval_games", "eval_games"),
        ("snapshot_every", "snapshot_every"),
        ("init_from", "init_from"),
    ):
        value = getattr(args, flag)
        if value is not None:
            train[key] = value
    where = f"train settings of {config_path or args.env_id}"
    leaf = az and train.get("search") in LEAF_SEARCHES  # a search over a learned leaf table: its rounds are fitted
    if leaf:
        for flag, words in (("timesteps", "'rounds' and 'games' in the config"), ("eval_every", "an evaluation after every round")):
            if getattr(args, flag) is not None:
                raise ValueError(
                    f"--{flag.replace('_', '-')} is not a setting of a leaf-table run (search {train['search']}): it has {words}"
                )
    if az:
        from agents.training.az_train import az_config

        config: Any = az_config(train, where=where)
    else:
        config = TrainConfig.from_dict(train, where=where)
    if args.minutes is not None and not args.minutes > 0:
        raise ValueError(f"--minutes must be positive, got {args.minutes} (leave it out for no time limit)")
    players = env_module(args.env_id).Game(**config.options).num_players
    if config.eval_games % players:
        source = f"--eval-games {config.eval_games}" if args.eval_games is not None else f"eval_games {config.eval_games} (config)"
        lower = max(config.eval_games - config.eval_games % players, players)
        upper = config.eval_games + players - config.eval_games % players
        raise ValueError(
            f"{source} is not a multiple of the {players} players (seats are rotated evenly); use {lower} or {upper}"
            if lower != upper
            else f"{source} must be at least {players}"
        )
    rllib = args.backend == "rllib"
    if az and (args.num_envs_per_env_runner != 1 or args.num_learners != 0):
        raise ValueError(
            "--num-envs-per-env-runner and --num-learners are for --backend rllib (az: --num-envs games in each self-play worker)"
        )
    if az and args.num_env_runners != 1 and not args.address:
        raise ValueError("--num-env-runners with --algo az sets the self-play workers on a Ray cluster: give its --address")
    if az and args.num_env_runners < 1:
        raise ValueError(f"--num-env-runners must be at least 1 with --algo az, got {args.num_env_runners}")
    if not rllib and not az and (args.address or args.num_env_runners != 1 or args.num_envs_per_env_runner != 1 or args.num_learners != 0):
        raise ValueError("--address, --num-env-runners, --num-envs-per-env-runner and --num-learners need --backend rllib (or --algo az)")
    folder_rules = {"resume": args.resume, "overwrite": args.overwrite, "progress": not args.no_progress}
    try:
        if rllib:
            try:
                from agents.training.rllib_train import RLlibTrainer
            except ImportError as exc:
                raise ValueError(f"--backend rllib needs Ray RLlib: pip install -e '.[distributed]' ({exc})") from None
            trainer: Any = RLlibTrainer(
                config,
                run_dir,
                **folder_rules,
                address=args.address,
                num_env_runners=args.num_env_runners,
                num_envs_per_env_runner=args.num_envs_per_env_runner,
                num_learners=args.num_learners,
            )
        elif leaf:
            from agents.training.leaf_table import LeafTableTrainer

            if args.address or args.num_env_runners != 1:
                raise ValueError("--address and --num-env-runners are for self-play workers; a leaf-table run plays on this machine")
            trainer = LeafTableTrainer(config, run_dir, **folder_rules)
        elif args.algo == "az":
            from agents.training.az_train import AZTrainer

            trainer = AZTrainer(config, run_dir, **folder_rules, address=args.address, workers=args.num_env_runners)
        else:
            trainer = Trainer(config, run_dir, **folder_rules)
        if trainer.kept:
            print(f"--overwrite: removed the old run's files; kept what the run did not write: {', '.join(p.name for p in trainer.kept)}")
        if leaf:
            budget = f"{config.rounds} round{'s' * (config.rounds != 1)} of {config.games:,} games, a table for search {config.search}"
        else:
            budget = f"{config.total_timesteps:,} {'self-play decisions' if az else 'learner steps'}"
        print(
            f"training {args.env_id} -> {run_dir} ({budget}"
            + (f", at most {config.max_minutes:g} min" if config.max_minutes else "")
            + ")",
            flush=True,
        )
        if args.resume:
            scale = {key: getattr(args, key) for key in ("num_env_runners", "num_envs_per_env_runner", "num_learners")}
            changes = setting_changes(run_dir, {**config.to_dict(), **(scale if rllib else {})})
            if changes:
                listed = "; ".join(f"{key} {before!r} -> {now!r}" for key, before, now in changes)
                print(f"--resume: settings other than the run's config.yaml (which records them once the run goes on): {listed}")
        stats = trainer.run()
    except CheckpointError as exc:
        raise ValueError(str(exc)) from None
    if leaf:
        rounds = f"{stats['rounds']} round{'s' * (stats['rounds'] != 1)}"
        print(f"done: {rounds}, {stats['num_timesteps']:,} games and {stats['positions']:,} positions in {stats['seconds']:.0f} s")
    elif az:
        print(
            f"done: {stats['num_timesteps']:,} self-play decisions in {stats['seconds']:.0f} s, "
            f"{stats['learner_steps_per_second']:,.0f} decisions/s, {stats['learner_samples']:,} learner samples"
        )
    else:
        print(
            f"done: {stats['num_timesteps']:,} learner steps in {stats['seconds']:.0f} s, "
            f"{stats['learner_steps_per_second']:,.0f} learner steps/s ({stats['env_steps_per_second']:,.0f} env steps/s)"
        )
    width = max([10, *map(len, stats["final"])])  # the opponents' rates in one column
    for name, rec in stats["final"].items():
        print(
            f"  {trainer.relation} {name:<{width}} {100 * rec['win_rate']:5.1f}% [{100 * rec['ci_low']:.1f}%, {100 * rec['ci_high']:.1f}%] over {rec['games']} games"
        )
    names = (
        "best/, last/ (eval --agents rllib:<folder>)"
        if rllib
        else "best.zip, last.zip" + (" (eval --agents az:<file>)" if args.algo == "az" else "")
    )
    print(f"checkpoints: {run_dir / 'checkpoints'} ({names}); report: {run_dir / 'summary.md'}, {run_dir / 'winrate.png'}")
    return 0


PLAY_COMMANDS = "type the number on the left of an action (or its words); '?' or 'help' explains the actions; 'q' quits"


def _play_options(args: argparse.Namespace) -> dict:
    options = dict(_config(args.env_id, args.config)["options"])
    if args.num_players is not None:
        spec = env_module(args.env_id).SPEC
        if not spec.min_players <= args.num_players <= spec.max_players:
            allowed = f"{spec.min_players}" if spec.min_players == spec.max_players else f"{spec.min_players}-{spec.max_players}"
            raise ValueError(f"--num-players {args.num_players}: {args.env_id} is for {allowed} players")
        if spec.min_players != spec.max_players:
            options["num_players"] = args.num_players
    return options


def _say_if_compiling(env_id: str) -> None:
    from .core.jit import kernels_cached

    if not kernels_cached(sys.modules[env_module(env_id).Game.__module__].__file__):
        seconds = env_module(env_id).SPEC.first_run_seconds
        about = f" (about {seconds} s on 2 cores)" if seconds else ""
        print(f"compiling {env_id}'s kernels, first run only{about}; later runs start in a second ...", file=sys.stderr, flush=True)


def cmd_play(args: argparse.Namespace) -> int:
    """Play in the terminal against an agent: type an action number or its name."""
    from agents import make_agent

    check_env_id(args.env_id)
    options = _play_options(args)
    _say_if_compiling(args.env_id)
    env = env_module(args.env_id).env(render_mode="ansi", illegal_action="raise", **options)
    env.reset(seed=args.seed)
    raw = env.unwrapped
    seats = len(raw.possible_agents)
    if not 0 <= args.seat < seats:
        raise ValueError(
            f"--seat {args.seat} is not a seat of {args.env_id}: choose 0..{seats - 1} "
            f"({', '.join(f'{k} {name}' for k, name in enumerate(raw.possible_agents))})"
        )
    opponent = make_agent(args.opponent, raw.game, seed=args.seed)
    human = raw.possible_agents[args.seat]
    drawing = raw.game.drawing
    hidden = raw.game.spec.simultaneous  # a committed choice stays hidden until both have chosen
    others = "your team-mates" if raw.game.spec.cooperative else ("your opponent" if seats == 2 else "your opponents")
    print(f"You play {human} (seat {args.seat}); {args.opponent} plays {others}. To act, {PLAY_COMMANDS}.")
    final = {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = float(reward)  # each agent's cumulative reward, read as it leaves
            env.step(None)
            continue
        if agent != human:
            action = opponent.act(env)
            print(f"{agent} has chosen (hidden until both have)" if hidden else f"{agent} plays: {raw.action_to_string(action)}")
            env.step(action)
            continue
        print(env.render())
        if hasattr(drawing, "seat_lines"):  # the human's own hand: the board shows every hand's size only
            print("\n".join(drawing.seat_lines(raw.game, raw.get_state(), args.seat)))
        legal = raw.legal_actions()
        print("Your actions (type the number on the left):")
        for a in legal:
            print(f"  {a:>3}: {raw.action_to_string(a)}")
        while True:
            try:
                text = input("> ").strip()
            except EOFError:
                return 0
            if text.lower() in ("q", "quit"):
                return 0
            if text.lower() in ("?", "h", "help"):
                print(getattr(drawing, "PLAY_HELP", "The actions are listed above in the game's own words."))
                print(f"To act, {PLAY_COMMANDS}.")
                continue
            if not text:  # an empty line asks again, without an error
                print(f"  {PLAY_COMMANDS}")
                continue
            try:
                action = int(text) if text.isdigit() else raw.string_to_action(text)
                if action not in legal:
                    raise ValueError(f"{text!r} is not one of the actions listed above")
                break
            except ValueError as exc:
                print(f"  {exc} (type a number from the list; '?' explains the actions)")
        before = raw.get_state()
        env.step(action)
        chance = raw.game.chance_words(raw.get_state())
        if chance and not np.array_equal(before, raw.get_state()):
            print(f"  your roll: {chance}")
    print(env.render())
    print(f"Final rewards: {final}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Re-run a replay file, check it, and print the game (``--step``: one move per Enter)."""
    from .replay import Replay, play_back

    replay = Replay.load(args.file)
    _say_if_compiling(replay.env_id)
    playback = play_back(replay, source=f"replay {args.file!r}")
    game = playback.game
    seats = game.agent_names
    who = ", ".join(f"{seat}: {agent}" for seat, agent in zip(seats, replay.agents)) if replay.agents else "agents not recorded"
    options = f", options {replay.options}" if replay.options else ""
    print(f"{replay.env_id}, seed {replay.seed}{options}; {who} (recorded by tardis-envs {replay.version})")
    states = playback.states()
    before = next(states)
    for k, after in enumerate(states):
        if args.step:
            print(game.render_ansi(before))
        chance = game.chance_words(after) if playback.chance[k + 1] else None
        print(f"{k + 1:>5}. {seats[playback.movers[k]]}: {playback.notation(k, before)}" + (f"   ({chance})" if chance else ""))
        before = after
        if args.step:
            try:
                if input("Enter: next move, q: stop > ").strip().lower() in ("q", "quit"):
                    return 0
            except EOFError:
                return 0
    print(game.render_ansi(playback.final))
    rewards = ", ".join(f"{seat} {r:+g}" for seat, r in zip(seats, replay.rewards))
    draws = sum(len(c) for c in replay.chance)
    print(f"result: {rewards} ({replay.status} after {len(replay.actions)} decisions)")
    print(f"verified: every action legal, {draws:,} chance outcomes as recorded, final-state digest {replay.digest} matches")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The web app on ``--host``:``--port`` until Ctrl-C."""
    try:
        from .web import LOOPBACK, create_app, serve
    except ImportError as exc:  # pragma: no cover - the extra is part of dev
        raise ValueError(f"tardis-envs serve needs the web extra: pip install -e '.[web]' ({exc})") from None
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    if args.max_games < 1:
        raise ValueError(f"--max-games must be at least 1, got {args.max_games}")
    create_app(args.replays or ())  # refuses a --replays that is not a folder before the server starts
    if args.host not in LOOPBACK:
        print(f"warning: --host {args.host} serves the games to other machines; the app has no login", file=sys.stderr)
    print(f"tardis-envs serve: http://{args.host}:{args.port}/  (Ctrl-C stops it)", flush=True)
    serve(args.host, args.port, args.replays or (), max_open=args.max_games, idle_seconds=60 * args.idle_minutes)
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    from .bench import PERFT_POSITIONS, check_timing, format_perft, perft_suite

    positions = PERFT_POSITIONS
    check_timing(args.seconds, args.repeats)
    if args.depth is not None and args.depth < 1:
        raise ValueError(f"--depth must be at least 1, got {args.depth}")
    if args.depth is not None and args.depth > 6:
        print(
            f"warning: perft depth {args.depth} counts billions of nodes on the standard positions and may run for hours; "
            "depths 1-5 take seconds to minutes",
            file=sys.stderr,
            flush=True,
        )
    library = not args.no_library
    if library:
        try:
            import chess  # noqa: F401
        except ImportError:
            library = False
            print(
                "note: the chess library is not installed, so the counts are not checked against it and only our "
                "speed is shown (pip install chess, or pip install -e '.[bench]')",
                file=sys.stderr,
                flush=True,
            )
    if args.fen:
        known = {name: fen for name, fen, _ in PERFT_POSITIONS}
        fen = known.get(args.fen, args.fen)
        positions = ((args.fen if args.fen in known else "custom", fen, args.depth or 3),)
    elif args.depth:
        positions = tuple((name, fen, args.depth) for name, fen, _ in PERFT_POSITIONS)
    if args.divide:
        from .timelord_chess_v1 import Game

        game = Game(doctor=False)
        for name, fen, depth in positions:
            state = game.from_fen(fen)
            total = 0
            for action, uci in sorted(game.legal_uci(state).items(), key=lambda item: item[1]):
                child = state.copy()
                game.kernels.step(child, game.tables, action)
                count = game.perft(child, depth - 1)
                total += count
                print(f"{uci}: {count}")
            print(f"{name} depth {depth}: {total} nodes")
        return 0
    table = perft_suite(seconds=args.seconds, repeats=args.repeats, positions=positions, library=library)
    print("\n".join(format_perft(table)))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import check_timing, compare, format_results, load_json, plot, run_suite

    ids = args.env_ids or list(ENV_IDS)
    for env_id in ids:
        check_env_id(env_id)
    # every setting and output path is checked before minutes of timing
    check_timing(args.seconds, args.repeats, args.threads, args.num_envs)
    if not math.isfinite(args.tolerance) or not 0 <= args.tolerance < 1:
        raise ValueError(f"--tolerance must be a fraction in [0, 1), got {args.tolerance!r}")
    for flag, path in (("--json", args.json), ("--png", args.png)):
        if path:
            check_writable(path, flag)
    old = load_json(args.compare) if args.compare else None
    results = run_suite(
        ids,
        seconds=args.seconds,
        repeats=args.repeats,
        sizes=args.num_envs,
        threads=args.threads,
        peers=not args.no_peers,
        compile=not args.no_compile,
        log=lambda text: print("  " + text, flush=True),
    )
    print()
    print(format_results(results))
    if args.json:
        saved = write_with_fallback(args.json, lambda path: path.write_text(json.dumps(results, indent=2)))
        print(f"saved {saved}")
    if args.png:
        saved = write_with_fallback(args.png, lambda path: plot(results, path))
        print(f"saved {saved}")
    if args.profile:
        from .bench import has_packed_planes, profile_batched

        print()
        print("where a batched step's time goes (8192 games, 2 threads), ns per game step:")
        for env_id in ids:
            dtypes = [("float32", "profile_ns"), ("compact", "profile_compact_ns")]
            if has_packed_planes(env_id):
                dtypes.append(("packed", "profile_packed_ns"))
            for obs_dtype, key in dtypes:
                prof = profile_batched(env_id, obs_dtype=obs_dtype)
                results["games"][env_id][key] = prof
                parts = ", ".join(f"{k} {prof[k]:.0f}" for k in ("step", "legal_mask", "observe", "sample_actions", "other"))
                print(f"  {env_id} ({obs_dtype}): total {prof['total']:.0f} ({prof['steps_per_second']:,.0f} steps/s) = {parts}")
        from .bench import format_memory_profile, memory_bandwidth, memory_profile

        bandwidth = memory_bandwidth(2)
        results["memory_bandwidth"] = bandwidth
        print()
        print(
            f"memory or computation (compact observations, packed too where a game has them, 2 threads; copy rate {bandwidth / 1e9:.1f} GB/s):"
        )
        for env_id in ids:
            prof = memory_profile(env_id, 2, bandwidth, large=results["games"][env_id]["profile_compact_ns"])
            results["games"][env_id]["memory_profile"] = prof
            print(format_memory_profile(env_id, prof))
            if "profile_packed_ns" in results["games"][env_id]:
                prof = memory_profile(env_id, 2, bandwidth, large=results["games"][env_id]["profile_packed_ns"], obs_dtype="packed")
                results["games"][env_id]["memory_profile_packed"] = prof
                print(format_memory_profile(env_id, prof))
        if args.json:
            write_with_fallback(args.json, lambda path: path.write_text(json.dumps(results, indent=2)))
    if old is not None:
        flagged = compare(results, old, tolerance=args.tolerance)
        if flagged:
            print(f"regressions against {args.compare} (more than {100 * args.tolerance:.0f}% slower):")
            for line in flagged:
                print("  " + line)
            return 1
        print(f"no regression against {args.compare} (tolerance {100 * args.tolerance:.0f}%)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tardis-envs", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"tardis_envs {__version__}")
    verbs = parser.add_subparsers(dest="verb", required=True)

    p = verbs.add_parser(
        "list", help="list the registered games", description="List every registered game: env id, name, players, status. No options."
    )
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser(
        "serve",
        help="play, watch and replay every game in the browser (the web extra)",
        description="A local web app: play any game against any agent (1-4 seats human or agent; a hot-seat game hides "
        "each human's hand from the others), watch agents play at a chosen speed, open replay files (uploaded, or "
        "from --replays folders) and step through them. Binds to 127.0.0.1.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--replays", action="append", metavar="DIR", help="a folder of replay files to list (repeatable; default: none)")
    p.add_argument("--max-games", type=int, default=64, help="games (and replay views) held at once (default 64)")
    p.add_argument(
        "--idle-minutes", type=float, default=30.0, help="an untouched game may be dropped after this long when room is needed (default 30)"
    )
    p.set_defaults(func=cmd_serve)

    p = verbs.add_parser(
        "replay",
        help="re-run a replay file, check it exactly, and print the game",
        description="Re-run a game saved by eval --replays (or the web app): every action must be legal, every chance "
        "draw must give the recorded outcome and the final state must match the recorded digest; then the moves are "
        "printed in the game's notation with the chance events, and the final position. A replay of another version "
        "of the env id is refused by name.",
    )
    p.add_argument("file", help="a replay file (game-000123.replay.json.gz)")
    p.add_argument("--step", action="store_true", help="show the position before each move and wait for Enter (q stops)")
    p.set_defaults(func=cmd_replay)

    p = verbs.add_parser(
        "eval",
        help="seat-swapped matches of agents with 95%% intervals (two agents, a round robin, or team-mates)",
        description="Evaluate agents in seat-swapped games with fixed seeds; every result carries its number of games and "
        "a 95% Wilson interval. Two agents: one match (with 3-4 players the first agent takes one seat and copies of "
        "the second the others). Three or more agents: a round robin, every pair plays --games games; a win-rate "
        "matrix, per-seat results and Bradley-Terry ratings. A cooperative game (Time of the Daleks): each agent "
        "in one seat beside --partner team-mates, its team's win rate. Every eval saves its results (results.json, "
        "results.md and CSV; a heat map for a round robin) in --out or a new timestamped folder. Ctrl-C stops it and "
        "saves the finished games, marked partial.",
    )
    p.add_argument("env_id", help="the game, e.g. tardis_run_v0 (tardis-envs list shows them all)")
    p.add_argument(
        "--agents",
        help="two or more agents, comma-separated: random, heuristic, heuristic:<preset>, "
        "ppo:<checkpoint.zip>, ppo:baseline (the shipped learned baseline), rllib:<checkpoint folder>, mcts:<simulations>, ismcts:<simulations>, "
        "az:<checkpoint.zip>, az:baseline (settings after colons: az:baseline:sims=64, :net for the network alone) "
        "(default from the config's eval: section, else heuristic,random; one agent is enough in a cooperative game)",
    )
    p.add_argument(
        "--games",
        type=int,
        help="games per match (per pair in a round robin, per agent in a cooperative game); a multiple of the player "
        "count; any number, played in chunks of 1000 (default from the config, else 2000)",
    )
    p.add_argument(
        "--seed", type=int, help="seed of the first game, an integer >= 0; game g uses seed + g (default from the config, else 0)"
    )
    p.add_argument("--config", help="YAML config: rule options and an eval: section (default configs/<game>/default.yaml if present)")
    p.add_argument("--num-players", type=int, help="override the num_players rule option (games for 2-4 players; default from the config)")
    p.add_argument("--json", help="also write results.json to this file (every kind of eval; default: only in the output folder)")
    p.add_argument("--no-throughput", action="store_true", help="skip the throughput line after a two-agent match")
    p.add_argument(
        "--out",
        help="folder for the results: results.json, results.md, match.csv / team.csv / matrix.csv, ratings.csv, heatmap.png "
        "(default a new folder runs/eval/<env_id>/<YYYYmmdd-HHMMSS>)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the results of an earlier eval in --out (or the --json file, or replays of the same names in --replays)",
    )
    p.add_argument(
        "--replays",
        metavar="DIR",
        help="save a replay file of every game in DIR (game-000123.replay.json.gz; a sub-folder per pair or agent in a "
        "round robin or team eval); watch one with tardis-envs replay (default: none)",
    )
    p.add_argument(
        "--replays-sample",
        metavar="N",
        type=int,
        help="with --replays: only N games per match, spread evenly over it (default: every game)",
    )
    p.add_argument(
        "--partner",
        help="cooperative games only (Time of the Daleks): the agent in the other seats (default heuristic); refused in competitive games",
    )
    p.set_defaults(func=cmd_eval)

    p = verbs.add_parser(
        "train",
        help="self-play PPO (MaskablePPO on the batched core, or Ray RLlib) or AlphaZero-style expert iteration (--algo az)",
        description="Self-play PPO against a pool of random, heuristic and snapshot opponents, or (--algo az) expert "
        "iteration: search guided by a network on the batched kernels, the network learning the search's improved policy "
        "and the games' outcomes. Evaluations against random and the heuristic with 95% intervals, checkpoints (last, best), "
        "eval.csv, TensorBoard logs, winrate.png and summary.md in the run folder. Settings: the train: section of the "
        "config (az: with --algo az; agents/training/config.py and az_train.py document every key), then these flags.",
    )
    p.add_argument("env_id", help="the game, e.g. tardis_run_v0 (tardis-envs list shows them all)")
    p.add_argument(
        "--config",
        help="YAML config with a train: (or az:) section, or a run's own config.yaml to run it again (default "
        "configs/<game>/default.yaml; with --resume, the run's config.yaml)",
    )
    p.add_argument(
        "--run-dir",
        help="run folder: a new or empty folder, or a run's folder with --resume / --overwrite (default runs/<env_id>)",
    )
    p.add_argument("--timesteps", type=int, help="total learner steps (az: self-play decisions; default from the config, else 2,000,000)")
    p.add_argument(
        "--minutes",
        type=float,
        help="wall-clock budget in minutes, counted from the trainer's start (after imports): model building, kernel "
        "loading, training, every evaluation, the final evaluation and the report (default from the config, else none)",
    )
    p.add_argument(
        "--seed", type=int, help="seed of the games, the seats, the opponents and torch, an integer >= 0 (default from the config, else 0)"
    )
    p.add_argument("--num-envs", type=int, help="games advanced together in the batched environment (default from the config, else 128)")
    p.add_argument(
        "--eval-every", type=int, help="learner steps between evaluations and checkpoints (default from the config, else 100,000)"
    )
    p.add_argument(
        "--eval-games",
        type=int,
        help="games per evaluation opponent, a multiple of the player count (default from the config, else 400)",
    )
    p.add_argument(
        "--snapshot-every",
        type=int,
        help="learner steps between frozen copies of the learner joining the opponent pool (default from the config, else 200,000)",
    )
    p.add_argument(
        "--init-from",
        metavar="CHECKPOINT",
        help="az: start from this az checkpoint's network (a .zip, or baseline for the shipped az:baseline), or copy a PPO "
        "policy's network (ppo:baseline or ppo:<.zip>; the config's az: section sets activation: tanh) instead of a new one",
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --run-dir from its last checkpoint")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="start over in a --run-dir that holds a run: deletes only the files a run writes there (a folder that is not a run's is refused)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--algo",
        choices=("ppo", "az"),
        help="ppo (default; a run's own config.yaml as --config, or --resume: the run's): MaskablePPO self-play; az: "
        "AlphaZero-style expert iteration (search guided by a network, the config's az: section; agents/training/az_train.py)",
    )
    p.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        help="sb3 (default; a run's own config.yaml, or --resume: the run's): MaskablePPO on the batched core; rllib: Ray "
        "RLlib PPO (pip install -e '.[distributed]')",
    )
    p.add_argument(
        "--address",
        help="rllib: join this Ray cluster (host:port of its head) instead of starting a local Ray; "
        "az: play self-play in Ray actors on this cluster, the learner here (without it az needs no Ray)",
    )
    p.add_argument(
        "--num-env-runners",
        type=int,
        help="rllib: sampling workers (default 1, or an RLlib run's record; 0 samples in the driver); az with --address: "
        "self-play actors (default 1)",
    )
    p.add_argument("--num-envs-per-env-runner", type=int, help="rllib: games per sampling worker (default 1, or the run's record)")
    p.add_argument("--num-learners", type=int, help="rllib: learner workers (default 0: learn in the driver; or the run's record)")
    p.set_defaults(func=cmd_train)

    p = verbs.add_parser(
        "play",
        help="play against an agent in the terminal",
        description="Play one game in the terminal: the board is drawn before each of your turns with your own hand "
        f"(never another seat's); {PLAY_COMMANDS}.",
    )
    p.add_argument("env_id", help="the game, e.g. tardis_run_v0 (tardis-envs list shows them all)")
    p.add_argument(
        "--opponent",
        default="heuristic",
        help="the agent in every other seat: random, heuristic, heuristic:<preset>, ppo:<checkpoint.zip>, ppo:baseline, "
        "rllib:<checkpoint folder>, mcts:<simulations>, ismcts:<simulations>, az:<checkpoint.zip>, az:baseline (default heuristic)",
    )
    p.add_argument("--seat", type=int, default=1, help="your seat, 0 moves first (default 1)")
    p.add_argument("--num-players", type=int, help="players at the table, for games of 1-4 or 2-4 players (default from the config)")
    p.add_argument("--seed", type=int, default=None, help="seed of the game's dice and shuffles (default: a new game each run)")
    p.add_argument("--config", help="YAML config with the game's rule options (default configs/<game>/default.yaml if present)")
    p.set_defaults(func=cmd_play)

    p = verbs.add_parser(
        "bench",
        help="steps per second of every game and of the peers, side by side",
        description="Steps per second of each game (AEC loop, one-game kernel, batched API) beside PettingZoo classic, "
        "OpenSpiel and a trivial numba floor; medians [min-max] over the repeats. A busy machine is detected and said.",
    )
    p.add_argument("env_ids", nargs="*", help="games to time (default: every registered game)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure, split over the repeats (default 3; > 0)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per figure, reported as median [min-max] (default 3)")
    p.add_argument(
        "--num-envs", type=int, nargs="+", default=[1, 64, 1024, 8192], help="games per batch of the batched API (default 1 64 1024 8192)"
    )
    p.add_argument(
        "--threads", type=int, nargs="+", default=[1, 2], help="numba threads of the batched API, 1 to numba's thread count (default 1 2)"
    )
    p.add_argument("--no-peers", action="store_true", help="skip PettingZoo classic and OpenSpiel (default: time them when installed)")
    p.add_argument("--no-compile", action="store_true", help="skip the cold-compile / cached-import timings (default: time them)")
    p.add_argument("--json", help="also write the results as JSON to this file, checked writable before timing (default: none)")
    p.add_argument("--png", help="also plot batched steps/s against games per batch to this PNG file (default: none)")
    p.add_argument("--compare", help="an earlier --json file: exit 1 if a figure fell by more than --tolerance (default: no comparison)")
    p.add_argument("--tolerance", type=float, default=0.15, help="fall allowed by --compare, as a fraction (default 0.15)")
    p.add_argument(
        "--profile",
        action="store_true",
        help="also split a batched step into kernel phases and say whether memory or computation bounds each game (default: off)",
    )
    p.set_defaults(func=cmd_bench)

    p = verbs.add_parser(
        "perft",
        help="classic-chess perft counts and nodes/s next to the chess library",
        description="Dr. Who Chess in classic mode (doctor=False): perft counts on the standard positions, checked against "
        "the chess library when it is installed, and nodes per second of both.",
    )
    p.add_argument("--fen", help="a FEN or a position name (start, kiwipete, 'position 3', ...) (default: every standard position)")
    p.add_argument("--depth", type=int, help="plies, >= 1 (default: the standard table's depths; 3 for --fen)")
    p.add_argument("--divide", action="store_true", help="print the count below each legal first move instead of timing (default: off)")
    p.add_argument(
        "--seconds", type=float, default=3.0, help="timed seconds per position and side, split over the repeats (default 3; > 0)"
    )
    p.add_argument("--repeats", type=int, default=3, help="timed runs per position and side, reported as median [min-max] (default 3)")
    p.add_argument("--no-library", action="store_true", help="skip the chess library's timing and check (default: use it when installed)")
    p.set_defaults(func=cmd_perft)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"tardis-envs: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tardis-envs: interrupted", file=sys.stderr)
        return 130
    except ImportError as exc:
        print(f"tardis-envs: error: {exc}; install the training extra: pip install -e '.[train]'", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

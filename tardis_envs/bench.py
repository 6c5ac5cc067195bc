"""Throughput measurements shared by ``tardis-envs bench``, ``eval`` and benchmarks/.

Every figure is a median (with min and max) over repeats of a timed loop that
runs after a warm-up, so numba compilation is never counted (it is measured
on its own: cold compile and cached import, each in a fresh process).

* AEC: the PettingZoo loop with random legal actions (``agent_iter``, ``last``,
  mask sampling, ``step``), for our envs and for peers through the same loop.
* kernel: one game stepped by its numba kernels in a numba loop (random legal
  actions, ``step_and_mask`` per ply), no Python per step; Dr. Who Chess's is
  set beside OpenSpiel's C++ chess (``KERNEL_PEERS``).
* batched: ``tardis_envs.vector`` with random legal actions drawn by a numba
  kernel (:mod:`tardis_envs.core.sampling`), at several batch sizes and threads;
  at the largest size and thread count also with compact observations (judged
  against the game's entry in ``TARGETS``), with packed planes where the game has
  them (Dr. Who Chess; judged too) and without observations.
* floor: a trivial race game with the same batched shape (:mod:`.core.floor`).
* OpenSpiel (when ``pyspiel`` is installed): the same random play through its
  Python API, and in C++ (``evaluate_bots`` with uniform random bots).
* perft (Dr. Who Chess in classic mode): legal move paths per second on the
  standard perft positions, next to the ``chess`` library's legal move
  generation on the same positions and depths (both count the last ply in
  bulk: the number of legal moves), as a ratio.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable

import numba
import numpy as np

from . import ENV_IDS, RETIRED_ENV_IDS, env_module, vector
from .core.batch import prefetch_state, streams_rows, write_row
from .core.floor import floor_step, make_floor, memory_copy
from .core.sampling import count_legal, nth_legal, sample_legal
from .core.state import CURRENT_PLAYER, STATUS

# steps/s the batched API should reach at 8,192 games x 2 threads with compact observations
# (each game's GameSpec.throughput_target); format_results says met or missed, and --profile
# says where the time goes
TARGETS = {env_id: env_module(env_id).SPEC.throughput_target for env_id in ENV_IDS}

# the OpenSpiel game (C++ random play) a game's one-game kernel is compared with (GameSpec.kernel_peer)
KERNEL_PEERS = {env_id: peer for env_id in ENV_IDS if (peer := env_module(env_id).SPEC.kernel_peer)}

PEERS = {
    # PettingZoo classic envs users would otherwise pick (need the `bench` extra).
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
    "tictactoe_v3": "pettingzoo.classic.tictactoe_v3",
    "chess_v6": "pettingzoo.classic.chess_v6",
}
OPENSPIEL_GAMES = ("chess", "backgammon")


def check_timing(seconds: float, repeats: int, threads=(), sizes=()) -> None:
    """The timing settings of ``bench`` and ``perft``, refused in one line naming the flag:
    ``--seconds`` finite and > 0 (nan or inf would time forever), ``--repeats`` >= 1,
    ``--threads`` in 1..numba's thread count, ``--num-envs`` >= 1."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"--seconds must be a finite number of seconds > 0, got {seconds!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"--repeats must be an integer >= 1, got {repeats!r}")
    most = numba.config.NUMBA_NUM_THREADS
    for t in threads:
        if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= most:
            raise ValueError(f"--threads must be in 1..{most} (numba's threads on this machine), got {t!r}")
    for n in sizes:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"--num-envs must be integers >= 1, got {n!r}")


# A game's batched step does everything the floor's does and more: a figure above this share
# of the floor means the floor was timed while something else took the cores.
FLOOR_SHARE_POSSIBLE = 1.1
# a spread of the repeats (max / min) above this says the machine was not quiet
SPREAD_QUIET = 1.5


def load_warnings(results: dict) -> list[str]:
    """Why the figures of ``results`` cannot be trusted, if anything says so: the load average
    before or after the run at or above the core count, a figure above the trivial floor (which
    no game can outrun: the floor was timed on a loaded machine), or repeats that spread widely."""
    reasons = []
    cores = results["machine"].get("cores") or 1
    loads = [x for x in (results["machine"].get("load_before"), results["machine"].get("load_after")) if x is not None]
    if loads and max(loads) >= cores:
        reasons.append(f"load average {max(loads):.1f} on {cores} cores")
    floors = results.get("floor") or {}
    if floors:
        top = max(floors, key=int)
        floor_rate = floors[top]["median"]
        shares = [
            stats["median"] / floor_rate
            for row in results["games"].values()
            for kind in ("batched", "batched_compact", "batched_packed", "batched_no_obs")
            for key, stats in row.get(kind, {}).items()
            if key.split("x")[1] == top
        ]
        if shares and max(shares) > FLOOR_SHARE_POSSIBLE:
            reasons.append(f"a game ran at {100 * max(shares):.0f}% of the trivial floor, which no game can outrun")
    spreads = [stats["max"] / stats["min"] for stats in _all_stats(results) if stats.get("min", 0) > 0 and stats.get("repeats", 1) > 1]
    if spreads and max(spreads) > SPREAD_QUIET:
        reasons.append(f"repeats of one figure differ up to {max(spreads):.1f}x")
    if not reasons:
        return []
    return [f"warning: the machine was busy ({'; '.join(reasons)}): these figures are unreliable; rerun on an idle machine"]


def _all_stats(node) -> list[dict]:
    """Every ``{median, min, max}`` entry nested in ``node``."""
    if isinstance(node, dict):
        if {"median", "min", "max"} <= set(node):
            return [node]
        return [s for value in node.values() for s in _all_stats(value)]
    return []


def _stats(rates: list[float]) -> dict:
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "repeats": len(rates)}


def repeat(run: Callable[[float], float], seconds: float, repeats: int) -> dict:
    """``run(limit)`` returns a rate measured over about ``limit`` seconds."""
    run(min(0.3, seconds))  # warm-up
    return _stats([run(seconds / repeats) for _ in range(repeats)])


def peer_factory(name: str):
    """``env()`` of a PettingZoo classic peer, or None when it cannot be imported."""
    try:
        return importlib.import_module(PEERS[name]).env
    except ImportError:
        return None


def aec_rate(factory, seconds: float, seed: int = 0) -> float:
    """Agent-steps per second of the PettingZoo AEC loop with random legal actions."""
    env = factory()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = games = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
            if steps % 256 == 0 and time.perf_counter() >= deadline:
                return steps / (time.perf_counter() - started)
        games += 1
        env.reset(seed=seed + games)


def aec_steps_per_second(env_id: str, seconds: float = 2.0, seed: int = 0, factory=None, **options) -> float:
    """Median-free single measurement (used by ``eval``'s throughput line)."""
    factory = factory or (lambda: env_module(env_id).env(**options))
    aec_rate(factory, 0.2, seed)
    return aec_rate(factory, seconds, seed)


def _batched_play(advance, masks, num_envs: int, threads: int, seconds: float, repeats: int, seed: int) -> dict:
    """Rate of ``advance(actions) -> next masks`` with random legal actions drawn in numba."""
    actions = np.zeros(num_envs, dtype=np.int64)
    counter = [0]
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)

    def run(limit: float) -> float:
        nonlocal masks
        steps = 0
        started = time.perf_counter()
        while True:
            counter[0] += 1
            sample_legal(masks, seed, counter[0], actions)
            masks = advance(actions)
            steps += num_envs
            elapsed = time.perf_counter() - started
            if elapsed >= limit:
                return steps / elapsed

    try:
        return {**repeat(run, seconds, repeats), "num_envs": num_envs, "threads": threads}
    finally:
        numba.set_num_threads(previous)


def batched(
    env_id: str, num_envs: int, threads: int, seconds: float, repeats: int, seed: int = 0, observations: bool = True, **options
) -> dict:
    """Steps per second of ``tardis_envs.vector`` with random legal actions chosen in numba
    (``observations=False``: states and masks only)."""
    vec = vector.make(env_id, num_envs, seed=seed, num_threads=threads, observations=observations, **options)
    _, masks, _ = vec.reset()
    return _batched_play(lambda actions: vec.step(actions)[1], masks, num_envs, threads, seconds, repeats, seed)


def has_packed_planes(env_id: str) -> bool:
    """Whether the game (default options) offers ``obs_dtype="packed"``."""
    return env_module(env_id).Game().packed_plane_kinds is not None


def batched_steps_per_second(
    env_id: str, num_envs: int = 1024, num_threads: int | None = None, seconds: float = 2.0, repeats: int = 3, seed: int = 0, **options
) -> dict:
    return batched(env_id, num_envs, num_threads or numba.config.NUMBA_NUM_THREADS, seconds, repeats, seed, **options)


@numba.njit(nogil=True)  # not cached: it takes the game's kernels as arguments
def _single_game_loop(init, step_and_mask, legal_mask, state, tables, mask, steps, key):
    """``steps`` random legal plies of one game through ``step_and_mask`` (the kernel the
    batched API runs: the step leaves the next mask), a new game after each finished one."""
    done_games = 0
    legal_mask(state, tables, mask)
    for k in range(steps):
        # the batch's sampler, one row: a hashed pick among the legal actions
        step_and_mask(state, tables, nth_legal(mask, (k * 2654435761 + key) % count_legal(mask)), mask)
        if state[STATUS] != 0:
            done_games += 1
            rng_key = state[2]
            state[:] = 0
            state[2] = rng_key + 1
            init(state, tables)
            legal_mask(state, tables, mask)
    return done_games


def kernel_single(env_id: str, seconds: float, repeats: int, **options) -> dict:
    """One game stepped by its kernels inside a numba loop (``step_and_mask`` per ply)."""
    game = env_module(env_id).Game(**options)
    k = game.kernels
    state = game.new_state(12345)
    mask = np.zeros(game.num_actions, dtype=np.int8)

    def run(limit: float) -> float:
        steps = 0
        started = time.perf_counter()
        while True:
            _single_game_loop(k.init, k.step_and_mask, k.legal_mask, state, game.tables, mask, 20_000, 7)
            steps += 20_000
            elapsed = time.perf_counter() - started
            if elapsed >= limit:
                return steps / elapsed

    return repeat(run, seconds, repeats)


def floor(num_envs: int, threads: int, seconds: float, repeats: int) -> dict:
    positions, obs, masks, done = make_floor(num_envs)

    def advance(actions):
        floor_step(positions, actions, obs, masks, done)
        return masks

    return _batched_play(advance, masks, num_envs, threads, seconds, repeats, 0)


def mean_game_length(env_id: str, games: int = 2000, seed: int = 0, **options) -> float:
    """Mean decisions per game under uniform random legal play (the games run without
    observations: the length needs only the legal masks)."""
    vec = vector.make(env_id, games, seed=seed, observations=False, **options)
    _, masks, _ = vec.reset()
    lengths = np.zeros(games, dtype=np.int64)
    running = np.ones(games, dtype=bool)
    actions = np.zeros(games, dtype=np.int64)
    counter = 0
    while running.any():
        counter += 1
        sample_legal(masks, seed, counter, actions)
        _, masks, _, _, term, trunc = vec.step(actions)
        lengths += running
        running &= ~(term | trunc)
    return float(lengths.mean())


def compile_times(env_id: str) -> dict:
    """Seconds to import and play the first batched step, in a fresh process:
    cold (empty numba cache) and cached (second run on the same cache)."""
    code = (
        "import time; t=time.perf_counter(); import numpy as np; from tardis_envs import vector; "
        f"v=vector.make({env_id!r}, 4, seed=0); o,m,p=v.reset(); v.step(m.argmax(axis=1)); "
        "print(time.perf_counter()-t)"
    )
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold_compile_s", "cached_import_s"):
            result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
            out[label] = float(result.stdout.strip().splitlines()[-1]) if result.returncode == 0 else float("nan")
    return out


# --- OpenSpiel peers ---------------------------------------------------------------
def openspiel_python(name: str, seconds: float, repeats: int) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)
    lengths: list[int] = []

    def run(limit: float) -> float:
        steps = 0
        started = time.perf_counter()
        while time.perf_counter() - started < limit:
            state = game.new_initial_state()
            n = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.integers(len(legal))])
                n += 1
            steps += n
            lengths.append(n)
        return steps / (time.perf_counter() - started)

    out = repeat(run, seconds, repeats)
    out["mean_game_length"] = float(np.mean(lengths))
    return out


def openspiel_cpp(name: str, seconds: float, repeats: int, mean_length: float) -> dict | None:
    """Random play inside C++ (``evaluate_bots`` with uniform random bots); steps
    are games x the mean length of the same random play measured in Python."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    counter = [0]

    def run(limit: float) -> float:
        games = 0
        started = time.perf_counter()
        while time.perf_counter() - started < limit:
            counter[0] += 1
            bots = [pyspiel.make_uniform_random_bot(p, counter[0] * 7 + p) for p in range(game.num_players())]
            pyspiel.evaluate_bots(game.new_initial_state(), bots, counter[0])
            games += 1
        return games * mean_length / (time.perf_counter() - started)

    return repeat(run, seconds, repeats)


# --- the suite ---------------------------------------------------------------
PERFT_POSITIONS = (
    # name, FEN, depth (the chess library needs about a second for each)
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
)


def _library_perft(board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += _library_perft(board, depth - 1)
        board.pop()
    return total


def _rate(count_once: Callable[[], int], seconds: float) -> tuple[int, float]:
    """(nodes of one run, nodes per second over repeated runs for ``seconds``)."""
    start = time.perf_counter()
    nodes = count_once()
    total, runs = nodes, 1
    while time.perf_counter() - start < seconds:
        total += count_once()
        runs += 1
    return nodes, total / (time.perf_counter() - start)


def perft_suite(seconds: float = 1.0, repeats: int = 3, positions=PERFT_POSITIONS, library: bool = True) -> dict:
    """Perft nodes per second, ours and the ``chess`` library's, per position."""
    check_timing(seconds, repeats)
    from .timelord_chess_v1 import Game

    game = Game(doctor=False)
    out = {}
    for name, fen, depth in positions:
        state = game.from_fen(fen)
        game.perft(state, 1)  # compiled before timing
        ours = [_rate(lambda: game.perft(state, depth), seconds / repeats) for _ in range(repeats)]
        row = {"fen": fen, "depth": depth, "nodes": ours[0][0], "ours": _stats([r for _, r in ours])}
        if library:
            try:
                import chess
            except ImportError:
                library = False
            else:
                board = chess.Board(fen)
                theirs = [_rate(lambda: _library_perft(board, depth), seconds / repeats) for _ in range(repeats)]
                if theirs[0][0] != row["nodes"]:
                    raise AssertionError(f"perft {name} depth {depth}: ours {row['nodes']}, chess library {theirs[0][0]}")
                row["chess_library"] = _stats([r for _, r in theirs])
        out[name] = row
    return out


def format_perft(table: dict) -> list[str]:
    lines = ["perft, classic chess (nodes/s, median [min-max]; last ply counted in bulk by both):"]
    for name, row in table.items():
        text = f"  {name:<11} depth {row['depth']} {row['nodes']:>10,} nodes: ours {_fmt(row['ours'])}"
        if "chess_library" in row:
            ratio = row["ours"]["median"] / row["chess_library"]["median"]
            text += f", chess library {_fmt(row['chess_library'])} = {ratio:,.0f}x"
        lines.append(text)
    return lines


def run_suite(
    env_ids=None,
    seconds: float = 2.0,
    repeats: int = 3,
    sizes=(1, 64, 1024, 8192),
    threads=(1, 2),
    peers: bool = True,
    compile: bool = True,
    log: Callable[[str], None] = print,
) -> dict:
    env_ids = list(env_ids or ENV_IDS)
    check_timing(seconds, repeats, threads, sizes)
    results: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": {"cores": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS, "load_before": _load_average()},
        "versions": _versions(),
        "games": {},
        "peers": {},
        "floor": {},
    }
    for t in threads:
        results["floor"][str(t)] = floor(8192, t, seconds, repeats)
        log(f"floor (trivial race, 8192 games, {t} thread(s)): {results['floor'][str(t)]['median']:,.0f} steps/s")
    if peers:
        for name in PEERS:
            factory = peer_factory(name)
            if factory is None:
                log(f"peer {name}: not installed (pip install 'tardis-envs[bench]')")
                continue
            results["peers"][name] = {"aec": repeat(lambda limit, f=factory: aec_rate(f, limit), seconds, repeats)}
            log(f"peer {name}: AEC {results['peers'][name]['aec']['median']:,.0f} agent-steps/s")
        for name in OPENSPIEL_GAMES:
            py = openspiel_python(name, seconds, repeats)
            if py is None:
                log("peer OpenSpiel: pyspiel not installed (pip install 'tardis-envs[bench]')")
                break
            cpp = openspiel_cpp(name, seconds, repeats, py["mean_game_length"])
            results["peers"][f"openspiel_{name}"] = {"python": py, "cpp": cpp}
            log(f"peer OpenSpiel {name}: Python {py['median']:,.0f}, C++ {cpp['median']:,.0f} steps/s")
    for env_id in env_ids:
        row: dict = {}
        row["aec"] = repeat(lambda limit: aec_rate(lambda: env_module(env_id).env(), limit), seconds, repeats)
        row["kernel"] = kernel_single(env_id, seconds, repeats)
        row["batched"] = {}
        for t in threads:
            for n in sizes:
                row["batched"][f"{n}x{t}"] = batched(env_id, n, t, seconds, repeats)
        n, t = max(sizes), max(threads)
        row["batched_compact"] = {f"{n}x{t}": batched(env_id, n, t, seconds, repeats, obs_dtype="compact")}
        if has_packed_planes(env_id):
            row["batched_packed"] = {f"{n}x{t}": batched(env_id, n, t, seconds, repeats, obs_dtype="packed")}
        row["batched_no_obs"] = {f"{n}x{t}": batched(env_id, n, t, seconds, repeats, observations=False)}
        row["mean_game_length"] = mean_game_length(env_id)
        if compile:
            row.update(compile_times(env_id))
        for variant, options in env_module(env_id).SPEC.bench_variants.items():
            n, t = max(sizes), max(threads)
            row.setdefault("variants", {})[variant] = {
                "options": options,
                "aec": repeat(lambda limit: aec_rate(lambda: env_module(env_id).env(**options), limit), seconds, repeats),
                "kernel": kernel_single(env_id, seconds, repeats, **options),
                "batched": {f"{n}x{t}": batched(env_id, n, t, seconds, repeats, **options)},
                "mean_game_length": mean_game_length(env_id, **options),
            }
        if hasattr(env_module(env_id).Game, "perft"):  # a chess game: its perft beside the chess library's
            row["perft"] = perft_suite(seconds=seconds, repeats=repeats)
        results["games"][env_id] = row
        log(
            f"{env_id}: AEC {row['aec']['median']:,.0f}, kernel {row['kernel']['median']:,.0f}, "
            f"batched {max(b['median'] for b in row['batched'].values()):,.0f} steps/s"
        )
    results["machine"]["load_after"] = _load_average()
    return results


def _load_average() -> float | None:
    """The one-minute load average (None where the system has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _versions() -> dict:
    out = {"python": sys.version.split()[0], "numpy": np.__version__, "numba": numba.__version__}
    for name in ("pettingzoo", "pyspiel"):
        try:
            module = importlib.import_module(name)
            out[name] = getattr(module, "__version__", "installed")
        except ImportError:
            pass
    from . import __version__

    out["tardis_envs"] = __version__
    return out


def _fmt(stats: dict) -> str:
    return f"{stats['median']:,.0f} [{stats['min']:,.0f}-{stats['max']:,.0f}]"


def format_results(results: dict) -> str:
    """The table: medians [min-max], each with its ratio to the peer it is compared with."""
    warnings = load_warnings(results)
    lines = [
        f"tardis-envs bench, {results['date']}, {results['machine']['cores']} cores, "
        + ", ".join(f"{k} {v}" for k, v in results["versions"].items())
    ] + warnings
    peers = results["peers"]
    c4 = peers.get("connect_four_v3", {}).get("aec", {}).get("median")
    chess = peers.get("chess_v6", {}).get("aec", {}).get("median")
    floor2 = results["floor"].get(max(results["floor"], key=int), {}).get("median") if results["floor"] else None
    lines.append("")
    lines.append("peers (random legal play, steps/s, median [min-max]):")
    for name, row in peers.items():
        for kind, stats in row.items():
            if stats:
                lines.append(f"  {name:<22} {kind:<7} {_fmt(stats)}")
    for t, stats in sorted(results["floor"].items()):
        lines.append(f"  {'numba floor (race)':<22} {'8192x' + t:<7} {_fmt(stats)}")
    for env_id, row in results["games"].items():
        lines.append("")
        lines.append(
            f"{env_id}: mean random game {row['mean_game_length']:.1f} decisions; "
            f"cold compile {row.get('cold_compile_s', float('nan')):.1f} s, cached import {row.get('cached_import_s', float('nan')):.2f} s"
        )
        aec = row["aec"]["median"]
        ratio = f"  = {aec / c4:.1f}x connect_four_v3" if c4 else ""
        if chess:
            ratio += f", {aec / chess:.1f}x chess_v6"
        lines.append(f"  AEC agent-steps/s       {_fmt(row['aec'])}{ratio}")
        peer = KERNEL_PEERS.get(env_id)
        cpp = peers.get(peer, {}).get("cpp", {}).get("median") if peer else None
        versus = f"  = {row['kernel']['median'] / cpp:.1f}x {peer} C++" if cpp else ""
        lines.append(f"  kernel, one game        {_fmt(row['kernel'])}{versus}")
        for key, stats in row["batched"].items():
            n, t = key.split("x")
            extra = []
            if floor2 and t == max(results["floor"], key=int):
                extra.append(f"{100 * stats['median'] / floor2:.1f}% of floor")
            lines.append(f"  batched {n:>5} games x{t} {_fmt(stats)}" + (f"  ({', '.join(extra)})" if extra else ""))
        for kind, words in (("batched_compact", "compact observations"), ("batched_packed", "packed observations")):
            for key, stats in row.get(kind, {}).items():
                n, t = key.split("x")
                share = f"{100 * stats['median'] / floor2:.1f}% of floor" if floor2 else ""
                target = TARGETS.get(env_id)
                if target and key == "8192x2":
                    verdict = "met" if stats["median"] >= target else "missed"
                    share += f"; target {target:,.0f}: {verdict}"
                lines.append(f"  batched {n:>5} games x{t}, {words} {_fmt(stats)}" + (f"  ({share})" if share else ""))
        for key, stats in row.get("batched_no_obs", {}).items():
            n, t = key.split("x")
            share = f"  ({100 * stats['median'] / floor2:.1f}% of floor)" if floor2 else ""
            lines.append(f"  batched {n:>5} games x{t}, no observations {_fmt(stats)}{share}")
        for variant, extra_row in row.get("variants", {}).items():
            aec = extra_row["aec"]["median"]
            ratio = f"  = {aec / chess:.1f}x chess_v6" if chess else ""
            lines.append(
                f"  {variant} ({', '.join(f'{k}={v}' for k, v in extra_row['options'].items())}): "
                f"mean random game {extra_row['mean_game_length']:.1f} decisions"
            )
            lines.append(f"    AEC agent-steps/s     {_fmt(extra_row['aec'])}{ratio}")
            versus = f"  = {extra_row['kernel']['median'] / cpp:.1f}x {peer} C++" if cpp else ""
            lines.append(f"    kernel, one game      {_fmt(extra_row['kernel'])}{versus}")
            for key, stats in extra_row["batched"].items():
                n, t = key.split("x")
                lines.append(f"    batched {n:>5} games x{t} {_fmt(stats)}")
        if "perft" in row:
            lines += ["  " + line for line in format_perft(row["perft"])]
    if warnings:
        lines += [""] + warnings  # said again below the table, where the eye ends
    return "\n".join(lines)


def plot(results: dict, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for env_id, row in results["games"].items():
        for t in sorted({k.split("x")[1] for k in row["batched"]}):
            items = sorted(((int(k.split("x")[0]), v["median"]) for k, v in row["batched"].items() if k.endswith("x" + t)))
            ax.plot([n for n, _ in items], [r for _, r in items], marker="o", label=f"{env_id} ({t} thread{'s' if t != '1' else ''})")
    for t, stats in results["floor"].items():
        ax.axhline(stats["median"], ls="--", lw=1, color="gray")
        ax.text(1, stats["median"] * 1.1, f"numba floor, {t} thread(s)", fontsize=8, color="gray")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("games per batch")
    ax.set_ylabel("steps per second")
    ax.set_title("tardis_envs batched throughput (random legal play)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def compare(new: dict, old: dict, tolerance: float = 0.15) -> list[str]:
    """Figures that fell by more than ``tolerance`` (relative) since ``old``."""
    flagged = []

    def walk(a, b, where):
        if isinstance(a, dict) and isinstance(b, dict):
            if "median" in a and "median" in b:
                if b["median"] > 0 and a["median"] < (1 - tolerance) * b["median"]:
                    flagged.append(f"{where}: {a['median']:,.0f} < {b['median']:,.0f} ({100 * (a['median'] / b['median'] - 1):+.0f}%)")
                return
            for key in a:
                if key in b:
                    walk(a[key], b[key], f"{where}/{key}" if where else key)

    before = dict(old.get("games", {}))
    for retired, (successor, _) in RETIRED_ENV_IDS.items():  # a renamed game: its old row
        if retired in before and successor not in before:
            before[successor] = before.pop(retired)
    walk(new.get("games", {}), before, "")
    return flagged


def load_json(path) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read benchmark results {str(path)!r}: {exc}") from None


def memory_bandwidth(threads: int = 2, megabytes: int = 256, repeats: int = 5) -> float:
    """Bytes per second the ``threads`` move copying a ``megabytes`` array into another
    (read plus write, best of ``repeats``): the memory floor of a batch larger than the caches."""
    source = np.ones(megabytes * 2**20 // 8)
    target = np.zeros_like(source)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        memory_copy(source, target)
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            memory_copy(source, target)
            best = min(best, time.perf_counter() - started)
    finally:
        numba.set_num_threads(previous)
    return 2 * source.nbytes / best


def row_bytes(env_id: str, obs_dtype: str = "compact", **options) -> dict:
    """Bytes of one game's row in the batched API: its state, its observation in
    ``obs_dtype`` and its legal mask."""
    vec = vector.make(env_id, 1, seed=0, obs_dtype=obs_dtype, **options)
    return {"state": vec.states[0].nbytes, "observation": vec._obs_flat[0].nbytes, "mask": vec.masks[0].nbytes}


KERNEL_PHASES = ("step", "legal_mask", "observe")


# bytes of game rows per thread that stay in a core's cache (this machine: 2 MB of L2 a core)
CACHE_RESIDENT_BYTES = 2**20


def memory_profile(
    env_id: str, threads: int = 2, bandwidth: float | None = None, large: dict | None = None, obs_dtype: str = "compact", **options
) -> dict:
    """Whether memory or computation bounds a game at 8,192 games: the kernels' time
    (step, mask, observe; compact observations) per game step at 8,192 games and at a
    batch small enough that its rows stay in the cores' caches (``CACHE_RESIDENT_BYTES``
    a thread, 64 to 4,096 games), beside the bytes of a row and the time that moving
    them once at ``bandwidth`` (bytes/s) would take. ``large``: the 8,192-game compact
    profile when it was already taken (``bench --profile`` takes it first); ``obs_dtype``
    another observation dtype than compact (packed)."""
    sizes = row_bytes(env_id, obs_dtype, **options)
    small = int(min(max(threads * CACHE_RESIDENT_BYTES // sum(sizes.values()), 64), 4096))
    if large is None:
        large = profile_batched(env_id, 8192, threads, obs_dtype=obs_dtype, **options)
    cached = profile_batched(env_id, small, threads, steps=200 * 8192 // small, obs_dtype=obs_dtype, **options)
    out = {
        "obs_dtype": obs_dtype,
        "bytes": sizes,
        "kernels_ns_8192": sum(large[k] for k in KERNEL_PHASES),
        f"kernels_ns_{small}": sum(cached[k] for k in KERNEL_PHASES),
        "small": small,
    }
    if bandwidth:
        out["bandwidth"] = bandwidth
        out["row_once_ns"] = sum(sizes.values()) / bandwidth * 1e9
    return out


def format_memory_profile(env_id: str, prof: dict) -> str:
    sizes = prof["bytes"]
    small = prof["small"]
    large, cached = prof["kernels_ns_8192"], prof[f"kernels_ns_{small}"]
    named = "" if prof.get("obs_dtype", "compact") == "compact" else f" ({prof['obs_dtype']})"
    line = (
        f"  {env_id}{named}: a row is {sum(sizes.values()):,} bytes (state {sizes['state']:,}, observation "
        f"{sizes['observation']:,}, mask {sizes['mask']:,}); kernels {large:,.0f} ns a step at 8,192 games, "
        f"{cached:,.0f} at {small} (in cache): memory costs {100 * max(large - cached, 0) / large:.0f}%"
    )
    if "row_once_ns" in prof:
        line += f"; moving the row once takes {prof['row_once_ns']:,.0f} ns"
    return line


@numba.njit(nogil=True, parallel=True)  # not cached: takes kernels as arguments
def _time_phase(kernel_kind, init, step_and_mask, legal_mask, observe, states, tables, actions, obs, masks, stream):
    for i in numba.prange(states.shape[0]):
        if kernel_kind < 3:
            prefetch_state(states, i + 1)  # as the batch loop does
        s = states[i]
        if kernel_kind == 0:
            write_row(step_and_mask, s, tables, actions[i], masks[i], stream & 2)  # streamed as the batch loop streams
            if s[STATUS] != 0:
                key = s[2]
                s[:] = 0
                s[2] = key + 1
                init(s, tables)
                legal_mask(s, tables, masks[i])
        elif kernel_kind == 1:
            legal_mask(s, tables, masks[i])
        elif kernel_kind == 2:
            write_row(observe, s, tables, s[CURRENT_PLAYER], obs[i], stream & 1)


def profile_batched(env_id: str, num_envs: int = 8192, threads: int = 2, steps: int = 200, obs_dtype: str = "float32", **options) -> dict:
    """Where a batched step's time goes, in nanoseconds per game step: the
    step kernel (``step_and_mask`` less the legal mask, with resets), the legal
    mask, the observation (in ``obs_dtype``), the random action draw, and the rest
    (Python, numpy, the legality check). Each phase is timed in a pass of its own
    over all games, less a pass that calls no kernel (starting and joining the
    threads), so a game whose state does not fit in cache pays its memory
    traffic once per phase (``other`` then comes out negative). The step and the
    observation write their rows as ``batch_step`` does, streamed past the cache where
    :func:`~tardis_envs.core.batch.streams_rows` says so; the legal mask timed alone is not."""
    vec = vector.make(env_id, num_envs, seed=0, num_threads=threads, obs_dtype=obs_dtype, **options)
    _, masks, _ = vec.reset()
    k = vec.game.kernels
    actions = np.zeros(num_envs, dtype=np.int64)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        sample_legal(masks, 0, 0, actions)
        vec.step(actions)
        started = time.perf_counter()
        for c in range(steps):
            sample_legal(vec.masks, 0, c, actions)
            vec.step(actions)
        total = time.perf_counter() - started
        started = time.perf_counter()
        for c in range(steps):
            sample_legal(vec.masks, 0, c, actions)
        sampling = time.perf_counter() - started
        phases = {}
        # a pass that calls no kernel: the threads' start and join, taken off every phase
        # (it matters at small batches, where it is most of a pass)
        for kind, name in ((3, "dispatch"), (1, "legal_mask"), (2, "observe"), (0, "step")):
            states = vec.states.copy()
            masks2 = vec.masks.copy()
            obs2 = vec._obs_flat.copy()
            stream = streams_rows(obs2, masks2)  # the whole batch's: the phases write rows as batch_step does
            _time_phase(
                kind,
                k.init,
                k.step_and_mask,
                k.legal_mask,
                k.observe,
                states[:2],
                vec.game.tables,
                actions[:2],
                obs2[:2],
                masks2[:2],
                stream,
            )
            started = time.perf_counter()
            for c in range(steps):
                if kind == 0:
                    sample_legal(masks2, 0, c, actions)  # legal actions for the new masks
                _time_phase(kind, k.init, k.step_and_mask, k.legal_mask, k.observe, states, vec.game.tables, actions, obs2, masks2, stream)
            phases[name] = time.perf_counter() - started
        dispatch = phases.pop("dispatch")
        for name in phases:
            phases[name] -= dispatch
        # the step loop also drew actions, and step_and_mask wrote the next masks
        phases["step"] -= phases["legal_mask"] + sampling
    finally:
        numba.set_num_threads(previous)
    per = 1e9 / (steps * num_envs)
    out = {name: seconds * per for name, seconds in phases.items()}
    out["sample_actions"] = sampling * per
    out["total"] = total * per
    out["other"] = out["total"] - sum(out[n] for n in ("step", "legal_mask", "observe", "sample_actions"))
    out["steps_per_second"] = steps * num_envs / total
    return out

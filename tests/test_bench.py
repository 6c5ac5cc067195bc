"""The benchmark suite's own machinery (its figures are measured by `tardis-envs bench`, not asserted)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from tardis_envs.bench import compare
from tardis_envs.core.floor import floor_step, make_floor
from tardis_envs.core.rng import hash_words
from tardis_envs.core.sampling import first_illegal, sample_legal

ROOT = Path(__file__).resolve().parents[1]


def test_sample_legal_is_uniform_over_legal_actions():
    masks = np.zeros((30000, 7), dtype=np.int8)
    masks[:, [1, 4, 6]] = 1
    masks[0] = 0
    out = np.zeros(30000, dtype=np.int64)
    sample_legal(masks, 5, 1, out)
    assert out[0] == -1
    counts = np.bincount(out[1:], minlength=7)
    assert set(np.flatnonzero(counts)) == {1, 4, 6}
    assert chisquare(counts[[1, 4, 6]])[1] > 1e-3
    again = np.zeros_like(out)
    sample_legal(masks, 5, 2, again)
    assert not np.array_equal(out, again), "each call draws afresh"


def test_sample_legal_takes_the_hashed_pick_among_many_blocks_of_actions():
    """Masks wider than a block (chess has 4,773 actions): the drawn action is the
    pick-th legal one, pick hashed from key, counter and row, whichever block it is in."""
    rng = np.random.default_rng(0)
    masks = (rng.random((400, 300)) < 0.05).astype(np.int8)
    masks[:, [0, 63, 64, 127, 128, 299]] = rng.integers(0, 2, (400, 6))
    masks[1] = 0
    masks[2] = 0
    masks[2, 299] = 1
    masks[3:, 64] *= 2  # any nonzero entry is one legal action
    out = np.zeros(400, dtype=np.int64)
    sample_legal(masks, 11, 3, out)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if legal.size == 0:
            assert out[i] == -1
            continue
        pick = int((int(hash_words(11, 3 * 400 + i)) >> 11) % legal.size)
        assert out[i] == legal[pick], i
    assert out[2] == 299


def test_first_illegal():
    masks = np.ones((5, 3), dtype=np.int8)
    masks[3, 2] = 0
    assert first_illegal(masks, np.array([0, 1, 2, 1, 0])) == -1
    assert first_illegal(masks, np.array([0, 1, 2, 2, 0])) == 3
    assert first_illegal(masks, np.array([0, 7, 2, 2, 0])) == 1
    assert first_illegal(masks, np.array([-1, 0, 0, 0, 0])) == 0


def test_floor_game_restarts_past_100():
    positions, obs, masks, done = make_floor(4)
    for _ in range(40):
        floor_step(positions, np.full(4, 2, dtype=np.int64), obs, masks, done)
    assert (positions < 100).all() and masks.all()


def test_compare_flags_regressions_only():
    old = {"games": {"g": {"aec": {"median": 100.0}, "batched": {"64x1": {"median": 1000.0}}}}}
    new = {"games": {"g": {"aec": {"median": 95.0}, "batched": {"64x1": {"median": 700.0}}}}}
    flagged = compare(new, old, tolerance=0.15)
    assert len(flagged) == 1 and "batched/64x1" in flagged[0]


def test_compare_reads_a_renamed_game_under_its_old_id():
    old = {"games": {"time_of_the_daleks_v0": {"aec": {"median": 100.0}}}}
    new = {"games": {"time_of_the_daleks_v2": {"aec": {"median": 50.0}}}}
    assert compare(new, old) == ["time_of_the_daleks_v2/aec: 50 < 100 (-50%)"]


@pytest.mark.slow
def test_bench_cli_writes_json_png_and_compares(tmp_path):
    base = [
        sys.executable,
        "-m",
        "tardis_envs.cli",
        "bench",
        "tardis_run_v0",
        "--seconds",
        "0.2",
        "--repeats",
        "1",
        "--num-envs",
        "4",
        "--threads",
        "1",
        "--no-peers",
        "--no-compile",
    ]
    out = subprocess.run(
        base + ["--json", str(tmp_path / "a.json"), "--png", str(tmp_path / "a.png")], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "AEC agent-steps/s" in out.stdout and "batched" in out.stdout and (tmp_path / "a.png").exists()
    results = json.loads((tmp_path / "a.json").read_text())
    assert results["games"]["tardis_run_v0"]["mean_game_length"] > 10
    inflated = json.loads(json.dumps(results))
    inflated["games"]["tardis_run_v0"]["aec"]["median"] *= 100
    (tmp_path / "old.json").write_text(json.dumps(inflated))
    out = subprocess.run(base + ["--compare", str(tmp_path / "old.json")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 1 and "regressions against" in out.stdout


def test_perft_suite_counts_agree_with_the_chess_library_and_report_a_ratio():
    pytest.importorskip("chess")
    from tardis_envs.bench import PERFT_POSITIONS, format_perft, perft_suite

    name, fen, _ = PERFT_POSITIONS[1]
    table = perft_suite(seconds=0.05, repeats=1, positions=((name, fen, 2),))
    assert table[name]["nodes"] == 2039
    assert table[name]["ours"]["median"] > 0 and table[name]["chess_library"]["median"] > 0
    assert "x" in format_perft(table)[1]


def test_perft_cli_divide(capsys):
    from tardis_envs.cli import main

    assert main(["perft", "--fen", "start", "--depth", "2", "--divide"]) == 0
    out = capsys.readouterr().out
    assert "e2e4: 20" in out and "start depth 2: 400 nodes" in out


@pytest.mark.slow
def test_suite_measures_chess_in_both_modes_with_perft(monkeypatch):
    pytest.importorskip("chess")
    from tardis_envs import bench
    from tardis_envs.bench import PERFT_POSITIONS, format_results, perft_suite, run_suite

    # the suite's positions at depth 2: the deep counts are tests/chess/test_perft.py's, and the
    # chess library's perft at depths 3-4 is most of this test's time beside the compiles
    shallow = tuple((name, fen, 2) for name, fen, _ in PERFT_POSITIONS)
    monkeypatch.setattr(bench, "perft_suite", lambda **kw: perft_suite(positions=shallow, **kw))
    # the compact and packed rows are measured by the same `batched` as the float32 ones, each
    # on kernels of its own dtype (two cold compiles, 60 s here): this test sees them asked for
    # (`tardis-envs bench tardis_run_v0` in test_bench_cli_writes_json_png_and_compares measures compact)
    measure, asked = bench.batched, []

    def batched(env_id, num_envs, threads, seconds, repeats, obs_dtype="float32", **options):
        if obs_dtype == "float32":
            return measure(env_id, num_envs, threads, seconds, repeats, **options)
        asked.append((obs_dtype, num_envs, threads))
        return _stats(1.0)

    monkeypatch.setattr(bench, "batched", batched)
    results = run_suite(
        ["timelord_chess_v1"], seconds=0.05, repeats=1, sizes=(4,), threads=(1,), peers=False, compile=False, log=lambda line: None
    )
    assert asked == [("compact", 4, 1), ("packed", 4, 1)]
    row = results["games"]["timelord_chess_v1"]
    assert row["batched_compact"] == {"4x1": _stats(1.0)} and row["batched_packed"] == {"4x1": _stats(1.0)}
    classic = row["variants"]["classic"]
    assert classic["options"] == {"doctor": False} and classic["aec"]["median"] > 0 and classic["batched"]["4x1"]["median"] > 0
    assert set(row["perft"]) == {name for name, _, _ in PERFT_POSITIONS}
    assert row["perft"]["kiwipete"]["nodes"] == 2039 and row["perft"]["start"]["nodes"] == 400
    assert all(entry["chess_library"]["median"] > 0 for entry in row["perft"].values())
    text = format_results(results)
    assert "classic (doctor=False)" in text and "perft, classic chess" in text


def _stats(median):
    return {"median": median, "min": median, "max": median, "repeats": 1}


def test_format_results_judges_targets_and_compares_the_chess_kernel_with_openspiel():
    from tardis_envs.bench import TARGETS, format_results

    def game(compact):
        return {
            "aec": _stats(1.0),
            "kernel": _stats(460_000.0),
            "batched": {"8192x2": _stats(2.0)},
            "batched_compact": {"8192x2": _stats(compact)},
            "mean_game_length": 10.0,
        }

    target = TARGETS["timelord_chess_v1"]
    results = {
        "date": "today",
        "machine": {"cores": 2},
        "versions": {},
        "floor": {"2": _stats(4 * target)},
        "peers": {"openspiel_chess": {"cpp": _stats(230_000.0)}},
        "games": {"timelord_chess_v1": game(target), "tardis_run_v0": game(TARGETS["tardis_run_v0"] - 1)},
    }
    text = format_results(results)
    chess, tardis_run = text.split("timelord_chess_v1:")[1].split("tardis_run_v0:")
    assert f"(25.0% of floor; target {target:,.0f}: met)" in chess
    assert "= 2.0x openspiel_chess C++" in chess
    assert ": missed)" in tardis_run and "openspiel" not in tardis_run


def test_row_bytes_and_memory_profile_line():
    from tardis_envs import vector
    from tardis_envs.bench import format_memory_profile, memory_bandwidth, row_bytes

    sizes = row_bytes("timelord_chess_v1")
    vec = vector.make("timelord_chess_v1", 1, obs_dtype="compact")
    assert sizes == {
        "state": 8 * vec.game.state_size,
        "observation": 2 * int(np.prod(vec.game.observation_shape)),
        "mask": vec.game.num_actions,
    }
    assert memory_bandwidth(1, megabytes=8, repeats=1) > 1e8  # bytes/s: any machine copies 100 MB/s
    prof = {"bytes": {"state": 800, "observation": 150, "mask": 50}, "small": 64, "kernels_ns_8192": 400.0, "kernels_ns_64": 100.0}
    line = format_memory_profile("g", {**prof, "row_once_ns": 25.0})
    assert "a row is 1,000 bytes" in line and "memory costs 75%" in line and "moving the row once takes 25 ns" in line


def _rules_ab():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import rules_ab
    finally:
        sys.path.pop(0)
    return rules_ab


def test_rules_ab_times_a_commits_rules_beside_the_working_trees(capsys):
    """benchmarks/rules_ab.py loads a game's rules.py from git beside the current one, finds
    their masks and observations equal, and prints a time for each."""
    rules_ab = _rules_ab()
    assert rules_ab.main(["tardis_run_v0", "--base", "HEAD", "--rounds", "1", "--steps", "2000", "--check", "3", "--observe"]) == 0
    out = capsys.readouterr().out
    assert "masks and observations equal in 192 positions" in out  # 3 steps x 32 games x 2 dtypes
    assert "rules.py of HEAD: fastest" in out and "rules.py of working tree: fastest" in out
    with pytest.raises(SystemExit, match="no-such-commit"):
        rules_ab.main(["tardis_run_v0", "--base", "no-such-commit", "--rounds", "1"])
    with pytest.raises(SystemExit, match="expected key=value"):
        rules_ab.main(["tardis_run_v0", "max_turns"])


def test_rules_ab_check_finds_a_differing_mask():
    from types import SimpleNamespace

    from tardis_envs.games.tardis_run import layout, observe, rules

    def wrong_mask(state, tables, out):
        rules.legal_mask(state, tables, out)
        out[layout.ROLL] = 1 - out[layout.ROLL]

    rules_ab = _rules_ab()
    changed = SimpleNamespace(legal_mask=wrong_mask, observe=observe.observe)
    with pytest.raises(SystemExit, match="legal masks differ at step 0, game 0"):
        rules_ab.check("tardis_run_v0", changed, rules_ab.kernels_of(rules, observe.observe), 1, {})


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--seconds", "0"], "--seconds must be a finite number of seconds > 0, got 0.0"),
        (["--seconds", "-1"], "--seconds must be a finite number of seconds > 0, got -1.0"),
        (["--repeats", "0"], "--repeats must be an integer >= 1, got 0"),
        (["--threads", "0"], "--threads must be in 1..2 (numba's threads on this machine), got 0"),
        (["--threads", "64"], "--threads must be in 1..2 (numba's threads on this machine), got 64"),
        (["--num-envs", "0"], "--num-envs must be integers >= 1, got 0"),
        (["--tolerance", "nan"], "--tolerance must be a fraction in [0, 1), got nan"),
        (["--json", "{file}/results.json"], "--json '{file}/results.json': '{file}' is a file, so no folder can be made there"),
        (["--png", "{folder}"], "--png '{folder}' is a folder"),
        # nan and inf would time forever (last: they hang where they are not refused)
        (["--seconds", "nan"], "--seconds must be a finite number of seconds > 0, got nan"),
        (["--seconds", "inf"], "--seconds must be a finite number of seconds > 0, got inf"),
    ],
)
def test_bench_flags_are_checked_before_any_timing(flags, message, tmp_path, capsys, monkeypatch):
    from tardis_envs import bench
    from tardis_envs.cli import main

    monkeypatch.setattr(bench.numba.config, "NUMBA_NUM_THREADS", 2)
    (tmp_path / "file").write_text("not a folder")
    places = {"file": str(tmp_path / "file"), "folder": str(tmp_path)}
    flags = [flag.format(**places) for flag in flags]
    assert main(["bench", "tardis_run_v0", "--no-peers", "--no-compile", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tardis-envs: error: {message.format(**places)}") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--seconds", "nan"], "--seconds must be a finite number of seconds > 0, got nan"),
        (["--seconds", "0"], "--seconds must be a finite number of seconds > 0, got 0.0"),
        (["--repeats", "0"], "--repeats must be an integer >= 1, got 0"),
    ],
)
def test_perft_flags_are_checked_before_any_timing(flags, message, capsys):
    from tardis_envs.cli import main

    assert main(["perft", "--fen", "start", "--depth", "1", "--no-library", *flags]) == 2
    assert capsys.readouterr().err == f"tardis-envs: error: {message}\n"


def test_bench_and_perft_help_give_every_option_its_meaning_and_default():
    from tardis_envs.cli import build_parser

    verbs = next(a for a in build_parser()._actions if a.dest == "verb").choices
    for verb in ("bench", "perft"):
        for action in verbs[verb]._actions:
            if action.dest == "help":
                continue
            assert action.help and "default" in action.help, f"{verb} {action.option_strings or action.dest}: {action.help!r}"


def _quiet_results(floor_rate: float, game_rate: float, load: float = 0.1) -> dict:
    stats = {"median": game_rate, "min": game_rate, "max": game_rate, "repeats": 3}
    return {
        "date": "today",
        "machine": {"cores": 2, "load_before": load, "load_after": load},
        "versions": {},
        "floor": {"2": {"median": floor_rate, "min": floor_rate, "max": floor_rate, "repeats": 3}},
        "peers": {},
        "games": {
            "tardis_run_v0": {
                "aec": stats,
                "kernel": stats,
                "batched": {"8192x2": stats},
                "mean_game_length": 10.0,
            }
        },
    }


def test_bench_says_when_the_machine_was_busy():
    from tardis_envs.bench import format_results, load_warnings

    assert load_warnings(_quiet_results(1e8, 2e7)) == []
    assert "warning" not in format_results(_quiet_results(1e8, 2e7))
    text = format_results(_quiet_results(1e7, 2.012e7))  # 201.2% of the floor: the floor was timed under load
    assert "201.2% of floor" in text
    warning = (
        "warning: the machine was busy (a game ran at 201% of the trivial floor, which no game can outrun): these figures are unreliable"
    )
    assert text.count(warning) == 2  # above and below the table
    assert "load average 3.0 on 2 cores" in load_warnings(_quiet_results(1e8, 2e7, load=3.0))[0]
    spread = _quiet_results(1e8, 2e7)
    spread["games"]["tardis_run_v0"]["kernel"] = {"median": 2e6, "min": 1e6, "max": 3e6, "repeats": 3}
    assert "repeats of one figure differ up to 3.0x" in load_warnings(spread)[0]

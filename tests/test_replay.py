"""Replay files: every evaluated game saved, replayed exactly, and a bad file refused by name."""

import gzip
import json

import numpy as np
import pytest

import tardis_envs
from agents.evaluation import evaluate
from tardis_envs.cli import main
from tardis_envs.replay import MAX_FILE_BYTES, SUFFIX, Replay, ReplayError, file_name, play_back, record, sample_indices

AGENTS = {
    "tardis_run_v0": ["heuristic", "random"],
    "keys_to_the_tardis_v0": ["heuristic", "random"],
    "timelord_chess_v1": ["heuristic:greedy", "random"],
    "gallifrey_duel_v1": ["heuristic", "random"],
    "time_of_the_daleks_v2": ["heuristic"],  # a team evaluation beside heuristic team-mates
}


def aec_digest(env_id, seed, actions, options=None):
    """The final state of ``env.reset(seed)`` and ``actions`` through the AEC env: a path that shares
    nothing with the replay module but the kernels."""
    env = tardis_envs.make(env_id, **(options or {}))
    env.reset(seed=seed)
    for action in actions:
        env.step(int(action))
    from tardis_envs.replay import state_digest

    return state_digest(env.unwrapped.get_state()), env.unwrapped.get_state()


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_every_evaluated_game_replays_exactly(env_id, tmp_path):
    evaluation = evaluate(env_id, AGENTS[env_id], games=6, seed=40, replays=tmp_path)
    files = sorted(tmp_path.rglob(f"*{SUFFIX}"))
    assert evaluation.replays.written == len(files) == 6
    assert evaluation.payload["replays"] == {"folder": str(tmp_path), "files": 6}
    result = evaluation.result if evaluation.kind == "match" else next(iter(evaluation.result.values()))
    for path in files:
        replay = Replay.load(path)
        game_index = int(path.name.split("-")[1].split(".")[0])
        assert replay.env_id == env_id and replay.seed == 40 + game_index
        playback = play_back(replay)
        digest, state = aec_digest(env_id, replay.seed, replay.actions)
        assert digest == replay.digest
        assert np.array_equal(state, playback.final)
        assert np.array_equal(playback.state(len(replay.actions) // 2), list(playback.states())[len(replay.actions) // 2])
        # the seats and the rewards are the match's
        seats = result.seats[game_index]
        names = [result.agent_names[a].split("#")[0] for a in seats]
        assert replay.agents == names
        assert replay.rewards == result.rewards[game_index].tolist()
        assert len(replay.actions) == result.lengths[game_index]
        if env_id != "timelord_chess_v1":  # chess has no chance; the other games roll, deal or draw
            assert any(replay.chance), env_id


@pytest.mark.parametrize("env_id", ["tardis_run_v0", "keys_to_the_tardis_v0", "gallifrey_duel_v1"])
def test_a_replay_is_small(env_id, tmp_path):
    evaluate(env_id, AGENTS[env_id], games=10, seed=0, replays=tmp_path)
    sizes = [p.stat().st_size for p in tmp_path.glob(f"*{SUFFIX}")]
    assert len(sizes) == 10 and max(sizes) <= 2048, sizes


def recorded(env_id="tardis_run_v0", seed=3):
    env = tardis_envs.make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        if action is not None:
            actions.append(action)
        env.step(action)
    return record(env_id, seed, actions, ["random", "random"])


def write(path, payload, compress=True):
    data = json.dumps(payload).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def test_the_same_game_gives_the_same_bytes_and_a_plain_json_file_loads(tmp_path):
    replay = recorded()
    assert replay.dumps() == recorded().dumps()
    plain = write(tmp_path / "plain.json", replay.to_dict(), compress=False)
    assert play_back(Replay.load(plain)).final.tolist() == play_back(replay).final.tolist()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(actions=d["actions"][:5] + [d["actions"][5] + 1] + d["actions"][6:]), "action 6"),
        (lambda d: d["chance"][4].__setitem__(0, d["chance"][4][0] ^ 1) if d["chance"][4] else d["chance"][4].append(1), "action 4"),
        (lambda d: d.update(digest="0" * 32), "digest"),
        (lambda d: d.update(rewards=[0.0, 0.0]), "rewards"),
        (lambda d: d.update(seed=d["seed"] + 1), "the replay recorded"),  # TARDIS Run deals nothing: the first roll parts
        (lambda d: d.update(actions=d["actions"] + [0], chance=d["chance"] + [[]]), "after the game ended"),
        (lambda d: d.update(actions=[99] + d["actions"][1:]), "action 99 is outside 0..10"),
        (
            lambda d: d.update(env_id="timelord_chess_v0"),
            "recorded on timelord_chess_v0, a retired version; this package plays timelord_chess_v1",
        ),
        (lambda d: d.update(env_id="pong_v3"), "unknown env id 'pong_v3'"),
        (lambda d: d.update(version=2), "replay format version 2"),
        (lambda d: d.pop("digest"), "the field 'digest' is missing"),
        (lambda d: d.update(extra=1), "unknown field 'extra'"),
        (lambda d: d.update(actions=["a"]), "'actions' must be a list of integer actions"),
        (lambda d: d.update(chance=[[]]), "'chance' must be one list per action"),
        (lambda d: d.update(seed=-1), "'seed' must be an integer >= 0"),
        (lambda d: d.update(options={"board": "moon"}), "its rule options do not make a tardis_run_v0 game"),
        (lambda d: d.update(agents=["random"]), "1 agents for a 2-player game"),
    ],
)
def test_a_bad_replay_is_refused_in_one_line(tmp_path, change, message):
    payload = recorded().to_dict()
    change(payload)
    path = write(tmp_path / "bad.replay.json.gz", payload)
    with pytest.raises(ReplayError, match=None) as caught:
        play_back(Replay.load(path), source="bad")
    assert message in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_file_that_is_not_a_replay_is_refused(tmp_path):
    for data, message in [
        (b"\x1f\x8b\x08\x00garbage", "not a readable gzip file"),
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a replay file"),
        (gzip.compress(b" " * (70 << 20)), "inflates to more than"),
        (b"x" * (MAX_FILE_BYTES + 1), "larger than a replay may be"),
    ]:
        path = tmp_path / "x.replay.json.gz"
        path.write_bytes(data)
        with pytest.raises(ReplayError, match=message):
            Replay.load(path)
    with pytest.raises(ReplayError, match="no such file"):
        Replay.load(tmp_path / "missing.replay.json.gz")


def test_a_replay_folder_is_never_emptied(tmp_path):
    evaluate("tardis_run_v0", ["random", "random"], games=2, replays=tmp_path)
    mine = tmp_path / "notes.txt"
    mine.write_text("keep me")
    with pytest.raises(ValueError, match="already holds replays"):
        evaluate("tardis_run_v0", ["random", "random"], games=2, replays=tmp_path)
    before = (tmp_path / file_name(0)).read_bytes()
    evaluate("tardis_run_v0", ["heuristic", "random"], games=2, seed=9, replays=tmp_path, overwrite_replays=True)
    assert mine.read_text() == "keep me"
    assert (tmp_path / file_name(0)).read_bytes() != before  # replaced by the new game 0
    with pytest.raises(ValueError, match="replays_sample needs a replays folder"):
        evaluate("tardis_run_v0", ["random", "random"], games=2, replays_sample=1)


def test_a_sample_of_replays_is_spread_over_the_match(tmp_path):
    assert sample_indices(10, 4).tolist() == [0, 2, 5, 7]
    assert sample_indices(3, 5).tolist() == [0, 1, 2]
    evaluate("tardis_run_v0", ["heuristic", "random", "mcts:2"], games=8, replays=tmp_path, replays_sample=2)
    # a round robin: one folder per pair, two games each
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == ["heuristic-vs-mcts_2", "heuristic-vs-random", "random-vs-mcts_2"]
    assert all(sorted(p.name for p in (tmp_path / f).iterdir()) == [file_name(0), file_name(4)] for f in folders)


def test_the_command_line_saves_and_replays(tmp_path, capsys):
    folder = tmp_path / "replays"
    args = ["eval", "gallifrey_duel_v1", "--agents", "heuristic,random", "--games", "4", "--no-throughput"]
    assert main([*args, "--out", str(tmp_path / "out"), "--replays", str(folder), "--replays-sample", "2"]) == 0
    assert "replays: 2 games in" in capsys.readouterr().out
    assert main(["replay", str(folder / file_name(2))]) == 0
    out = capsys.readouterr().out
    assert "gallifrey_duel_v1, seed 2, options {" in out and "; first: heuristic, second: random" in out
    assert "verified: every action legal" in out and "final-state digest" in out
    assert main([*args, "--out", str(tmp_path / "out2"), "--replays", str(folder)]) == 2
    assert "--replays" in capsys.readouterr().err
    assert main([*args, "--replays-sample", "2"]) == 2
    assert "--replays-sample needs --replays DIR" in capsys.readouterr().err
    bad = write(tmp_path / "bad.replay.json.gz", {**recorded().to_dict(), "env_id": "gallifrey_duel_v0"})
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "gallifrey_duel_v0, a retired version" in err and "Traceback" not in err

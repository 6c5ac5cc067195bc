"""The web app's API (``tardis-envs serve``) through Starlette's test client: complete games,
hidden information, replays, and bad requests answered 4xx while the app keeps serving."""

import gzip
import json

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

import tardis_envs  # noqa: E402
from tardis_envs.browser import INSTALL_BROWSER, browser  # noqa: E402
from tardis_envs.replay import MAX_FILE_BYTES, Replay, file_name, state_digest  # noqa: E402
from tardis_envs.web import create_app  # noqa: E402

GAMES_PER_ENV = 20


def client(**kwargs) -> TestClient:
    return TestClient(create_app(**kwargs), base_url="http://127.0.0.1")


def aec_final(env_id, seed, actions, options=None):
    env = tardis_envs.make(env_id, **(options or {}))
    env.reset(seed=seed)
    for action in actions:
        env.step(int(action))
    return env.unwrapped.get_state()


async def play_random_games(env_id: str, games: int) -> int:
    """``games`` complete games of random legal moves through the API (every seat human), each
    checked against the same seed and actions played through the AEC env."""
    import httpx2

    rng = np.random.default_rng(0)
    players = tardis_envs.env_module(env_id).Game().num_players
    ended = 0
    transport = httpx2.ASGITransport(app=create_app())
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        for g in range(games):
            made = await http.post("/api/tables?picture=0", json={"env_id": env_id, "seats": ["human"] * players, "seed": 1000 + g})
            assert made.status_code == 201, made.text
            table = made.json()["id"]
            view = (await http.get(f"/api/tables/{table}?viewer=turn&picture=0")).json()
            actions = []
            while view["status"] == "running":
                choice = view["legal"][int(rng.integers(len(view["legal"])))]["action"]
                actions.append(choice)
                reply = await http.post(
                    f"/api/tables/{table}/play?viewer=turn&picture=0&moves_from={len(actions)}",
                    json={"seat": view["turn"], "action": choice},
                )
                assert reply.status_code == 200, reply.text
                view = reply.json()
                assert view["moves"] == [] and view["moves_from"] == len(actions)
            view = (await http.get(f"/api/tables/{table}?picture=0")).json()
            final = aec_final(env_id, 1000 + g, actions)
            assert view["digest"] == state_digest(final)
            assert view["rewards"] == [float(r) for r in final[4 : 4 + players]]
            assert [m["action"] for m in view["moves"]] == actions
            # the game's replay file replays to the same state
            replay = Replay.loads((await http.get(f"/api/tables/{table}/replay")).content)
            assert replay.digest == view["digest"] and replay.agents == ["human"] * players
            assert (await http.delete(f"/api/tables/{table}")).status_code == 200
            ended += 1
    return ended


@pytest.mark.slow
@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_complete_games_through_the_api_end_as_the_aec_env_does(env_id):
    import asyncio

    assert asyncio.run(play_random_games(env_id, GAMES_PER_ENV)) == GAMES_PER_ENV


def test_agents_play_their_seats_and_a_watched_game_runs_to_its_end():
    http = client()
    view = http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["heuristic", "random"], "seed": 5}).json()
    assert view["viewer"] is None and view["picture"].startswith("data:image/png;base64,")
    assert view["describe"] is not None  # nobody human: the whole state is shown
    steps = 0
    while view["status"] == "running":
        view = http.post(f"/api/tables/{view['id']}/advance?picture=0").json()
        assert view["moved"]
        steps += 1
    assert http.post(f"/api/tables/{view['id']}/advance").json()["moved"] is False
    # the same seed and agents through the evaluation's path give the same game
    replay = Replay.loads(http.get(f"/api/tables/{view['id']}/replay").content)
    assert len(replay.actions) == steps and replay.agents == ["heuristic", "random"]
    assert replay.digest == state_digest(aec_final("tardis_run_v0", 5, replay.actions))


def test_a_human_sees_only_its_own_hand():
    http = client()
    view = http.post("/api/tables", json={"env_id": "keys_to_the_tardis_v0", "seats": ["human", "human"], "seed": 3}).json()
    assert view["describe"] is None  # hidden hands: describe() shows them all
    mine = http.get(f"/api/tables/{view['id']}?viewer=0").json()
    theirs = http.get(f"/api/tables/{view['id']}?viewer=1").json()
    public = http.get(f"/api/tables/{view['id']}").json()
    assert mine["private"] and theirs["private"] and mine["private"] != theirs["private"]
    assert public["private"] is None and public["legal"] == []
    assert mine["legal"] and not theirs["legal"]  # seat 0 moves first
    assert mine["picture"] == theirs["picture"] == public["picture"]  # the board is public


def test_the_duels_first_choice_stays_hidden_until_both_have_chosen():
    http = client()
    view = http.post("/api/tables", json={"env_id": "gallifrey_duel_v1", "seats": ["human", "human"], "seed": 1}).json()
    first = view["legal"][0]
    after = http.post(f"/api/tables/{view['id']}/play", json={"seat": 0, "action": first["action"]}).json()
    assert after["moves"][-1]["text"] == first["text"]  # the chooser sees its own choice
    other = http.get(f"/api/tables/{view['id']}?viewer=1").json()
    assert other["moves"][-1] == {
        "n": 1,
        "seat": other["moves"][-1]["seat"],
        "text": "has chosen (hidden until both have)",
        "action": None,
        "chance": None,
    }
    assert http.get(f"/api/tables/{view['id']}/replay").status_code == 409  # a replay would show it


def test_bad_requests_get_a_4xx_and_the_app_keeps_serving():
    http = client()
    made = http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human", "random"], "seed": 0}).json()
    table = made["id"]
    illegal = next(a for a in range(11) if a not in [x["action"] for x in made["legal"]])
    cases = [
        (http.post("/api/tables", json={"env_id": "pong_v3", "seats": []}), 404, "unknown game 'pong_v3'"),
        (http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human"]}), 400, "has 2 seats"),
        (
            http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human", "ppo:/etc/passwd"]}),
            400,
            "not played by the web app",
        ),
        (http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human", "mcts:99999999"]}), 400, "simulations must be"),
        (http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human", "random"], "options": {"board": 7}}), 400, "board"),
        (http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human", "random"], "seed": -4}), 400, "seed"),
        (
            http.post("/api/tables", json={"env_id": "tardis_run_v0", "seats": ["human", "random"], "colour": 1}),
            400,
            "unknown field 'colour'",
        ),
        (http.post("/api/tables", content=b"{oops", headers={"content-type": "application/json"}), 400, "not JSON"),
        (
            http.post("/api/tables", content=b"env_id=x", headers={"content-type": "application/x-www-form-urlencoded"}),
            415,
            "application/json",
        ),
        (http.post(f"/api/tables/{table}/play", json={"seat": 0, "action": illegal}), 400, f"action {illegal} is not legal here"),
        (http.post(f"/api/tables/{table}/play", json={"seat": 1, "action": 0}), 409, "turn"),
        (http.post(f"/api/tables/{table}/play", json={"seat": 0, "action": "fly to the moon"}), 400, "unknown action"),
        (http.post(f"/api/tables/{table}/play", json={"seat": 7, "action": 0}), 400, "seat must be"),
        (http.post(f"/api/tables/{table}/play", json={"action": 0}), 400, "the body must be"),
        (http.get(f"/api/tables/{table}?viewer=9"), 400, "not a seat"),
        (http.get(f"/api/tables/{table}?viewer=me"), 400, "viewer must be"),
        (http.get("/api/tables/nope"), 404, "no open table 'nope'"),
        (http.post("/api/replays", content=b"not a replay"), 400, "not a replay file"),
        (http.post("/api/replays", content=b""), 400, "empty"),
        (http.post("/api/replays", content=b"x" * (MAX_FILE_BYTES + 1)), 413, "at most"),
        (http.post("/api/replays/open", json={"name": "../../etc/passwd"}), 404, "no replay"),
        (http.get("/api/replays/nope/frames/0"), 404, "no open replay"),
        (http.get("/api/nothing"), 404, "Not Found"),
    ]
    for response, status, words in cases:
        assert response.status_code == status, (words, response.status_code, response.text)
        assert words in response.json()["error"], (words, response.json())
    foreign = TestClient(create_app(), base_url="http://evil.example")
    assert foreign.get("/api/games").status_code == 400  # another host name: refused (DNS rebinding)
    # still serving, and the game untouched by the refused moves
    view = http.get(f"/api/tables/{table}?viewer=0").json()
    assert view["moves"] == [] and view["legal"] == made["legal"]
    assert http.post(f"/api/tables/{table}/play", json={"seat": 0, "action": made["legal"][0]["action"]}).status_code == 200


def test_open_games_are_bounded_and_idle_ones_make_room():
    now = [0.0]
    http = client(max_open=2, idle_seconds=60, clock=lambda: now[0])
    body = {"env_id": "tardis_run_v0", "seats": ["random", "random"]}
    first = http.post("/api/tables", json=body).json()["id"]
    now[0] = 30.0
    second = http.post("/api/tables", json=body).json()["id"]
    full = http.post("/api/tables", json=body)
    assert full.status_code == 503 and "the most this server holds" in full.json()["error"]
    now[0] = 80.0  # the first idle for 80 s, the second for 50 s
    assert http.post("/api/tables", json=body).status_code == 201
    assert http.get(f"/api/tables/{first}").status_code == 404
    assert http.get(f"/api/tables/{second}").status_code == 200


def test_replays_open_from_a_folder_and_by_upload_and_step(tmp_path):
    from agents.evaluation import evaluate

    evaluate("gallifrey_duel_v1", ["heuristic", "random"], games=2, replays=tmp_path / "duel")
    http = client(replay_dirs=[tmp_path / "duel"])
    names = http.get("/api/replays").json()
    assert names == [f"duel/{file_name(0)}", f"duel/{file_name(1)}"]
    view = http.post("/api/replays/open", json={"name": names[1]})
    assert view.status_code == 201, view.text
    view = view.json()
    replay = Replay.load(tmp_path / "duel" / file_name(1))
    assert view["frame"] == 0 and view["frames"] == len(replay.actions) and len(view["moves"]) == len(replay.actions)
    last = http.get(f"/api/replays/{view['id']}/frames/{view['frames']}").json()
    assert last["rewards"] == replay.rewards and last["status"] == replay.status
    assert http.get(f"/api/replays/{view['id']}/frames/{view['frames'] + 1}").status_code == 404
    uploaded = http.post("/api/replays?name=mine", content=replay.dumps())
    assert uploaded.status_code == 201 and uploaded.json()["moves"] == view["moves"]
    # a replay whose first choice was changed parts from the game where the round resolves
    data = replay.to_dict()
    data["actions"][0] = (data["actions"][0] + 1) % 256
    bad = http.post("/api/replays", content=gzip.compress(json.dumps(data).encode()))
    assert bad.status_code == 400 and bad.json()["error"].startswith("uploaded replay: action ")
    assert http.delete(f"/api/replays/{view['id']}").status_code == 200


def test_the_page_and_its_files_are_served():
    http = client()
    page = http.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    for name in ("app.js", "app.css"):
        assert http.get(f"/static/{name}").status_code == 200
    listed = http.get("/api/games").json()
    assert [g["env_id"] for g in listed] == list(tardis_envs.ENV_IDS)
    assert all(g["seats"] and g["agents"][0] == "random" for g in listed)


@pytest.mark.slow
@pytest.mark.skipif(browser() is None, reason=f"no Chromium: {INSTALL_BROWSER}")
def test_a_game_is_played_and_a_replay_stepped_in_a_real_browser(tmp_path):
    from agents.evaluation import evaluate
    from tardis_envs.web.browser_check import check

    evaluate("tardis_run_v0", ["heuristic", "random"], games=2, seed=3, replays=tmp_path / "replays")
    replay = tmp_path / "replays" / file_name(1)
    seen = check(screenshot_dir=None, replay=replay)
    assert seen["result"].startswith("Game over (terminated): ") and seen["clicks"] > 5, seen
    frames = len(Replay.load(replay).actions)
    assert seen["replay_first"] == f"position 0 of {frames}"
    assert seen["replay_last"].startswith("Game over (terminated)"), seen

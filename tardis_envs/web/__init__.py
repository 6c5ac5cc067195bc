"""``tardis-envs serve``: play, watch and replay every game in the browser (the ``web`` extra).

A Starlette app served by uvicorn on 127.0.0.1. One page (``static/index.html``, plain
JavaScript, nothing to build) talks to a small JSON API over the same env kernels:

==========================================  ====================================================
``GET /api/games``                          the games, their seats, options and agent choices
``POST /api/tables``                        a new game: ``{"env_id", "seats": ["human" | spec, ...],
                                            "seed"?, "options"?}``
``GET /api/tables/{id}?viewer=k``           the game as seat ``k`` sees it (no ``viewer``: public;
                                            ``turn``: the seat to move; ``picture=0``: no PNG;
                                            ``moves_from=n``: only the moves after the n-th)
``POST /api/tables/{id}/play``              ``{"seat", "action"}``: a human's move (a number or words);
                                            the answer is that seat's view (or ``?viewer=``'s)
``POST /api/tables/{id}/advance?viewer=k``  one decision of the agent to move (watching)
``GET /api/tables/{id}/replay``             the game so far as a replay file
``GET /api/replays``                        replay files in the folders given to ``serve``
``POST /api/replays/open``                  ``{"name"}``: open one of those
``POST /api/replays``                       upload a replay file (the body is the file)
``GET /api/replays/{id}/frames/{k}``        the position before move ``k + 1``, with every move
``DELETE /api/tables/{id}``, ``/api/replays/{id}``  close
==========================================  ====================================================

Every refused request gets a 4xx with ``{"error": "<one line>"}`` (an unknown game or table
404, an illegal move 400, a move out of turn or while an agent of that game decides 409, a malformed replay 400, an upload over
:data:`tardis_envs.replay.MAX_FILE_BYTES` 413, no room for another game 503) and the server
goes on serving. Requests must name this machine as their host (a page of another site
cannot reach the app through DNS tricks) and send JSON as ``application/json``. Agents that
load files (``ppo:<checkpoint>``) are not offered: a request cannot make the server read a file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ENV_IDS, env_module
from ..replay import MAX_FILE_BYTES, SUFFIX, Replay, ReplayError
from .tables import HUMAN, ReplayView, Tables, WebError, new_table

STATIC = Path(__file__).resolve().parent / "static"
MAX_JSON_BYTES = 64 << 10
LOOPBACK = ("127.0.0.1", "localhost")


def games() -> list[dict[str, Any]]:
    """What the page offers for each game: seats, player counts, options and agent choices."""
    listed = []
    for env_id in ENV_IDS:
        module = env_module(env_id)
        spec = module.SPEC
        game = module.Game()
        players = spec.options.get("num_players")
        agents = ["random", "heuristic", "ppo:baseline", "mcts:200", "ismcts:200"]
        if env_id in ("gallifrey_duel_v1", "tardis_run_v0"):
            agents.insert(3, "az:baseline")
        listed.append(
            {
                "env_id": env_id,
                "name": spec.name,
                "seats": list(game.agent_names),
                "num_players": list(players.choices) if players is not None and players.choices else [game.num_players],
                "default_players": game.num_players,
                "hidden_information": spec.hidden_information,
                "simultaneous": spec.simultaneous,
                "cooperative": spec.cooperative,
                "options": {name: {"default": option.default, "doc": option.doc} for name, option in spec.options.items()},
                "agents": agents,
            }
        )
    return listed


def replay_files(folders: Sequence[Path]) -> dict[str, Path]:
    """The replay files under ``folders`` by the name the page shows (``<folder>/<relative path>``)."""
    found = {}
    for folder in folders:
        for path in sorted(folder.rglob(f"*{SUFFIX}")):
            found[f"{folder.name}/{path.relative_to(folder).as_posix()}"] = path
    return found


def create_app(
    replay_dirs: Sequence[str | Path] = (),
    max_open: int = 64,
    idle_seconds: float = 1800.0,
    hosts: Sequence[str] = (),
    clock=time.monotonic,
):
    """The web app (a Starlette application): ``replay_dirs`` are folders whose replay files it
    lists, ``max_open`` the most games (and replay views) it holds, ``idle_seconds`` how long an
    untouched one is kept when room is needed (by ``clock``), ``hosts`` host names it answers
    besides this machine's loopback names."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    folders = []
    for folder in replay_dirs:
        path = Path(folder)
        if not path.is_dir():
            raise ValueError(f"--replays {str(folder)!r} is not a folder")
        folders.append(path.resolve())
    tables = Tables(max_open=max_open, idle_seconds=idle_seconds, clock=clock)
    listing = games()

    async def body_json(request: Request) -> Any:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise WebError("send the request body as application/json", 415)
        data = await _body(request, MAX_JSON_BYTES)
        try:
            return json.loads(data or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise WebError(f"the body is not JSON ({exc})") from None

    def viewer_of(request: Request) -> int | str | None:
        text = request.query_params.get("viewer")
        if text is None or text == "":
            return None
        if text != "turn" and not text.isdigit():
            raise WebError(f"viewer must be a seat number or 'turn', got {text!r}")
        return text if text == "turn" else int(text)

    def shown(request: Request) -> tuple[bool, int]:
        """The query's ``picture`` (0 or 1) and ``moves_from`` (the moves the client holds)."""
        text = request.query_params.get("picture", "1")
        if text not in ("0", "1"):
            raise WebError(f"picture must be 0 or 1, got {text!r}")
        held = request.query_params.get("moves_from", "0")
        if not held.isdigit():
            raise WebError(f"moves_from must be a number of moves, got {held!r}")
        return text == "1", int(held)

    def table_view(table, viewer: int | str | None, show: tuple[bool, int] = (True, 0)) -> dict:
        # "turn": the seat to move now (a hot-seat page shows each human its own turn)
        seat = table.current if viewer == "turn" else viewer
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < len(table.seats)):
            raise WebError(f"viewer {seat} is not a seat of this game (0..{len(table.seats) - 1})")
        return table.view(seat, *show)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def list_games(request: Request) -> Response:
        return JSONResponse(listing)

    async def create_table(request: Request) -> Response:
        payload = await body_json(request)
        table = await run_in_threadpool(new_table, payload)
        tables.add("table", table)
        humans = [s for s, spec in enumerate(table.seats) if spec == HUMAN]
        return JSONResponse(await run_in_threadpool(table_view, table, humans[0] if humans else None), status_code=201)

    async def show_table(request: Request) -> Response:
        table = tables.get("table", request.path_params["id"])
        viewer, show = viewer_of(request), shown(request)
        return JSONResponse(_at_once(table, table_view, table, viewer, show))

    async def play(request: Request) -> Response:
        table = tables.get("table", request.path_params["id"])
        payload = await body_json(request)
        if not isinstance(payload, dict) or set(payload) != {"seat", "action"}:
            raise WebError('the body must be {"seat": <seat number>, "action": <number or words>}')
        seat = payload["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(table.seats):
            raise WebError(f"seat must be a seat number 0..{len(table.seats) - 1}, got {seat!r}")
        viewer, show = viewer_of(request), shown(request)

        def act():
            table.play(seat, payload["action"])
            return table_view(table, seat if viewer is None else viewer, show)

        return JSONResponse(_at_once(table, act))

    async def advance(request: Request) -> Response:
        table = tables.get("table", request.path_params["id"])
        viewer, show = viewer_of(request), shown(request)

        def step():
            moved = table.advance()
            return {**table_view(table, viewer, show), "moved": moved}

        return JSONResponse(await run_in_threadpool(_locked, table, step))

    async def table_replay(request: Request) -> Response:
        table = tables.get("table", request.path_params["id"])
        if table.running and any(spec == HUMAN for spec in table.seats) and table.game.spec.hidden_information:
            raise WebError("a replay shows every hand: download it when the game is over", 409)
        replay = await run_in_threadpool(_locked, table, table.replay)
        name = f"{table.env_id}-seed{table.seed}{SUFFIX}"
        return Response(replay.dumps(), media_type="application/gzip", headers={"content-disposition": f'attachment; filename="{name}"'})

    async def close(request: Request) -> Response:
        kind = "table" if request.url.path.startswith("/api/tables/") else "replay"
        tables.close(kind, request.path_params["id"])
        return JSONResponse({"closed": request.path_params["id"]})

    async def list_replays(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(lambda: sorted(replay_files(folders))))

    async def open_replay(request: Request) -> Response:
        payload = await body_json(request)
        name = payload.get("name") if isinstance(payload, dict) else None
        files = await run_in_threadpool(replay_files, folders)
        if name not in files:
            raise WebError(f"no replay {name!r} in the folders given to serve", 404)
        return await _open(lambda: ReplayView(Replay.load(files[name]), name))

    async def upload_replay(request: Request) -> Response:
        data = await _body(request, MAX_FILE_BYTES)
        if not data:
            raise WebError("the body is empty: send the replay file's bytes")
        name = request.query_params.get("name") or "uploaded replay"
        return await _open(lambda: ReplayView(Replay.loads(data, name[:100]), name[:100]))

    async def _open(make) -> Response:
        view = await run_in_threadpool(make)
        tables.add("replay", view)
        return JSONResponse(await run_in_threadpool(view.frame, 0), status_code=201)

    async def frame(request: Request) -> Response:
        view = tables.get("replay", request.path_params["id"])
        picture, moves_from = shown(request)
        return JSONResponse(_at_once(view, view.frame, request.path_params["k"], picture, moves_from))

    async def refused(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status", 400)
        return JSONResponse({"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}, status_code=status)

    async def http_error(request: Request, exc: Exception) -> Response:
        # Starlette's own refusals (an unknown path 404, a method not allowed 405) in the app's form
        return JSONResponse({"error": getattr(exc, "detail", str(exc))}, status_code=getattr(exc, "status_code", 500))

    routes = [
        Route("/", index),
        Route("/api/games", list_games),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{id}", show_table),
        Route("/api/tables/{id}", close, methods=["DELETE"]),
        Route("/api/tables/{id}/play", play, methods=["POST"]),
        Route("/api/tables/{id}/advance", advance, methods=["POST"]),
        Route("/api/tables/{id}/replay", table_replay),
        Route("/api/replays", list_replays),
        Route("/api/replays", upload_replay, methods=["POST"]),
        Route("/api/replays/open", open_replay, methods=["POST"]),
        Route("/api/replays/{id}/frames/{k:int}", frame),
        Route("/api/replays/{id}", close, methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    allowed = ["127.0.0.1", "localhost", *hosts]
    return Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed)],
        exception_handlers={WebError: refused, ReplayError: refused, ValueError: refused, HTTPException: http_error},
    )


def _locked(item, function, *args):
    """``function(*args)`` holding ``item``'s lock: one request at a time changes a game. Work
    that may take long (an agent's decision, loading an agent or a replay) runs so in a worker
    thread."""
    with item.lock:
        return function(*args)


def _at_once(item, function, *args):
    """``function(*args)`` now, in the event loop (a human's move, a view: milliseconds), or a
    409 while a worker thread holds ``item`` (an agent is deciding): the loop never waits on it."""
    if not item.lock.acquire(blocking=False):
        raise WebError("this game is busy (an agent is deciding); ask again in a moment", 409)
    try:
        return function(*args)
    finally:
        item.lock.release()


async def _body(request, limit: int) -> bytes:
    """The request's body, refused with 413 past ``limit`` bytes (before reading it, when the
    client says its length)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise WebError(f"the body is {int(declared):,} bytes; at most {limit:,} are accepted", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise WebError(f"the body is larger than {limit:,} bytes, the most accepted", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def serve(
    host: str = "127.0.0.1", port: int = 8000, replay_dirs: Sequence[str | Path] = (), max_open: int = 64, idle_seconds: float = 1800.0
) -> None:
    """Run the app with uvicorn until Ctrl-C."""
    import uvicorn

    app = create_app(replay_dirs, max_open=max_open, idle_seconds=idle_seconds, hosts=() if host in LOOPBACK else (host,))
    uvicorn.run(app, host=host, port=port, log_level="warning")

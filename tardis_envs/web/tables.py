"""The games and replays the web app holds, without the web: tables of play and replay views.

A :class:`Table` is one game in play: each seat a ``human`` or an agent spec. Humans act
through :meth:`Table.play`, agents one decision at a time through :meth:`Table.advance` (the
page calls it at the speed the user picks, so agent-vs-agent games can be watched). A
:class:`ReplayView` is a replay file opened for watching, frame by frame. :class:`Tables`
holds both kinds with bounded memory: at most ``max_open`` of each, and one left alone for
``idle_seconds`` is dropped when room is needed.

What a viewer sees follows the game's information: :meth:`Table.view` for seat ``k`` shows the
public board, seat ``k``'s own hand (the game's ``seat_lines``) and, when it is ``k``'s turn, the
legal actions in the game's words; the whole state (``describe()``) only in a game without
hidden information, in a game without human seats (watching), or after the game ends. In a
game of simultaneous choices (the duel) the first seat's choice shows as made, not as what,
until the round is complete.
"""

from __future__ import annotations

import base64
import io
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import ENV_IDS, check_env_id, env_module
from ..core.rng import check_seed, seed_to_key
from ..core.state import CURRENT_PLAYER, REWARDS, RNG_COUNTER, RUNNING, STATUS, STATUS_NAMES
from ..replay import Playback, Replay, play_back, record, state_digest

HUMAN = "human"
AGENT_KINDS = ("random", "heuristic", "ppo:baseline", "az:baseline", "mcts", "ismcts")
"""Agent specs the web app accepts (their settings after colons): none that names a file, so a
request cannot make the server read one."""
MAX_SIMULATIONS = 5000
"""The most simulations a search agent of the web app may spend per move."""


class WebError(ValueError):
    """A request the app refuses: ``status`` is the HTTP status, the message says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def check_agent_spec(spec: Any) -> str:
    """``spec`` if the web app plays it, else a :class:`WebError` naming what is allowed."""
    if not isinstance(spec, str) or not spec.strip():
        raise WebError(f"a seat is 'human' or an agent spec, got {spec!r}")
    spec = spec.strip()
    head = spec.split(":", 1)[0].lower()
    allowed = (
        spec.lower() in ("random", "heuristic", "ppo:baseline")
        or head == "heuristic"
        or spec.lower().startswith("az:baseline")
        or head in ("mcts", "ismcts")
    )
    if not allowed:
        raise WebError(
            f"agent {spec!r} is not played by the web app; use random, heuristic[:preset], ppo:baseline, "
            "az:baseline[:settings], mcts:<n> or ismcts:<n> (checkpoint files: tardis-envs eval / play)"
        )
    if head in ("mcts", "ismcts"):
        count = spec.split(":")[1] if ":" in spec else ""
        if not count.isdigit() or not 1 <= int(count) <= MAX_SIMULATIONS:
            raise WebError(f"agent {spec!r}: simulations must be 1..{MAX_SIMULATIONS}")
    if "prior=" in spec and "prior=ppo:baseline" not in spec:
        raise WebError(f"agent {spec!r}: the web app's search takes prior=ppo:baseline only")
    return spec


def picture(game, state: np.ndarray) -> str:
    """The game's own picture of ``state`` as a PNG data URL."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(game.render_rgb(state)).save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _rewards(game, state) -> list[float]:
    return [float(r) for r in state[REWARDS : REWARDS + game.num_players]]


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and value != value:
        return None
    return value


@dataclass
class Move:
    seat: int
    action: int
    text: str
    chance: str | None


@dataclass
class Table:
    """One game in play (see the module's docstring)."""

    env_id: str
    seats: list[str]
    seed: int
    options: dict = field(default_factory=dict)
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))

    def __post_init__(self) -> None:
        from agents import make_agent

        check_env_id(self.env_id)
        try:
            self.game = env_module(self.env_id).Game(**self.options)
        except (TypeError, ValueError) as exc:
            raise WebError(f"{self.env_id}: {exc}") from None
        game = self.game
        if len(self.seats) != game.num_players:
            raise WebError(
                f"{self.env_id} with these options has {game.num_players} seats ({', '.join(game.agent_names)}); got {len(self.seats)}"
            )
        self.seats = [HUMAN if s == HUMAN else check_agent_spec(s) for s in self.seats]
        self.state = game.new_state(seed_to_key(self.seed))
        self.moves: list[Move] = []
        self.agents = {}
        for seat, spec in enumerate(self.seats):
            if spec != HUMAN:
                try:
                    self.agents[seat] = make_agent(spec, game, seed=self.seed + seat)
                except (ValueError, FileNotFoundError) as exc:
                    raise WebError(f"seat {game.agent_names[seat]}: {exc}") from None
        self.lock = threading.Lock()
        self.touched = 0.0  # set by Tables

    # --- the game -------------------------------------------------------------
    @property
    def running(self) -> bool:
        return int(self.state[STATUS]) == RUNNING

    @property
    def current(self) -> int | None:
        return int(self.state[CURRENT_PLAYER]) if self.running else None

    def _step(self, action: int) -> None:
        game, seat = self.game, int(self.state[CURRENT_PLAYER])
        text = game.action_to_string(self.state, action)
        counter = int(self.state[RNG_COUNTER])
        game.kernels.step(self.state, game.tables, action)
        chance = game.chance_words(self.state) if int(self.state[RNG_COUNTER]) != counter else None
        self.moves.append(Move(seat, action, text, chance))

    def play(self, seat: int, action: Any) -> None:
        """A human's ``action`` (an int, or its words) for ``seat``: refused unless it is that
        seat's turn, the seat is human and the action is legal."""
        if not self.running:
            raise WebError("the game is over", 409)
        if seat != self.current:
            raise WebError(f"it is {self.game.agent_names[self.current]}'s turn, not seat {seat}'s", 409)
        if self.seats[seat] != HUMAN:
            raise WebError(f"seat {self.game.agent_names[seat]} is played by {self.seats[seat]}", 409)
        if isinstance(action, str):
            action = self.game.string_to_action(self.state, action)
        if isinstance(action, bool) or not isinstance(action, int):
            raise WebError(f"an action is an integer or its words, got {action!r}")
        legal = self.game.legal_actions(self.state)
        if action not in legal:
            raise WebError(
                f"action {action} is not legal here; legal: {', '.join(map(str, legal[:30]))}" + (" ..." if len(legal) > 30 else "")
            )
        self._step(int(action))

    def advance(self) -> bool:
        """One decision of the agent to move; False when a human is to move or the game is over."""
        seat = self.current
        if seat is None or self.seats[seat] == HUMAN:
            return False
        game = self.game
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[game.legal_actions(self.state)] = 1
        observation = game.observation(self.state, seat, dtype=np.float32)
        action = int(self.agents[seat].act_batch(self.state[None].copy(), observation[None], mask[None])[0])
        self._step(action)
        return True

    # --- what a viewer sees -------------------------------------------------------
    def _hidden_last_move(self) -> bool:
        """The duel's first choice of a round, while the other seat has still to choose."""
        return bool(self.game.spec.simultaneous and self.running and self.moves and self.moves[-1].seat < (self.current or 0))

    def view(self, viewer: int | None = None, with_picture: bool = True, moves_from: int = 0) -> dict:
        """What seat ``viewer`` sees (``None``: what anyone sees); ``with_picture`` False leaves
        out the PNG, ``moves_from`` the moves a client already holds (``moves`` then starts at
        move ``moves_from + 1``: a long game's list is not sent again with every move)."""
        game, state = self.game, self.state
        humans = [s for s, spec in enumerate(self.seats) if spec == HUMAN]
        open_view = not game.spec.hidden_information or not humans or not self.running
        moves = []
        for k in range(max(0, moves_from), len(self.moves)):
            move = self.moves[k]
            hidden = k == len(self.moves) - 1 and self._hidden_last_move() and move.seat != viewer
            moves.append(
                {
                    "n": k + 1,
                    "seat": game.agent_names[move.seat],
                    "text": "has chosen (hidden until both have)" if hidden else move.text,
                    "action": None if hidden else move.action,
                    "chance": None if hidden else move.chance,
                }
            )
        out: dict[str, Any] = {
            "id": self.id,
            "kind": "table",
            "env_id": self.env_id,
            "name": game.spec.name,
            "seed": self.seed,
            "options": self.options,
            "seats": [{"seat": s, "name": name, "player": self.seats[s]} for s, name in enumerate(game.agent_names)],
            "status": STATUS_NAMES[int(state[STATUS])],
            "turn": self.current,
            "turn_name": None if self.current is None else game.agent_names[self.current],
            "human_turn": self.current is not None and self.seats[self.current] == HUMAN,
            "viewer": viewer,
            "moves_from": max(0, min(moves_from, len(self.moves))),
            "moves": moves,
            "picture": picture(game, state) if with_picture else None,
            "board": game.render_ansi(state),
            "digest": state_digest(state),
            "private": None,
            "legal": [],
            "describe": _json_safe(game.describe(state)) if open_view else None,
            "rewards": None if self.running else _rewards(game, state),
        }
        drawing = game.drawing
        if viewer is not None and self.seats[viewer] == HUMAN and hasattr(drawing, "seat_lines"):
            out["private"] = "\n".join(drawing.seat_lines(game, state, viewer))
        if viewer is not None and viewer == self.current and self.seats[viewer] == HUMAN:
            out["legal"] = [{"action": int(a), "text": game.action_to_string(state, int(a))} for a in game.legal_actions(state)]
        return out

    def replay(self) -> Replay:
        """The game so far as a replay file (humans recorded as ``human``)."""
        return record(self.env_id, self.seed, [m.action for m in self.moves], self.seats, self.options, game=self.game)


class ReplayView:
    """A replay file opened for watching: :meth:`frame` ``k`` is the position before move ``k + 1``."""

    def __init__(self, replay: Replay, name: str = "replay"):
        self.id = secrets.token_urlsafe(12)
        self.replay = replay
        self.name = name
        self.playback: Playback = play_back(replay, source=name)
        game = self.playback.game
        self.moves = []
        states = self.playback.states()
        before = next(states)
        for k, after in enumerate(states):
            chance = game.chance_words(after) if self.playback.chance[k + 1] else None
            self.moves.append(
                {"n": k + 1, "seat": game.agent_names[self.playback.movers[k]], "text": self.playback.notation(k, before), "chance": chance}
            )
            before = after
        self.lock = threading.Lock()
        self.touched = 0.0  # set by Tables

    def frame(self, k: int, with_picture: bool = True, moves_from: int = 0) -> dict:
        """Position ``k`` with every move after the first ``moves_from`` (those the client holds)."""
        replay, game = self.replay, self.playback.game
        if not 0 <= k <= len(replay.actions):
            raise WebError(f"frame {k} is outside 0..{len(replay.actions)}", 404)
        state = self.playback.state(k)
        return {
            "id": self.id,
            "kind": "replay",
            "name": self.name,
            "env_id": replay.env_id,
            "seed": replay.seed,
            "options": replay.options,
            "seats": [
                {"seat": s, "name": n, "player": (replay.agents or ["?"] * game.num_players)[s]} for s, n in enumerate(game.agent_names)
            ],
            "frame": k,
            "frames": len(replay.actions),
            "moves_from": max(0, min(moves_from, len(self.moves))),
            "moves": self.moves[max(0, moves_from) :],
            "picture": picture(game, state) if with_picture else None,
            "board": game.render_ansi(state),
            "describe": _json_safe(game.describe(state)),
            "status": replay.status if k == len(replay.actions) else STATUS_NAMES[int(state[STATUS])],
            "rewards": replay.rewards if k == len(replay.actions) else None,
            "digest": replay.digest,
        }


class Tables:
    """The app's open tables and replay views, at most ``max_open`` of each; those idle for
    ``idle_seconds`` (by ``clock``) are dropped when a new one comes."""

    def __init__(self, max_open: int = 64, idle_seconds: float = 1800.0, clock=time.monotonic):
        self.max_open = max_open
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.open: dict[str, dict[str, Any]] = {"table": {}, "replay": {}}
        self.lock = threading.Lock()

    def add(self, kind: str, item) -> None:
        with self.lock:
            held = self.open[kind]
            now = item.touched = self.clock()
            for key in [k for k, v in held.items() if now - v.touched > self.idle_seconds]:
                del held[key]  # idle too long: dropped
            if len(held) >= self.max_open:
                raise WebError(
                    f"{len(held)} {kind}s are open, the most this server holds; close one or wait {self.idle_seconds / 60:.0f} min", 503
                )
            held[item.id] = item

    def get(self, kind: str, key: str):
        with self.lock:
            item = self.open[kind].get(key)
        if item is None:
            raise WebError(f"no open {kind} {key!r} (closed, or idle too long)", 404)
        item.touched = self.clock()
        return item

    def close(self, kind: str, key: str) -> None:
        with self.lock:
            if self.open[kind].pop(key, None) is None:
                raise WebError(f"no open {kind} {key!r}", 404)


def new_table(request: Any) -> Table:
    """A :class:`Table` from a request's JSON body: ``env_id``, ``seats`` (``human`` or agent
    specs, one per seat), ``seed`` (optional) and ``options`` (optional rule options)."""
    if not isinstance(request, dict):
        raise WebError("the body must be a JSON object with env_id and seats")
    unknown = sorted(set(request) - {"env_id", "seats", "seed", "options"})
    if unknown:
        raise WebError(f"unknown field {unknown[0]!r}; fields: env_id, seats, seed, options")
    env_id = request.get("env_id")
    if env_id not in ENV_IDS:
        raise WebError(f"unknown game {env_id!r}; games: {', '.join(ENV_IDS)}", 404)
    seats = request.get("seats")
    if not isinstance(seats, list):
        raise WebError("seats must be a list: 'human' or an agent spec per seat")
    try:
        checked = check_seed(request.get("seed", None))
    except ValueError as exc:
        raise WebError(str(exc)) from None
    seed = secrets.randbelow(2**31) if checked is None else checked
    options = request.get("options") or {}
    if not isinstance(options, dict):
        raise WebError("options must be an object of rule options")
    return Table(env_id, list(seats), seed, dict(options))

"""Replay files: one played game, saved small and replayed exactly.

A replay holds what decides a game and what shows it: the env id and its rule options, the
seed (game ``g`` of an evaluation is ``env.reset(seed=seed + g)``), the agent spec in each
seat, the actions in order, the outcome of every chance draw each step made (dice, paddles,
each step of a shuffle, the card a Time Card draw turns up), the final rewards and status, and
a digest of the final state. On disk it is gzip-compressed JSON (``.replay.json.gz``; a plain
``.json`` file loads too)::

    {"format": "tardis-envs replay", "version": 1, "env_id": "tardis_run_v0", "options": {},
     "seed": 17, "agents": ["heuristic", "random"], "actions": [3, 0, ...],
     "chance": [[...the opening's draws], [...the draws of action 1], ...],
     "rewards": [1.0, -1.0], "status": "terminated", "digest": "<32 hex digits>",
     "tardis_envs": "0.1.0"}

``chance`` has one list per step, the opening first: draw ``k`` of a step is an outcome in
``[0, n)`` of a uniform draw of ``n`` or ``0``/``1`` of a biased coin
(:mod:`tardis_envs.core.chance`). ``digest`` is BLAKE2b (16 bytes) of the final state's words
as little-endian int64.

:func:`play_back` re-runs a replay through the game's own kernels from its seed and checks it
on the way: each action must be legal where it is played, each step must draw exactly the
recorded outcomes, the final state must hash to the digest and give the recorded rewards.
Anything else is refused with the step where the file and the game part. A file is data from
outside: it is checked field by field before any kernel sees it (the kernels trust their
input), and a replay of another version of the env id is refused by name.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import ENV_IDS, RETIRED_ENV_IDS, __version__, env_module
from .core.chance import OPENING, sampled_draws
from .core.rng import check_seed, seed_to_key
from .core.state import CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS, STATUS_NAMES, VARIANT

FORMAT = "tardis-envs replay"
VERSION = 1
SUFFIX = ".replay.json.gz"
MAX_FILE_BYTES = 4 << 20
"""A replay file larger than this is refused before it is read (a long game of Time of the
Daleks compresses to a few KB)."""
MAX_JSON_BYTES = 64 << 20
"""The most a replay may inflate to (a gzip bomb is refused, not unpacked)."""
MAX_DRAWS_PER_STEP = 1 << 14
"""Draws one step may make and still be recorded (an opening's shuffles make hundreds)."""

_FIELDS = ("format", "version", "env_id", "options", "seed", "agents", "actions", "chance", "rewards", "status", "digest", "tardis_envs")
_DIGEST = re.compile(r"^[0-9a-f]{32}$")


class ReplayError(ValueError):
    """A replay that cannot be read or does not replay: one line naming the file and what is wrong."""


def state_digest(state: np.ndarray) -> str:
    """The digest a replay keeps of a state: BLAKE2b (16 bytes) of its words as little-endian int64."""
    words = np.ascontiguousarray(state, dtype="<i8")
    return hashlib.blake2b(words.tobytes(), digest_size=16).hexdigest()


@dataclass
class Replay:
    """One game: see the module's docstring for the fields."""

    env_id: str
    seed: int
    actions: list[int]
    chance: list[list[int]]
    rewards: list[float]
    status: str
    digest: str
    agents: list[str] = field(default_factory=list)
    options: dict = field(default_factory=dict)
    version: str = __version__

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "env_id": self.env_id,
            "options": self.options,
            "seed": self.seed,
            "agents": self.agents,
            "actions": self.actions,
            "chance": self.chance,
            "rewards": self.rewards,
            "status": self.status,
            "digest": self.digest,
            "tardis_envs": self.version,
        }

    def dumps(self) -> bytes:
        """The file's bytes: compact JSON, gzip-compressed (``mtime`` 0: the same game gives the same bytes)."""
        text = json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False)
        return gzip.compress(text.encode(), compresslevel=9, mtime=0)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.dumps())
        return path

    @classmethod
    def loads(cls, data: bytes, source: str = "replay") -> Replay:
        """A replay from a file's bytes (gzip or plain JSON), every field checked."""
        if len(data) > MAX_FILE_BYTES:
            raise ReplayError(f"{source}: {len(data):,} bytes is larger than a replay may be ({MAX_FILE_BYTES:,})")
        if data[:2] == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
                    data = stream.read(MAX_JSON_BYTES + 1)
            except (OSError, EOFError) as exc:
                raise ReplayError(f"{source}: not a readable gzip file ({exc})") from None
            if len(data) > MAX_JSON_BYTES:
                raise ReplayError(f"{source}: inflates to more than {MAX_JSON_BYTES:,} bytes; not a replay")
        try:
            payload = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ReplayError(f"{source}: not a replay file (not JSON: {exc})") from None
        return cls.from_dict(payload, source)

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        path = Path(path)
        if not path.is_file():
            raise ReplayError(f"replay {str(path)!r}: no such file")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ReplayError(f"replay {str(path)!r}: {size:,} bytes is larger than a replay may be ({MAX_FILE_BYTES:,})")
        return cls.loads(path.read_bytes(), f"replay {str(path)!r}")

    @classmethod
    def from_dict(cls, payload: Any, source: str = "replay") -> Replay:
        """Check every field's type and range (not yet the game: :func:`play_back` does that)."""
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ReplayError(f"{source}: not a replay file (no 'format': {FORMAT!r})")
        missing = [name for name in _FIELDS if name not in payload]
        if missing:
            raise ReplayError(f"{source}: the field {missing[0]!r} is missing")
        unknown = sorted(set(payload) - set(_FIELDS))
        if unknown:
            raise ReplayError(f"{source}: unknown field {unknown[0]!r}")
        if payload["version"] != VERSION:
            raise ReplayError(f"{source}: replay format version {payload['version']!r}; this package reads version {VERSION}")
        env_id = payload["env_id"]
        if env_id in RETIRED_ENV_IDS:
            current, change = RETIRED_ENV_IDS[env_id]
            raise ReplayError(
                f"{source}: recorded on {env_id}, a retired version; this package plays {current} ({change}), "
                "so the game cannot be replayed here"
            )
        if env_id not in ENV_IDS:
            raise ReplayError(f"{source}: unknown env id {env_id!r}; known: {', '.join(ENV_IDS)}")

        def need(name: str, ok: bool, expected: str) -> None:
            if not ok:
                raise ReplayError(f"{source}: {name!r} must be {expected}, got {_short(payload[name])}")

        need("options", isinstance(payload["options"], dict), "an object of rule options")
        seed = payload["seed"]
        need("seed", isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0, "an integer >= 0")
        need("agents", _list_of(payload["agents"], str), "a list of agent specs")
        need("actions", _list_of(payload["actions"], int), "a list of integer actions")
        chance = payload["chance"]
        need("chance", isinstance(chance, list) and all(_list_of(c, int) for c in chance), "a list of lists of integer outcomes")
        need(
            "chance",
            len(chance) == len(payload["actions"]) + 1,
            f"one list per action and one for the opening ({len(payload['actions']) + 1})",
        )
        rewards = payload["rewards"]
        need("rewards", _list_of(rewards, (int, float)) and all(math.isfinite(r) for r in rewards), "a list of numbers")
        need("status", payload["status"] in STATUS_NAMES.values(), f"one of {', '.join(STATUS_NAMES.values())}")
        need("digest", isinstance(payload["digest"], str) and bool(_DIGEST.match(payload["digest"])), "32 lower-case hex digits")
        need("tardis_envs", isinstance(payload["tardis_envs"], str), "a version string")
        return cls(
            env_id=env_id,
            seed=seed,
            actions=list(payload["actions"]),
            chance=[list(c) for c in chance],
            rewards=[float(r) for r in rewards],
            status=payload["status"],
            digest=payload["digest"],
            agents=list(payload["agents"]),
            options=dict(payload["options"]),
            version=payload["tardis_envs"],
        )


def _list_of(value: Any, kinds) -> bool:
    return isinstance(value, list) and all(isinstance(v, kinds) and not isinstance(v, bool) for v in value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def make_game(env_id: str, options: dict | None = None):
    """The rules of ``env_id`` under ``options`` (a bad option raises ``ValueError`` naming it)."""
    return env_module(env_id).Game(**(options or {}))


def opening_state(game, seed: int) -> np.ndarray:
    """The state ``env.reset(seed=seed)`` starts from."""
    return game.new_state(seed_to_key(check_seed(seed)))


def _opening_draws(game, seed: int) -> list[tuple[int, int]]:
    base = np.zeros(game.state_size, dtype=np.int64)
    base[RNG_KEY] = seed_to_key(seed)
    base[VARIANT] = game.variant
    return sampled_draws(game, base, OPENING, limit=MAX_DRAWS_PER_STEP)


def record(
    env_id: str,
    seed: int,
    actions: Sequence[int],
    agents: Sequence[str] = (),
    options: dict | None = None,
    game=None,
) -> Replay:
    """The replay of the game ``env.reset(seed=seed)`` followed by ``actions`` (legal ones,
    as an evaluation plays them), its chance draws read from the game's own steps."""
    game = game or make_game(env_id, options)
    playback = _run(game, int(seed), [int(a) for a in actions], None, "record")
    state = playback.final
    return Replay(
        env_id=env_id,
        seed=int(seed),
        actions=[int(a) for a in actions],
        chance=playback.chance,
        rewards=[float(r) for r in state[REWARDS : REWARDS + game.num_players]],
        status=STATUS_NAMES[int(state[STATUS])],
        digest=state_digest(state),
        agents=list(agents),
        options=dict(options or {}),
    )


@dataclass
class Playback:
    """A replay re-run. ``state(k)`` is the state before action ``k`` (``state(len(actions))``
    the final one, also ``final``), ``movers[k]`` the seat that played action ``k``,
    ``chance[k]`` the outcomes step ``k`` drew (``chance[0]`` the opening's). Every
    ``stride``-th state is kept and the others are stepped to from the one before, so a
    long game costs little memory (a web app holds many)."""

    game: Any
    actions: list[int]
    movers: list[int]
    chance: list[list[int]]
    kept: list[np.ndarray]
    final: np.ndarray
    stride: int = 32

    def state(self, k: int) -> np.ndarray:
        if not 0 <= k <= len(self.actions):
            raise IndexError(f"state {k} of a game of {len(self.actions)} actions")
        state = self.kept[k // self.stride].copy()
        for action in self.actions[(k // self.stride) * self.stride : k]:
            self.game.kernels.step(state, self.game.tables, action)
        return state

    def states(self):
        """Every state in order, the opening first and the final one last."""
        state = self.kept[0].copy()
        yield state.copy()
        for action in self.actions:
            self.game.kernels.step(state, self.game.tables, action)
            yield state.copy()

    def notation(self, k: int, state: np.ndarray | None = None) -> str:
        """Action ``k`` in the game's notation, as it read where it was played (``state``: the
        state before it, when the caller holds it)."""
        return self.game.action_to_string(self.state(k) if state is None else state, self.actions[k])


def _run(game, seed: int, actions: list[int], expected: list[list[int]] | None, source: str, stride: int = 32) -> Playback:
    state = opening_state(game, seed)
    draws = [[o for o, _ in _opening_draws(game, seed)]]
    if expected is not None and draws[0] != expected[0]:
        raise ReplayError(f"{source}: the opening draws other chance outcomes than recorded; not a replay of this game and seed")
    kept, movers = [], []
    for k, action in enumerate(actions):
        if k % stride == 0:
            kept.append(state.copy())
        if int(state[STATUS]) != RUNNING:
            raise ReplayError(f"{source}: action {k + 1} of {len(actions)} comes after the game ended")
        legal = game.legal_actions(state)
        if action not in legal:
            raise ReplayError(
                f"{source}: action {k + 1} ({action}) is not legal there; legal: {', '.join(map(str, legal[:20]))}"
                + (" ..." if len(legal) > 20 else "")
            )
        movers.append(int(state[CURRENT_PLAYER]))
        drawn = [o for o, _ in sampled_draws(game, state, action, limit=MAX_DRAWS_PER_STEP)]
        if expected is not None and drawn != expected[k + 1]:
            raise ReplayError(
                f"{source}: action {k + 1} ({game.action_to_string(state, action)}) draws {_short(drawn)}, "
                f"the replay recorded {_short(expected[k + 1])}"
            )
        draws.append(drawn)
        game.kernels.step(state, game.tables, action)
    if len(actions) % stride == 0:
        kept.append(state.copy())
    return Playback(game, list(actions), movers, draws, kept, state, stride)


def play_back(replay: Replay, game=None, source: str = "replay") -> Playback:
    """Re-run ``replay`` and check it (legal actions, the recorded chance outcomes, the final
    digest and rewards); returns the :class:`Playback` that shows every state on the way. Raises :class:`ReplayError` naming
    the first step where the file and the game part."""
    try:
        game = game or make_game(replay.env_id, replay.options)
    except ValueError as exc:
        raise ReplayError(f"{source}: its rule options do not make a {replay.env_id} game: {exc}") from None
    if replay.agents and len(replay.agents) != game.num_players:
        raise ReplayError(f"{source}: {len(replay.agents)} agents for a {game.num_players}-player game")
    if len(replay.rewards) != game.num_players:
        raise ReplayError(f"{source}: {len(replay.rewards)} rewards for a {game.num_players}-player game")
    bad = next((a for a in replay.actions if not 0 <= a < game.num_actions), None)
    if bad is not None:
        raise ReplayError(f"{source}: action {bad} is outside 0..{game.num_actions - 1}")
    playback = _run(game, replay.seed, replay.actions, replay.chance, source)
    final = playback.final
    if state_digest(final) != replay.digest:
        raise ReplayError(f"{source}: the final state's digest {state_digest(final)} is not the recorded {replay.digest}")
    rewards = [float(r) for r in final[REWARDS : REWARDS + game.num_players]]
    if rewards != replay.rewards or STATUS_NAMES[int(final[STATUS])] != replay.status:
        raise ReplayError(
            f"{source}: the game ends {STATUS_NAMES[int(final[STATUS])]} with rewards {rewards}, the replay recorded {replay.rewards}"
        )
    return playback


def file_name(index: int) -> str:
    """The file of game ``index`` of an evaluation: ``game-000123.replay.json.gz``."""
    return f"game-{index:06d}{SUFFIX}"


def folder_label(text: str) -> str:
    """``text`` (an agent label) as a folder name: letters, digits, ``.``, ``_``, ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "agent"


def sample_indices(games: int, sample: int | None) -> np.ndarray:
    """The games an evaluation keeps replays of: all, or ``sample`` spread evenly over the match
    (seat rotations and seeds alike)."""
    if sample is None or sample >= games:
        return np.arange(games)
    return np.unique((np.arange(sample) * games) // sample)

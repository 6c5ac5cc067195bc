"""What every game provides: a frozen ``GameSpec`` and a ``Game`` bound to options.

A game folder ``tardis_envs/games/<game>/`` holds the same files in every game:

* ``layout.py``  – the words of the flat state, the action numbers and the observation's
  planes or segments (constants and index helpers, no rules), and ``LAYOUT_VERSION``;
* ``rules.py``   – the numba kernels over the flat state (no Python objects): ``init``,
  ``step``, ``legal_mask``, ``step_and_mask``; a game whose rules are long splits them by
  turn phase into modules beside it (Time of the Daleks) or keeps helpers the rules, the
  observation and the heuristic share in one module (Keys' and chess's ``board.py``);
* ``observe.py`` – the ``observe`` kernel: what one seat sees;
* ``notation.py`` – the game in words: actions as text and back, ``describe``;
* ``batch.py``   – the parallel loops of the batched API over those kernels;
* ``content.py`` – loading and validating the shipped data into integer tables;
* ``game.py``    – the :class:`Game` subclass: options -> tables, scripted positions, and
  one-line delegates to ``notation`` and ``render``;
* ``render.py``  – text and image drawing;
* ``hidden.py``  – redealing what a seat cannot see (``resample_hidden``);
* ``check.py``   – ``check_state``: every word of a state from outside against its
  range and the game's invariants, ``PROBLEMS``, the words for its codes, and
  ``EARLIER_LAYOUTS``: how a state saved under an earlier layout is upgraded;
* ``heuristic.py`` – the hand-written heuristic as kernels: ``choose(state, tables,
  weights)``, ``choose_batch(states, tables, weights, out)``, its tuned ``DEFAULT_WEIGHTS``
  and optionally named ``PRESETS`` (the ``heuristic`` agent, the search's heuristic playouts);
  a heuristic that searches full width may also search over a learned leaf table
  (``LEAF_FEATURES``, ``leaf_features``, ``leaf_samples``, ``material_table``,
  ``choose_learned_batch``: the ``az`` agent's ``search=alphabeta``, Dr. Who Chess);
* ``env.py``     – the PettingZoo ``raw_env``/``env`` (a few lines);
* ``content/``   – YAML data shipped inside the package.

Kernel contract (every game, same signatures, so the batched API and agents
work for all of them):

``init(state, tables)``
    ``state`` is zero except ``RNG_KEY``; set up the opening position.
``step(state, tables, action)``
    apply a *legal* action of ``state[CURRENT_PLAYER]``; write ``STATUS`` and
    ``REWARDS`` (see :mod:`tardis_envs.core.state`).
``legal_mask(state, tables, out)``
    ``out`` is ``int8[num_actions]``: 1 for each legal action of the player to
    move, all zero once the game is over.
``step_and_mask(state, tables, action, mask)``
    ``step`` followed by ``legal_mask`` into ``mask`` (the batched API's path):
    a game whose step works out the next mask anyway (Time of the Daleks'
    automatic stages) writes it once; others call the two kernels. Tests check
    it against the two kernels on random playouts.
``observe(state, tables, player, out)``
    ``out`` is the flat observation of ``player``, showing only what that seat
    may know: ``float32`` fractions, or their integer numerators when ``out``
    has an integer dtype (entries written with
    :func:`tardis_envs.core.observation.put`; the game's
    ``_observation_denominators`` gives each entry's denominator). A game with
    bit-packed planes (``_packed_plane_kinds``) writes one ``int64`` word a
    plane when ``out`` is ``int64`` (the plane writers ``mark``, ``mark_bits``, ``fill``
    and ``put_one`` of :mod:`tardis_envs.core.observation`).
``batch_reset`` / ``batch_step`` / ``batch_step_streamed``
    the game's ``batch.py``: a ``prange`` over games calling the shared bodies
    of :mod:`tardis_envs.core.batch` with the kernels above; ``observe_seats[i, p]``
    says whether row ``i`` writes an observation when seat ``p`` is to move.
    ``batch_step_streamed`` is ``batch_step`` for a batch whose long rows are streamed
    past the cache (:func:`tardis_envs.core.batch.streams_rows`); the two are separate
    kernels so that a program compiles only the one its batch size needs (each loop
    over the rules is most of a kernel's compile time).
``batch_step_until_seat``
    also in ``batch.py``: one seat's turn in every game, its action then (where asked)
    random opponents until it is to move again (:func:`tardis_envs.core.batch.step_until_seat_one`;
    the self-play training environment's step).
``search(root, tables, num_actions, num_players, params, weights, gen, root_visits)``
    also in ``batch.py``: MCTS/ISMCTS (:mod:`tardis_envs.core.search`) with the
    game's kernels and its ``resample_hidden``; ``heuristic_search`` (same signature) the
    same search whose playouts follow the heuristic's ``choose``.
``guided_descend(roots, tables, forest, simulation, active)``
    also in ``batch.py``: one simulation step of the guided search of many games
    (:mod:`tardis_envs.core.guided`): a ``prange`` over the trees calling
    :func:`~tardis_envs.core.guided.descend_one` with the game's ``step``,
    ``legal_mask``, ``observe`` and ``resample_hidden``.
``resample_hidden(state, tables, player)``
    the game's ``hidden.py``: redeal in place, from the state's own generator,
    everything ``player`` cannot see, consistently with its observation (ISMCTS,
    OpenSpiel's ``resample_from_infostate``); a game without hidden information
    leaves the state as it is.

Optional, in a game of perfect information whose chance the kernels enumerate with exact
odds (TARDIS Run): ``AFTERSTATE_SLOTS`` and ``afterstates`` in ``rules.py`` (every outcome of
every legal action of a state, with its probability), and ``batch_afterstates`` and
``observe_leaves`` in ``batch.py``, the exact look-ahead over chance of
:mod:`tardis_envs.core.expectation`; ``Kernels.afterstates`` is None in the other games.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from .observation import (
    PLANE_BITS,
    PLANE_CONSTANT,
    PLANE_ENTRIES,
    compact_dtype_for,
    is_packed,
    resolve_obs_dtype,
    to_float32,
    unpack_planes,
)
from .options import Option, validate_options
from .state import (
    CHANCE_TAPE,
    CURRENT_PLAYER,
    ILLEGAL_BY,
    MAX_PLAYERS,
    REWARDS,
    RNG_COUNTER,
    RNG_KEY,
    RUNNING,
    STATUS,
    STATUS_NAMES,
    TERMINATED,
    VALID,
    VARIANT,
    invalid_state_message,
)


@dataclass(frozen=True)
class GameSpec:
    """Static facts of one game, read by the env, the docs table and the tests."""

    env_id: str
    name: str
    version: int
    rulebook: str
    min_players: int
    max_players: int
    chance: bool
    hidden_information: bool
    status: str
    options: Mapping[str, Option] = field(default_factory=dict)
    cooperative: bool = False  # the seats play as one team (Time of the Daleks): evaluated by team win rate
    simultaneous: bool = False  # seats choose at the same moment (the duel): a committed choice stays hidden
    # earlier env ids of this game whose observations and actions have the same layout and
    # meaning (only float rounding changed): their checkpoints load on this version
    loads_checkpoints_of: tuple[str, ...] = ()
    # "zero_sum" (two seats, one's gain the other's loss) or "general_sum": the utility
    # kind the OpenSpiel adapter registers
    utility: str = "zero_sum"
    # steps/s the batched API should reach at 8,192 games x 2 threads with compact
    # observations (tardis-envs bench says met or missed); 0: none set
    throughput_target: float = 0.0
    # the OpenSpiel game (random play in C++) the one-game kernel loop is set beside, if any
    kernel_peer: str | None = None
    # rough seconds the first ``tardis-envs play`` takes to compile the game's kernels and its
    # heuristic on 2 quiet cores (the cold-compile figure of ``tardis-envs bench`` plus the
    # heuristic's, rounded up); later runs load them from the cache in about a second
    first_run_seconds: int = 0
    # rule variants ``tardis-envs bench`` measures beside the default: name -> options
    bench_variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # the id's ``_vN`` suffix is the version (PettingZoo's convention): keep the two as one
        if not self.env_id.endswith(f"_v{self.version}"):
            raise ValueError(f"GameSpec {self.env_id!r}: version {self.version} does not match the id's _vN suffix")
        if self.utility not in ("zero_sum", "general_sum"):
            raise ValueError(f"GameSpec {self.env_id!r}: utility must be 'zero_sum' or 'general_sum', got {self.utility!r}")
        if self.utility == "zero_sum" and (self.max_players != 2 or self.cooperative):
            raise ValueError(f"GameSpec {self.env_id!r}: a zero-sum game has two opposed seats")


@dataclass(frozen=True)
class Kernels:
    """The numba dispatchers of one game (see the module docstring)."""

    init: Callable
    step: Callable
    legal_mask: Callable
    observe: Callable
    batch_reset: Callable
    batch_step: Callable
    batch_step_streamed: Callable
    batch_step_until_seat: Callable
    search: Callable
    heuristic_search: Callable
    guided_descend: Callable
    resample_hidden: Callable
    step_and_mask: Callable
    check_state: Callable
    # ``(field, expected)`` in the game's words for each code ``check_state`` returns
    state_problems: tuple[tuple[str, str], ...]
    # the game's heuristic module (``heuristic.py``): ``choose``, ``choose_batch``,
    # ``DEFAULT_WEIGHTS`` and optionally ``PRESETS`` (the ``heuristic`` agent)
    heuristic: ModuleType
    # exact look-ahead over chance (:mod:`tardis_envs.core.expectation`), in a game of perfect
    # information whose kernels enumerate its chance with exact odds; None in the others:
    # ``batch_afterstates`` and ``observe_leaves`` of its batch.py, at most
    # ``AFTERSTATE_SLOTS`` slots a position (its rules.py)
    afterstates: Callable | None = None
    observe_leaves: Callable | None = None
    afterstate_slots: int = 0

    @classmethod
    def of(cls, rules, observe, batch, hidden, check, heuristic) -> Kernels:
        """A game's kernels from its ``rules``, ``observe``, ``batch``, ``hidden``, ``check`` and
        ``heuristic`` modules, which name them alike in every game (the folder shape above)."""
        return cls(
            init=rules.init,
            step=rules.step,
            legal_mask=rules.legal_mask,
            observe=observe.observe,
            batch_reset=batch.batch_reset,
            batch_step=batch.batch_step,
            batch_step_streamed=batch.batch_step_streamed,
            batch_step_until_seat=batch.batch_step_until_seat,
            search=batch.search,
            heuristic_search=batch.heuristic_search,
            guided_descend=batch.guided_descend,
            resample_hidden=hidden.resample_hidden,
            step_and_mask=rules.step_and_mask,
            check_state=check.check_state,
            state_problems=check.PROBLEMS,
            heuristic=heuristic,
            afterstates=getattr(batch, "batch_afterstates", None),
            observe_leaves=getattr(batch, "observe_leaves", None),
            afterstate_slots=getattr(rules, "AFTERSTATE_SLOTS", 0),
        )


@dataclass(frozen=True)
class EarlierLayout:
    """A layout a game's state was stored in before the current one (same env id: the rules,
    observation and actions are those of today, only the words differ). A saved state of
    ``state_size`` words is of this layout (each layout has a length of its own, which a
    test checks); ``upgrade(game, state)`` rewrites it in layout ``version + 1`` and raises
    ``ValueError`` naming what is corrupt."""

    version: int
    state_size: int
    upgrade: Callable[[Any, np.ndarray], np.ndarray]


class Game:
    """One game's rules bound to one set of rule options.

    Subclasses set ``spec`` and ``kernels`` and, in ``_build``, the attributes
    ``tables`` (``int64`` content and option table), ``num_players``,
    ``agent_names``, ``num_actions``, ``observation_shape``,
    ``observation_high`` (upper bound of every observation entry; the lower
    bound is ``observation_low``), ``state_size``, ``max_game_length`` and, for a
    game with chance, ``max_chance_outcomes``.
    """

    spec: ClassVar[GameSpec]
    kernels: ClassVar[Kernels]
    # the version of the state layout the kernels read and write (the game's layout.py), and
    # the layouts before it, oldest first (its check.py: how a saved state is upgraded)
    layout_version: ClassVar[int] = 1
    earlier_layouts: ClassVar[tuple[EarlierLayout, ...]] = ()
    observation_low: float = 0.0
    # (state word, value) that marks a finished game in the game's own phase word
    game_over: ClassVar[tuple[int, int]]
    # set by the subclass's _build
    tables: np.ndarray
    num_players: int
    agent_names: tuple[str, ...]
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_high: float
    state_size: int
    max_game_length: int
    # the most outcomes one chance draw can have (a uniform draw's n; 2 for a coin;
    # 0 without chance): OpenSpiel's max_chance_outcomes, checked by the chance tests
    max_chance_outcomes: int = 0

    def __init__(self, **options: Any):
        self.options = validate_options(self.spec.env_id, self.spec.options, options)
        self._build()
        assert self.tables.dtype == np.int64 and self.tables.ndim == 1
        assert 1 <= self.num_players <= MAX_PLAYERS
        digest = hashlib.sha256(self.spec.env_id.encode() + self.variant_key()).digest()
        self.variant = int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)

    # length limits (truncation) do not make another variant: a state fits whatever the limit
    LIMIT_OPTIONS: ClassVar[frozenset] = frozenset({"max_turns", "max_plies", "max_exchanges", "max_rounds"})

    @property
    def heuristic(self) -> ModuleType:
        """The game's hand-written heuristic (its ``heuristic.py``): ``choose``,
        ``choose_batch``, ``DEFAULT_WEIGHTS`` and optionally ``PRESETS``."""
        return self.kernels.heuristic

    @property
    def drawing(self) -> ModuleType:
        """The game's drawing module (its ``render.py``): ``PLAY_HELP`` and, in games with
        hidden hands, ``seat_lines(game, state, seat)`` (what only that seat sees)."""
        import importlib

        return importlib.import_module(type(self).__module__.rpartition(".")[0] + ".render")

    def variant_key(self) -> bytes:
        """What identifies the variant a state belongs to: the rule options (board, player
        count, mode ...) but not the length limits or the observation-only options (a state
        is the same position whatever a seat is shown of it); a game with a start-position
        option (chess's FEN) leaves that out too."""
        spec = self.spec.options
        kept = (k for k in self.options if k not in self.LIMIT_OPTIONS and not spec[k].observation_only)
        return repr(sorted((k, self.options[k]) for k in kept)).encode()

    def _build(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- states ---------------------------------------------------------------
    def new_state(self, key: int) -> np.ndarray:
        """The opening position for generator key ``key``."""
        state = np.zeros(self.state_size, dtype=np.int64)
        state[RNG_KEY] = key
        state[VARIANT] = self.variant
        self.kernels.init(state, self.tables)
        return state

    def check_state(self, state: Any) -> np.ndarray:
        """Validate a state given by a user; returns it as a contiguous int64 copy.

        The header's words are checked here, then every game word by the game's compiled
        ``check_state`` (its ``check.py``: ranges and invariants, see
        :mod:`tardis_envs.core.state`); a bad state raises ``ValueError`` naming the
        field, its index and value, and what was expected."""
        arr = self.upgrade_layout(np.asarray(state))
        if arr.ndim != 1 or arr.shape[0] != self.state_size:
            raise ValueError(f"{self.spec.env_id}: state must be a 1-D array of length {self.state_size}, got shape {arr.shape}")
        if arr.dtype != np.int64:
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"{self.spec.env_id}: state must hold integers, got dtype {arr.dtype}")
            if np.iinfo(arr.dtype).bits < 64:
                raise ValueError(
                    f"{self.spec.env_id}: state must be an int64 array as get_state() returns it, got {arr.dtype} "
                    "(too narrow for the generator key: a narrowed copy has lost it)"
                )
            arr = arr.astype(np.int64)
        arr = np.array(arr, dtype=np.int64, copy=True)
        if not 0 <= arr[CURRENT_PLAYER] < self.num_players:
            raise ValueError(f"{self.spec.env_id}: corrupt state: current player {arr[CURRENT_PLAYER]} is not a seat")
        if arr[STATUS] not in STATUS_NAMES:
            raise ValueError(f"{self.spec.env_id}: corrupt state: status {arr[STATUS]} is not one of {sorted(STATUS_NAMES)}")
        if arr[RNG_KEY] < 0 or arr[RNG_COUNTER] < 0:
            raise ValueError(f"{self.spec.env_id}: corrupt state: generator words must be non-negative")
        if arr[ILLEGAL_BY] and (not self.illegal_offenders(arr) or arr[STATUS] != TERMINATED):
            raise ValueError(
                f"{self.spec.env_id}: corrupt state: illegal-action word {arr[ILLEGAL_BY]} "
                "(a seat + 1, or minus a bit set of two or more seats, of a terminated game; or 0)"
            )
        if arr[CHANCE_TAPE] != 0:
            raise ValueError(f"{self.spec.env_id}: corrupt state: chance-tape word {arr[CHANCE_TAPE]} must be 0 in a stored state")
        if arr[VARIANT] == 0:  # get_state() always writes the options' digest there
            raise ValueError(
                f"{self.spec.env_id}: not a state of this game: its variant word (index {VARIANT}) is 0, "
                "where get_state() writes the digest of the rule options (an array of zeros?)"
            )
        if arr[VARIANT] != self.variant:
            raise ValueError(
                f"{self.spec.env_id}: the state was made under other rule options than this env's "
                f"({', '.join(f'{k}={v!r}' for k, v in self.options.items())}); refused"
            )
        code, index = self.kernels.check_state(arr, self.tables)
        if code != VALID:
            raise ValueError(invalid_state_message(self.spec.env_id, arr, code, index, self.kernels.state_problems))
        if arr[STATUS] == RUNNING and not self.legal_actions(arr).size:  # a game at rest waits for a decision
            raise ValueError(
                f"not a valid {self.spec.env_id} state: the seat to move has no legal action, expected a decision waiting in a running game"
            )
        self._check_fields(arr)
        return arr

    def _check_fields(self, state: np.ndarray) -> None:
        """Game-specific consistency checks; raise ``ValueError`` naming the field."""

    def upgrade_layout(self, state: np.ndarray) -> np.ndarray:
        """A state saved under an earlier layout of this game's state (``earlier_layouts``,
        told apart by its length) rewritten one version at a time into the current layout
        (``layout_version``), so that no saved state is lost; any other array as it is."""
        if state.ndim != 1 or not np.issubdtype(state.dtype, np.integer):
            return state
        sizes = [earlier.state_size for earlier in self.earlier_layouts]
        if state.shape[0] not in sizes:
            return state
        for earlier in self.earlier_layouts[sizes.index(state.shape[0]) :]:
            state = earlier.upgrade(self, state)
        return state

    # --- an illegal action ends the game (the envs' "terminate" mode) -----------------
    def end_by_illegal_action(self, state: np.ndarray, seats: int | list[int]) -> None:
        """End the game because ``seats`` (one seat, or the seats of a simultaneous step
        whose choices were illegal) played an illegal action: each offender gets -1,
        every other seat 0 (PettingZoo's convention); in a cooperative game the team
        shares the outcome and every seat gets -1. The state remembers who (``ILLEGAL_BY``:
        the seat + 1, or minus the bit set of several seats), so ``describe`` and
        ``render`` tell the same story in every game."""
        offenders = sorted({int(s) for s in np.atleast_1d(seats)})
        state[STATUS] = TERMINATED
        state[REWARDS : REWARDS + self.num_players] = -1 if self.spec.cooperative else 0
        for seat in offenders:
            state[REWARDS + seat] = -1
        state[ILLEGAL_BY] = offenders[0] + 1 if len(offenders) == 1 else -sum(1 << seat for seat in offenders)
        word, over = self.game_over
        state[word] = over

    def illegal_offenders(self, state: np.ndarray) -> list[int]:
        """The seats whose illegal actions ended the game (empty unless one did)."""
        word = int(state[ILLEGAL_BY])
        if 0 < word <= self.num_players:
            return [word - 1]
        seats = [seat for seat in range(self.num_players) if -word >> seat & 1]
        return seats if word < 0 and len(seats) >= 2 and -word < 1 << self.num_players else []

    def with_ending(self, state: np.ndarray, out: dict) -> dict:
        """Finish a ``describe()``: after an illegal-action ending there is no winner
        and ``illegal_action_by`` names the offender (several offenders of one
        simultaneous step: their names joined by ``", "``; the key exists only then)."""
        offenders = self.illegal_offenders(state)
        if offenders:
            out["winner"] = None
            out["illegal_action_by"] = ", ".join(self.agent_names[seat] for seat in offenders)
            if "reason" in out:
                out["reason"] = "illegal action"
        return out

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        self.kernels.legal_mask(state, self.tables, mask)
        return np.flatnonzero(mask)

    def observation(self, state: np.ndarray, player: int, dtype=np.float32) -> np.ndarray:
        """``player``'s view of ``state``: fractions in float32, or their numerators in the
        compact integer ``dtype``, or packed planes in ``int64`` (:mod:`tardis_envs.core.observation`)."""
        shape = self.observation_shape_of(dtype)
        out = np.zeros(int(np.prod(shape)), dtype=dtype)
        self.kernels.observe(state, self.tables, player, out)
        return out.reshape(shape)

    def observation_shape_of(self, dtype) -> tuple[int, ...]:
        """The shape of one observation in ``dtype`` (a resolved obs dtype): ``observation_shape``,
        or one word a plane when packed."""
        if is_packed(dtype):
            return (len(self._packed_kinds()),)
        return self.observation_shape

    def float_observations(self, observations: np.ndarray, dtype, out: np.ndarray | None = None) -> np.ndarray:
        """``float32[..., *observation_shape]`` from observations in ``dtype`` (leading batch axes
        kept): compact ones divided by their denominators, packed ones unpacked; bit for bit
        what the float kernels write. float32 ones are copied (into ``out`` if given).
        ``dtype`` is a dtype or an ``obs_dtype`` name (``"compact"``, ``"packed"``)."""
        if isinstance(dtype, str):  # a name; the batched API passes its resolved dtype
            dtype = resolve_obs_dtype(self, dtype)
        if is_packed(dtype):
            lead = observations.shape[: observations.ndim - 1]
            flat = None if out is None else out.reshape(*lead, -1)
            unpacked = unpack_planes(observations, self._packed_kinds(), self.packed_plane_denominators, flat)
            return unpacked.reshape(*lead, *self.observation_shape)
        if np.dtype(dtype) != np.float32:
            return to_float32(observations, self._float32_denominators, out)
        if out is None:
            return observations.copy()
        np.copyto(out, observations)
        return out

    # --- compact observations (tardis_envs.core.observation) ---------------------------
    def _observation_denominators(self) -> np.ndarray:
        """The flat int64 denominator of every observation entry (1 for one-hot and count
        entries); a game whose observe kernel calls ``put`` with other denominators overrides."""
        return np.ones(int(np.prod(self.observation_shape)), dtype=np.int64)

    @functools.cached_property
    def observation_denominators(self) -> np.ndarray:
        """Per-entry denominators (shaped like one observation): float observation =
        compact observation / denominators."""
        denominators = np.asarray(self._observation_denominators(), dtype=np.int64).reshape(self.observation_shape)
        assert (denominators >= 1).all()
        return denominators

    @functools.cached_property
    def _float32_denominators(self) -> np.ndarray:
        """``observation_denominators`` in float32, made once: every batch's conversion reads it."""
        return self.observation_denominators.astype(np.float32)

    @functools.cached_property
    def _entry_numerator_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per entry, the least and greatest numerator: the float bounds times its denominator."""
        d = self.observation_denominators
        return np.floor(self.observation_low * d).astype(np.int64), np.ceil(self.observation_high * d).astype(np.int64)

    @functools.cached_property
    def observation_numerator_bounds(self) -> tuple[int, int]:
        """Least and greatest numerator any entry can hold."""
        low, high = self._entry_numerator_bounds
        return int(low.min()), int(high.max())

    @functools.cached_property
    def compact_dtype(self) -> np.dtype:
        """The smallest integer dtype holding every numerator (``obs_dtype="compact"``)."""
        return compact_dtype_for(*self.observation_numerator_bounds)

    def observation_space_bounds(self, dtype) -> tuple[Any, Any]:
        """``(low, high)`` of the observation Box in ``dtype``: the float bounds, per-entry
        numerator bounds for an integer dtype, or per-word bounds for packed planes (a bit
        plane's word may be any ``int64``)."""
        if np.dtype(dtype) == np.float32:
            return self.observation_low, self.observation_high
        low, high = self._entry_numerator_bounds
        if is_packed(dtype):
            kinds = self._packed_kinds()
            planes = len(kinds)
            low = low.reshape(planes, PLANE_ENTRIES).min(axis=1)
            high = high.reshape(planes, PLANE_ENTRIES).max(axis=1)
            # a one-entry plane's word is numerator * 64 + entry
            low, high = (
                np.where(kinds == PLANE_CONSTANT, low, low * PLANE_ENTRIES),
                np.where(kinds == PLANE_CONSTANT, high, high * PLANE_ENTRIES + PLANE_ENTRIES - 1),
            )
            info = np.iinfo(np.int64)
            low[kinds == PLANE_BITS] = info.min
            high[kinds == PLANE_BITS] = info.max
        return low.astype(dtype), high.astype(dtype)

    # --- bit-packed planes (obs_dtype="packed", tardis_envs.core.observation) ------------
    packed_unavailable_reason: str = "its observation is not made of 64-entry planes"

    def _packed_plane_kinds(self) -> np.ndarray | None:
        """Each plane's kind (``PLANE_BITS``, ``PLANE_CONSTANT``, ``PLANE_ONE_ENTRY``) when the
        observe kernel writes packed planes under these options, else None (and
        ``packed_unavailable_reason`` says why)."""
        return None

    @functools.cached_property
    def packed_plane_kinds(self) -> np.ndarray | None:
        """``int64[planes]``: how each word of a packed observation is read, or None."""
        kinds = self._packed_plane_kinds()
        if kinds is None:
            return None
        kinds = np.asarray(kinds, dtype=np.int64)
        assert kinds.size * PLANE_ENTRIES == int(np.prod(self.observation_shape))
        return kinds

    def _packed_kinds(self) -> np.ndarray:
        kinds = self.packed_plane_kinds
        if kinds is None:
            raise ValueError(f"{self.spec.env_id}: no packed observation: {self.packed_unavailable_reason}")
        return kinds

    @functools.cached_property
    def packed_plane_denominators(self) -> np.ndarray:
        """``int64[planes]``: each packed plane's denominator (one for all its entries)."""
        kinds = self._packed_kinds()
        per_entry = self.observation_denominators.reshape(len(kinds), PLANE_ENTRIES)
        assert (per_entry == per_entry[:, :1]).all(), "a packed plane has one denominator"
        return per_entry[:, 0].copy()

    # --- words ---------------------------------------------------------------
    def describe(self, state: np.ndarray) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def action_names(self) -> list[str] | None:
        """Fixed action names if the notation does not depend on the state."""
        return None

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        names = self.action_names()
        if names is None:  # pragma: no cover - games with state-dependent notation override
            raise NotImplementedError
        if not 0 <= action < len(names):
            raise ValueError(f"{self.spec.env_id}: action {action} is outside 0..{len(names) - 1}")
        return names[action]

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        names = self.action_names()
        if names is None:  # pragma: no cover
            raise NotImplementedError
        wanted = " ".join(str(text).lower().split())
        for index, name in enumerate(names):
            if name == wanted:
                return index
        raise ValueError(f"{self.spec.env_id}: unknown action {text!r}; actions are: {', '.join(names)}")

    def chance_words(self, state: np.ndarray) -> str | None:
        """What chance did on the last step, in words (a game with dice or paddles says it;
        ``tardis-envs play`` shows a human its own roll with it)."""
        return None

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def render_rgb(self, state: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

"""Search guided by a learned policy/value network (AlphaZero, Gumbel AlphaZero's root).

The network (:class:`AZNet`) reads the mover's observation and gives a logit per
action and a value per seat, counted from the mover (column ``j`` is seat
``(mover + j) % players``: the same network serves two-player, multi-player and
team games). :class:`AZAgent` plays with :class:`tardis_envs.core.guided.GuidedSearch`
over the game's kernels, one network call per simulation step for all the games it
is asked about (information-set search in games with hidden information: the leaves
it evaluates are redealt worlds, never the real hidden cards). An agent evaluates an MLP
network with the compiled kernel of :mod:`tardis_envs.core.mlp` on the weights it was made
with, where torch's overhead per call would be most of a move's time.

Agent specs (``make_agent``)::

    az:<checkpoint.zip>           the checkpoint's network guiding 32 simulations a move
    az:baseline                   the game's shipped network (agents/baselines/az/<env_id>.zip, or
                                  az/<env_id>/players<n>.zip where one is trained on n players)
    az:baseline:sims=128          settings after colons: sims, c (PUCT constant), considered
    az:<checkpoint.zip>:net       the network alone: its most likely legal action, no search
    az:baseline:search=gumbel     the search: ``gumbel`` (the guided search above) or ``expectation``
                                  (exact expectation over the game's chance, valued by the
                                  network: :mod:`tardis_envs.core.expectation`); by default the
                                  one the checkpoint was trained with
    az:baseline:plies=2           the expectation search's depth (1 or 2, default 1): with 2, each
                                  outcome of the dice is worth its mover's best action by one ply
    az:baseline:search=alphabeta  (Dr. Who Chess) the game's full-width alpha-beta search with its
                                  capture search, its leaves scored by the checkpoint's learned leaf
                                  table (:mod:`agents.training.leaf_table`); ``depth`` sets its plies
    az:baseline:search=turn       (Keys to the TARDIS) every line of the mover's whole turn (card,
                                  move, Key Tile bonus) in worlds redealt from what it
                                  may know, each line's end valued by the checkpoint's learned table
                                  (a logistic regression of outcomes); ``redeals`` sets the worlds

A checkpoint is a zip holding ``az_model.pt`` (the network's weights) and
``tardis_meta.json`` (the game, options, network shape and training record; the
same metadata as the PPO checkpoints, :mod:`agents.checkpoint`, with ``algo: az``); one
trained for ``search=alphabeta`` or ``search=turn`` also holds ``az_leaf_table.npy``, its learned
leaf table, and the search's weights in its metadata (``leaf_search``).
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from tardis_envs.core.expectation import MAX_PLIES, ExactExpectation
from tardis_envs.core.guided import GuidedSearch
from tardis_envs.core.mlp import MLPEvaluator, MLPWeights
from tardis_envs.core.state import CURRENT_PLAYER
from tardis_envs.outputs import write_with_fallback

from .base import Agent
from .checkpoint import CheckpointError, check_compatible, model_meta, observation_view, read_meta, write_meta

MODEL_MEMBER = "az_model.pt"
LEAF_TABLE_MEMBER = "az_leaf_table.npy"  # the learned leaf value of search=alphabeta or turn
OPTIMIZER_MEMBER = "az_optimizer.pt"  # a training checkpoint's optimizer state (dropped on export)
DEFAULT_SIMULATIONS = 32
MAX_SIMULATIONS = 100_000
SPEC_USAGE = (
    "az:<checkpoint.zip>|baseline[:sims=<n>][:c=<PUCT constant>][:considered=<n>][:search=gumbel|expectation|alphabeta|turn]"
    "[:plies=<n>][:depth=<n>][:redeals=<n>][:net]"
)
SEARCHES = ("gumbel", "expectation", "alphabeta", "turn")
LEAF_SEARCHES = ("alphabeta", "turn")  # the searches over a learned leaf table (LeafSearch)
MAX_DEPTH = 4  # the alpha-beta search grows about 30-fold a ply: 4 plies are seconds a move
DEFAULT_REDEALS = 8  # the turn search's redealt worlds a decision
MAX_REDEALS = 256


HEADS = ("mlp", "move_squares")
ACTIVATIONS = ("relu", "tanh")


def build_net(
    obs_size: int,
    num_actions: int,
    num_players: int,
    hidden: int = 256,
    layers: int = 2,
    head: str = "mlp",
    square_width: int = 32,
    game=None,
    activation: str = "relu",
):
    """The policy/value network: an MLP trunk, a logit head and a tanh value head. The logit
    head is a linear layer (``head="mlp"``) or, for games whose actions move pieces between
    squares (Dr. Who Chess), :class:`agents.move_squares.MoveSquaresHead` over the trunk and
    the observation's planes (``head="move_squares"``; ``game`` gives the squares' layout).
    The trunk's units are ReLUs, or ``activation="tanh"``: the shape of a PPO policy network
    (stable-baselines3's default), so that one can be copied in (``init_from: ppo:baseline``)."""
    import torch
    from torch import nn

    if head not in HEADS:
        raise ValueError(f"network head must be one of {', '.join(HEADS)}, got {head!r}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"network activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    layout = None
    if head == "move_squares":
        layout = getattr(game, "move_squares_layout", None)
        if layout is None:
            raise ValueError(f"network head 'move_squares' needs a game whose actions move pieces between squares, got {game!r}")

    class AZNet(nn.Module):
        def __init__(self):
            super().__init__()
            sizes = [obs_size] + [hidden] * layers
            trunk: list[nn.Module] = []
            for a, b in zip(sizes[:-1], sizes[1:]):
                trunk += [nn.Linear(a, b), nn.Tanh() if activation == "tanh" else nn.ReLU()]
            self.trunk = nn.Sequential(*trunk)
            if layout is None:
                self.policy: nn.Module = nn.Linear(sizes[-1], num_actions)
            else:
                from .move_squares import MoveSquaresHead

                self.policy = MoveSquaresHead(sizes[-1], **layout(), width=square_width)
            self.value = nn.Linear(sizes[-1], num_players)

        def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            flat = obs.flatten(1)
            x = self.trunk(flat)
            logits = self.policy(x) if layout is None else self.policy(torch.cat([x, flat], dim=1))
            return logits, torch.tanh(self.value(x))

    net = AZNet()
    net.shape = {"obs_size": obs_size, "num_actions": num_actions, "num_players": num_players, "hidden": hidden, "layers": layers}
    if head != "mlp":  # the shape of an MLP network reads as before heads could be chosen
        net.shape.update(head=head, square_width=square_width)
    if activation != "relu":  # likewise a ReLU network's
        net.shape.update(activation=activation)
    return net


def masked_logits(logits, masks):
    """``logits`` with the illegal actions at -inf (``masks``: bool tensor)."""
    import torch

    return logits.masked_fill(~masks, -torch.inf)


PRECISIONS = ("fp32", "bf16")


def autocast(precision: str):
    """The context a network runs in at ``precision``: nothing for ``fp32``; for ``bf16``
    torch's CPU autocast (matrix multiplies in bfloat16, the weights kept in float32), which
    runs faster only on processors with bfloat16 units (``benchmarks/az_throughput.py``)."""
    import contextlib

    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return torch.autocast("cpu", dtype=torch.bfloat16) if precision == "bf16" else contextlib.nullcontext()


def mlp_weights(net) -> MLPWeights | None:
    """``net``'s parameters for the compiled evaluator (:mod:`tardis_envs.core.mlp`), copied
    now; None for a network it does not compute (the move-squares head)."""
    from torch import nn

    policy = getattr(net, "policy", None)
    if not isinstance(policy, nn.Linear):
        return None
    layers = [m for m in net.trunk if isinstance(m, nn.Linear)]
    units = {type(m) for m in net.trunk if not isinstance(m, nn.Linear)}
    if units not in ({nn.ReLU}, {nn.Tanh}):
        return None

    def pair(layer) -> tuple[np.ndarray, np.ndarray]:
        return layer.weight.detach().float().numpy(), layer.bias.detach().float().numpy()

    return MLPWeights.from_layers([pair(m) for m in layers], pair(policy), pair(net.value), tanh=units == {nn.Tanh})


class NetEvaluator:
    """The guided search's evaluator over a network: priors (softmax over the legal
    actions) and mover-relative values, batched, without gradients, the network run at
    ``precision`` (see :func:`autocast`; the outputs are float32 either way).

    ``compiled=True`` evaluates an MLP network (``head="mlp"``) with the compiled kernel of
    :mod:`tardis_envs.core.mlp` instead of torch, on a copy of its weights taken now (so for
    a network that no longer trains): the same outputs up to float rounding, 11x faster for
    one leaf at a time and 1.5x for a batch (``benchmarks/az_throughput.py``). A network of
    another head, or ``bf16``, runs in torch as before.

    ``seats`` is the number of players of the game searched, where it differs from the
    network's (Keys to the TARDIS's two-player network in a game of three or four): seat
    ``j`` from the mover takes the network's column ``min(j, columns - 1)``, so a two-seat
    network values the mover against every other seat alike, as its one opponent."""

    def __init__(self, net, precision: str = "fp32", seats: int | None = None, compiled: bool = False):
        if precision not in PRECISIONS:  # here, not at the first call
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.net = net
        self.precision = precision
        weights = mlp_weights(net) if compiled and precision == "fp32" else None
        self.compiled = None if weights is None else MLPEvaluator(weights)
        columns = int(net.shape["num_players"]) if hasattr(net, "shape") else None
        self.columns = None
        if seats is not None and columns is not None and seats != columns:
            self.columns = np.minimum(np.arange(seats), columns - 1)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.compiled is not None:
            priors, values = self.compiled(obs, masks)
            return priors, values if self.columns is None else values[:, self.columns]
        import torch

        with torch.inference_mode():
            with autocast(self.precision):
                logits, values = self.net(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
            priors = torch.softmax(masked_logits(logits.float(), torch.from_numpy(masks.astype(bool))), dim=1)
        values = values.float().numpy()
        return priors.numpy(), values if self.columns is None else values[:, self.columns]


def save_checkpoint(
    path: str | Path, net, game, num_timesteps: int, extra: dict[str, Any] | None = None, members: dict[str, bytes] | None = None
) -> Path:
    """Write ``net``, its metadata and any further zip ``members`` (a training run's optimizer
    state) to ``path``; returns where the file went. The file is written whole under a temporary
    name beside it and then renamed, so a crash never leaves half a checkpoint under the name; a
    Ctrl-C meanwhile waits for the file; a run folder that refuses the write (a full disk, a folder
    removed during the run) sends it to ``./<run>-<name>`` in the working directory instead
    (:func:`tardis_envs.outputs.write_with_fallback`)."""
    import torch

    path = Path(path)
    meta = model_meta(game, num_timesteps, {"algo": "az", "net": dict(net.shape), **(extra or {})})

    def write(target: Path) -> None:
        # inside write_with_fallback, which holds a Ctrl-C back: torch's writer, interrupted,
        # raises an error of its own in place of the Ctrl-C
        weights = io.BytesIO()
        torch.save(net.state_dict(), weights)
        temporary = target.with_name(target.name + ".tmp")
        with zipfile.ZipFile(temporary, "w") as archive:
            archive.writestr(MODEL_MEMBER, weights.getvalue())
            for name, data in (members or {}).items():
                archive.writestr(name, data)
        write_meta(temporary, meta)
        os.replace(temporary, target)

    return write_with_fallback(path, write, fallback_name=f"{path.parent.parent.name}-{path.name}")


def load_checkpoint(path: str | Path, game=None):
    """``(net, meta)`` from an ``az`` checkpoint, checked against ``game`` if given."""
    import torch

    meta = read_meta(path)
    if meta.get("algo") != "az":
        raise CheckpointError(f"checkpoint {str(path)!r} is not an az checkpoint (a PPO one? play it as ppo:{path})")
    if game is not None:
        check_compatible(meta, game, path)
    shape = meta.get("net")
    try:
        net = build_net(**shape, game=layout_game(meta, game) if shape.get("head", "mlp") != "mlp" else None)
        with zipfile.ZipFile(path) as archive:
            state = torch.load(io.BytesIO(archive.read(MODEL_MEMBER)), map_location="cpu", weights_only=True)
        net.load_state_dict(state)
    except Exception as exc:  # a damaged archive or weights of another shape
        raise CheckpointError(f"checkpoint {str(path)!r} could not be loaded: {exc}") from None
    net.eval()
    return net, meta


def layout_game(meta: dict[str, Any], game=None):
    """The game whose observations a checkpoint's network reads (its squares' layout, for a
    ``move_squares`` head): ``game`` under the checkpoint's observation options, or without
    ``game`` the one its metadata names."""
    if game is not None:
        return observation_view(meta, game)
    from tardis_envs import env_module

    return env_module(meta["env_id"]).Game(**(meta.get("options") or {}))


def copy_ppo_policy(net, spec: str, game) -> dict[str, Any]:
    """Copy the policy network of a PPO checkpoint (``ppo:baseline`` or ``ppo:<checkpoint.zip>``
    of ``game``) into ``net``, an MLP network of tanh units of the same widths: its trunk
    takes the policy's hidden layers, its logit layer the policy's action layer, so that the
    network alone plays as the policy does (the same logits); its value head is set to 0 (a
    PPO critic is a second network, not a head on this trunk). Returns the warm start's record;
    a :class:`CheckpointError` naming what differs if the policy is not of that shape."""
    import torch
    from torch import nn

    from .baselines import ppo_checkpoint_path
    from .checkpoint import load_model

    path = ppo_checkpoint_path(spec, game.spec.env_id)
    where = f"init_from {spec}: checkpoint {str(path)!r}"
    model, meta = load_model(path, game)
    if tuple(meta["observation_shape"]) != tuple(game.observation_shape):
        raise CheckpointError(f"{where} observes through other options ({meta.get('options')}): train under them to start from it")
    policy = model.policy
    extractor = getattr(policy, "mlp_extractor", None)
    layers = list(getattr(extractor, "policy_net", []))
    linear = [m for m in layers if isinstance(m, nn.Linear)]
    units = {type(m).__name__ for m in layers if not isinstance(m, nn.Linear)}
    action = getattr(policy, "action_net", None)
    if type(getattr(policy, "features_extractor", None)).__name__ != "FlattenExtractor" or not isinstance(action, nn.Linear) or not linear:
        raise CheckpointError(f"{where} is not a PPO policy of an MLP over the flat observation and a linear action layer")
    theirs = f"{len(linear)} x {', '.join(str(m.out_features) for m in linear)} of {'/'.join(sorted(units)) or 'no'} units"
    ours = f"{net.shape['layers']} x {net.shape['hidden']} of Tanh units"
    widths_match = all(m.out_features == net.shape["hidden"] for m in linear) and len(linear) == net.shape["layers"]
    if units != {"Tanh"} or not widths_match or net.shape.get("activation") != "tanh" or not isinstance(net.policy, nn.Linear):
        raise CheckpointError(
            f"{where} holds a policy network of {theirs}; the config's network is {ours}: set hidden, layers and 'activation: tanh' to match"
        )
    with torch.no_grad():
        for mine, its in zip([m for m in net.trunk if isinstance(m, nn.Linear)], linear):
            mine.weight.copy_(its.weight)
            mine.bias.copy_(its.bias)
        net.policy.weight.copy_(action.weight)
        net.policy.bias.copy_(action.bias)
        net.value.weight.zero_()
        net.value.bias.zero_()
    return {"init_from": spec, "checkpoint": str(path), "its_decisions": int(meta.get("num_timesteps", 0)), "copied": "policy network"}


def checkpoint_file(path: str | Path, game) -> Path:
    """The file of an ``az:<path>`` spec's checkpoint: ``path``, or for ``baseline`` the network
    shipped for ``game`` (the one trained on its player count where there is one; ``az:`` in
    front is allowed)."""
    text = str(path)
    text = text[3:] if text.startswith("az:") else text
    if text.lower() == "baseline":
        from .baselines import az_baseline_path

        return az_baseline_path(game.spec.env_id, game.num_players)
    return Path(text)


def parse_spec(text: str) -> dict[str, Any]:
    """``"<path>:sims=64:net"`` -> ``{"path": "<path>", "sims": 64, "net": True, "given": ["sims"], ...}``."""
    path, *settings = text.split(":")
    if not path:
        raise ValueError(f"agent az:{text}: give a checkpoint or baseline: {SPEC_USAGE}")
    # "given": the numeric settings the spec names (each search's own, refused with the other)
    out: dict[str, Any] = {
        "path": path,
        "sims": DEFAULT_SIMULATIONS,
        "c": 1.25,
        "considered": 16,
        "net": False,
        "search": None,
        "plies": 1,
        "depth": None,
        "redeals": None,
        "given": [],
    }
    for part in settings:
        key, _, value = part.partition("=")
        if key == "net" and not value:
            out["net"] = True
            continue
        if key == "search":
            if value not in SEARCHES:
                raise ValueError(f"agent az:{text}: search must be one of {', '.join(SEARCHES)}, got {value!r}")
            out["search"] = value
            continue
        if key not in ("sims", "c", "considered", "plies", "depth", "redeals") or not value:
            raise ValueError(f"agent az:{text}: unknown setting {part!r}; {SPEC_USAGE}")
        try:
            number = float(value) if key == "c" else int(value)
        except ValueError:
            raise ValueError(f"agent az:{text}: {key} must be a number, got {value!r}") from None
        low, high = {
            "sims": (1, MAX_SIMULATIONS),
            "c": (0, 1e6),
            "considered": (1, 4096),
            "plies": (1, MAX_PLIES),
            "depth": (1, MAX_DEPTH),
            "redeals": (1, MAX_REDEALS),
        }[key]
        if not (np.isfinite(number) and low <= number <= high):
            raise ValueError(f"agent az:{text}: {key} must be in {low}..{high}, got {value!r}")
        out[key] = number
        out["given"].append(key)
    return out


def leaf_kernels(game, search: str | None = None) -> ModuleType:
    """The module of ``game``'s learned-leaf search kernels (its heuristic's ``LEARNED_SEARCH``,
    ``choose_learned_batch`` and ``LEAF_FEATURES``: Dr. Who Chess's alpha-beta, Keys to the TARDIS's
    turn search); a ValueError naming the game where it has none, or where its search is not
    ``search``."""
    module = game.heuristic
    own = getattr(module, "LEARNED_SEARCH", None)
    if own is None or (search is not None and search != own):
        raise ValueError(
            f"search {search or 'alphabeta'} needs a game whose heuristic searches a learned leaf value "
            f"(alphabeta: Dr. Who Chess; turn: Keys to the TARDIS), not {game.spec.env_id}"
        )
    return module


class LeafSearch:
    """The search of an ``az`` agent over a learned leaf ``table`` (``LEAF_FEATURES`` numbers) in
    the game's heuristic kernels, ``weights`` being the heuristic's weights vector it keeps:

    * ``alphabeta`` (Dr. Who Chess): the full-width alpha-beta search, its capture plies and
      mating drive, each leaf scored by the table in place of the material; ``depth`` overrides
      the weights' plies;
    * ``turn`` (Keys to the TARDIS): every line of the mover's turn in ``redeals`` worlds redealt
      from what it may know, each line's end valued by the table (a logistic regression of the
      outcome); the worlds are drawn from the agent's own generator (``seed``)."""

    def __init__(
        self,
        game,
        table: np.ndarray,
        weights: np.ndarray,
        depth: int | None = None,
        redeals: int | None = None,
        seed: int | None = None,
    ):
        self.kernels = leaf_kernels(game)
        self.search = self.kernels.LEARNED_SEARCH
        self.game = game
        self.table = np.ascontiguousarray(table, dtype=np.float64)
        self.weights = np.array(weights, dtype=np.float64)
        if self.search == "alphabeta":
            if depth is not None:
                self.weights[self.kernels.W_DEPTH] = depth
            self.depth = int(self.weights[self.kernels.W_DEPTH])
            self.name = f"az:alphabeta:depth={self.depth}"
        else:
            self.redeals = DEFAULT_REDEALS if redeals is None else int(redeals)
            if not 1 <= self.redeals <= MAX_REDEALS:
                raise ValueError(f"the turn search's redealt worlds must be in 1..{MAX_REDEALS}, got {redeals!r}")
            self.name = f"az:turn:redeals={self.redeals}"
        self.rng = np.random.default_rng(seed)

    @classmethod
    def from_checkpoint(
        cls, path: str | Path, meta: dict[str, Any], game, depth: int | None = None, redeals: int | None = None, seed: int | None = None
    ) -> "LeafSearch":
        """The learned leaf of an az checkpoint: its ``az_leaf_table.npy`` and the search weights
        of its metadata; a :class:`CheckpointError` naming what is missing or damaged."""
        kernels = leaf_kernels(game)
        where = f"checkpoint {str(path)!r}"
        record = meta.get("leaf_search")
        with zipfile.ZipFile(path) as archive:
            if LEAF_TABLE_MEMBER not in archive.namelist() or not isinstance(record, dict):
                raise CheckpointError(
                    f"{where} holds no learned leaf table ({LEAF_TABLE_MEMBER}): it plays search=gumbel, not {kernels.LEARNED_SEARCH}"
                )
            try:  # a damaged member (a bad CRC, a broken stream), a table of text, weights missing
                table = np.asarray(np.load(io.BytesIO(archive.read(LEAF_TABLE_MEMBER)), allow_pickle=False), dtype=np.float64)
                weights = np.asarray(record["weights"], dtype=np.float64)
            except Exception as exc:
                raise CheckpointError(f"{where}: its learned leaf table could not be read: {exc}") from None
        expected = kernels.DEFAULT_WEIGHTS.shape
        if table.shape != (kernels.LEAF_FEATURES,) or weights.shape != expected:
            raise CheckpointError(
                f"{where}: its learned leaf table has shape {table.shape} and search weights {weights.shape}, "
                f"this game's are ({kernels.LEAF_FEATURES},) and {expected}"
            )
        if not (np.isfinite(table).all() and np.isfinite(weights).all()):
            raise CheckpointError(f"{where}: its learned leaf table or search weights are not all finite numbers")
        if kernels.LEARNED_SEARCH == "alphabeta":
            plies = weights[kernels.W_DEPTH]
            if plies != int(plies) or not 1 <= plies <= MAX_DEPTH or weights[kernels.W_QUIESCENCE] not in range(0, 9):
                raise CheckpointError(
                    f"{where}: its search weights ask for depth {plies:g} and {weights[kernels.W_QUIESCENCE]:g} capture plies"
                )
        else:
            worlds = record.get("redeals", DEFAULT_REDEALS)
            if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= MAX_REDEALS:
                raise CheckpointError(f"{where}: its turn search asks for {worlds!r} redealt worlds, not 1..{MAX_REDEALS}")
            redeals = redeals or worlds
        return cls(game, table, weights, depth, redeals, seed)

    def choose(self, states: np.ndarray) -> np.ndarray:
        """The search's action in each of ``states``."""
        states = np.ascontiguousarray(states)
        out = np.empty(len(states), dtype=np.int64)
        if self.search == "alphabeta":
            self.kernels.choose_learned_batch(states, self.game.tables, self.weights, self.table, out)
        else:
            seeds = self.rng.integers(0, 1 << 62, size=len(states), dtype=np.int64)
            self.kernels.choose_learned_batch(states, self.game.tables, self.weights, self.table, self.redeals, seeds, out)
        return out

    def members(self) -> dict[str, bytes]:
        """The checkpoint member that holds the table."""
        data = io.BytesIO()
        np.save(data, self.table, allow_pickle=False)
        return {LEAF_TABLE_MEMBER: data.getvalue()}

    def record(self) -> dict[str, Any]:
        """The checkpoint metadata's ``leaf_search``."""
        record = {"weights": [float(w) for w in self.weights], "features": int(self.table.shape[0])}
        if self.search == "turn":
            record["redeals"] = self.redeals
        return record


class GuidedAgent(Agent):
    """Plays with the guided search over any evaluator ``evaluate(observations, masks) ->
    (priors, values)`` (:class:`tardis_envs.core.guided.GuidedSearch`): the network of an
    ``az`` checkpoint, or a PPO policy and its critic (``mcts:200:prior=ppo:baseline``).
    ``search_game`` is the game whose observations the evaluator reads (same rules,
    perhaps other observation options); a position with one legal action is not searched."""

    needs_observations = False  # the search observes its leaves itself

    def __init__(
        self,
        game,
        evaluate,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        c: float = 1.25,
        considered: int = 16,
        determinize: bool | None = None,
        search_game=None,
        name: str = "guided",
    ):
        super().__init__(game, seed)
        self.evaluate = evaluate
        self.search = GuidedSearch(
            search_game or game, simulations, c_puct=c, max_considered=considered, determinize=determinize, seed=seed
        )
        self.name = name

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        actions = np.argmax(masks, axis=1).astype(np.int64)  # the only legal action where there is one
        busy = masks.sum(axis=1) > 1
        if busy.any():
            actions[busy] = self._choose(states, busy)
        return actions

    def _choose(self, states: np.ndarray, busy: np.ndarray) -> np.ndarray:
        """The searched actions of the rows of ``states`` where ``busy``."""
        searched, _, _ = self.search.run(states, self.evaluate, active=busy)
        return searched[busy]


class AZAgent(GuidedAgent):
    """Plays with guided search over a policy/value network (or the network alone). A network
    trained under other observation-only options (Dr. Who Chess's ``threat_planes``) plays any
    game of the same rules: ``view`` is a game of its own options that it observes through."""

    def __init__(
        self,
        game,
        net,
        seed: int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        c: float = 1.25,
        considered: int = 16,
        net_only: bool = False,
        view=None,
        search: str = "gumbel",
        plies: int = 1,
        leaf: LeafSearch | None = None,
    ):
        if search not in SEARCHES:
            raise ValueError(f"az search must be one of {', '.join(SEARCHES)}, got {search!r}")
        expectation = search == "expectation" and not net_only
        if search in LEAF_SEARCHES and leaf is None and not net_only:
            raise ValueError(f"az search {search} needs a learned leaf table (leaf=LeafSearch(...))")
        if net_only:
            name = "az:net"
        elif expectation:
            name = "az:expectation" if plies == 1 else f"az:expectation:plies={plies}"
        elif leaf is not None:
            name = leaf.name
        else:
            name = f"az:{simulations}"
        super().__init__(
            game,
            NetEvaluator(net, seats=game.num_players, compiled=True),
            seed,
            simulations,
            c,
            considered,
            search_game=view,
            name=name,
        )
        self.net = net
        self.net_only = net_only
        self.view = view if view is not None and view is not game else None
        self.needs_observations = net_only and self.view is None
        # exact expectation over the leaves the network observes (its view's kernels)
        self.expectation = ExactExpectation(view or game, plies) if expectation else None
        self.leaf = None if net_only or search not in LEAF_SEARCHES else leaf

    @classmethod
    def from_spec(cls, text: str, game, seed: int | None = None) -> "AZAgent":
        settings = parse_spec(text)
        net, meta = load_checkpoint(checkpoint_file(settings["path"], game), game)
        search = settings["search"] or (meta.get("config") or {}).get("search", "gumbel")
        tree_settings = [key for key in settings["given"] if key not in ("plies", "depth", "redeals")]
        if search == "expectation" and tree_settings and not settings["net"]:
            raise ValueError(
                f"agent az:{text}: {tree_settings[0]} is a setting of the gumbel search, and this network plays "
                "search=expectation (exact expectation over the dice): add :search=gumbel to search it so"
            )
        if search == "gumbel" and "plies" in settings["given"] and not settings["net"]:
            raise ValueError(
                f"agent az:{text}: plies is a setting of the expectation search, and this agent plays search=gumbel: "
                "add :search=expectation to search so"
            )
        for key, own in (("depth", "alphabeta"), ("redeals", "turn")):
            if search != own and key in settings["given"] and not settings["net"]:
                raise ValueError(f"agent az:{text}: {key} is a setting of the {own} search, and this agent plays search={search}")
        if search in LEAF_SEARCHES and tree_settings and not settings["net"]:
            raise ValueError(f"agent az:{text}: {tree_settings[0]} is a setting of the gumbel search, and this agent plays search={search}")
        if search in LEAF_SEARCHES and "plies" in settings["given"] and not settings["net"]:
            raise ValueError(f"agent az:{text}: plies is a setting of the expectation search, and this agent plays search={search}")
        leaf = None
        if search in LEAF_SEARCHES and not settings["net"]:
            leaf_kernels(game, search)
            leaf = LeafSearch.from_checkpoint(
                checkpoint_file(settings["path"], game), meta, game, settings["depth"], settings["redeals"], seed
            )
        agent = cls(
            game,
            net,
            seed=seed,
            simulations=settings["sims"],
            c=settings["c"],
            considered=settings["considered"],
            net_only=settings["net"],
            view=observation_view(meta, game),
            search=search,
            plies=settings["plies"],
            leaf=leaf,
        )
        agent.meta = meta
        return agent

    def _choose(self, states: np.ndarray, busy: np.ndarray) -> np.ndarray:
        if self.leaf is not None:
            return self.leaf.choose(np.asarray(states)[busy])
        if self.expectation is None:
            return super()._choose(states, busy)
        return np.argmax(self.expectation.action_values(np.asarray(states)[busy], self.evaluate), axis=1)

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if not self.net_only:
            return super().act_batch(states, observations, masks)
        masks = np.asarray(masks)
        if self.view is not None:
            observations = np.stack([self.view.observation(state, int(state[CURRENT_PLAYER])) for state in states])
        priors, _ = self.evaluate(np.asarray(observations, dtype=np.float32), masks)
        return np.argmax(np.where(masks > 0, priors, -1.0), axis=1).astype(np.int64)

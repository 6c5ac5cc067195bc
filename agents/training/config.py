"""Training hyperparameters, one documented field each (CleanRL style).

Values come from the ``train:`` section of ``configs/<game>/default.yaml`` (or a file
given with ``--config``), then from command-line flags. Unknown keys and bad
values are refused with the key's name.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from ..search_agent import parse_search_spec


def is_search_spec(key: str) -> bool:
    return key.split(":", 1)[0] in ("mcts", "ismcts")


POLICIES = ("mlp", "move_squares")  # built by agents/training/policies.py


def settings_of(cls: Any, data: dict[str, Any] | None, where: str) -> Any:
    """The config dataclass ``cls`` holding ``data`` (not yet validated); a ValueError naming the
    first key it has no field for, and the keys it has."""
    data = dict(data or {})
    known = [f.name for f in fields(cls)]
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; allowed: {', '.join(sorted(known))}")
    return cls(**data)


WARM_START_SETTINGS = ("bc_decisions", "bc_teacher", "bc_explore", "bc_epochs", "bc_learning_rate", "bc_dagger_rounds", "init_from")
"""The settings of a run's warm start (PPO's and ``--algo az``'s), which acts at the run's start
only: a resume that changes one is refused by name (:data:`WARM_START_ONLY`)."""
WARM_START_ONLY = "a warm start acts at a run's start, not at its resume (start a new run to change it)"


@dataclass
class TrainConfig:
    KEPT_BY_THE_MODEL: ClassVar[tuple[str, ...]] = (
        "policy",
        "net_arch",
        "learning_rate",
        "n_steps",
        "batch_size",
        "n_epochs",
        "gamma",
        "gae_lambda",
        "ent_coef",
        "clip_range",
    )
    """The settings a resumed run's model keeps from its checkpoint (the SB3 backend's
    ``MaskablePPO.load`` restores them): a resume that changes one is refused by name."""

    env_id: str = "tardis_run_v0"
    """Game to train on."""
    options: dict = field(default_factory=dict)
    """Rule options of the game (as keyword arguments of env())."""
    total_timesteps: int = 2_000_000
    """Learner decisions to train for (opponent moves are not counted)."""
    max_minutes: float = 0.0
    """Wall-clock budget; training stops and saves when it is spent (0: no budget)."""
    num_envs: int = 128
    """Games advanced together in the batched environment."""
    seed: int = 0
    """Seed of the games, the learner's seats, the opponent choice and torch."""
    n_steps: int = 64
    """Rollout length per game before each PPO update (rollout = n_steps x num_envs)."""
    batch_size: int = 1024
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount factor (rewards come only at the end of a game)."""
    gae_lambda: float = 0.95
    """GAE smoothing."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    clip_range: float = 0.2
    """PPO clipping."""
    net_arch: list | dict = field(default_factory=lambda: [256, 256])
    """Hidden layers of the policy and value networks: one list for both, or ``{pi: [...], vf: [...]}``
    (sb3 backend) for a policy network and a value network of their own sizes."""
    policy: str = "mlp"
    """Policy network: ``mlp`` (sb3-contrib's MlpPolicy) or ``move_squares`` (Dr. Who Chess: the MLP
    plus per-square scores of each move's from and to squares; agents/training/policies.py)."""
    eval_every: int = 100_000
    """Learner steps between evaluations (against random and the heuristic) and checkpoints."""
    eval_games: int = 400
    """Games per evaluation opponent, seats swapped evenly, fixed seeds."""
    snapshot_every: int = 200_000
    """Learner steps between frozen copies of the learner joining the opponent pool."""
    max_snapshots: int = 5
    """Snapshots kept in the pool (the oldest leave first)."""
    opponents: dict = field(default_factory=lambda: {"random": 0.2, "heuristic": 0.5, "snapshot": 0.3})
    """Probability of each opponent kind per game (renormalised over the kinds available); besides
    random, heuristic (or ``heuristic:<preset>``) and snapshot, a search agent such as ``ismcts:50`` or a fixed learned policy,
    ``ppo:baseline`` (the game's shipped baseline) or ``ppo:<checkpoint.zip>`` (sb3 backend)."""
    eval_heuristic: str = "heuristic"
    """The heuristic the learner is measured against beside random (chess: ``heuristic:greedy``, the
    alpha-beta default costing tens of ms a move)."""
    num_threads: int = 0
    """Torch and numba threads (0: leave the defaults)."""
    obs_dtype: str = "compact"
    """Observation dtype of the training games: ``compact`` (the game's 8- or 16-bit numerators,
    converted to float32 once per batch for the policy, bit for bit), ``packed`` (Dr. Who Chess:
    one 64-bit word a plane, unpacked once per batch: in the VecEnv with sb3, in the policy
    with rllib) or ``float32``."""
    bc_decisions: int = 0
    """Teacher decisions recorded for the behaviour-cloning warm start before PPO (0: no warm start)."""
    bc_teacher: str = "heuristic"
    """The agent imitated by the warm start (``heuristic``, ``heuristic:<preset>``, or any agent spec)."""
    bc_explore: float = 0.1
    """Share of the recorded games' moves played uniformly at random (the teacher's choice stays the label)."""
    bc_epochs: int = 3
    """Passes over the recorded decisions."""
    bc_dagger_rounds: int = 0
    """DAgger rounds after the first fit: each records ``bc_decisions`` more decisions played by the
    clone and labelled by the teacher, then fits again on everything recorded (0: plain cloning)."""
    bc_learning_rate: float = 1e-3
    """Adam step size of the warm start."""

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, where: str = "train config") -> "TrainConfig":
        config = settings_of(cls, data, where)
        config.validate(where)
        return config

    def validate(self, where: str = "train config") -> None:
        positive = ("total_timesteps", "num_envs", "n_steps", "batch_size", "n_epochs", "eval_every", "eval_games", "snapshot_every")
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{where}: {name!r} must be a positive integer, got {value!r}")
        for name in ("learning_rate", "gamma", "gae_lambda", "clip_range"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ValueError(f"{where}: {name!r} must be in (0, 1], got {value!r}")
        if isinstance(self.bc_decisions, bool) or not isinstance(self.bc_decisions, int) or self.bc_decisions < 0:
            raise ValueError(f"{where}: 'bc_decisions' must be an integer >= 0, got {self.bc_decisions!r}")
        if isinstance(self.bc_epochs, bool) or not isinstance(self.bc_epochs, int) or self.bc_epochs < 1:
            raise ValueError(f"{where}: 'bc_epochs' must be a positive integer, got {self.bc_epochs!r}")
        if isinstance(self.bc_dagger_rounds, bool) or not isinstance(self.bc_dagger_rounds, int) or self.bc_dagger_rounds < 0:
            raise ValueError(f"{where}: 'bc_dagger_rounds' must be an integer >= 0, got {self.bc_dagger_rounds!r}")
        if self.bc_dagger_rounds and not self.bc_decisions:
            raise ValueError(f"{where}: 'bc_dagger_rounds' needs a warm start ('bc_decisions' > 0)")
        if not isinstance(self.bc_explore, (int, float)) or not 0 <= self.bc_explore <= 1:
            raise ValueError(f"{where}: 'bc_explore' must be in [0, 1], got {self.bc_explore!r}")
        if not isinstance(self.bc_learning_rate, (int, float)) or not 0 < self.bc_learning_rate <= 1:
            raise ValueError(f"{where}: 'bc_learning_rate' must be in (0, 1], got {self.bc_learning_rate!r}")
        if not isinstance(self.bc_teacher, str) or self.bc_teacher.split(":", 1)[0].lower() not in (
            "heuristic",
            "random",
            "mcts",
            "ismcts",
            "ppo",
        ):
            raise ValueError(f"{where}: 'bc_teacher' must be an agent spec such as heuristic or heuristic:greedy, got {self.bc_teacher!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"{where}: 'seed' must be an integer >= 0, got {self.seed!r}")
        if not isinstance(self.max_minutes, (int, float)) or self.max_minutes < 0:
            raise ValueError(f"{where}: 'max_minutes' must be >= 0, got {self.max_minutes!r}")
        check_opponents(self.opponents, self.env_id, where)
        if not isinstance(self.eval_heuristic, str) or self.eval_heuristic.split(":", 1)[0] != "heuristic":
            raise ValueError(f"{where}: 'eval_heuristic' must be heuristic or heuristic:<preset>, got {self.eval_heuristic!r}")
        if self.obs_dtype not in ("compact", "float32", "packed"):
            raise ValueError(f"{where}: 'obs_dtype' must be compact, float32 or packed, got {self.obs_dtype!r}")
        if self.obs_dtype == "packed":
            import tardis_envs

            game = tardis_envs.env_module(self.env_id).Game(**self.options)
            if game.packed_plane_kinds is None:
                raise ValueError(f"{where}: 'obs_dtype' packed is not available for {self.env_id}: {game.packed_unavailable_reason}")
        if self.policy not in POLICIES:
            raise ValueError(f"{where}: 'policy' must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        by_network = self.net_arch if isinstance(self.net_arch, dict) else {"pi": self.net_arch}
        if (isinstance(self.net_arch, dict) and sorted(self.net_arch) != ["pi", "vf"]) or not all(
            isinstance(sizes, list) and all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in sizes)
            for sizes in by_network.values()
        ):
            raise ValueError(f"{where}: 'net_arch' must be a list of positive layer sizes, or {{pi: [...], vf: [...]}} of two such lists")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_opponents(opponents: Any, env_id: str, where: str, self_play: str = "snapshot") -> None:
    """A ``ValueError`` naming the key unless ``opponents`` maps known opponent kinds to
    finite weights >= 0. ``self_play`` is the key of the learner's games against itself:
    ``snapshot`` (PPO: frozen copies, none before the first, so random or a heuristic must
    have a weight > 0 beside it) or ``self`` (az: the current network on every seat, there
    from the start). Shared by :class:`TrainConfig`, :class:`~agents.training.az_train.AZConfig`
    and :class:`~agents.training.selfplay.OpponentPool`."""
    if not isinstance(opponents, dict) or not opponents:
        raise ValueError(f"{where}: 'opponents' must map random/heuristic/{self_play} to weights")
    bad = sorted(
        str(k)
        for k in opponents
        if not isinstance(k, str)
        or (k not in ("random", "heuristic", self_play) and not is_search_spec(k) and not k.startswith(("ppo:", "heuristic:", "az:")))
    )
    if bad:
        raise ValueError(
            f"{where}: opponents: unknown kind {bad[0]!r}; allowed: random, heuristic, heuristic:<preset>, {self_play}, mcts:<simulations>, "
            "ismcts:<simulations>, ppo:baseline, ppo:<checkpoint.zip>, az:baseline, az:<checkpoint.zip>"
        )
    for key, weight in opponents.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight < 0:
            raise ValueError(f"{where}: opponents: the weight of {key!r} must be a finite number >= 0, got {weight!r}")
    for key in opponents:
        if key == "ppo:baseline":
            from ..baselines import available

            if env_id not in available():
                raise ValueError(
                    f"{where}: opponents: no shipped baseline for {env_id!r} (ppo:baseline exists for: {', '.join(available()) or 'none'})"
                )
        elif key.startswith("ppo:") and not Path(key[4:]).is_file():
            raise ValueError(f"{where}: opponents: checkpoint {key[4:]!r} does not exist")
        elif key.startswith("az:"):
            from ..alphazero import parse_spec
            from ..baselines import az_baseline_path

            try:
                settings = parse_spec(key[3:])
                if settings["path"].lower() == "baseline":
                    az_baseline_path(env_id)
                elif not Path(settings["path"]).is_file():
                    raise ValueError(f"checkpoint {settings['path']!r} does not exist")
            except ValueError as exc:
                raise ValueError(f"{where}: opponents: {exc}") from None
        if is_search_spec(key):
            kind, _, settings = key.partition(":")
            try:
                parse_search_spec(kind, settings)
            except ValueError as exc:
                raise ValueError(f"{where}: opponents: {exc}") from None
    if self_play == "snapshot" and not any(w > 0 for k, w in opponents.items() if k == "random" or k.split(":", 1)[0] == "heuristic"):
        raise ValueError(f"{where}: opponents: random or heuristic must have a weight > 0")
    if not any(w > 0 for w in opponents.values()):
        raise ValueError(f"{where}: opponents: no kind has a weight > 0")

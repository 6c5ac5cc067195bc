"""Rule options: declared once per game, validated with errors that name the key.

Each game lists its options as :class:`Option` entries in its ``SPEC``. Options
come from keyword arguments or from a YAML file under ``configs/``
(:func:`load_config`); both go through :func:`validate_options`, which rejects
unknown keys and bad values with a ``ValueError`` naming the key and what is
allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import yaml


@dataclass(frozen=True)
class Option:
    """One rule option of a game.

    Attributes:
        default: value that plays the rulebook's game (with the game's rulings).
        doc: one line saying what the option changes.
        kind: accepted Python type (``int``, ``str``, ``bool``, ``float``).
        choices: if set, the only allowed values.
        minimum / maximum: inclusive bounds for numbers.
        check: extra validation; returns an error text or ``None``.
        observation_only: the option changes what the observation shows, never the
            rules (a policy trained under another value still plays the game: it
            observes through a game of its own value, see agents/policy_agent.py).
    """

    default: Any
    doc: str
    kind: type = int
    choices: tuple | None = None
    minimum: float | None = None
    maximum: float | None = None
    check: Callable[[Any], str | None] | None = None
    observation_only: bool = False

    def allowed(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        text = f"a {self.kind.__name__}"
        if self.minimum is not None and self.maximum is not None:
            text += f" in [{self.minimum}, {self.maximum}]"
        elif self.minimum is not None:
            text += f" >= {self.minimum}"
        elif self.maximum is not None:
            text += f" <= {self.maximum}"
        return text


def validate_options(env_id: str, declared: Mapping[str, Option], given: Mapping[str, Any]) -> dict:
    """Return the full option dict (defaults filled in) or raise ``ValueError``."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"{env_id}: unknown option {unknown[0]!r}; allowed options: {', '.join(sorted(declared)) or '(none)'}")
    out = {}
    for key, opt in declared.items():
        value = given.get(key, opt.default)
        bad = False
        # numpy's scalars (np.int64(5), np.float32(0.5), np.True_) count as the Python
        # number they hold; a bool is never an int or a float here
        is_bool = isinstance(value, (bool, np.bool_))
        if opt.kind is int:
            bad = is_bool or not isinstance(value, (int, np.integer))
            value = value if bad else int(value)
        elif opt.kind is float:
            bad = is_bool or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value)
            value = value if bad else float(value)
        elif opt.kind is bool:
            bad = not is_bool
            value = value if bad else bool(value)
        else:
            bad = not isinstance(value, opt.kind)
        if not bad and opt.choices is not None and value not in opt.choices:
            bad = True
        if not bad and opt.minimum is not None and value < opt.minimum:
            bad = True
        if not bad and opt.maximum is not None and value > opt.maximum:
            bad = True
        if bad:
            raise ValueError(f"{env_id}: option {key!r} got {value!r}; expected {opt.allowed()}")
        if opt.check is not None:
            problem = opt.check(value)
            if problem:
                raise ValueError(f"{env_id}: option {key!r} got {value!r}: {problem}")
        out[key] = value
    return out


def read_yaml(path: str | Path, what: str = "config file") -> Any:
    """Parse a YAML file, turning every failure (unreadable, binary, bad YAML) into a
    one-line ``ValueError`` naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} {str(path)!r} is not a UTF-8 text file (byte {exc.start}: {exc.reason}); give a YAML file") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{what} {str(path)!r} is not valid YAML: {exc}") from None


CONFIG_SECTIONS = ("env_id", "options", "eval", "train", "az", "bench")
RUN_RECORD_KEYS = ("algo", "backend", "num_env_runners", "num_envs_per_env_runner", "num_learners")
"""What a run's own ``config.yaml`` records beside its settings: its algorithm (``algo: az``; none
for PPO) and, for an RLlib run, its backend and scale (:func:`load_config` puts them under ``run``)."""


def is_run_record(data: Any) -> bool:
    """Whether ``data`` (a parsed YAML file) is the ``config.yaml`` a training run writes in its
    folder: the game, its options and the run's settings at the top level, where a config file
    has them in a ``train:`` or ``az:`` section (``total_timesteps``; a leaf-table run's
    ``rounds``)."""
    return isinstance(data, dict) and "env_id" in data and ("total_timesteps" in data or (data.get("algo") == "az" and "rounds" in data))


def _sections_of_run_record(data: dict) -> dict:
    """A run's ``config.yaml`` in a config file's sections: its settings under ``az:`` (``algo:
    az``) or ``train:``, what it records beside them (:data:`RUN_RECORD_KEYS`) under ``run``."""
    settings = {key: value for key, value in data.items() if key not in ("env_id", "options", *RUN_RECORD_KEYS)}
    run = {key: data[key] for key in RUN_RECORD_KEYS if key in data}
    run.setdefault("algo", "ppo")
    run.setdefault("backend", "sb3")
    return {"env_id": data["env_id"], "options": data.get("options"), "az" if run["algo"] == "az" else "train": settings, "run": run}


def load_config(path: str | Path) -> dict:
    """Load a run/variant config file.

    Layout (every section optional)::

        env_id: tardis_run_v0
        options:            # rule options, as keyword arguments of env()
          max_turns: 1000
        eval: {...}         # settings of ``tardis-envs eval``
        train: {...}        # ``tardis-envs train`` (PPO; agents/training/config.py)
        az: {...}           # ``tardis-envs train --algo az`` (agents/training/az_train.py;
                            # with ``search: alphabeta`` or ``turn``, agents/training/leaf_table.py)

    or a training run's own ``config.yaml`` (:func:`is_run_record`): its settings become the
    ``train:`` or ``az:`` section, and what it records beside them (``algo``, an RLlib run's
    ``backend`` and scale) the mapping ``run``, so a run can be resumed or run again from it.

    Relative file paths inside ``options`` (a board file, say) are resolved
    against the config file's folder first. Unknown sections are an error.
    """
    path = Path(path)
    data = read_yaml(path)
    if data is None:
        data = {}
    record = is_run_record(data)
    if record:
        data = _sections_of_run_record(data)
        run = data["run"]
        if run["algo"] not in ("ppo", "az") or run["backend"] not in ("sb3", "rllib") or (run["algo"], run["backend"]) == ("az", "rllib"):
            raise ValueError(
                f"config file {str(path)!r}: a run's record of algo {run['algo']!r} and backend {run['backend']!r}, which no trainer writes"
            )
        for key, least in zip(RUN_RECORD_KEYS[2:], (0, 1, 0)):  # an RLlib run's scale
            if key in run and (isinstance(run[key], bool) or not isinstance(run[key], int) or run[key] < least):
                raise ValueError(f"config file {str(path)!r}: {key!r} must be an integer >= {least}, got {run[key]!r}")
    if not isinstance(data, dict):
        raise ValueError(f"config file {str(path)!r} must be a mapping with keys {', '.join(CONFIG_SECTIONS)}")
    unknown = sorted(set(data) - set(CONFIG_SECTIONS) - ({"run"} if record else set()))
    if unknown:
        raise ValueError(f"config file {str(path)!r}: unknown key {unknown[0]!r}; allowed keys: {', '.join(CONFIG_SECTIONS)}")
    for section in ("options", "eval", "train", "az", "bench"):
        if section in data and data[section] is not None and not isinstance(data[section], dict):
            raise ValueError(f"config file {str(path)!r}: {section!r} must be a mapping")
    options = dict(data.get("options") or {})
    for key, value in options.items():
        if isinstance(value, str) and (value.endswith(".yaml") or value.endswith(".yml")):
            candidate = path.parent / value
            if candidate.exists():
                options[key] = str(candidate)
    data["options"] = options
    return data

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

    Relative file paths inside ``options`` (a board file, say) are resolved
    against the config file's folder first. Unknown sections are an error.
    """
    path = Path(path)
    data = read_yaml(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"config file {str(path)!r} must be a mapping with keys {', '.join(CONFIG_SECTIONS)}")
    unknown = sorted(set(data) - set(CONFIG_SECTIONS))
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

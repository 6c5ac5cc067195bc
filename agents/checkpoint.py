"""Learned-policy checkpoints: one file that says what it was trained on.

A checkpoint is the zip written by SB3's ``model.save`` with one more member,
``tardis_meta.json``: the env id and version, the rule options, the
observation shape and action count, the training config and seed, the step
count and the package version. Loading checks all of it against the game it
is meant for, so a checkpoint from another game, another board or a broken
file is refused with a message that says which.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

META_NAME = "tardis_meta.json"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used (unreadable, or for another game)."""


def model_meta(game, num_timesteps: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The metadata every checkpoint carries: the game it plays (env id, version, rule options,
    observation shape, action count), the learner steps, the package version and the time."""
    import time

    import tardis_envs

    return {
        "env_id": game.spec.env_id,
        "env_version": game.spec.version,
        "options": game.options,
        "observation_shape": list(game.observation_shape),
        "num_actions": game.num_actions,
        "num_timesteps": int(num_timesteps),
        "package_version": tardis_envs.__version__,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        **(extra or {}),
    }


def save_model(model, path: str | Path, game, **extra: Any) -> Path:
    """Save a MaskablePPO ``model`` trained from Python (for example on
    :class:`~agents.training.selfplay.SelfPlayVecEnv`) with the metadata ``ppo:<path>`` needs,
    so that it joins ``tardis-envs eval`` and ``play`` like a checkpoint of ``tardis-envs train``.

    ``game`` is the env's ``Game`` the model was trained on (``tardis_envs.make(env_id,
    **options).unwrapped.game``): its env id, version and rule options are recorded and checked
    when the checkpoint is loaded. ``extra`` keyword arguments go into the metadata as well
    (e.g. ``seed=0``). ``path`` gets ``.zip`` if it has no suffix; returns the file written.
    Raises ``ValueError`` when the model's observation or action space does not fit ``game``.

    >>> from agents.checkpoint import save_model
    >>> save_model(model, "my_policy.zip", env.unwrapped.game, seed=0)   # doctest: +SKIP
    >>> # tardis-envs eval tardis_run_v0 --agents ppo:my_policy.zip,heuristic
    """
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(".zip")
    shape = tuple(getattr(model.observation_space, "shape", ()) or ())
    if shape != tuple(game.observation_shape):
        raise ValueError(f"save_model: the model observes shape {shape}, {game.spec.env_id} gives {tuple(game.observation_shape)}")
    actions = getattr(model.action_space, "n", None)
    if actions != game.num_actions:
        raise ValueError(f"save_model: the model has {actions} actions, {game.spec.env_id} has {game.num_actions}")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path))
    write_meta(path, model_meta(game, model.num_timesteps, extra))
    return path


def write_meta(path: str | Path, meta: dict[str, Any]) -> None:
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(META_NAME, json.dumps(meta, indent=2, sort_keys=True))


def write_meta_dir(path: str | Path, meta: dict[str, Any]) -> None:
    """The same metadata beside a checkpoint that is a folder (an RLlib checkpoint)."""
    (Path(path) / META_NAME).write_text(json.dumps(meta, indent=2, sort_keys=True))


def read_meta(path: str | Path) -> dict[str, Any]:
    """The metadata of a checkpoint: an SB3 zip, or an RLlib checkpoint folder."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    try:
        if path.is_dir():
            if not (path / META_NAME).exists():
                raise CheckpointError(f"checkpoint folder {str(path)!r} has no {META_NAME}: not written by tardis-envs train")
            meta = json.loads((path / META_NAME).read_text())
        else:
            with zipfile.ZipFile(path) as archive:
                if META_NAME not in archive.namelist():
                    raise CheckpointError(f"checkpoint {str(path)!r} has no {META_NAME}: not written by tardis-envs train")
                meta = json.loads(archive.read(META_NAME))
    except (zipfile.BadZipFile, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"checkpoint {str(path)!r} is corrupt or not a checkpoint ({exc})") from None
    for key in ("env_id", "env_version", "observation_shape", "num_actions", "options", "num_timesteps"):
        if key not in meta:
            raise CheckpointError(f"checkpoint {str(path)!r}: metadata lacks {key!r}")
    return meta


def check_compatible(meta: dict[str, Any], game, path: str | Path) -> None:
    """Raise :class:`CheckpointError` unless ``meta`` fits ``game`` (an env's ``Game``)."""
    spec = game.spec
    where = f"checkpoint {str(path)!r}"
    # the env id names the version (``_vN``); ``env_version`` is kept as a record only, since
    # checkpoints of timelord_chess_v1 written before 2026-11-25 record version 0 (the spec's
    # version lagged its id until then)
    if meta["env_id"] != spec.env_id and meta["env_id"] not in spec.loads_checkpoints_of:
        raise CheckpointError(f"{where} was trained on {meta['env_id']!r}, not {spec.env_id!r}")
    differing = option_differences(meta.get("options") or {}, game.options, rules_only=True, spec=spec)
    # a policy trained under other observation-only options observes through a game of its own
    # options (PolicyAgent.view): that game's observations must fit it
    if tuple(meta["observation_shape"]) != tuple(observation_view(meta, game).observation_shape):
        raise CheckpointError(
            f"{where} expects observations of shape {tuple(meta['observation_shape'])}, this game gives "
            f"{tuple(game.observation_shape)} (other rule options? trained with {meta['options']})"
        )
    if meta["num_actions"] != game.num_actions:
        raise CheckpointError(f"{where} has {meta['num_actions']} actions, this game {game.num_actions}")
    if differing:
        warnings.warn(f"{where} was trained under other rule options ({differing}); it plays this game all the same", stacklevel=3)


def option_differences(trained: dict, now: dict, rules_only: bool = False, spec=None) -> str:
    """'num_players: trained 2, now 4; ...' for the options whose values differ ('' if none);
    ``rules_only`` leaves out the options of ``spec`` that change only the observation."""
    keys = sorted(set(trained) | set(now))
    if rules_only:
        keys = [k for k in keys if not (k in spec.options and spec.options[k].observation_only)]
    return "; ".join(f"{k}: trained {trained.get(k)!r}, now {now.get(k)!r}" for k in keys if trained.get(k) != now.get(k))


def observation_option_differences(meta: dict[str, Any], game) -> dict[str, Any]:
    """The observation-only options (``Option.observation_only``) the checkpoint was trained with
    where ``game`` has other values: ``{name: trained value}``. An option the checkpoint's
    record lacks was added to the game after it was trained: it observed the option's default."""
    if "options" not in meta:
        return {}
    trained = meta["options"] or {}
    own = {name: trained.get(name, option.default) for name, option in game.spec.options.items() if option.observation_only}
    return {name: value for name, value in own.items() if value != game.options.get(name)}


def observation_view(meta: dict[str, Any], game):
    """The game the checkpoint's policy observes through: ``game`` itself, or a game of the
    same rules under the checkpoint's own observation-only options."""
    own = observation_option_differences(meta, game)
    return type(game)(**{**game.options, **own}) if own else game


def load_model(path: str | Path, game=None, device: str = "cpu", env=None):
    """``(MaskablePPO model, meta)`` from a checkpoint, checked against ``game`` if given; with
    ``env`` (a VecEnv) the model runs on it, its rollout sized to that env's games."""
    meta = read_meta(path)
    if meta.get("algo") == "az":
        raise CheckpointError(f"checkpoint {str(path)!r} is an az checkpoint (a network for guided search): play it as az:{path}")
    if game is not None:
        check_compatible(meta, game, path)
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(str(path), env=env, device=device)
    except Exception as exc:  # SB3 raises many kinds on a damaged archive
        raise CheckpointError(f"checkpoint {str(path)!r} could not be loaded: {exc}") from None
    return model, meta

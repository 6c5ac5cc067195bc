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
    where ``game`` has other values: ``{name: trained value}``."""
    trained = meta.get("options") or {}
    return {
        name: trained[name]
        for name, option in game.spec.options.items()
        if option.observation_only and name in trained and trained[name] != game.options.get(name)
    }


def observation_view(meta: dict[str, Any], game):
    """The game the checkpoint's policy observes through: ``game`` itself, or a game of the
    same rules under the checkpoint's own observation-only options."""
    own = observation_option_differences(meta, game)
    return type(game)(**{**game.options, **own}) if own else game


def load_model(path: str | Path, game=None, device: str = "cpu"):
    """``(MaskablePPO model, meta)`` from a checkpoint, checked against ``game`` if given."""
    meta = read_meta(path)
    if game is not None:
        check_compatible(meta, game, path)
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(str(path), device=device)
    except Exception as exc:  # SB3 raises many kinds on a damaged archive
        raise CheckpointError(f"checkpoint {str(path)!r} could not be loaded: {exc}") from None
    return model, meta

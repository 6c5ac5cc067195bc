"""Learned baselines shipped with the package: a MaskablePPO checkpoint per game (``ppo:baseline``) and az networks (``az:baseline``).

``make_agent("ppo:baseline", game)`` (and ``--agents ppo:baseline`` in ``tardis-envs eval``,
``--opponent ppo:baseline`` in ``play``, ``opponents: {ppo:baseline: w}`` in a training config)
loads ``<env_id>.zip`` from this folder with the same checks as any checkpoint: env id and
version, observation shape, action count, and a warning when the rule options differ from
those it was trained under. Each file is an ordinary checkpoint of ``tardis-envs train``
(its ``tardis_meta.json`` holds the recipe's config, the seed, the step count, the warm start
and the package version) with the optimizer state dropped, which only resuming needs.

``az:baseline`` loads ``az/<env_id>.zip``, or in a game of ``n`` players ``az/<env_id>/players<n>.zip``
where one is shipped (a network trained on games of that many players; the export of a
checkpoint trained under another player count than the game's default writes there).

The recipes that trained them are ``configs/<game>/baseline.yaml``; their measured results
(learning curves, round robins, learner steps/s) are in ``docs/results/baselines/``. A new
baseline is exported from a run with ``python -m agents.baselines export RUN/checkpoints/best.zip``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from ..checkpoint import META_NAME, CheckpointError, load_model, read_meta, write_meta

SPEC = "ppo:baseline"


def folder() -> Path:
    return Path(str(resources.files(__name__)))


def available() -> list[str]:
    """The env ids that have a shipped baseline."""
    return sorted(p.stem for p in folder().glob("*.zip"))


def baseline_path(env_id: str) -> Path:
    """The shipped checkpoint of ``env_id``; a :class:`CheckpointError` naming the games that
    have one if it has none."""
    path = folder() / f"{env_id}.zip"
    if not path.exists():
        have = ", ".join(available()) or "none"
        raise CheckpointError(f"no shipped baseline for {env_id!r} (ppo:baseline exists for: {have})")
    return path


def ppo_checkpoint_path(spec: str, env_id: str) -> Path:
    """The checkpoint a ``ppo:`` agent spec names: ``ppo:baseline`` is ``env_id``'s shipped one,
    ``ppo:<checkpoint.zip>`` that file."""
    rest = spec.split(":", 1)[1] if ":" in spec else spec
    return baseline_path(env_id) if rest.lower() == "baseline" else Path(rest)


def az_available() -> list[str]:
    """The env ids that have a shipped ``az:baseline`` (``az/<env_id>.zip`` here)."""
    return sorted(p.stem for p in (folder() / "az").glob("*.zip"))


def az_player_counts(env_id: str) -> list[int]:
    """The player counts with a network of their own for ``env_id``
    (``az/<env_id>/players<n>.zip`` here, trained on games of ``n`` players)."""
    return sorted(int(p.stem[len("players") :]) for p in (folder() / "az" / env_id).glob("players*.zip"))


def az_baseline_path(env_id: str, num_players: int | None = None) -> Path:
    """The shipped network of ``env_id`` for ``az:baseline``: the one trained on games of
    ``num_players`` where the game ships one (``az/<env_id>/players<n>.zip``), else the game's
    network (``az/<env_id>.zip``); a :class:`CheckpointError` naming the games that have one if
    it has none."""
    if num_players is not None:
        own = folder() / "az" / env_id / f"players{num_players}.zip"
        if own.exists():
            return own
    path = folder() / "az" / f"{env_id}.zip"
    if not path.exists():
        have = ", ".join(az_available()) or "none yet"
        raise CheckpointError(f"no shipped az baseline for {env_id!r} (az:baseline exists for: {have})")
    return path


def az_export_target(meta: dict) -> Path:
    """Where a checkpoint of ``meta`` ships: ``az/<env_id>.zip``, or ``az/<env_id>/players<n>.zip``
    for a network trained on games of another player count than the game's default."""
    from tardis_envs import env_module

    env_id = meta["env_id"]
    players = (meta.get("options") or {}).get("num_players")
    if players is not None and players != env_module(env_id).Game().num_players:
        return folder() / "az" / env_id / f"players{players}.zip"
    return folder() / "az" / f"{env_id}.zip"


def _export_az(checkpoint: Path, meta: dict, out: str | Path | None) -> Path:
    """An az checkpoint without its optimizer state, to :func:`az_export_target` (or ``out``)."""
    import zipfile

    from ..alphazero import OPTIMIZER_MEMBER, load_checkpoint

    load_checkpoint(checkpoint)  # whole and loadable before it is shipped
    target = Path(out) if out is not None else az_export_target(meta)
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / target.name
        with zipfile.ZipFile(checkpoint) as source, zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as copy:
            for name in source.namelist():
                if name not in (OPTIMIZER_MEMBER, META_NAME):
                    copy.writestr(name, source.read(name))
        write_meta(staged, {**meta, "exported_from": checkpoint.name})
        load_checkpoint(staged)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), target)
    return target


def export(checkpoint: str | Path, out: str | Path | None = None) -> Path:
    """Copy a training checkpoint to a shipped baseline: same model and metadata, without what
    only resuming needs: the optimizer state is reset and the last batch of observations SB3
    keeps for its next rollout is dropped (each is as large as the network or larger: chess's
    64 observations of 167 planes are 2.7 MB). ``out`` defaults to this folder's ``<env_id>.zip``."""
    meta = read_meta(checkpoint)
    if meta.get("algo") == "az":
        return _export_az(Path(checkpoint), meta, out)
    model, _ = load_model(checkpoint)
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs)
    model._last_obs = model._last_original_obs = model._last_episode_starts = None
    target = Path(out) if out is not None else folder() / f"{meta['env_id']}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / target.name
        model.save(staged)
        write_meta(staged, {**meta, "exported_from": Path(checkpoint).name})
        read_meta(staged)  # the copy is whole before it replaces anything
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.baselines", description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("export", help="make a training checkpoint the shipped baseline of its game")
    p.add_argument("checkpoint")
    p.add_argument("--out", help="where to write it (default: this package's <env_id>.zip)")
    verbs.add_parser("list", help="the games with a shipped baseline")
    args = parser.parse_args(argv)
    if args.verb == "list":
        for env_id in available():
            meta = read_meta(baseline_path(env_id))
            print(f"ppo:baseline {env_id}: {meta['num_timesteps']:,} learner steps, options {meta['options']}")
        for env_id in az_available():
            for players in [None, *az_player_counts(env_id)]:
                meta = read_meta(az_baseline_path(env_id, players))
                print(f"az:baseline {env_id}: {meta['num_timesteps']:,} self-play decisions, options {meta['options']}")
        return 0
    try:
        path = export(args.checkpoint, args.out)
    except CheckpointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


__all__ = [
    "SPEC",
    "available",
    "az_available",
    "az_baseline_path",
    "az_export_target",
    "az_player_counts",
    "baseline_path",
    "export",
    "main",
]

"""Documentation pages of the games, generated from their module docstrings.

``python -m tardis_envs.docs --write`` writes, for every registered game,
``docs/games/<env_id>.md`` (the module docstring, which is the game's documentation
page: rules, rulings, observation, actions, rewards, versions) with a picture of a
mid-game position (``docs/games/img/<env_id>.png``, ``render_mode="rgb_array"``) and an
animated GIF of a short game (``docs/games/img/<env_id>.gif``), both from fixed seeds and
heuristic play. ``tests/test_docs.py`` fails when a page no longer matches its docstring.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from . import ENV_IDS, env_module

DOCS = Path("docs") / "games"
SEED = 7
PICTURE_PLY = 30
GIF_FRAMES = 24


def page(env_id: str) -> str:
    module = env_module(env_id)
    spec = module.SPEC
    players = f"{spec.min_players}" if spec.min_players == spec.max_players else f"{spec.min_players}-{spec.max_players}"
    lines = [
        f"# {spec.name} (`{env_id}`)",
        "",
        f"Generated from the docstring of `tardis_envs.{env_id}` by `python -m tardis_envs.docs --write`; do not edit by hand.",
        "",
        f"{players} players; chance: {'yes' if spec.chance else 'no'}; hidden information: {'yes' if spec.hidden_information else 'no'}"
        + ("; cooperative" if spec.cooperative else "")
        + ("; simultaneous moves (also a Parallel env)" if spec.simultaneous else "")
        + f"; status: {spec.status}.",
        "",
        f"![a position of {spec.name}](img/{env_id}.png) ![a short game of {spec.name}](img/{env_id}.gif)",
        "",
        "```text",
        (module.__doc__ or "").strip("\n"),
        "```",
        "",
        "## Rule options",
        "",
        "| option | default | meaning |",
        "|---|---|---|",
    ]
    for name, option in spec.options.items():
        lines.append(f"| `{name}` | `{option.default!r}` | {option.doc} ({option.allowed()}) |")
    return "\n".join(lines) + "\n"


def frames(env_id: str, count: int) -> list[np.ndarray]:
    """``count`` pictures of one game from a fixed seed, every seat played by the game's
    heuristic (its own kernel, ``game.heuristic``, with its default weights)."""
    env = env_module(env_id).env(render_mode="rgb_array")
    env.reset(seed=SEED)
    game = env.unwrapped.game
    weights = np.array(game.heuristic.DEFAULT_WEIGHTS, dtype=np.float64)
    action = np.empty(1, dtype=np.int64)
    shots = [env.render()]
    for _ in range(count - 1):
        if not env.agents or any(env.terminations.values()) or any(env.truncations.values()):
            break
        game.heuristic.choose_batch(env.unwrapped.get_state()[None], game.tables, weights, action)
        env.step(int(action[0]))
        shots.append(env.render())
    return shots


def write(env_id: str, root: Path = Path(".")) -> list[Path]:
    from PIL import Image

    folder = root / DOCS
    (folder / "img").mkdir(parents=True, exist_ok=True)
    path = folder / f"{env_id}.md"
    path.write_text(page(env_id))
    shots = frames(env_id, max(GIF_FRAMES, PICTURE_PLY + 1))
    picture = shots[min(PICTURE_PLY, len(shots) - 1)]
    Image.fromarray(picture).save(folder / "img" / f"{env_id}.png", optimize=True)
    gif = [Image.fromarray(s) for s in shots[:GIF_FRAMES]]
    gif[0].save(folder / "img" / f"{env_id}.gif", save_all=True, append_images=gif[1:], duration=500, loop=0, optimize=True)
    return [path, folder / "img" / f"{env_id}.png", folder / "img" / f"{env_id}.gif"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the pages and pictures under docs/games/")
    parser.add_argument("env_ids", nargs="*", help="games (default: all registered)")
    args = parser.parse_args(argv)
    for env_id in args.env_ids or ENV_IDS:
        if args.write:
            print("wrote " + ", ".join(str(p) for p in write(env_id)))
        else:
            print(page(env_id))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

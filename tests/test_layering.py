"""The import layers: core <- games <- env pages <- vector/openspiel/tools <- agents <- training <- cli/web.

Every import of the package's modules (top-level or inside a function) is read from the
source with ``ast`` and must not run upward; a game folder imports only the core and itself;
outside a game's folder only its env page (``tardis_envs/<env_id>.py``) imports from it: the
agents, training, benchmarks and the other games reach a game through its public module, its
``Game`` and ``game.kernels`` / ``game.heuristic``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path

import pytest

import tardis_envs

ROOT = Path(__file__).resolve().parents[1]
ENV_PAGES = {f"tardis_envs.{env_id}" for env_id in tardis_envs.ENV_IDS}
LAYERS = ("core", "games", "env pages", "vector/openspiel/tools", "agents", "training", "cli/web")


def layer(module: str) -> int | None:
    """The layer of a module of the package (None outside tardis_envs and agents)."""
    parts = module.split(".")
    if parts[0] == "tardis_envs":
        if len(parts) > 1 and parts[1] == "core":
            return 0
        if len(parts) > 1 and parts[1] == "games":
            return 1
        if module == "tardis_envs" or ".".join(parts[:2]) in ENV_PAGES:
            return 2
        if len(parts) > 1 and parts[1] in ("cli", "web"):  # the front ends
            return 6
        return 3
    if parts[0] == "agents":
        return 5 if len(parts) > 1 and parts[1] == "training" else 4
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``, relative ones resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # "from . import rules" imports the submodule rules
            found += [(node.lineno, target)] + [(node.lineno, f"{target}.{alias.name}") for alias in node.names if not node.module]
    return found


def sources(*tops: str) -> list[Path]:
    return [path for top in tops for path in sorted((ROOT / top).rglob("*.py")) if "__pycache__" not in path.parts]


def game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["tardis_envs", "games"] and len(parts) > 2 else None


def violations(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        name = module_name(path)
        own_layer = layer(name)
        own_game = game_of(name)
        page_games = {game_of(target) for _, target in imports(path) if game_of(target)} if name in ENV_PAGES else set()
        if name in ENV_PAGES and len(page_games) > 1:
            found.append(f"{path.relative_to(ROOT)}: an env page shows one game, imports {sorted(page_games)}")
        for line, target in imports(path):
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            target_layer = layer(target)
            if own_layer is not None and target_layer is not None and target_layer > own_layer:
                found.append(f"{where}: upward, from {LAYERS[own_layer]} to {LAYERS[target_layer]}")
            target_game = game_of(target)
            if target_game and target_game != own_game and name not in ENV_PAGES:
                found.append(f"{where}: another game's module (reach it through tardis_envs.<env_id>)")
    return found


def test_no_import_runs_upward_and_no_game_is_reached_from_outside():
    assert violations(sources("tardis_envs", "agents", "benchmarks")) == []


def test_the_check_sees_each_kind_of_violation(tmp_path, monkeypatch):
    # a copy of three modules, each with one forbidden import added
    cases = {
        "tardis_envs/core/extra.py": ("from ..vector import make\n", "upward, from core to vector/openspiel/tools"),
        "tardis_envs/games/keys/extra.py": ("from ..chess import rules\n", "another game's module"),
        "agents/extra.py": ("from tardis_envs.games.daleks.layout import WINNER\n", "another game's module"),
        "agents/heuristics/extra.py": ("import agents.training.train\n", "upward, from agents to training"),
    }
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    paths = []
    for relative, (code, _) in cases.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        paths.append(path)
    found = violations(paths)
    assert len(found) == len(cases), found
    for (relative, (_, message)), problem in zip(cases.items(), found):
        assert problem.startswith(relative) and message in problem, problem


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_each_game_has_the_same_rooms(env_id):
    """Every game folder holds the same modules (the folder shape of tardis_envs.core.game)."""
    game = tardis_envs.env_module(env_id).Game
    folder = Path(__import__(game.__module__, fromlist=["_"]).__file__).parent
    rooms = ("layout", "rules", "observe", "notation", "batch", "content", "game", "render", "hidden", "check", "heuristic", "env")
    for room in rooms:
        assert (folder / f"{room}.py").is_file(), f"{folder.name} has no {room}.py"
    # the Game class holds options, tables and positions; its words and pictures are delegated
    assert game.describe.__qualname__ == f"{game.__name__}.describe"
    assert "notation." in inspect.getsource(game.describe)
    assert importlib.import_module(game.__module__.rsplit(".", 1)[0] + ".layout").LAYOUT_VERSION == game.layout_version

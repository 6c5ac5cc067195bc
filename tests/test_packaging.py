"""The package as installed: every package listed, content and configs shipped inside it."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    tomllib = pytest.importorskip("tomllib")
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("tardis_envs", "agents") for p in (ROOT / top).rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert "tardis_envs.configs" in listed


def test_default_configs_are_found_outside_the_repository(tmp_path, monkeypatch):
    from tardis_envs.cli import _config, default_config_path

    monkeypatch.chdir(tmp_path)  # no configs/ folder here
    path = default_config_path("time_of_the_daleks_v2")
    assert path is not None and path.name == "time_of_the_daleks_v2.yaml"
    data = _config("keys_to_the_tardis_v0", None)
    assert data["train"]["total_timesteps"] > 0 and data["options"]["num_players"] == 2


def test_optional_integrations_stay_out_of_the_core_imports():
    # Ray lives behind the 'distributed' extra: the envs, the agents, training and the CLI
    # must import (and run) without it
    code = (
        "import sys, tardis_envs, tardis_envs.cli, agents, agents.training.train, agents.training.selfplay; "
        "tardis_envs.make('tardis_run_v0'); print(sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'pyspiel')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout

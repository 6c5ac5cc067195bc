"""The package from the source tree: configs found outside it, optional integrations kept out of the core
imports (the built wheel is checked in tests/test_wheel.py)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_default_configs_are_found_outside_the_repository(tmp_path, monkeypatch):
    from tardis_envs.cli import _config, default_config_path

    monkeypatch.chdir(tmp_path)  # no configs/ folder here
    path = default_config_path("time_of_the_daleks_v2")
    assert path is not None and path.parts[-2:] == ("daleks", "default.yaml")
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

"""The package as a user installs it: the wheel built from the source tree, installed into a
fresh virtual environment outside the repository, works there.

The fresh environment holds only the wheel; the dependencies (numpy, numba, torch, ...) are
those of the environment running the tests, made visible through a path file, so that the
test needs no network and no second copy of torch. Whatever the wheel leaves out (a content
file, a config, a baseline, a package) fails here, where the source tree would hide it.
The kernels compile cold in the new place (one game's: every game's would take minutes).
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What the installed package must do, run by the fresh environment's Python outside the
# repository; prints one JSON line.
CHECKS = textwrap.dedent(
    """
    import json, sys
    from importlib.resources import files
    from pathlib import Path

    import numpy as np

    import tardis_envs
    from agents import make_agent
    from agents.baselines import available, az_available
    from tardis_envs.cli import default_config_path
    from tardis_envs.core.options import load_config
    from tardis_envs.docs import page

    report = {"package": tardis_envs.__file__, "games": {}, "configs": {}, "pages": {}, "baselines": {}}
    # one whole game compiles and caches kernels from the installed files; every game loads its
    # content and its shipped config (an env of every game would compile each game's kernels
    # cold: an env's state is made when it is built, minutes in all)
    env = tardis_envs.make("tardis_run_v0")
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        steps += 1
    report["steps"] = steps
    for env_id in tardis_envs.ENV_IDS:
        game = tardis_envs.env_module(env_id).Game()
        report["games"][env_id] = game.num_actions
        config = default_config_path(env_id)
        report["configs"][env_id] = str(config)
        tardis_envs.env_module(env_id).Game(**load_config(config)["options"])
        report["pages"][env_id] = len(page(env_id))
        for spec in ["ppo:baseline"] + (["az:baseline:net"] if env_id in az_available() else []):
            report["baselines"][f"{env_id} {spec}"] = type(make_agent(spec, game, seed=0)).__name__
    configs = Path(str(files("tardis_envs"))) / "configs"
    report["shipped_configs"] = sorted(str(p.relative_to(configs)) for p in configs.rglob("*.yaml"))
    report["card_list"] = (files("tardis_envs.games.daleks") / "content").is_dir()
    report["ppo_baselines"] = available()
    print(json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the tracked (and new, not ignored) files, so that the
    build writes nothing into the working tree."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to know which files are the project's")
    pytest.importorskip("setuptools")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    source = tmp_path_factory.mktemp("source")
    for name in filter(None, listed.split("\0")):
        if name.startswith("docs/") or not (ROOT / name).is_file():
            continue  # the docs site is not part of the package; a file deleted but not yet staged
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--wheel-dir", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("tardis_envs-*.whl")
    return built


def test_the_wheel_holds_every_package_with_its_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {str(p.parent.relative_to(ROOT)) for top in ("tardis_envs", "agents") for p in (ROOT / top).rglob("__init__.py")}
    assert {f"{p}/__init__.py" for p in packages} <= names
    data = [p for top in ("tardis_envs", "agents") for p in (ROOT / top).rglob("content/*") if p.suffix in (".yaml", ".md")]
    assert data and {str(p.relative_to(ROOT)) for p in data} <= names
    page = {str(p.relative_to(ROOT)) for p in (ROOT / "tardis_envs" / "web" / "static").iterdir()}  # the web app's page
    assert page and page <= names
    configs = {"tardis_envs/configs/" + str(p.relative_to(ROOT / "configs")) for p in (ROOT / "configs").rglob("*.yaml")}
    assert configs <= names
    baselines = {str(p.relative_to(ROOT)) for p in (ROOT / "agents" / "baselines").rglob("*.zip")}
    assert baselines and baselines <= names
    assert {"tardis_envs/py.typed", "agents/py.typed"} <= names
    assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "benchmarks/", "docs/"))]


def test_the_installed_wheel_works_outside_the_repository(wheel, tmp_path):
    home = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    # the dependencies of the running environment, after the fresh site-packages on the path;
    # a path file adds a folder without running that folder's own path files (the editable
    # install of this checkout among them)
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
    listed = subprocess.run([home / "bin" / "tardis-envs", "list"], cwd=elsewhere, env=clean, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    for env_id in ("tardis_run_v0", "keys_to_the_tardis_v0", "timelord_chess_v1", "gallifrey_duel_v1", "time_of_the_daleks_v2"):
        assert env_id in listed.stdout
    run = subprocess.run([python, "-c", CHECKS], cwd=elsewhere, env=clean, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["package"].startswith(str(site)), report["package"]  # the wheel's copy, not the checkout
    assert report["steps"] > 0 and len(report["games"]) == 5 and all(actions > 0 for actions in report["games"].values())
    assert all(path.startswith(str(site)) for path in report["configs"].values()), report["configs"]
    shipped = {str(p.relative_to(ROOT / "configs")) for p in (ROOT / "configs").rglob("*.yaml")}
    assert set(report["shipped_configs"]) == shipped
    assert all(size > 1000 for size in report["pages"].values())
    assert len(report["ppo_baselines"]) == 5 and report["card_list"]
    assert set(report["baselines"].values()) == {"PolicyAgent", "AZAgent"}

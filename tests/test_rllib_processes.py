"""The Ray RLlib backend in processes of its own: a training run that joins a two-node
cluster on this machine (the az trainer's self-play actors on it too). The test starts its
own Ray processes on 127.0.0.1 and ends exactly those (Ctrl-C in a training run: test_rllib.py).
Skipped where the ``distributed`` extra is not installed."""

import json

import pytest

pytest.importorskip("ray.rllib")

import tardis_envs  # noqa: E402
from agents import make_agent  # noqa: E402

from .helpers import tiny_train_flags as _tiny  # noqa: E402


# --- a cluster of two nodes on this machine ---------------------------------------------
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _pick(taken: set[int]) -> int:
    """A free port not in ``taken``, added to it."""
    port = _free_port()
    while port in taken:
        port = _free_port()
    taken.add(port)
    return port


def _node_ports(taken: set[int]) -> list[str]:
    """Every port a node opens, picked free here, so the test meets no other Ray: a range
    of 41 worker ports and six single ports, none of them in ``taken`` (the ports of the
    nodes picked before) nor in each other's way (Ray refuses a node whose single ports fall
    in its worker range; ephemeral ports come close together)."""
    low = _free_port()
    while any(low <= port <= low + 40 for port in taken):
        low = _free_port()
    taken.update(range(low, low + 41))
    single = [_pick(taken) for _ in range(6)]
    names = ("node-manager", "object-manager", "dashboard-agent-listen", "dashboard-agent-grpc", "metrics-export", "runtime-env-agent")
    return [f"--{name}-port={port}" for name, port in zip(names, single)] + [f"--min-worker-port={low}", f"--max-worker-port={low + 40}"]


def test_train_joins_a_two_node_cluster_with_address(tmp_path):
    import os
    import secrets
    import shutil
    import subprocess
    import sys
    import tempfile
    import time

    ray_cli = shutil.which("ray", path=os.path.dirname(sys.executable))
    assert ray_cli, "the ray command comes with the distributed extra"
    # recent Ray turns token authentication on: every process of the cluster shares this token
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    # Ray's socket paths must stay short (a Unix socket path holds ~107 bytes): not under tmp_path
    ray_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    head_log = tmp_path / "head.log"
    head = worker = None
    try:
        # a port picked free here can be taken before Ray binds it, and a loaded machine can run
        # past `ray start`'s own start-up limits: a head that exits is started again on new ports
        taken: set[int] = set()
        for _attempt in range(3):
            port = _pick(taken)
            common = ["--block", "--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats", *_node_ports(taken)]
            with head_log.open("a") as log:
                head = subprocess.Popen(
                    [
                        ray_cli,
                        "start",
                        "--head",
                        f"--port={port}",
                        f"--ray-client-server-port={_pick(taken)}",
                        "--include-dashboard=false",
                        f"--temp-dir={ray_dir}",
                        *common,
                    ],
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            deadline = time.time() + 90  # a loaded machine starts a head slowly: wait for its port
            while time.time() < deadline and head.poll() is None and not _listening(port):
                time.sleep(0.5)
            if head.poll() is None and _listening(port):
                break
            if head.poll() is None:  # alive but never listening: end it before the next try
                head.terminate()
                head.wait(timeout=60)
        assert head.poll() is None and _listening(port), "the head node did not start:\n" + head_log.read_text()[-3000:]
        worker_log = tmp_path / "worker.log"
        with worker_log.open("w") as log:
            worker = subprocess.Popen(
                [ray_cli, "start", f"--address=127.0.0.1:{port}", *common[:4], *_node_ports(taken)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        time.sleep(8)
        assert worker.poll() is None, "the worker node did not join:\n" + worker_log.read_text()[-3000:]
        run = tmp_path / "run"
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "tardis_envs.cli",
                "train",
                "tardis_run_v0",
                "--backend",
                "rllib",
                "--run-dir",
                str(run),
                "--address",
                f"127.0.0.1:{port}",
                "--num-env-runners",
                "2",
                *_tiny(500),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,  # two nodes, two env runners and a learner on two loaded cores: minutes, not seconds
        )
        assert out.returncode == 0, out.stderr[-3000:]
        assert "done:" in out.stdout and (run / "checkpoints" / "best" / "tardis_meta.json").exists()
        # az on the same cluster: self-play in two Ray actors (one a node), the learner in the driver
        az_run = tmp_path / "az"
        az_command = [sys.executable, "-m", "tardis_envs.cli", "train", "tardis_run_v0", "--algo", "az", "--run-dir", str(az_run)]
        az_flags = ["--address", f"127.0.0.1:{port}", "--num-env-runners", "2", "--num-envs", "4", "--timesteps", "1000"]
        az_flags += ["--eval-every", "100000", "--eval-games", "2", "--no-progress"]
        out = subprocess.run(az_command + az_flags, env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        stats = json.loads((az_run / "stats.json").read_text())
        assert stats["self_play_workers"] == 2 and stats["num_timesteps"] >= 1000 and stats["learner_samples"] > 0
        assert make_agent(f"az:{az_run / 'checkpoints' / 'best.zip'}:sims=2", tardis_envs.make("tardis_run_v0").unwrapped.game)
    finally:
        # end exactly the two nodes this test started, through their own process ids
        for node in (worker, head):
            if node is not None and node.poll() is None:
                node.terminate()
        for node in (worker, head):
            if node is not None:
                node.wait(timeout=60)
        shutil.rmtree(ray_dir, ignore_errors=True)

"""Helpers shared by the test modules."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def random_legal(rng, mask):
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "empty mask in a live game"
    return int(legal[rng.integers(legal.size)])


def ctrl_c_after_first_evaluation(argv: list[str], run: Path, timeout: float) -> None:
    """Starts ``tardis-envs <argv>``, a training run writing to ``run``, in a process of its own,
    and sends it Ctrl-C once it is training (its first evaluation is written: a signal during
    start-up tests nothing of the trainer); asserts that it exits as interrupted (130).
    Whatever fails, the process this starts is ended, by its own process id."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tardis_envs.cli", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.time() + 480
        while not (run / "eval.csv").exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.5)
        assert (run / "eval.csv").exists(), f"the run never reached its first evaluation (exit code {proc.poll()})"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 130, err[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


def tiny_train_flags(timesteps: int, eval_games: int = 20) -> list[str]:
    """The flags of a short `train` run: few steps, small evaluations, four games at once."""
    return [
        "--timesteps",
        str(timesteps),
        "--eval-every",
        "1000",
        "--eval-games",
        str(eval_games),
        "--num-envs",
        "4",
        "--snapshot-every",
        "500",
        "--no-progress",
    ]

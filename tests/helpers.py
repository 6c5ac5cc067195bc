"""Helpers shared by the test modules."""

import signal
import time

import numpy as np


def random_legal(rng, mask):
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "empty mask in a live game"
    return int(legal[rng.integers(legal.size)])


def interrupt_after_first_evaluation(proc, run, timeout: float) -> str:
    """Ctrl-C for a training subprocess ``proc`` writing to ``run``, once it is training (its first
    evaluation is written: a signal during start-up tests nothing of the trainer); returns its
    stderr. Whatever fails, the run this test started is ended, by its own process id."""
    try:
        deadline = time.time() + 480
        while not (run / "eval.csv").exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.5)
        assert (run / "eval.csv").exists(), f"the run never reached its first evaluation (exit code {proc.poll()})"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=timeout)
        return err
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

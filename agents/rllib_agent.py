"""A policy trained with the Ray RLlib backend behind the common agent interface.

Needs the ``distributed`` extra (Ray); ``make_agent("rllib:<checkpoint folder>", game)``
imports this module only when asked for such an agent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import Agent
from .checkpoint import CheckpointError, check_compatible, read_meta

MODULE_PATH = ("learner_group", "learner", "rl_module")  # where an Algorithm checkpoint keeps its modules


class RLlibPolicyAgent(Agent):
    """Acts with an RLlib module (:class:`agents.rllib_modules.MaskedPPOModule`)
    on the mover's observation and legal mask: the most likely legal action, or a
    sample with ``deterministic=False``."""

    name = "rllib"

    def __init__(self, game, module, seed: int | None = None, deterministic: bool = True):
        super().__init__(game, seed)
        self.module = module
        self.deterministic = deterministic

    @classmethod
    def from_checkpoint(
        cls, path, game, seed: int | None = None, deterministic: bool = True, module_id: str = "main"
    ) -> "RLlibPolicyAgent":
        """Load the learning module of a checkpoint folder written by ``tardis-envs train
        --backend rllib``; the metadata beside it must fit ``game``."""
        meta = read_meta(path)
        if meta.get("backend") != "rllib":
            raise CheckpointError(f"checkpoint {str(path)!r} was not written by the rllib backend (use ppo:<file.zip> for SB3 ones)")
        check_compatible(meta, game, path)
        from ray.rllib.core.rl_module.rl_module import RLModule

        import agents.rllib_modules  # noqa: F401  (the module classes a checkpoint names)

        # absolute: RLlib reads checkpoints through pyarrow, which takes a relative path for a
        # URI without a scheme ("URI has empty scheme")
        module_dir = Path(path).resolve().joinpath(*MODULE_PATH, module_id)
        if not module_dir.is_dir():
            raise CheckpointError(f"checkpoint {str(path)!r} holds no module {module_id!r} (looked in {str(module_dir)!r})")
        agent = cls(game, RLModule.from_checkpoint(str(module_dir)), seed=seed, deterministic=deterministic)
        agent.meta = meta
        return agent

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch
        from ray.rllib.core.columns import Columns

        batch = {
            Columns.OBS: {
                "observation": torch.from_numpy(np.ascontiguousarray(observations, dtype=np.float32)),
                "action_mask": torch.from_numpy(np.ascontiguousarray(masks, dtype=np.int8)),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        # the module already masks; masking again costs nothing and keeps a foreign module honest
        scores = logits if self.deterministic else logits + self.rng.gumbel(size=logits.shape)  # Gumbel-max: a sample
        scores = np.where(masks > 0, scores, -np.inf)
        return np.argmax(scores, axis=1).astype(np.int64)

"""Policy networks beyond SB3's MLP, chosen by the train config's ``policy`` key.

``mlp`` (default) is sb3-contrib's ``MlpPolicy``. ``move_squares`` is for board games whose
actions move a piece from one square to another (Dr. Who Chess): sb3's MLP with the
move-squares head of :mod:`agents.move_squares` in place of its action layer.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from ..move_squares import MoveSquaresHead
from .config import POLICIES


class _KeepBoard(MlpExtractor):
    """MlpExtractor whose actor latent also carries the flattened observation, so the
    move-squares head sees the squares (the critic latent is the usual one)."""

    def __init__(self, feature_dim: int, *args, **kwargs):
        super().__init__(feature_dim, *args, **kwargs)
        self.hidden_dim_pi = self.latent_dim_pi
        self.latent_dim_pi = self.hidden_dim_pi + feature_dim

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return th.cat([self.policy_net(features), features], dim=1)


class MoveSquaresPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy with the move-squares head (keyword arguments from the game's
    ``move_squares_layout()``: ``channels``, ``squares``, ``move_from``, ``move_to``,
    ``piece_planes``, and ``square_width``)."""

    def __init__(
        self,
        *args,
        channels: int,
        squares: int,
        move_from: list[int],
        move_to: list[int],
        piece_planes: list[list[int]],
        square_width: int = 32,
        **kwargs,
    ):
        self.square_layout: dict[str, Any] = dict(
            channels=channels, squares=squares, move_from=move_from, move_to=move_to, piece_planes=piece_planes, width=square_width
        )
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _KeepBoard(self.features_dim, net_arch=self.net_arch, activation_fn=self.activation_fn, device=self.device)

    def _build(self, lr_schedule) -> None:
        """sb3-contrib's ``_build`` with the move-squares head as the action layer. sb3's own
        builds a dense layer from the whole actor latent to every action first (Dr. Who Chess:
        3,648 x 4,773 weights) and initialises it orthogonally, a QR decomposition of seven
        seconds on one core, for a layer the head replaces: every policy built, each checkpoint
        load included, paid it."""
        self._build_mlp_extractor()
        self.action_net = MoveSquaresHead(self.mlp_extractor.hidden_dim_pi, **self.square_layout)  # initialises itself
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:  # sb3's gains for the modules it initialises
            gains = {self.mlp_extractor: np.sqrt(2), self.value_net: 1.0}
            if self.share_features_extractor:
                gains[self.features_extractor] = np.sqrt(2)
            else:
                gains[self.pi_features_extractor] = gains[self.vf_features_extractor] = np.sqrt(2)
            for module, gain in gains.items():
                module.apply(partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def policy_spec(name: str, game, net_arch: list[int] | dict[str, list[int]]) -> tuple[Any, dict]:
    """(policy class or SB3 name, policy_kwargs) for the train config's ``policy``."""
    net_arch = {key: list(sizes) for key, sizes in net_arch.items()} if isinstance(net_arch, dict) else list(net_arch)
    if name == "mlp":
        return "MlpPolicy", {"net_arch": net_arch}
    if name == "move_squares":
        layout = getattr(game, "move_squares_layout", None)
        if layout is None:
            raise ValueError(
                f"train config: policy 'move_squares' needs a game whose actions move pieces between squares "
                f"(timelord_chess_v1); {game.spec.env_id} has none"
            )
        return MoveSquaresPolicy, {"net_arch": net_arch, **layout()}
    raise ValueError(f"train config: unknown policy {name!r}; allowed: {', '.join(POLICIES)}")

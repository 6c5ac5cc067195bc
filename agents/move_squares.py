"""The move-squares policy head, for board games whose actions move a piece from one square to
another (Dr. Who Chess); the PPO policy ``move_squares`` (:mod:`agents.training.policies`) and
the ``az`` network with ``head: move_squares`` (:mod:`agents.alphazero`) use it. Besides an
MLP's logit for every action, each square gets scores from a small network shared by all squares (a
1x1 convolution over the square's observation planes plus the MLP's context), and a move's
logit adds

* the *from* score of its origin square ("move this piece": it is en prise, say), and
* the *to* score of its destination square for the kind of piece that moves there ("a knight
  is safe there", "there is a rook to take").

So what the observation says about two squares reaches the actions between them directly,
as in AlphaZero's policy head (a move is scored at its square), instead of being learned
separately for each of 4,672 from-plane pairs by a fully connected layer. Actions that move
no piece between squares (Dr. Who's steps, TARDIS moves, time travel, end turn) keep the MLP
logit only. The game supplies the geometry (:meth:`move_squares_layout` of its game class).
"""

from __future__ import annotations

import numpy as np
import torch as th
from torch import nn


class MoveSquaresHead(nn.Module):
    """Logits = Linear(hidden) + from score + to score of the moving piece's kind (see the
    module docstring). ``move_from``/``move_to``: each action's squares (-1: not a move);
    ``piece_planes[k]``: planes whose sum is 1 on a square holding the mover's piece of kind
    ``k``."""

    def __init__(
        self,
        hidden_dim: int,
        channels: int,
        squares: int,
        move_from: list[int],
        move_to: list[int],
        piece_planes: list[list[int]],
        width: int = 32,
    ):
        super().__init__()
        self.hidden_dim, self.channels, self.squares = hidden_dim, channels, squares
        self.kinds = len(piece_planes)
        self.linear = nn.Linear(hidden_dim, len(move_from))
        self.square_in = nn.Conv1d(channels, width, 1)
        self.context = nn.Linear(hidden_dim, width)
        self.square_out = nn.Conv1d(width, 1 + self.kinds, 1)
        nn.init.orthogonal_(self.linear.weight, gain=0.01)
        nn.init.zeros_(self.linear.bias)
        nn.init.orthogonal_(self.square_out.weight, gain=0.01)
        nn.init.zeros_(self.square_out.bias)
        # actions that move no piece index the padding square (score 0)
        frm = np.asarray(move_from, dtype=np.int64)
        to = np.asarray(move_to, dtype=np.int64)
        moves = np.flatnonzero((frm >= 0) & (to >= 0))
        self.register_buffer("moves", th.as_tensor(moves))
        self.register_buffer("move_from", th.as_tensor(frm[moves]))
        self.register_buffer("move_to", th.as_tensor(to[moves]))
        selector = np.zeros((self.kinds, channels), dtype=np.float32)
        for kind, planes in enumerate(piece_planes):
            selector[kind, planes] = 1.0
        self.register_buffer("piece_selector", th.as_tensor(selector))

    def forward(self, latent: th.Tensor) -> th.Tensor:
        hidden = latent[:, : self.hidden_dim]
        board = latent[:, self.hidden_dim :].reshape(-1, self.channels, self.squares)
        logits = self.linear(hidden)
        per_square = th.relu(self.square_in(board) + self.context(hidden)[:, :, None])
        scores = self.square_out(per_square)  # (batch, 1 + kinds, squares)
        kinds = th.einsum("kc,bcs->bks", self.piece_selector, board)  # the mover's piece kind on each square
        from_score = scores[:, 0, self.move_from]
        to_score = (kinds[:, :, self.move_from] * scores[:, 1:, self.move_to]).sum(dim=1)
        return logits.index_add(1, self.moves, from_score + to_score)

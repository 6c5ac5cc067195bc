"""A policy/value MLP compiled as a kernel: the guided search's evaluator without torch.

The network is the one ``agents.alphazero.build_net`` makes with its linear logit head
(``head="mlp"``): ``layers`` ReLU (or tanh) layers of ``hidden`` units, a logit layer and a
tanh value layer. :func:`mlp_evaluate` computes what torch computes for it (float32, up to the
order of the sums) with the work a search leaf needs and no more:

- the first layer adds only the weight rows of the observation's non-zero entries (a Keys
  to the TARDIS observation has a few dozen of its 1,167; its weights are stored input-major
  for this), and every later layer likewise skips the units that are zero (all a ReLU
  zeroed);
- the logits are computed for the legal actions only (a handful of Keys's 421) and the
  priors are their softmax, zero elsewhere.

One decision of ``play`` or the OpenSpiel bot evaluates one leaf at a time, where torch's
overhead per call is most of the time (``benchmarks/az_throughput.py`` measures both). The
weights are plain arrays (:class:`MLPWeights`), so this module needs no torch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from .jit import njit_parallel_fastmath


class MLPWeights(NamedTuple):
    """The network's parameters as float32 arrays, laid out for :func:`mlp_evaluate`."""

    first: np.ndarray  # [observation size, hidden]: the first layer, input-major
    first_bias: np.ndarray  # [hidden]
    hidden: np.ndarray  # [layers - 1, hidden, hidden]: the later layers, input-major
    hidden_bias: np.ndarray  # [layers - 1, hidden]
    policy: np.ndarray  # [actions, hidden]: the logit layer, action-major
    policy_bias: np.ndarray  # [actions]
    value: np.ndarray  # [players, hidden]
    value_bias: np.ndarray  # [players]
    tanh: bool = False  # the trunk's units: tanh, else ReLU

    @classmethod
    def from_layers(cls, trunk: list[tuple[np.ndarray, np.ndarray]], policy, value, tanh: bool = False) -> "MLPWeights":
        """From ``(weight, bias)`` pairs in torch's ``nn.Linear`` layout (``weight[out, in]``):
        the trunk's layers in order, then the logit and the value layer; ``tanh`` for a trunk
        of tanh units."""
        if not trunk:
            raise ValueError("an MLP evaluator needs at least one trunk layer")
        width = trunk[0][0].shape[0]
        if any(w.shape != (width, width) for w, _ in trunk[1:]):
            raise ValueError("an MLP evaluator needs trunk layers of one width")

        def f32(array) -> np.ndarray:
            return np.ascontiguousarray(array, dtype=np.float32)

        later = trunk[1:]
        return cls(
            first=f32(trunk[0][0].T),
            first_bias=f32(trunk[0][1]),
            hidden=f32(np.stack([w.T for w, _ in later]) if later else np.zeros((0, width, width))),
            hidden_bias=f32(np.stack([b for _, b in later]) if later else np.zeros((0, width))),
            policy=f32(policy[0]),
            policy_bias=f32(policy[1]),
            value=f32(value[0]),
            value_bias=f32(value[1]),
            tanh=bool(tanh),
        )


@njit_parallel_fastmath
def mlp_evaluate(obs, masks, first, first_bias, hidden, hidden_bias, policy, policy_bias, value, value_bias, tanh, units, priors, values):
    """Priors (softmax of the logits over each row's legal actions, 0 elsewhere; all 0 for a
    row without one) and tanh values of ``obs`` (``float32[n, observation size]``) under
    ``masks`` (``int8[n, actions]``), written into ``priors`` and ``values``; the trunk's
    units are tanh where ``tanh``, else ReLU. ``units`` (``float32[n, 2, hidden]``) is scratch."""
    width = first_bias.shape[0]
    for i in prange(obs.shape[0]):
        h = units[i, 0]
        g = units[i, 1]
        for j in range(width):
            h[j] = first_bias[j]
        x = obs[i]
        for k in range(x.shape[0]):
            v = x[k]
            if v != 0.0:
                row = first[k]
                for j in range(width):
                    h[j] += v * row[j]
        for j in range(width):
            h[j] = np.tanh(h[j]) if tanh else max(h[j], 0.0)
        for layer in range(hidden.shape[0]):
            bias = hidden_bias[layer]
            for j in range(width):
                g[j] = bias[j]
            for k in range(width):
                v = h[k]
                if v != 0.0:
                    row = hidden[layer, k]
                    for j in range(width):
                        g[j] += v * row[j]
            for j in range(width):
                h[j] = np.tanh(g[j]) if tanh else max(g[j], 0.0)
        out = priors[i]
        mask = masks[i]
        top = -np.inf
        for a in range(out.shape[0]):
            out[a] = 0.0
            if mask[a]:
                logit = policy_bias[a]
                row = policy[a]
                for j in range(width):
                    logit += h[j] * row[j]
                out[a] = logit
                top = max(top, logit)
        total = 0.0
        for a in range(out.shape[0]):
            if mask[a]:
                out[a] = np.exp(out[a] - top)
                total += out[a]
        if total > 0.0:
            for a in range(out.shape[0]):
                out[a] /= total
        for p in range(values.shape[1]):
            s = value_bias[p]
            row = value[p]
            for j in range(width):
                s += h[j] * row[j]
            values[i, p] = np.tanh(s)


class MLPEvaluator:
    """The guided search's evaluator ``(observations, masks) -> (priors, values)`` over
    :class:`MLPWeights`, compiled (:func:`mlp_evaluate`); the outputs are fresh arrays."""

    def __init__(self, weights: MLPWeights):
        self.weights = weights

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = self.weights
        rows = obs.shape[0]
        obs = np.ascontiguousarray(obs.reshape(rows, -1), dtype=np.float32)
        if obs.shape[1] != w.first.shape[0]:
            raise ValueError(f"observations of {obs.shape[1]} values, the network reads {w.first.shape[0]}")
        priors = np.empty((rows, w.policy.shape[0]), dtype=np.float32)
        values = np.empty((rows, w.value.shape[0]), dtype=np.float32)
        units = np.empty((rows, 2, w.first_bias.shape[0]), dtype=np.float32)
        mlp_evaluate(obs, np.ascontiguousarray(masks, dtype=np.int8), *w, units, priors, values)
        return priors, values

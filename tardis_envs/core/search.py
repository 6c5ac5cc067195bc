"""Monte Carlo tree search over the numba kernels, shared by every game.

One compiled body serves MCTS and information-set MCTS (ISMCTS) in every game;
each game's ``batch.search`` passes its own ``step``, ``legal_mask`` and
``resample_hidden`` kernels (see :mod:`tardis_envs.core.batch` for why kernels
travel that way).

The algorithm (UCT, single observer, open loop):

* each simulation starts from a copy of the root with a fresh generator key, so
  every die, paddle and draw on the way is sampled anew from its exact odds:
  the tree's statistics average over chance (open-loop search: a node is the
  sequence of actions that leads to it, whatever chance did between them);
* in ISMCTS the copy is also *determinized*: ``resample_hidden`` redeals
  everything the searching seat cannot see (other hands, face-down tiles, deck
  order, a hidden committed choice) consistently with its observation, so the
  search never reads hidden information; in a game without hidden information
  the two are the same search;
* selection takes, among the children legal in this simulation, the one with
  the highest ``mean + c * sqrt(ln(available) / visits)`` where ``available``
  counts the visits of the parent in which that child was legal (the
  availability count of ISMCTS); an action legal but not yet in the tree is
  expanded first (chosen uniformly among them);
* the new leaf is evaluated by one playout to the end (or ``rollout_limit``
  steps, then every seat scores 0): uniformly random, or following a ``policy``
  kernel ``policy(state, tables, weights) -> action`` (the agents' heuristics:
  ``ismcts:50:playout=heuristic``, which also expands the policy's choice first
  at every node; where random play never wins, such as Time of the Daleks,
  random playouts tell the search nothing);
* each node keeps the total return of the seat that chose the action leading to
  it, so every seat maximises its own return (multi-player and team games alike);
* the action played is the root's most visited child (on equal visits, the one
  expanded first).
"""

from __future__ import annotations

import numpy as np

from .jit import njit, njit_shared_body_alloc
from .rng import rng_below, rng_new_key
from .state import CURRENT_PLAYER, HEADER_SIZE, REWARDS, RNG_COUNTER, RNG_KEY, RUNNING, STATUS, copy_state

# params of search_body (float64 array)
P_SIMULATIONS = 0
P_UCT_C = 1
P_ROLLOUT_LIMIT = 2
P_DETERMINIZE = 3  # 1: ISMCTS (redeal hidden information per simulation)
P_PLAYOUT_POLICY = 4  # 1: playouts follow the policy kernel, 0: uniformly random
NUM_PARAMS = 5


@njit
def no_hidden(state, tables, player):
    """The ``resample_hidden`` of a game without hidden information: nothing to redeal."""
    return


@njit
def no_policy(state, tables, weights):
    """The policy of random playouts (never called: ``P_PLAYOUT_POLICY`` is 0)."""
    return -1


def new_generator(seed):
    """The search's own generator: header-shaped words with the key at ``RNG_KEY``."""
    words = np.zeros(HEADER_SIZE, dtype=np.int64)
    words[RNG_KEY] = seed & ((1 << 63) - 1)
    return words


@njit
def _random_legal(mask, gen):
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    pick = rng_below(gen, RNG_KEY, count)
    for a in range(mask.shape[0]):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit_shared_body_alloc
def search_body(step, legal_mask, resample_hidden, policy, root, tables, num_actions, num_players, params, weights, gen, root_visits):
    """Search from ``root`` for its player to move; returns the chosen action and
    writes each root action's visit count into ``root_visits`` (``int64[num_actions]``).

    ``gen`` is the search's own generator (see :func:`new_generator`), advanced here;
    ``weights`` go to ``policy``.
    """
    simulations = np.int64(params[P_SIMULATIONS])
    uct_c = params[P_UCT_C]
    rollout_limit = np.int64(params[P_ROLLOUT_LIMIT])
    determinize = params[P_DETERMINIZE] != 0
    guided = params[P_PLAYOUT_POLICY] != 0
    me = root[CURRENT_PLAYER]
    max_nodes = simulations + 1
    first_child = np.full(max_nodes, -1, dtype=np.int64)
    next_sibling = np.full(max_nodes, -1, dtype=np.int64)
    action_of = np.zeros(max_nodes, dtype=np.int64)
    mover_of = np.zeros(max_nodes, dtype=np.int64)
    visits = np.zeros(max_nodes, dtype=np.int64)
    available = np.zeros(max_nodes, dtype=np.int64)
    value = np.zeros(max_nodes, dtype=np.float64)
    nodes = 1
    path = np.zeros(max_nodes + 1, dtype=np.int64)
    child_of_action = np.full(num_actions, -1, dtype=np.int64)
    mask = np.zeros(num_actions, dtype=np.int8)
    returns = np.zeros(num_players, dtype=np.float64)
    state = root.copy()

    for _ in range(simulations):
        copy_state(state, root)
        state[RNG_KEY] = rng_new_key(gen, RNG_KEY)  # fresh dice for this simulation
        state[RNG_COUNTER] = 0
        if determinize:
            resample_hidden(state, tables, me)
        node = 0
        depth = 0
        path[0] = 0
        expanded = False
        # --- selection and expansion
        while state[STATUS] == RUNNING and not expanded:
            legal_mask(state, tables, mask)
            child = first_child[node]
            while child >= 0:
                child_of_action[action_of[child]] = child
                child = next_sibling[child]
            untried = 0
            for a in range(num_actions):
                if mask[a] and child_of_action[a] < 0:
                    untried += 1
            chosen = -1
            if untried > 0 and nodes < max_nodes:
                # guided search expands the policy's own choice first (then the rest at random)
                favourite = policy(state, tables, weights) if guided else -1
                pick = rng_below(gen, RNG_KEY, untried)
                if favourite >= 0 and mask[favourite] and child_of_action[favourite] < 0:
                    pick = 0
                    for a in range(favourite):
                        if mask[a] and child_of_action[a] < 0:
                            pick += 1
                for a in range(num_actions):
                    if mask[a] and child_of_action[a] < 0:
                        if pick == 0:
                            chosen = nodes
                            nodes += 1
                            action_of[chosen] = a
                            mover_of[chosen] = state[CURRENT_PLAYER]
                            next_sibling[chosen] = first_child[node]
                            first_child[node] = chosen
                            break
                        pick -= 1
                expanded = True
            else:
                best = -np.inf
                child = first_child[node]
                while child >= 0:
                    if mask[action_of[child]]:
                        available[child] += 1
                        if visits[child] == 0:
                            score = np.inf
                        else:
                            score = value[child] / visits[child] + uct_c * np.sqrt(np.log(available[child]) / visits[child])
                        if score > best:
                            best = score
                            chosen = child
                    child = next_sibling[child]
            # clear the scratch index for the next node
            child = first_child[node]
            while child >= 0:
                child_of_action[action_of[child]] = -1
                child = next_sibling[child]
            if chosen < 0:  # the tree is full and nothing here is in it: play on at random
                break
            if expanded:
                available[chosen] += 1
            step(state, tables, action_of[chosen])
            node = chosen
            depth += 1
            path[depth] = node
        # --- playout
        steps = 0
        while state[STATUS] == RUNNING and steps < rollout_limit:
            action = policy(state, tables, weights) if guided else -1
            if action < 0:
                legal_mask(state, tables, mask)
                action = _random_legal(mask, gen)
            step(state, tables, action)
            steps += 1
        for p in range(num_players):
            returns[p] = state[REWARDS + p] if state[STATUS] != RUNNING else 0.0
        # --- backpropagation: each node scores the return of the seat that moved into it
        for d in range(1, depth + 1):
            n = path[d]
            visits[n] += 1
            value[n] += returns[mover_of[n]]
        visits[0] += 1

    best_action = -1
    best_visits = -1
    root_visits[:] = 0
    child = first_child[0]
    while child >= 0:  # children run newest first: on equal visits the earliest expanded wins
        root_visits[action_of[child]] = visits[child]
        if visits[child] >= best_visits:
            best_visits = visits[child]
            best_action = action_of[child]
        child = next_sibling[child]
    return best_action

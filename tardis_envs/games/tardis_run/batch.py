"""TARDIS Run's batched kernels: the shared bodies of :mod:`tardis_envs.core.batch`
run over games in parallel.

The kernels are passed as ``rules.<name>`` attributes on purpose: numba lowers a
kernel named as a bare global inside a ``prange`` body as a "dynamic global"
and then refuses to cache the batch kernel (measured with numba 0.68).
"""

from __future__ import annotations

from ...core import search as core_search
from ...core.batch import reset_one, step_row, step_until_seat_key, step_until_seat_one, streams_rows
from ...core.guided import descend_one
from ...core.jit import njit, njit_parallel, prange
from ...core.state import CURRENT_PLAYER
from . import heuristic, hidden, observe, rules


@njit_parallel
def batch_reset(states, tables, keys, obs, masks, observe_seats):
    for i in prange(states.shape[0]):
        reset_one(rules.init, rules.legal_mask, observe.observe, states[i], tables, keys[i], obs[i], masks[i], observe_seats[i])


@njit_parallel
def batch_step(states, tables, actions, obs, masks, rewards, done, observe_seats):
    """A batch whose rows stay in cache (``streams_rows == 0``): compiled without the streaming paths."""
    batch = (states, tables, actions, obs, masks, rewards, done, observe_seats)
    for i in prange(states.shape[0]):
        step_row(rules.init, rules.legal_mask, rules.step_and_mask, observe.observe, batch, i, 0)


@njit_parallel
def batch_step_streamed(states, tables, actions, obs, masks, rewards, done, observe_seats):
    """A batch whose long rows are streamed past the cache (:func:`~tardis_envs.core.batch.streams_rows`)."""
    batch = (states, tables, actions, obs, masks, rewards, done, observe_seats)
    stream = streams_rows(obs, masks)
    for i in prange(states.shape[0]):
        step_row(rules.init, rules.legal_mask, rules.step_and_mask, observe.observe, batch, i, stream)


@njit_parallel
def batch_step_until_seat(
    states, tables, actions, obs, masks, observe_seats, seats, random_opponents, key, counter, moves, final_status, rewards, terminal_obs
):
    for i in prange(states.shape[0]):
        moves[i], final_status[i], rewards[i] = step_until_seat_one(
            rules.init,
            rules.legal_mask,
            rules.step_and_mask,
            observe.observe,
            states[i],
            tables,
            obs[i],
            masks[i],
            observe_seats[i],
            seats[i],
            actions[i],
            random_opponents[i],
            step_until_seat_key(key, counter, states.shape[0], i),
            terminal_obs[i],
        )


@njit
def search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    """MCTS/ISMCTS from ``root`` with random playouts (:func:`tardis_envs.core.search.search_body`)."""
    return core_search.search_body(
        rules.step,
        rules.legal_mask,
        hidden.resample_hidden,
        core_search.no_policy,
        root,
        tables,
        num_actions,
        num_players,
        params,
        weights,
        gen,
        root_visits,
    )


@njit
def heuristic_search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    """The same search with playouts that follow the game's heuristic (``weights``), whose
    choice is also expanded first (``mcts:<n>:playout=heuristic``)."""
    return core_search.search_body(
        rules.step,
        rules.legal_mask,
        hidden.resample_hidden,
        heuristic.choose,
        root,
        tables,
        num_actions,
        num_players,
        params,
        weights,
        gen,
        root_visits,
    )


@njit_parallel
def guided_descend(roots, tables, forest, simulation, active):
    """One simulation step of guided search in every active tree (:func:`tardis_envs.core.guided.descend_one`)."""
    for i in prange(roots.shape[0]):
        if active[i]:
            descend_one(rules.step, rules.legal_mask, observe.observe, hidden.resample_hidden, roots, tables, forest, i, simulation)


@njit_parallel
def batch_afterstates(states, tables, leaves, leaf_used, slot_prob, slot_action, slot_count):
    """Each state's one-ply expansion over the exact paddle odds (:func:`.rules.afterstates`)."""
    for i in prange(states.shape[0]):
        slot_count[i] = rules.afterstates(states[i], tables, leaves[i], leaf_used[i], slot_prob[i], slot_action[i])


@njit_parallel
def observe_leaves(leaves, rows, tables, obs):
    """The mover's observation of each afterstate ``leaves[rows[j, 0], rows[j, 1], rows[j, 2]]``."""
    for j in prange(rows.shape[0]):
        leaf = leaves[rows[j, 0], rows[j, 1], rows[j, 2]]
        observe.observe(leaf, tables, leaf[CURRENT_PLAYER], obs[j])

"""Keys to the TARDIS's batched kernels (see tardis_envs/games/tardis_run/batch.py for why
the kernels are named as ``rules.<name>``)."""

from __future__ import annotations

from ...core import search as core_search
from ...core.batch import reset_one, step_row, step_until_seat_key, step_until_seat_one, streams_rows
from ...core.guided import descend_one
from ...core.jit import njit, njit_parallel, prange
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

"""Search whose playouts follow a game's heuristic (``mcts:<n>:playout=heuristic``).

One thin kernel per game hands :func:`tardis_envs.core.search.search_body` the
game's rules, its ``resample_hidden`` and the heuristic's ``choose`` as module
attributes (numba caches a kernel that passes global kernels that way, not as
bare names; see :mod:`tardis_envs.core.batch`). A heuristic playout costs what
the heuristic costs per move: cheap in TARDIS Run, the duel and Time of the
Daleks, far too slow for search in Keys and Dr. Who Chess (measured in
docs/results/search/).
"""

from __future__ import annotations

from tardis_envs.core import search as core_search
from tardis_envs.core.jit import njit
from tardis_envs.games.chess import hidden as chess_hidden
from tardis_envs.games.chess import rules as chess_rules
from tardis_envs.games.daleks import hidden as daleks_hidden
from tardis_envs.games.daleks import rules as daleks_rules
from tardis_envs.games.gallifrey import hidden as gallifrey_hidden
from tardis_envs.games.gallifrey import rules as gallifrey_rules
from tardis_envs.games.keys import hidden as keys_hidden
from tardis_envs.games.keys import rules as keys_rules
from tardis_envs.games.tardis_run import hidden as tardis_run_hidden
from tardis_envs.games.tardis_run import rules as tardis_run_rules

from . import chess, daleks, gallifrey, keys, tardis_run


@njit
def tardis_run_search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    return core_search.search_body(
        tardis_run_rules.step, tardis_run_rules.legal_mask, tardis_run_hidden.resample_hidden, tardis_run.choose,
        root, tables, num_actions, num_players, params, weights, gen, root_visits,
    )  # fmt: skip


@njit
def keys_search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    return core_search.search_body(
        keys_rules.step, keys_rules.legal_mask, keys_hidden.resample_hidden, keys.choose,
        root, tables, num_actions, num_players, params, weights, gen, root_visits,
    )  # fmt: skip


@njit
def chess_search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    return core_search.search_body(
        chess_rules.step, chess_rules.legal_mask, chess_hidden.resample_hidden, chess.choose,
        root, tables, num_actions, num_players, params, weights, gen, root_visits,
    )  # fmt: skip


@njit
def gallifrey_search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    return core_search.search_body(
        gallifrey_rules.step, gallifrey_rules.legal_mask, gallifrey_hidden.resample_hidden, gallifrey.choose,
        root, tables, num_actions, num_players, params, weights, gen, root_visits,
    )  # fmt: skip


@njit
def daleks_search(root, tables, num_actions, num_players, params, weights, gen, root_visits):
    return core_search.search_body(
        daleks_rules.step, daleks_rules.legal_mask, daleks_hidden.resample_hidden, daleks.choose,
        root, tables, num_actions, num_players, params, weights, gen, root_visits,
    )  # fmt: skip


GUIDED_SEARCH = {
    "tardis_run_v0": tardis_run_search,
    "keys_to_the_tardis_v0": keys_search,
    "timelord_chess_v1": chess_search,
    "gallifrey_duel_v1": gallifrey_search,
    "time_of_the_daleks_v2": daleks_search,
}

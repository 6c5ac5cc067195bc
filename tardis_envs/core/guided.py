"""Search guided by a policy/value evaluator, advanced over many games at once
(AlphaZero's PUCT, with Gumbel AlphaZero's root), shared by every game.

A *forest* holds one search tree per game of a batch. One simulation step of the
whole forest is three calls:

1. ``descend`` (each game's ``batch.guided_descend``: a ``prange`` over the trees
   calling :func:`descend_one` with the game's kernels): every tree walks from its
   root to a leaf and writes the leaf mover's observation and legal mask;
2. the caller evaluates every leaf in one batched call of its network:
   ``priors[n, num_actions]`` (a distribution over the legal actions) and
   ``values[n, num_players]`` (each seat's expected return, seats counted from the
   leaf's mover: column ``j`` is seat ``(mover + j) % num_players``);
3. :func:`expand_backup` makes each evaluated leaf a node with one edge per legal
   action (its prior) and adds the leaf's values along the path.

The search is open loop and determinized like :mod:`tardis_envs.core.search`:
every simulation starts from a copy of the root with a fresh generator key (chance
sampled anew), and with ``G_DETERMINIZE`` the copy's hidden information is redealt
for the searching seat first (information-set search: nothing the seat cannot see
reaches the tree or the network, whose input at a leaf is the leaf mover's
observation of that redealt world). A node is a sequence of actions; an action legal
in this simulation but without an edge (other dice, another deal) gets one with the
uniform prior ``1 / legal``. Each edge keeps the summed return of the seat that chose
it in each simulation, so every seat maximises its own return (teams included).

In a simultaneous game (``GameSpec.simultaneous``: the kernels take a round's choices
seat after seat, each hidden from the seats after it) every committed choice of a node
leads to one node of the next seat (:func:`_shared_child`): that seat decides without
knowing which choice was made, its statistics gather over them, and the committing
seat's choices are judged against a reply that cannot see them. A node per committed
choice would let the reply answer each choice as if it saw it. When the searching seat
is itself a later seat of the round, the choices committed before it are part of what
the game's ``resample_hidden`` redeals.

Selection below the root is PUCT: ``Q + c * P * sqrt(N) / (1 + n)`` with an
unvisited edge's ``Q`` the node's own value estimate (the network's, for its mover).
At the root, ``G_ROOT_GUMBEL`` selects Gumbel AlphaZero's way (Danihelka et al.,
ICLR 2022): the ``G_MAX_CONSIDERED`` actions of highest ``g + logit`` (``g`` Gumbel
noise, scaled by ``G_GUMBEL_SCALE``: 1 in self-play, 0 to play deterministically) are
visited by sequential halving (:func:`considered_visits`), each halving keeping the
half of highest ``g + logit + sigma(q)``; the action played is the best of the most
visited, and the improved policy ``softmax(logit + sigma(completed q))`` is the
training target. It improves the policy with as few as 2 simulations, where PUCT's
visit counts at a small budget mostly echo the prior. Without it the root is PUCT
and plays its most visited action (AlphaZero).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import njit, njit_parallel, njit_shared_body, prange
from .rng import rng_new_key
from .state import CURRENT_PLAYER, HEADER_SIZE, REWARDS, RNG_COUNTER, RNG_KEY, RUNNING, STATUS, copy_state

# params of the forest (float64 array)
G_SIMULATIONS = 0  # simulations after the root's evaluation
G_PUCT_C = 1
G_DETERMINIZE = 2  # 1: redeal the searching seat's unknowns per simulation
G_ROOT_GUMBEL = 3  # 1: Gumbel root with sequential halving, 0: PUCT root
G_MAX_CONSIDERED = 4  # root actions sequential halving starts from
G_C_VISIT = 5  # sigma(q) = (c_visit + max root visits) * c_scale * (q + 1) / 2
G_C_SCALE = 6
G_SIMULTANEOUS = 7  # 1: a seat's committed choice is hidden from the seats after it in its round
G_CLAIRVOYANT = 8  # 1: every simulation keeps the root's generator (an oracle that knows the dice)
NUM_GUIDED_PARAMS = 9

# a leaf's kind after descend
LEAF_NONE = 0  # nothing to do (the tree is not searched this step)
LEAF_EXPAND = 1  # evaluate, then make it a node
LEAF_EVALUATE = 2  # evaluate, no room to make it a node
LEAF_TERMINAL = 3  # the game ended on the way: its rewards are the values

# tree arrays, in this order in the ``tree`` tuple every kernel takes
T_NODE_FIRST_EDGE = 0  # int64[B, nodes]: first edge of the node's list (-1: none)
T_NODE_VISITS = 1  # int64[B, nodes]: simulations that passed through the node
T_NODE_VALUE = 2  # float64[B, nodes]: evaluator's value of the node for its mover
T_NODE_COUNT = 3  # int64[B]
T_EDGE_ACTION = 4  # int64[B, edges]
T_EDGE_PRIOR = 5  # float64[B, edges]
T_EDGE_VISITS = 6  # int64[B, edges]
T_EDGE_VALUE = 7  # float64[B, edges]: summed return of the seat that chose the edge
T_EDGE_CHILD = 8  # int64[B, edges]: node reached (-1: not yet)
T_EDGE_NEXT = 9  # int64[B, edges]: next edge of the same node (-1: last)
T_EDGE_COUNT = 10  # int64[B]
T_NODE_MOVER = 11  # int64[B, nodes]: the seat to move at the node
TREE_ARRAYS = 12


def considered_visits(max_considered: int, simulations: int) -> np.ndarray:
    """``int64[max_considered + 1, simulations]``: row ``m`` is, for each simulation, the
    visit count the root action it visits must have when ``m`` actions are considered
    (sequential halving: ``ceil(log2 m)`` phases, each giving every remaining action the
    same share of the phase's simulations, then halving them). Picking, at simulation
    ``s``, the best-scored root action whose visits equal ``row[s]`` visits the top
    actions in rounds and drops the worse half after each phase."""
    table = np.zeros((max_considered + 1, max(simulations, 0)), dtype=np.int64)
    for m in range(1, max_considered + 1):
        if m == 1:
            table[m] = np.arange(simulations)
            continue
        phases = math.ceil(math.log2(m))
        sequence: list[int] = []
        visits = [0] * m
        remaining = m
        while len(sequence) < simulations:
            rounds = max(1, simulations // (phases * remaining))
            for _ in range(rounds):
                sequence.extend(visits[:remaining])
                for i in range(remaining):
                    visits[i] += 1
            remaining = max(2, remaining // 2)
        table[m] = sequence[:simulations]
    return table


def new_tree(batch: int, simulations: int, edges_per_node: int) -> tuple:
    """Empty tree arrays for ``batch`` searches of ``simulations`` simulations; a tree
    holds ``simulations + 1`` nodes and ``(simulations + 1) * edges_per_node`` edges (a
    leaf that finds no room for its edges is evaluated without becoming a node)."""
    nodes = simulations + 1
    edges = nodes * max(edges_per_node, 1)
    return (
        np.full((batch, nodes), -1, dtype=np.int64),
        np.zeros((batch, nodes), dtype=np.int64),
        np.zeros((batch, nodes), dtype=np.float64),
        np.zeros(batch, dtype=np.int64),
        np.zeros((batch, edges), dtype=np.int64),
        np.zeros((batch, edges), dtype=np.float64),
        np.zeros((batch, edges), dtype=np.int64),
        np.zeros((batch, edges), dtype=np.float64),
        np.full((batch, edges), -1, dtype=np.int64),
        np.full((batch, edges), -1, dtype=np.int64),
        np.zeros(batch, dtype=np.int64),
        np.zeros((batch, nodes), dtype=np.int64),
    )


@njit
def _add_edge(tree, i, node, action, prior):
    """A new edge of ``node`` for ``action``; -1 when the tree has no room."""
    e = tree[T_EDGE_COUNT][i]
    if e >= tree[T_EDGE_ACTION].shape[1]:
        return -1
    tree[T_EDGE_COUNT][i] = e + 1
    tree[T_EDGE_ACTION][i, e] = action
    tree[T_EDGE_PRIOR][i, e] = prior
    tree[T_EDGE_VISITS][i, e] = 0
    tree[T_EDGE_VALUE][i, e] = 0.0
    tree[T_EDGE_CHILD][i, e] = -1
    tree[T_EDGE_NEXT][i, e] = tree[T_NODE_FIRST_EDGE][i, node]
    tree[T_NODE_FIRST_EDGE][i, node] = e
    return e


@njit
def _q(tree, i, e, unvisited):
    visits = tree[T_EDGE_VISITS][i, e]
    return tree[T_EDGE_VALUE][i, e] / visits if visits > 0 else unvisited


@njit
def root_scores(tree, i, params, gumbel, out):
    """Gumbel AlphaZero's root score of each root edge, ``out[e]`` (edges of node 0):
    ``g + logit + sigma(completed q)``, an unvisited edge's q the root's value; returns
    the largest visit count among the root edges.

    q is mapped to [0, 1] from the fixed range of every game's returns, [-1, 1], not
    min-max over the root's children as in deterministic games: with dice and redeals,
    a few simulations give q's that differ by noise, and stretching that noise over the
    whole scale made the search (and its training targets) follow it. Measured on
    TARDIS Run, a network of 10 training minutes against the heuristic over 400 games:
    the network alone 46.5%, with 64 simulations min-max 42.5%, fixed range 47.2%; a network
    trained on the fixed range instead reached 52% in the same 10 minutes (41% before)."""
    root_value = tree[T_NODE_VALUE][i, 0]
    most = 0
    e = tree[T_NODE_FIRST_EDGE][i, 0]
    while e >= 0:
        most = max(most, tree[T_EDGE_VISITS][i, e])
        e = tree[T_EDGE_NEXT][i, e]
    scale = (params[G_C_VISIT] + most) * params[G_C_SCALE]
    e = tree[T_NODE_FIRST_EDGE][i, 0]
    while e >= 0:
        q = min(max(_q(tree, i, e, root_value), -1.0), 1.0)
        out[e] = gumbel[tree[T_EDGE_ACTION][i, e]] + np.log(max(tree[T_EDGE_PRIOR][i, e], 1e-30)) + scale * (q + 1.0) / 2.0
        e = tree[T_EDGE_NEXT][i, e]
    return most


@njit
def _select(tree, i, node, mask, params, gumbel, root_target, scores):
    """The edge to follow from ``node`` among those legal in ``mask``; -1 if none."""
    best = -1
    best_score = -np.inf
    if node == 0 and params[G_ROOT_GUMBEL] != 0:
        root_scores(tree, i, params, gumbel, scores)
        for pass_ in range(2):  # visits == target first; any legal edge if none has them
            e = tree[T_NODE_FIRST_EDGE][i, 0]
            while e >= 0:
                if mask[tree[T_EDGE_ACTION][i, e]] and (pass_ == 1 or tree[T_EDGE_VISITS][i, e] == root_target):
                    if scores[e] > best_score:
                        best_score = scores[e]
                        best = e
                e = tree[T_EDGE_NEXT][i, e]
            if best >= 0:
                return best
        return best
    parent = tree[T_NODE_VALUE][i, node]
    explore = params[G_PUCT_C] * np.sqrt(max(tree[T_NODE_VISITS][i, node], 1))
    e = tree[T_NODE_FIRST_EDGE][i, node]
    while e >= 0:
        if mask[tree[T_EDGE_ACTION][i, e]]:
            visits = tree[T_EDGE_VISITS][i, e]
            score = _q(tree, i, e, parent) + explore * tree[T_EDGE_PRIOR][i, e] / (1 + visits)
            if score > best_score:
                best_score = score
                best = e
        e = tree[T_EDGE_NEXT][i, e]
    return best


@njit
def _edges_for_new_actions(tree, i, node, mask, seen):
    """Edges, with the uniform prior, for the actions legal in ``mask`` that ``node`` has
    none for (another deal or other dice than when it was expanded)."""
    legal = 0
    for a in range(mask.shape[0]):
        seen[a] = 0
        legal += mask[a]
    e = tree[T_NODE_FIRST_EDGE][i, node]
    while e >= 0:
        seen[tree[T_EDGE_ACTION][i, e]] = 1
        e = tree[T_EDGE_NEXT][i, e]
    for a in range(mask.shape[0]):
        if mask[a] and not seen[a]:
            if _add_edge(tree, i, node, a, 1.0 / legal) < 0:
                return


@njit
def _shared_child(tree, i, node, edge, mover):
    """In a simultaneous game, the node after a choice that ``mover`` (a later seat of the
    same round) cannot see: the node another choice of ``node`` already leads to for that
    seat, which ``edge`` then leads to as well; -1 if there is none yet.

    The seat that chooses next does not know which of ``node``'s choices was committed, so
    every one of them reaches the same decision of that seat: one node whose statistics
    gather over the committed choices in proportion to how often the search makes them.
    With a node per committed choice the later seat would answer each choice as if it saw
    it, and the earlier seat's search would judge every choice against a reply tailored to
    it."""
    e = tree[T_NODE_FIRST_EDGE][i, node]
    while e >= 0:
        child = tree[T_EDGE_CHILD][i, e]
        if e != edge and child >= 0 and tree[T_NODE_MOVER][i, child] == mover:
            tree[T_EDGE_CHILD][i, edge] = child
            return child
        e = tree[T_EDGE_NEXT][i, e]
    return -1


@njit_shared_body
def descend_one(step, legal_mask, observe, resample_hidden, roots, tables, forest, i, simulation):
    """Walk tree ``i`` from its root to a leaf (simulation ``simulation``; 0 evaluates the
    root itself). Writes ``path[i]`` (``[length, node, edge, mover, node, edge, mover, ...]``),
    ``leaf[i]`` (``[kind, mover]``), a finished game's rewards in ``leaf_values[i]``, and
    for a leaf to evaluate the mover's observation ``obs[i]`` and legal mask ``masks[i]``.
    ``forest`` is :attr:`GuidedSearch.forest`, the arrays of every tree: the tree's own,
    then the search's (one flat tuple: a ``prange`` kernel takes no tuple inside a tuple)."""
    tree = forest[:TREE_ARRAYS]
    params, considered, root_considered, gumbel, gens, scratch, masks, seen, scores, path, leaf, leaf_values, obs = forest[TREE_ARRAYS:]
    state = scratch[i]
    mask = masks[i]
    row = path[i]
    row[0] = 0
    copy_state(state, roots[i])
    if simulation == 0:
        leaf[i, 0] = LEAF_EXPAND
    else:
        if params[G_CLAIRVOYANT] == 0:
            state[RNG_KEY] = rng_new_key(gens[i], RNG_KEY)  # fresh dice for this simulation
            state[RNG_COUNTER] = 0
        if params[G_DETERMINIZE] != 0:
            resample_hidden(state, tables, roots[i][CURRENT_PLAYER])
        m = root_considered[i]
        target = considered[m, simulation - 1] if m < considered.shape[0] and simulation - 1 < considered.shape[1] else 0
        node = 0
        while True:
            legal_mask(state, tables, mask)
            selected = _select(tree, i, node, mask, params, gumbel[i], target, scores[i])
            if selected < 0:
                _edges_for_new_actions(tree, i, node, mask, seen[i])
                selected = _select(tree, i, node, mask, params, gumbel[i], target, scores[i])
            if selected < 0:  # no room for the new actions' edges: evaluate here
                leaf[i, 0] = LEAF_EVALUATE
                break
            length = row[0]
            row[1 + 3 * length] = node
            row[2 + 3 * length] = selected
            row[3 + 3 * length] = state[CURRENT_PLAYER]
            row[0] = length + 1
            step(state, tables, tree[T_EDGE_ACTION][i, selected])
            if state[STATUS] != RUNNING:
                leaf[i, 0] = LEAF_TERMINAL
                for p in range(leaf_values.shape[1]):
                    leaf_values[i, p] = state[REWARDS + p]
                return
            child = tree[T_EDGE_CHILD][i, selected]
            if child < 0 and params[G_SIMULTANEOUS] != 0 and state[CURRENT_PLAYER] > row[3 + 3 * length]:
                child = _shared_child(tree, i, node, selected, state[CURRENT_PLAYER])
            if child < 0:
                leaf[i, 0] = LEAF_EXPAND
                break
            node = child
    mover = state[CURRENT_PLAYER]
    leaf[i, 1] = mover
    legal_mask(state, tables, mask)
    out = obs[i]
    for k in range(out.shape[0]):
        out[k] = 0.0
    observe(state, tables, mover, out)


@njit_parallel
def expand_backup(tree, path, leaf, leaf_values, masks, priors, values, params, considered, root_considered, active):
    """Make each evaluated leaf of an active tree a node (an edge per legal action, its
    prior) and add the leaf's values along its path. ``priors``/``values`` are the
    evaluator's rows (values counted from the leaf's mover)."""
    num_players = leaf_values.shape[1]
    for i in prange(tree[T_NODE_COUNT].shape[0]):
        if not active[i]:
            continue
        kind = leaf[i, 0]
        row = path[i]
        length = row[0]
        mover = leaf[i, 1]
        if kind != LEAF_TERMINAL:  # the evaluator's mover-relative values, by seat
            for j in range(num_players):
                leaf_values[i, (mover + j) % num_players] = values[i, j]
        if kind == LEAF_EXPAND:
            node = tree[T_NODE_COUNT][i]
            if node < tree[T_NODE_FIRST_EDGE].shape[1]:
                tree[T_NODE_COUNT][i] = node + 1
                tree[T_NODE_FIRST_EDGE][i, node] = -1
                tree[T_NODE_VISITS][i, node] = 0
                tree[T_NODE_VALUE][i, node] = leaf_values[i, mover]
                tree[T_NODE_MOVER][i, node] = mover
                legal = 0
                for a in range(masks.shape[1]):
                    legal += masks[i, a]
                room = tree[T_EDGE_ACTION].shape[1] - tree[T_EDGE_COUNT][i]
                if legal <= room:
                    for a in range(masks.shape[1] - 1, -1, -1):  # listed in action order
                        if masks[i, a]:
                            _add_edge(tree, i, node, a, priors[i, a])
                if length > 0:
                    tree[T_EDGE_CHILD][i, row[2 + 3 * (length - 1)]] = node
                else:
                    root_considered[i] = min(legal, np.int64(params[G_MAX_CONSIDERED]), considered.shape[0] - 1)
        for d in range(length):
            node = row[1 + 3 * d]
            edge = row[2 + 3 * d]
            tree[T_NODE_VISITS][i, node] += 1
            tree[T_EDGE_VISITS][i, edge] += 1
            tree[T_EDGE_VALUE][i, edge] += leaf_values[i, row[3 + 3 * d]]


@njit_parallel
def root_results(tree, params, gumbel, scores, actions, policy, visits):
    """After the last simulation: each tree's action to play, its improved policy
    (Gumbel root: ``softmax(logit + sigma(completed q))`` over the legal actions; PUCT
    root: the visit distribution) and its root visit counts (-1 and zeros for a tree
    that holds no root)."""
    for i in prange(tree[T_NODE_COUNT].shape[0]):
        actions[i] = _root_result(tree, i, params, gumbel[i], scores[i], policy[i], visits[i])


@njit
def _root_result(tree, i, params, gumbel, scores, policy, visits):
    for a in range(policy.shape[0]):
        policy[a] = 0.0
        visits[a] = 0
    if tree[T_NODE_COUNT][i] == 0:
        return -1
    gumbel_root = params[G_ROOT_GUMBEL] != 0
    most = root_scores(tree, i, params, gumbel, scores) if gumbel_root else 0
    best = -1
    best_score = -np.inf
    best_prior = -1.0
    top = -np.inf
    e = tree[T_NODE_FIRST_EDGE][i, 0]
    while e >= 0:
        a = tree[T_EDGE_ACTION][i, e]
        n = tree[T_EDGE_VISITS][i, e]
        visits[a] = n
        if gumbel_root:
            if n == most and scores[e] > best_score:
                best_score = scores[e]
                best = a
            top = max(top, scores[e] - gumbel[a])  # the improved policy leaves the noise out
        elif n > best_score or (n == best_score and tree[T_EDGE_PRIOR][i, e] > best_prior):  # ties: the prior
            best_score = n
            best_prior = tree[T_EDGE_PRIOR][i, e]
            best = a
        e = tree[T_EDGE_NEXT][i, e]
    total = 0.0
    e = tree[T_NODE_FIRST_EDGE][i, 0]
    while e >= 0:
        a = tree[T_EDGE_ACTION][i, e]
        weight = np.exp(scores[e] - gumbel[a] - top) if gumbel_root else float(visits[a])
        policy[a] = weight
        total += weight
        e = tree[T_EDGE_NEXT][i, e]
    if total > 0:
        for a in range(policy.shape[0]):
            policy[a] /= total
    return best


@njit_parallel
def root_values(tree, out):
    """Each tree's mean return for its root's mover over the search: the root's own evaluation
    and every simulation's return through its edges (0 for a tree that holds no root)."""
    for i in prange(tree[T_NODE_COUNT].shape[0]):
        out[i] = 0.0
        if tree[T_NODE_COUNT][i] == 0:
            continue
        total = tree[T_NODE_VALUE][i, 0]
        count = 1
        e = tree[T_NODE_FIRST_EDGE][i, 0]
        while e >= 0:
            total += tree[T_EDGE_VALUE][i, e]
            count += tree[T_EDGE_VISITS][i, e]
            e = tree[T_EDGE_NEXT][i, e]
        out[i] = total / count


class GuidedSearch:
    """The forest of one game's guided searches, driven from Python: :meth:`run` searches
    a batch of roots with one evaluator call per simulation step for the whole batch.

    ``evaluate(observations, masks) -> (priors, values)`` takes the leaf movers'
    ``float32[n, *observation_shape]`` observations and ``int8[n, num_actions]`` masks
    and returns ``float32[n, num_actions]`` priors (summing to 1 over the legal actions)
    and ``float32[n, num_players]`` values counted from the mover.

    An evaluator whose ``reads_states`` attribute is true is called as ``evaluate(observations,
    masks, states)`` with the leaves' whole game states (``int64[n, state_size]``, the worlds
    the simulations reached): a measuring instrument's, such as a hand-written evaluation of
    the whole position standing in for a value network (``benchmarks/leaf_values.py``); in a
    game with hidden information those states hold what the mover cannot see, so no agent a
    player could be reads them.

    ``clairvoyant=True`` makes an oracle no player can be, a measuring instrument of how much
    luck and hidden information decide a game (``benchmarks/oracle.py``): every simulation
    keeps the root's own generator, so the dice and draws on the line the game will take are
    the ones the game will roll, and nothing is redealt (the search reads the hidden cards).
    """

    def __init__(
        self,
        game,
        simulations: int,
        *,
        gumbel_root: bool = True,
        gumbel_scale: float = 0.0,
        max_considered: int = 16,
        c_puct: float = 1.25,
        c_visit: float = 50.0,
        c_scale: float = 0.1,
        determinize: bool | None = None,
        edges_per_node: int = 64,
        seed: int | None = None,
        clairvoyant: bool = False,
    ):
        if simulations < 0:
            raise ValueError(f"simulations must be >= 0, got {simulations}")
        self.game = game
        self.simulations = int(simulations)
        self.gumbel_scale = float(gumbel_scale)
        self.params = np.zeros(NUM_GUIDED_PARAMS, dtype=np.float64)
        self.params[G_SIMULATIONS] = self.simulations
        self.params[G_PUCT_C] = c_puct
        self.determinize = bool(game.spec.hidden_information if determinize is None else determinize)
        self.clairvoyant = clairvoyant
        self.params[G_ROOT_GUMBEL] = 1.0 if gumbel_root else 0.0
        self.params[G_MAX_CONSIDERED] = max_considered
        self.params[G_C_VISIT] = c_visit
        self.params[G_C_SCALE] = c_scale
        self.params[G_SIMULTANEOUS] = 1.0 if game.spec.simultaneous else 0.0
        self.considered = considered_visits(max(int(max_considered), 1), self.simulations)
        self.edges_per_node = max(int(edges_per_node), 1)
        self.rng = np.random.default_rng(seed)
        self._batch = -1
        self.evaluations = 0  # leaves evaluated (network rows)
        self.evaluator_calls = 0

    @property
    def clairvoyant(self) -> bool:
        """Whether the search is the oracle (see the class docstring); settable, so a fair
        search of any settings can be measured as the oracle of the same settings."""
        return bool(self.params[G_CLAIRVOYANT])

    @clairvoyant.setter
    def clairvoyant(self, on: bool) -> None:
        self.params[G_CLAIRVOYANT] = 1.0 if on else 0.0
        self.params[G_DETERMINIZE] = 1.0 if self.determinize and not on else 0.0

    def _allocate(self, batch: int) -> None:
        game = self.game
        nodes = self.simulations + 1
        self.tree = new_tree(batch, self.simulations, max(self.edges_per_node, int(np.ceil(game.num_actions / nodes))))
        edges = self.tree[T_EDGE_ACTION].shape[1]
        obs_size = int(np.prod(game.observation_shape))
        self.scratch = np.zeros((batch, game.state_size), dtype=np.int64)
        self.masks = np.zeros((batch, game.num_actions), dtype=np.int8)
        self.seen = np.zeros((batch, game.num_actions), dtype=np.int8)
        self.scores = np.zeros((batch, edges), dtype=np.float64)
        self.path = np.zeros((batch, 1 + 3 * (nodes + 1)), dtype=np.int64)
        self.leaf = np.zeros((batch, 2), dtype=np.int64)
        self.leaf_values = np.zeros((batch, game.num_players), dtype=np.float64)
        self.obs = np.zeros((batch, obs_size), dtype=np.float32)
        self.priors = np.zeros((batch, game.num_actions), dtype=np.float32)
        self.values = np.zeros((batch, game.num_players), dtype=np.float32)
        self.root_considered = np.zeros(batch, dtype=np.int64)
        self.gens = np.zeros((batch, HEADER_SIZE), dtype=np.int64)
        self.gumbel = np.zeros((batch, game.num_actions), dtype=np.float64)
        # what each game's guided_descend reads and writes, one tuple (see descend_one)
        self.forest = (
            *self.tree, self.params, self.considered, self.root_considered, self.gumbel, self.gens, self.scratch,
            self.masks, self.seen, self.scores, self.path, self.leaf, self.leaf_values, self.obs,
        )  # fmt: skip
        self._batch = batch

    def run(
        self, roots: np.ndarray, evaluate, active: np.ndarray | None = None, keys: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Search every root (``int64[B, state_size]``, running games) whose ``active`` flag
        is set (default all); ``keys`` (``int64[B]``) seed each tree's simulations (default:
        drawn from the search's generator). Returns the action to play (``int64[B]``, -1 for an
        inactive row), the improved policy (``float32[B, num_actions]``) and the root's
        visit counts (``int64[B, num_actions]``)."""
        game = self.game
        roots = np.ascontiguousarray(roots, dtype=np.int64)
        batch = roots.shape[0]
        if batch != self._batch:
            self._allocate(batch)
        active = np.ones(batch, dtype=np.bool_) if active is None else np.ascontiguousarray(active, dtype=np.bool_)
        tree = self.tree
        tree[T_NODE_COUNT][:] = 0
        tree[T_EDGE_COUNT][:] = 0
        gumbel = self.gumbel
        gumbel[:] = self.gumbel_scale * self.rng.gumbel(size=gumbel.shape) if self.gumbel_scale > 0 else 0.0
        self.gens[:, RNG_KEY] = self.rng.integers(0, 1 << 62, size=batch) if keys is None else keys
        self.gens[:, RNG_COUNTER] = 0
        descend = game.kernels.guided_descend
        shape = (-1, *game.observation_shape)
        reads_states = bool(getattr(evaluate, "reads_states", False))
        for simulation in range(self.simulations + 1):
            descend(roots, game.tables, self.forest, simulation, active)
            rows = np.flatnonzero(active & ((self.leaf[:, 0] == LEAF_EXPAND) | (self.leaf[:, 0] == LEAF_EVALUATE)))
            if rows.size:
                if reads_states:  # each leaf's state is its tree's scratch row after the descent
                    priors, values = evaluate(self.obs[rows].reshape(shape), self.masks[rows], self.scratch[rows])
                else:
                    priors, values = evaluate(self.obs[rows].reshape(shape), self.masks[rows])
                self.priors[rows] = priors
                self.values[rows] = values
                self.evaluations += rows.size
                self.evaluator_calls += 1
            expand_backup(
                tree, self.path, self.leaf, self.leaf_values, self.masks, self.priors, self.values, self.params,
                self.considered, self.root_considered, active,
            )  # fmt: skip
        actions = np.full(batch, -1, dtype=np.int64)
        policy = np.zeros((batch, game.num_actions), dtype=np.float32)
        visits = np.zeros((batch, game.num_actions), dtype=np.int64)
        inactive = ~active
        tree[T_NODE_COUNT][inactive] = 0
        root_results(tree, self.params, gumbel, self.scores, actions, policy, visits)
        return actions, policy, visits

    def root_values(self) -> np.ndarray:
        """After :meth:`run`: each searched root's mean value for its mover (``float32[B]``,
        0 for an inactive row), the search's own judgement of the position."""
        out = np.zeros(self.tree[T_NODE_COUNT].shape[0], dtype=np.float64)
        root_values(self.tree, out)
        return out.astype(np.float32)

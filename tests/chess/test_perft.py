"""Classic mode against the published perft counts (chessprogramming.org
"Perft Results") and, node by node, against the ``chess`` library."""

import chess
import pytest

from tardis_envs.games.chess import rules
from tardis_envs.games.chess.content import START_FEN

from .helpers import CLASSIC, legal

# (name, FEN, published counts for depth 1, 2, ...)
PERFT = [
    ("start", START_FEN, [20, 400, 8902, 197281, 4865609]),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862, 4085603]),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238, 674624]),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467, 422333]),
    ("position 4 mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", [6, 264, 9467, 422333]),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379, 2103487]),
    ("position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079, 89890, 3894594]),
]


@pytest.mark.parametrize("name,fen,counts", PERFT, ids=[p[0] for p in PERFT])
def test_published_perft_counts(name, fen, counts):
    state = CLASSIC.from_fen(fen)
    got = [int(rules.perft(state, depth)) for depth in range(1, len(counts) + 1)]
    assert got == counts


def _divide_with_library(board: chess.Board, depth: int) -> dict[str, int]:
    out = {}
    for move in board.legal_moves:
        board.push(move)
        out[move.uci()] = sum(1 for _ in _paths(board, depth - 1))
        board.pop()
    return out


def _paths(board: chess.Board, depth: int):
    if depth == 0:
        yield 1
        return
    for move in list(board.legal_moves):
        board.push(move)
        yield from _paths(board, depth - 1)
        board.pop()


@pytest.mark.parametrize("name,fen,counts", PERFT[1:5], ids=[p[0] for p in PERFT[1:5]])
def test_perft_divide_matches_chess_library(name, fen, counts):
    """Per first move, the subtree sizes at depth 2 equal the library's: a wrong
    count would be located at the move that causes it."""
    state = CLASSIC.from_fen(fen)
    ours = {}
    for action, uci in CLASSIC.legal_uci(state).items():
        child = state.copy()
        rules.step(child, CLASSIC.tables, action)
        ours[uci] = int(rules.perft(child, 1)) if child[1] == 0 else 0
    assert ours == _divide_with_library(chess.Board(fen), 2)
    assert set(ours) == legal(CLASSIC, state)


def test_perft_of_the_env_state_equals_perft_of_the_kernel_state():
    import tardis_envs

    env = tardis_envs.make("timelord_chess_v1", doctor=False)
    env.reset(seed=0)
    assert int(rules.perft(env.unwrapped.get_state(), 3)) == 8902

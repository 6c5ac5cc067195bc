"""Classic mode move for move against the ``chess`` library (an independent
implementation): legal move sets, FEN, check, game results and draw
conditions at every ply of 500+ random games, SAN on a sample of plies."""

import chess
import numpy as np
import pytest

from tardis_envs import timelord_chess_v1
from tardis_envs.core.state import RUNNING, STATUS, TERMINATED
from tardis_envs.games.chess import board, layout, rules

from .helpers import CLASSIC
from .test_perft import PERFT

REASONS = {
    "checkmate": layout.REASON_CHECKMATE,
    "stalemate": layout.REASON_STALEMATE,
    "insufficient": layout.REASON_INSUFFICIENT,
    "fifty": layout.REASON_FIFTY_MOVES,
    "threefold": layout.REASON_THREEFOLD,
}


def expected_reason(board: chess.Board):
    """The game's end as this env rules it (first of these in order), from the library."""
    if board.is_checkmate():
        return REASONS["checkmate"]
    if board.is_stalemate():
        return REASONS["stalemate"]
    if board.is_insufficient_material():
        return REASONS["insufficient"]
    if board.halfmove_clock >= 100:
        return REASONS["fifty"]
    if board.is_repetition(3):
        return REASONS["threefold"]
    return None


# Random games can run for thousands of plies before the fifty-move rule or
# material ends them; the library never truncates, so neither may this game.
UNTRUNCATED = timelord_chess_v1.Game(doctor=False, max_plies=20_000)


def run_games(seed: int, games: int, start_fens: list[str], san_every: int) -> dict:
    rng = np.random.default_rng(seed)
    game = UNTRUNCATED
    counts = {"plies": 0, "games": 0, "san": 0}
    ends: dict[int, int] = {}
    for g in range(games):
        fen = start_fens[g % len(start_fens)]
        board = chess.Board(fen)
        state = game.from_fen(fen)
        while True:
            reason = expected_reason(board)
            if reason is not None:
                assert state[STATUS] == TERMINATED and state[layout.REASON] == reason, (
                    f"game {g}: library ends the game ({reason}) at {board.fen()}, env says "
                    f"status {state[STATUS]} reason {state[layout.REASON]}"
                )
                # the side to move is mated: white (turn True) mated means black (1) won
                assert state[layout.WINNER] == (int(board.turn) if reason == REASONS["checkmate"] else -1)
                ends[reason] = ends.get(reason, 0) + 1
                break
            assert state[STATUS] == RUNNING, f"game {g}: env ended at {board.fen()} but the library plays on"
            assert game.fen(state) == board.fen(en_passant="fen")
            assert bool(rules.in_check(state, int(state[0]))) == board.is_check()
            ours = game.legal_uci(state)
            assert set(ours.values()) == {m.uci() for m in board.legal_moves}, board.fen()
            assert int(np.count_nonzero(game.legal_actions(state) >= 0)) == len(ours)
            action = int(rng.choice(list(ours)))
            move = chess.Move.from_uci(ours[action])
            if counts["plies"] % san_every == 0:
                assert game.san(state, action) == board.san(move), board.fen()
                counts["san"] += 1
            board.push(move)
            rules.step(state, game.tables, action)
            counts["plies"] += 1
        counts["games"] += 1
    counts["ends"] = ends
    return counts


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(2))
def test_random_games_agree_with_chess_library(chunk):
    """2 x 135 = 270 games: 250 from the start position and 20 from the
    perft positions (castling, en passant and promotion tactics); the chess
    library's side of each game is most of the time."""
    starts = [chess.STARTING_FEN]
    counts = run_games(seed=100 + chunk, games=125, start_fens=starts, san_every=7)
    assert counts["games"] == 125
    tricky = run_games(seed=200 + chunk, games=10, start_fens=[p[1] for p in PERFT[1:]], san_every=1)
    assert tricky["games"] == 10
    # every kind of ending shows up across the random games
    assert counts["ends"].get(REASONS["checkmate"], 0) > 0
    assert counts["ends"].get(REASONS["insufficient"], 0) > 0
    assert counts["ends"].get(REASONS["fifty"], 0) > 0


def test_threefold_repetition_by_knight_shuffle():
    state = CLASSIC.new_state(0)
    board = chess.Board()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    for _k, uci in enumerate(shuffle):
        assert state[STATUS] == RUNNING
        rules.step(state, CLASSIC.tables, CLASSIC.string_to_action(state, uci))
        board.push_uci(uci)
    assert board.is_repetition(3)
    assert state[STATUS] == TERMINATED and state[layout.REASON] == layout.REASON_THREEFOLD
    assert state[layout.WINNER] == -1


def test_en_passant_that_exposes_the_king_is_illegal_and_not_a_repetition_key():
    # White king a5, black rook h5: after ...c7c5 the b5 pawn may not take en passant
    fen = "8/2p5/8/KP5r/8/8/8/6k1 b - - 0 1"
    state = CLASSIC.from_fen(fen)
    rules.step(state, CLASSIC.tables, CLASSIC.string_to_action(state, "c7c5"))
    assert state[layout.EP_SQUARE] == 42  # c6, as FEN writes it
    assert "b5c6" not in CLASSIC.legal_uci(state).values()
    assert not board.has_legal_en_passant(state)


def test_fifty_move_rule_and_checkmate_on_the_hundredth_ply():
    fen = "7k/R7/8/8/8/8/8/KR6 w - - 99 80"
    # halfmove clock 99: a quiet move ends the game as a draw ...
    state = CLASSIC.from_fen(fen)
    rules.step(state, CLASSIC.tables, CLASSIC.string_to_action(state, "a1a2"))
    assert state[STATUS] == TERMINATED and state[layout.REASON] == layout.REASON_FIFTY_MOVES
    assert state[layout.WINNER] == -1
    # ... but a mate on that move wins: mate comes first
    state = CLASSIC.from_fen(fen)
    rules.step(state, CLASSIC.tables, CLASSIC.string_to_action(state, "Rb8#"))
    assert state[layout.HALFMOVE] == 100
    assert state[layout.REASON] == layout.REASON_CHECKMATE and state[layout.WINNER] == 0


def test_a_check_that_ends_the_game_in_a_draw_is_still_written_with_a_plus():
    # b1=N+ leaves king and knight against king: a draw by material, and check
    state = CLASSIC.from_fen("8/8/8/8/8/2K5/1p6/2k5 b - - 7 158")
    action = CLASSIC.string_to_action(state, "b2b1n")
    assert CLASSIC.san(state, action) == chess.Board("8/8/8/8/8/2K5/1p6/2k5 b - - 7 158").san(chess.Move.from_uci("b2b1n")) == "b1=N+"
    rules.step(state, CLASSIC.tables, action)
    assert state[STATUS] == TERMINATED and state[layout.REASON] == layout.REASON_INSUFFICIENT

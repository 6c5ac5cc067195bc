"""The observation options of Dr. Who Chess: ``history_planes`` and ``threat_planes``.

The threat planes are checked against the ``chess`` library's attackers in
classic positions from random games, and against the variant's rules (the
TARDIS blocks lines, the piece inside it attacks nothing) in scripted ones.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from tardis_envs import timelord_chess_v1
from tardis_envs.core.state import CURRENT_PLAYER, STATUS
from tardis_envs.games.chess import layout, rules

from .helpers import position

VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 10}


def _random_states(game, games: int, plies: int, seed: int):
    """States along random games (every ply), so histories are filled."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_state(seed + g)
        for _ in range(plies):
            if state[STATUS] != 0:
                break
            yield state.copy()
            rules.step(state, game.tables, int(rng.choice(game.legal_actions(state))))


@pytest.mark.parametrize("doctor", [True, False])
def test_fewer_history_planes_drop_exactly_those_planes(doctor):
    full = timelord_chess_v1.Game(doctor=doctor)
    assert full.observation_shape == (167, 8, 8)
    for kept in (0, 3):
        short = timelord_chess_v1.Game(doctor=doctor, history_planes=kept)
        assert short.observation_shape == (167 - 12 * (10 - kept), 8, 8)
        for state in _random_states(full, 3, 40, seed=5):
            for player in (0, 1):
                expected = full.observation(state, player)
                expected = np.concatenate([expected[: 12 * (kept + 1)], expected[layout.P_COLOUR :]])
                np.testing.assert_array_equal(short.observation(state, player), expected)


def _oracle_threats(board: chess.Board, observer: bool) -> np.ndarray:
    """The six threat planes from the ``chess`` library's attackers, in the observer's frame."""
    planes = np.zeros((6, 64), dtype=np.float32)
    for square in chess.SQUARES:
        at = square if observer == chess.WHITE else square ^ 56
        own = [VALUE[board.piece_type_at(s)] for s in board.attackers(observer, square)]
        opp = [VALUE[board.piece_type_at(s)] for s in board.attackers(not observer, square)]
        planes[0, at] = min(len(own), 8) / 8
        planes[1, at] = min(len(opp), 8) / 8
        planes[2, at] = min(own, default=0) / 10
        planes[3, at] = min(opp, default=0) / 10
        piece = board.piece_at(square)
        if piece is None or piece.piece_type == chess.KING:
            continue
        value = VALUE[piece.piece_type]
        if piece.color == observer and opp and (not own or min(opp) < value):
            planes[4, at] = value / 10
        if piece.color != observer and own and (not opp or min(own) < value):
            planes[5, at] = value / 10
    return planes.reshape(6, 8, 8)


def test_threat_planes_agree_with_the_chess_library():
    game = timelord_chess_v1.Game(doctor=False, threat_planes=True, history_planes=0)
    assert game.observation_shape == (12 + 35 + 8, 8, 8)
    checked = en_prise = 0
    for state in _random_states(game, 12, 120, seed=11):
        board = chess.Board(game.fen(state))
        for player in (0, 1):
            threats = game.observation(state, player)[-8:-2]
            observer = chess.WHITE if player == 0 else chess.BLACK
            np.testing.assert_allclose(threats, _oracle_threats(board, observer), atol=1e-6, err_msg=game.fen(state))
            en_prise += int(threats[4:].any())
            checked += 1
    assert checked > 1000 and en_prise > 100  # the planes were not trivially empty


def test_threat_planes_see_the_tardis_rules():
    game = timelord_chess_v1.Game(threat_planes=True)
    # a white rook on a4 looks along the fourth rank; the TARDIS on d4 blocks it
    state = position("4k3/8/8/8/R5p1/8/8/4K3 w - - 0 1 D:d4/C:in/P:-")
    for player in (0, 1):
        threats = game.observation(state, player)[-8:-2]
        rank4 = threats[0 if player == 0 else 1, 3 if player == 0 else 4]  # white's attackers on rank 4
        assert rank4[1] > 0 and rank4[2] > 0 and rank4[3] > 0, player  # the rook may enter the TARDIS
        assert not rank4[4:].any(), player  # but not look through it
        assert not threats[4:].any(), player  # the g4 pawn is safe behind the TARDIS
    # without the TARDIS in the way the same pawn is en prise
    state = position("4k3/8/8/8/R5p1/8/8/4K3 w - - 0 1", game=timelord_chess_v1.Game(doctor=False))
    classic = timelord_chess_v1.Game(doctor=False, threat_planes=True)
    assert classic.observation(state, 0)[-3].reshape(64)[chess.G4] == pytest.approx(0.1)
    assert classic.observation(state, 1)[-4].reshape(64)[chess.G4 ^ 56] == pytest.approx(0.1)


def test_threat_planes_ignore_the_passenger():
    game = timelord_chess_v1.Game(threat_planes=True)
    # a white knight inside the TARDIS on d4 would attack e6 and c6 from there
    state = position("4k3/8/2p1p3/8/8/8/8/4K3 b - - 0 1 D:d4/C:in/P:N")
    threats = game.observation(state, 0)[-8:-2]
    assert threats[0].reshape(64)[chess.C6] == 0 and threats[0].reshape(64)[chess.E6] == 0
    assert threats[5].sum() == 0


def test_threat_planes_option_is_validated():
    with pytest.raises(ValueError, match="history_planes"):
        timelord_chess_v1.Game(history_planes=11)
    with pytest.raises(ValueError, match="threat_planes"):
        timelord_chess_v1.Game(threat_planes="yes")


def test_mating_moves_are_marked_for_the_mover_only():
    classic = timelord_chess_v1.Game(doctor=False, threat_planes=True)
    # back-rank mate: Ra1-a8#; Rh1-h8+ is only a check
    state = position("6k1/5ppp/8/8/8/8/8/R3K2R w - - 0 1", game=timelord_chess_v1.Game(doctor=False))
    planes = classic.observation(state, 0)
    assert sorted(np.flatnonzero(planes[-2])) == [chess.A1] and sorted(np.flatnonzero(planes[-1])) == [chess.A8]
    assert not classic.observation(state, 1)[-2:].any()  # not black's move
    # against the chess library: every marked pair is a mating move, and every mate is marked
    game = timelord_chess_v1.Game(doctor=False, threat_planes=True, history_planes=0)
    mates = 0
    for state in _random_states(game, 30, 200, seed=3):
        board = chess.Board(game.fen(state))
        player = int(state[CURRENT_PLAYER])
        planes = game.observation(state, player)[-2:].reshape(2, 64)
        expected = np.zeros((2, 64))
        for move in board.legal_moves:
            board.push(move)
            if board.is_checkmate():
                frame = 0 if player == 0 else 56
                expected[0, move.from_square ^ frame] = expected[1, move.to_square ^ frame] = 1
            board.pop()
        np.testing.assert_array_equal(planes, expected, err_msg=board.fen())
        mates += int(expected.any())
    assert mates >= 3  # random games do walk into mates in one

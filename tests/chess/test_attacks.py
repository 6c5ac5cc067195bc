"""The shortcuts of move legality (``board.king_attacked`` for king steps,
``board.check_answers`` for the other moves in check) against the mailbox test they
replace (make the move, ``square_attacked``, undo), in positions of random variant
games: the TARDIS on the board and away, Dr. Who on the board and inside,
passengers, evictions."""

import numpy as np

from tardis_envs.core.state import CURRENT_PLAYER, STATUS
from tardis_envs.games.chess import board, layout, rules

from .helpers import VARIANT


def test_king_steps_and_check_agree_with_the_mailbox_test():
    rng = np.random.default_rng(3)
    compared = attacked = with_tardis = answered_checks = 0
    for game_index in range(60):
        state = VARIANT.new_state(1000 + game_index)
        for _ in range(300):
            if state[STATUS] != 0:
                break
            if state[layout.PHASE] == layout.PHASE_MOVE:
                mover = int(state[CURRENT_PLAYER])
                them = 1 - mover
                king_sq = int(state[layout.KING_SQ + mover])
                bits = board.attacker_bits(state, them)
                checked = board.square_attacked(state, king_sq, them)
                assert board.king_attacked(bits, them, king_sq, king_sq) == checked
                assert board.legality_context(state)[1] == checked
                context = board.legality_context(state)
                moves = np.empty(layout.MAX_MOVES, dtype=np.int64)
                for i in range(board.gen_chess_moves(state, moves)):
                    m = int(moves[i])
                    legal = board.chess_move_legal(state, m)
                    assert board.chess_move_legal_given(state, m, context) == legal, (VARIANT.fen(state), m)
                    answered_checks += checked and legal and board.move_from(m) != king_sq
                    if board.move_from(m) != king_sq or board.move_flag(m) != layout.FLAG_NORMAL:
                        continue
                    before = state.copy()
                    safe = board.chess_move_legal(state, m)  # makes the step, tests, undoes
                    assert np.array_equal(state, before)
                    assert board.king_attacked(bits, them, king_sq, board.move_to(m)) == (not safe), (VARIANT.fen(state), m)
                    compared += 1
                    attacked += not safe
                    with_tardis += layout.blocker_square(state) >= 0
            mask = VARIANT.legal_actions(state)
            rules.step(state, VARIANT.tables, int(rng.choice(mask)))
    # the comparison saw both answers, lines that the TARDIS blocks, checks answered
    # by another piece than the king
    assert compared > 2000 and attacked > 200 and with_tardis > 1000 and answered_checks > 50, (
        compared,
        attacked,
        with_tardis,
        answered_checks,
    )

"""The shortcuts of move legality (``board.king_attacked`` for king steps,
``board.check_answers`` for the other moves in check) against the mailbox test they
replace (make the move, ``square_attacked``, undo), in positions of random variant
games: the TARDIS on the board and away, Dr. Who on the board and inside,
passengers, evictions."""

import numpy as np

from tardis_envs.core.state import CURRENT_PLAYER, STATUS
from tardis_envs.games.chess import board, layout, rules, tardis

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


def _mailbox_mask(state) -> np.ndarray:
    """The legal mask of a move or follow-up decision worked out by making each candidate
    on the board and asking ``square_attacked`` (``chess_move_legal``, ``doctor_move_legal``,
    ``tardis_move_legal``, ``forward_travel_legal``): what ``rules.legal_mask`` decides on
    sets of squares."""
    mask = np.zeros(layout.NUM_ACTIONS, dtype=np.int8)
    mover = int(state[CURRENT_PLAYER])
    if state[layout.PHASE] == layout.PHASE_MOVE:
        moves = np.empty(layout.MAX_MOVES, dtype=np.int64)
        for i in range(board.gen_chess_moves(state, moves)):
            m = int(moves[i])
            if board.chess_move_legal(state, m):
                mask[board.encode_move(board.move_from(m), board.move_to(m), board.move_promotion(m), mover)] = 1
        for d in range(8):
            if tardis.doctor_move_legal(state, d):
                mask[layout.A_DOCTOR + (d if mover == layout.WHITE else (4 - d) % 8)] = 1
    else:
        mask[layout.A_END_TURN] = 1
    if tardis.tardis_can_fly(state):
        for sq in range(64):
            if tardis.tardis_move_legal(state, sq):
                mask[layout.A_TARDIS + layout.frame(sq, mover)] = 1
        if tardis.travel_allowed(state):
            scratch = np.empty(layout.CORE_SIZE, dtype=np.int64)
            for k in range(1, layout.MAX_TRAVEL + 1):
                if tardis.backward_travel_legal(state, k, scratch):
                    mask[layout.A_TRAVEL + k - 1] = 1
            if tardis.forward_travel_legal(state):
                mask[layout.A_TRAVEL + layout.MAX_TRAVEL : layout.A_TRAVEL + 2 * layout.MAX_TRAVEL] = 1
    return mask


def test_legal_mask_on_sets_of_squares_agrees_with_making_each_move():
    """``rules.legal_mask`` (sets of squares: ``board.legal_chess_actions``,
    ``tardis.doctor_step_legal_given``, ``tardis.tardis_landings``) against the mailbox tests,
    in every move and follow-up decision of random variant games, each kind of action seen."""
    rng = np.random.default_rng(11)
    seen = dict.fromkeys(("chess", "doctor", "tardis", "forward", "follow_up", "check", "pinned", "kick", "from_inside", "flags"), 0)
    mask = np.zeros(layout.NUM_ACTIONS, dtype=np.int8)
    for game_index in range(40):
        state = VARIANT.new_state(2000 + game_index)
        for _ in range(400):
            if state[STATUS] != 0:
                break
            if state[layout.PHASE] != layout.PHASE_EVICT:
                context = board.legality_context(state)
                block = layout.blocker_square(state)
                mover = int(state[CURRENT_PLAYER])
                rules.legal_mask(state, VARIANT.tables, mask)
                expected = _mailbox_mask(state)
                assert np.array_equal(mask, expected), (VARIANT.fen(state), np.flatnonzero(mask != expected))
                if state[layout.PHASE] == layout.PHASE_MOVE:
                    # the early exit that mate and stalemate use
                    found = board.legal_chess_actions(state, board.board_sets(state), mask[:0], False, True)
                    assert (found > 0) == mask[: layout.NUM_CHESS_ACTIONS].any()
                    # the move step() plays for each legal chess action, read off the action
                    moves = np.empty(layout.MAX_MOVES, dtype=np.int64)
                    generated = {}
                    for i in range(board.gen_chess_moves(state, moves)):
                        m = int(moves[i])
                        generated[board.encode_move(board.move_from(m), board.move_to(m), board.move_promotion(m), mover)] = m
                    for action in np.flatnonzero(mask[: layout.NUM_CHESS_ACTIONS]):
                        assert rules.chess_move_of(state, mover, action) == generated[action], (VARIANT.fen(state), action)
                        seen["flags"] |= 1 << board.move_flag(generated[action])
                seen["chess"] += int(mask[: layout.NUM_CHESS_ACTIONS].any())
                seen["doctor"] += int(mask[layout.A_DOCTOR : layout.A_TARDIS].any())
                seen["tardis"] += int(mask[layout.A_TARDIS : layout.A_TRAVEL].any())
                seen["forward"] += int(mask[layout.A_TRAVEL + layout.MAX_TRAVEL])
                seen["follow_up"] += int(state[layout.PHASE] == layout.PHASE_FOLLOW_UP)
                seen["check"] += int(context[1])
                seen["pinned"] += int(context[2] != 0)
                seen["kick"] += int(block >= 0 and board.passenger_evictable(state, mover))
                seen["from_inside"] += int(block >= 0 and state[layout.PASSENGER] != 0 and (state[layout.PASSENGER] >> 3) == mover)
            legal = VARIANT.legal_actions(state)
            rules.step(state, VARIANT.tables, int(rng.choice(legal)))
    flags = seen.pop("flags")
    assert min(seen.values()) >= 20, seen
    # every kind of chess move: normal, double and triple advances, en passant, castling, kick-out
    assert flags == sum(1 << f for f in range(6)), bin(flags)

"""Scripted positions for every Dr. Who / TARDIS ruling of the timelord_chess_v1 docstring."""

import numpy as np
import pytest

from tardis_envs.core.state import RUNNING, STATUS, TERMINATED
from tardis_envs.games.chess import layout, rules
from tardis_envs.games.chess.content import parse_square

from .helpers import CLASSIC, legal, play, position
from .helpers import VARIANT as G

DOCTOR_STEPS_FROM_D4 = {"Cd4c3", "Cd4c4", "Cd4c5", "Cd4d3", "Cd4d5", "Cd4e3", "Cd4e4", "Cd4e5"}


def tardis(state):
    return G.describe(state)["tardis"]


def kinds(moves, prefix):
    return {m for m in moves if m.startswith(prefix)}


def knight_inside():
    """White knight entered d4 on ply 2; the follow-up is pending."""
    state = G.new_state(0)
    play(G, state, "g1f3", "a7a6", "f3d4")
    return state


# --- the start -------------------------------------------------------------------
def test_start_tardis_on_d4_with_doctor_inside():
    state = G.new_state(0)
    t = tardis(state)
    assert (t["square"], t["on_board"], t["doctor"], t["passenger"]) == ("d4", True, "inside", None)
    moves = legal(G, state)
    assert kinds(moves, "C") == DOCTOR_STEPS_FROM_D4
    assert not kinds(moves, "D")  # no piece inside: the TARDIS cannot move or travel
    assert "d2d4" in moves  # a pawn enters by a straight (double) step
    assert G.describe(state)["board"][4] == "...D...."


# --- entering, leaving, the passenger ---------------------------------------------
def test_piece_enters_then_follow_up_is_offered_and_optional():
    state = knight_inside()
    d = G.describe(state)
    assert d["phase"] == "follow_up" and d["side_to_move"] == "white"
    moves = legal(G, state)
    assert "end" in moves
    assert {"D<1", "D<2", "D>1", "D>10"} <= moves and "D<3" not in moves  # only 2 plies of history
    empty = sum(1 for row in d["board"] for ch in row if ch == ".")
    assert len(kinds(moves, "Dd4")) == empty  # every empty square (not d4 itself)
    play(G, state, "end")
    t = tardis(state)
    assert t["passenger"] == "white knight" and t["passenger_entered_ply"] == 2
    assert G.describe(state)["side_to_move"] == "black"


def test_pawn_enters_only_straight_and_kings_never():
    state = position("4k3/8/8/8/8/2PK4/8/8 w - - 0 1 D:d4/C:in/P:-")
    moves = legal(G, state)
    assert "c3d4" not in moves  # diagonal: a pawn never enters that way
    assert "d3d4" not in moves  # the king may not enter
    state = position("4k3/8/8/8/8/3P4/8/4K3 w - - 0 1 D:d4/C:in/P:-")
    assert "d3d4" in legal(G, state)


def test_one_passenger_limit_and_nobody_captures_inside():
    state = knight_inside()
    play(G, state, "end", "b8c6")
    moves = legal(G, state)
    # white's own knight is inside: the d-pawn's double step (legal at the start) cannot enter
    assert "d2d3" in moves and "d2d4" not in moves
    assert not any(m.endswith("d4") for m in moves if not m.startswith(("C", "D")))
    play(G, state, "e2e3")
    # black cannot take or enter: the knight has been inside for one of its owner's turns only
    assert "c6d4" not in legal(G, state)


def test_piece_inside_neither_attacks_nor_is_attacked():
    # a white rook inside d4 would attack d8 from an ordinary square
    state = position("3k4/8/8/8/8/8/8/4K3 b - - 0 1 D:d4/C:in/P:R")
    assert not G.describe(state)["check"]
    assert "d8d7" in legal(G, state)
    # a black rook on d8 has no capture on d4 and nothing behind it
    state = position("3r4/8/8/8/8/8/8/k3K3 b - - 0 1 D:d4/C:in/P:Q")
    moves = legal(G, state)
    assert "d8d4" not in moves and "d8d3" not in moves and "d8d5" in moves


def test_tardis_blocks_sliders_and_check():
    state = position("4k3/8/8/8/R6r/8/8/4K3 w - - 0 1 D:d4/C:in/P:-")
    moves = legal(G, state)
    assert {"a4b4", "a4c4", "a4d4"} <= moves  # d4: entering
    assert "a4e4" not in moves and "a4h4" not in moves
    # a rook behind the TARDIS gives no check
    state = position("4k3/8/8/8/K2r4/8/8/8 w - - 0 1 D:c4/C:in/P:-")
    assert not G.describe(state)["check"]


def test_leaving_moves_like_the_piece_captures_and_promotes():
    state = position("4k3/8/8/5p2/8/8/8/4K3 w - - 0 1 D:d3/C:in/P:N")
    moves = legal(G, state)
    assert {"d3f4", "d3e5", "d3c5", "d3b4", "d3b2", "d3c1", "d3e1"} - moves == {"d3e1"}  # e1: own king
    state = position("4k3/8/8/5p2/8/8/8/4K3 w - - 0 1 D:d3/C:in/P:B")
    assert "d3f5" in legal(G, state)  # capture on leaving
    play(G, state, "d3f5")
    assert tardis(state)["passenger"] is None and G.describe(state)["board"][3][5] == "B"
    # a pawn inside on the 7th rank leaves onto the 8th and promotes
    state = position("k7/8/8/8/8/8/8/4K3 w - - 0 1 D:c7/C:in/P:P")
    assert {"c7c8q", "c7c8r", "c7c8b", "c7c8n"} <= legal(G, state)
    play(G, state, "c7c8n")
    assert G.describe(state)["board"][0][2] == "N"


# --- kick-out --------------------------------------------------------------------
def test_kick_out_after_more_than_two_owner_turns_and_eviction_choice():
    state = knight_inside()
    play(G, state, "end", "b8c6", "h2h3", "end")  # white declines each optional follow-up
    for quiet_white, quiet_black in (("h3h4", "a6a5"), ("g2g3", "h7h6")):
        assert "c6d4" not in legal(G, state)
        play(G, state, quiet_black, quiet_white, "end")
    # ply 9: the knight entered on ply 2, its owner has since had 3 turns
    assert int(state[layout.PLY]) == 9
    assert "c6d4" in legal(G, state)
    play(G, state, "c6d4")
    d = G.describe(state)
    assert d["phase"] == "evict" and d["side_to_move"] == "black" and d["tardis"]["evicted"] == "white knight"
    evictions = legal(G, state)
    assert evictions == {"Ec3", "Ec4", "Ec5", "Ed3", "Ed5", "Ee3", "Ee4", "Ee5"}
    play(G, state, "Ee5")
    t = tardis(state)
    assert t["passenger"] == "black knight" and t["passenger_entered_ply"] == 9
    assert G.describe(state)["board"][3][4] == "N"  # not captured: moved to e5


def _with_ply(state, ply):
    state[layout.PLY] = ply
    return G.check_state(state)


def test_evicted_pawn_onto_its_last_rank_is_a_queen_judged_for_check():
    # b7: a white pawn inside since long ago; the black rook kicks it out
    state = _with_ply(position("8/8/8/7k/8/8/7K/1r6 b - - 0 1 D:b7/C:in/P:P"), 10)
    play(G, state, "b1b7")
    assert legal(G, state) == {"Ea8", "Eb8", "Ec8", "Ea7", "Ea6", "Eb6", "Ec6", "Ec7"}
    assert G.san(state, G.string_to_action(state, "Ec8")) == "E-c8=Q"
    play(G, state, "E-c8=Q")
    d = G.describe(state)
    assert d["board"][0][2] == "Q" and d["last_turn"]["queened_on"] == "c8"
    assert d["halfmove_clock"] == 0  # a promotion cannot be undone
    # the same with the black king on e8: a queen on a8/b8/c8 would check it,
    # so those squares are refused although a pawn there would not check
    state = _with_ply(position("4k3/8/8/8/8/8/7K/1r6 b - - 0 1 D:b7/C:in/P:P"), 10)
    play(G, state, "b1b7")
    assert legal(G, state) == {"Ea7", "Ea6", "Eb6", "Ec6", "Ec7"}


def test_evicted_pawn_onto_its_first_rank_stays_a_pawn_and_advances_three():
    # g2: a white pawn inside since long ago; the black rook kicks it out down the g-file
    state = _with_ply(position("6rk/8/8/8/8/8/8/K7 b - - 0 1 D:g2/C:in/P:P"), 10)
    play(G, state, "g8g2")
    assert {"Ef1", "Eg1", "Eh1"} <= legal(G, state)
    play(G, state, "Ef1")
    d = G.describe(state)
    assert d["board"][7][5] == "P" and "queened_on" not in d["last_turn"]
    play(G, state, "a1a2", "h8h7", "end")
    assert {m for m in legal(G, state) if m.startswith("f1")} == {"f1f2", "f1f3", "f1f4"}


def test_pawn_on_its_first_rank_advances_up_to_three_squares():
    state = position("7k/8/8/8/8/8/8/3P3K w - - 0 1 D:a5/C:in/P:-")
    assert {m for m in legal(G, state) if m.startswith("d1")} == {"d1d2", "d1d3", "d1d4"}
    blocked = position("7k/8/8/8/8/3n4/8/3P3K w - - 0 1 D:a5/C:in/P:-")
    assert {m for m in legal(G, blocked) if m.startswith("d1")} == {"d1d2"}
    # the TARDIS on the way: the pawn may enter it, never pass it
    tardis_on_d3 = position("7k/8/8/8/8/8/8/3P3K w - - 0 1 D:d3/C:in/P:-")
    assert {m for m in legal(G, tardis_on_d3) if m.startswith("d1")} == {"d1d2", "d1d3"}
    # a two-square advance from the first rank leaves its passed square as the target
    play(G, state, "d1d3")
    assert G.describe(state)["en_passant"] == "d2"
    # classic chess never has a pawn there
    with pytest.raises(ValueError, match="pawns cannot stand on the first or last rank in classic chess"):
        CLASSIC.from_fen("7k/8/8/8/8/8/8/3P3K w - - 0 1")


def test_three_square_advance_is_taken_en_passant_on_either_passed_square():
    fen = "3p3k/8/2P5/2P5/8/8/8/7K b - - 0 1 D:a4/C:in/P:-"
    for capture, lands in (("c5d6", "d6"), ("c6d7", "d7")):
        state = position(fen)
        play(G, state, "d8d5")
        d = G.describe(state)
        assert d["en_passant"] == "d6d7" and G.fen(state).split()[3] == "d6d7"
        assert {"c5d6", "c6d7"} <= legal(G, state)
        assert G.san(state, G.string_to_action(state, capture)) == f"cx{lands}"
        play(G, state, capture)
        d = G.describe(state)
        rank = 8 - int(lands[1])
        assert d["board"][rank][3] == "P" and d["board"][3][3] == "."  # the pawn on d5 is taken
        assert d["last_turn"]["captured"] == "black pawn"
    # the position with both targets round-trips through FEN
    state = position(fen)
    play(G, state, "d8d5")
    again = G.from_fen(G.fen(state))
    assert again[layout.EP_SQUARE] == parse_square("d6") and again[layout.EP_SQUARE_FAR] == parse_square("d7")
    # the targets last one turn
    play(G, state, "h1g1")
    assert G.describe(state)["en_passant"] is None


def test_pawn_inside_the_tardis_on_its_first_rank_leaves_with_up_to_three_squares():
    state = position("7k/8/8/8/8/8/8/7K w - - 0 1 D:d1/C:in/P:P")
    assert {m for m in legal(G, state) if m.startswith("d1")} == {"d1d2", "d1d3", "d1d4"}
    play(G, state, "d1d4")
    assert G.describe(state)["en_passant"] == "d3d2" and tardis(state)["passenger"] is None


def test_tardis_carrying_a_pawn_onto_its_last_rank_makes_a_queen():
    state = position("k7/8/8/8/8/8/8/4K3 w - - 0 1 D:c6/C:in/P:P")
    assert G.san(state, G.string_to_action(state, "Dc6h8")) == "D-h8=Q"
    assert G.san(state, G.string_to_action(state, "Dc6h7")) == "D-h7"
    play(G, state, "D-h8=Q")
    t = tardis(state)
    assert t["square"] == "h8" and t["passenger"] == "white queen"
    assert G.describe(state)["last_turn"]["queened_on"] == "h8"
    play(G, state, "a8b7")
    assert {"h8h1", "h8a1", "h8a8"} <= legal(G, state)  # it leaves as a queen
    # carried onto its own first rank a pawn stays a pawn, with the long advance ahead
    state = position("k7/8/8/8/8/8/8/4K3 w - - 0 1 D:c6/C:in/P:P")
    play(G, state, "Dc6d1")
    assert tardis(state)["passenger"] == "white pawn"
    with pytest.raises(ValueError, match="inside the TARDIS on its last rank would have promoted"):
        G.from_fen("k7/8/8/8/8/8/8/4K3 w - - 0 1 D:c8/C:in/P:P")
    with pytest.raises(ValueError, match="stands on its last rank"):
        G.from_fen("k2P4/8/8/8/8/8/8/4K3 w - - 0 1")


def test_en_passant_field_is_validated():
    with pytest.raises(ValueError, match="after a three-square advance the targets are"):
        G.from_fen("3p3k/8/2P5/2P5/8/8/8/7K w - d6d4 0 1")
    with pytest.raises(ValueError, match="must be '-' or a square"):
        CLASSIC.from_fen("4k3/8/8/3p4/8/8/8/4K3 w - d6d7 0 1")


def test_eviction_may_not_check_the_evictor_and_needs_a_free_square():
    state = _with_ply(position("3k4/8/8/8/4n3/8/8/4K3 b - - 0 1 D:d6/C:in/P:R"), 10)
    assert "e4d6" in legal(G, state)
    play(G, state, "e4d6")
    evictions = legal(G, state)
    assert "Ed7" not in evictions  # the rook would check the black king on d8
    assert {"Ec7", "Ee7", "Ec6", "Ee6", "Ec5", "Ed5", "Ee5"} == evictions
    # every square next to the TARDIS taken (or a pawn's last rank): no kick-out at all
    state = _with_ply(position("3k4/2ppp3/2p1p3/2ppp3/4n3/8/8/4K3 b - - 0 1 D:d6/C:in/P:R"), 10)
    assert G.describe(state)["tardis"]["passenger"] == "white rook"
    assert not any(m.endswith("d6") for m in legal(G, state))


# --- Dr. Who ---------------------------------------------------------------------
def test_doctor_steps_like_a_king_and_captures_only_the_movers_opponent():
    fen = "4k3/8/3P1p2/4C3/8/8/8/4K3 {} - - 0 1 D:a1/C:e5/P:-"
    white = legal(G, position(fen.format("w")))
    assert "Ce5f6" in white and "Ce5d6" not in white  # white takes black's pawn, never its own
    black = legal(G, position(fen.format("b")))
    assert "Ce5d6" in black and "Ce5f6" not in black
    # never a king
    state = position("8/7p/4k3/4C3/8/8/P7/4K3 w - - 0 1 D:a1/C:e5/P:-")
    assert "Ce5e6" not in legal(G, state) and "Ce5d6" in legal(G, state)


def test_doctor_gives_no_check_and_blocks_like_a_piece():
    state = position("8/7p/4k3/4C3/8/8/P7/4K3 b - - 0 1 D:a1/C:e5/P:-")
    assert state[STATUS] == RUNNING and not G.describe(state)["check"]
    state = position("4k3/8/8/8/4C3/8/8/4R1K1 b - - 0 1 D:a1/C:e4/P:-")
    assert not G.describe(state)["check"]  # the rook's line to e8 is blocked


def test_doctor_enters_from_next_door_and_leaves_only_onto_empty_squares():
    state = position("4k3/p7/8/4C3/8/8/P7/4K3 w - - 0 1 D:d4/C:e5/P:-")
    assert "Ce5d4" in legal(G, state)
    play(G, state, "Ce5d4")
    assert tardis(state)["doctor"] == "inside"
    state = position("4k3/8/8/4p3/8/8/8/4K3 w - - 0 1 D:d4/C:in/P:-")
    moves = legal(G, state)
    assert "Cd4e5" not in moves and kinds(moves, "C") == DOCTOR_STEPS_FROM_D4 - {"Cd4e5"}


def test_doctor_can_block_a_mate_that_classic_chess_would_deliver():
    fen = "6k1/8/8/8/8/8/2C3PP/r6K w - - 0 1 D:a5/C:c2/P:-"
    state = position(fen)
    assert state[STATUS] == RUNNING and legal(G, state) == {"Cc2b1", "Cc2c1", "Cc2d1"}
    classic = CLASSIC.from_fen("6k1/8/8/8/8/8/6PP/r6K w - - 0 1")
    assert classic[STATUS] == TERMINATED and classic[layout.REASON] == layout.REASON_CHECKMATE


def test_cooldown_five_plies_for_doctor_and_tardis():
    state = G.new_state(0)
    play(G, state, "Cd4e3")  # ply 0
    for ply in range(1, 5):
        assert not kinds(legal(G, state), "C"), f"ply {ply}"
        mover_pawn = "a2a3" if ply % 2 == 0 else "a7a6"
        play(G, state, mover_pawn if ply < 3 else ("h2h3" if ply % 2 == 0 else "h7h6"))
    assert int(state[layout.PLY]) == 5  # black's third turn: Dr. Who may move again
    assert kinds(legal(G, state), "C")


# --- the TARDIS moves --------------------------------------------------------------
def test_tardis_move_rules():
    state = knight_inside()
    play(G, state, "Dd4e5")  # the follow-up: the TARDIS carries Dr. Who and the knight
    t = tardis(state)
    assert (t["square"], t["previous_square"], t["cooldown_until_ply"]) == ("e5", "d4", 7)
    assert G.describe(state)["board"][3] == "....D..."  # e5; d4 empty again
    # cool-down: neither Dr. Who nor the TARDIS moves before ply 7; then not back to d4
    play(G, state, "b8c6", "a2a3", "h7h6")
    assert int(state[layout.PLY]) == 6
    assert not kinds(legal(G, state), "D") and not kinds(legal(G, state), "C")
    play(G, state, "h2h3", "h6h5")
    assert int(state[layout.PLY]) == 8
    moves = legal(G, state)
    assert "De5f5" in moves and "De5d4" not in moves and "De5e7" not in moves  # e7 holds a pawn


def test_tardis_needs_the_doctor_and_an_own_piece():
    board = "4k3/p7/8/8/8/8/P7/4K3 w - - 0 1"
    assert not kinds(legal(G, position(f"{board} D:d4/C:in/P:n")), "D")  # a black piece inside
    assert not kinds(legal(G, position(f"{board} D:d4/C:d6/P:N")), "D")  # Dr. Who outside
    assert kinds(legal(G, position(f"{board} D:d4/C:in/P:N")), "D")


def test_tardis_move_may_not_expose_the_own_king():
    state = position("4r1k1/8/8/8/8/8/8/4K3 w - - 0 1 D:e4/C:in/P:N")
    moves = kinds(legal(G, state), "De4")
    assert moves == {"De4e2", "De4e3", "De4e5", "De4e6", "De4e7"}  # stays between rook and king
    assert not kinds(legal(G, state), "D>")  # leaving in time would expose the king too


# --- time travel --------------------------------------------------------------------
def _knight_in_after(*moves):
    """Play ``moves``, then the white knight f3 enters d4 (ply = len(moves) + 1)."""
    state = G.new_state(0)
    play(G, state, "g1f3", *moves, "f3d4")
    return state


def test_backward_travel_restores_the_past_without_the_travellers_earlier_self():
    state = _knight_in_after("e7e5", "e2e4", "b8c6")
    before = G.describe(state)
    assert before["phase"] == "follow_up"
    assert {"D<1", "D<2", "D<3", "D<4"} <= legal(G, state) and "D<5" not in legal(G, state)
    play(G, state, "D<2")  # back to the position before e2e4 (black to move then: b8c6 is undone too)
    d = G.describe(state)
    # pieces stand as 2 plies ago: e-pawn on e2 again, black knight back on b8, the e5 pawn stays
    assert d["board"][6][4] == "P" and d["board"][0][1] == "n" and d["board"][3][4] == "p"
    # the knight's earlier self (on f3 back then) is gone: it is inside the TARDIS
    assert d["board"][5][5] == "." and d["tardis"]["passenger"] == "white knight"
    assert d["tardis"]["square"] == "d4" and d["tardis"]["doctor"] == "inside"
    assert d["side_to_move"] == "black" and d["tardis"]["backward_travels"]["white"] == 1
    assert d["last_turn"]["follow_up"] == {"kind": "time travel backward", "plies": 2}
    # the rewound timeline: plies 0 and 1, then the changed ply-2 moment
    assert d["tardis"]["history_plies"] == 2


def test_backward_travel_limits():
    state = _knight_in_after("a7a6")
    assert {"D<1", "D<2"} <= legal(G, state) and "D<3" not in legal(G, state)  # not before the start
    state[layout.BACKWARD_TRAVELS] = 2
    assert not kinds(legal(G, state), "D<") and kinds(legal(G, state), "D>")  # two per colour


def test_backward_travel_illegal_onto_a_square_occupied_back_then():
    state = position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 D:e4/C:in/P:N")
    play(G, state, "e2e3", "e8d8", "De4e2", "d8e8")  # the TARDIS lands where the pawn stood on ply 0
    state[layout.COOLDOWN_UNTIL] = 0  # (skip the cool-down of the TARDIS move)
    moves = legal(G, state)
    assert {"D<1", "D<2", "D<3"} <= moves  # e2 was empty from ply 1 on
    assert "D<4" not in moves  # ply 0: the pawn stood on e2


def test_no_two_time_travels_in_a_row():
    state = _knight_in_after("e7e5", "e2e4", "b8c6")
    play(G, state, "D>1")  # white travels on ply 4
    # ply 5 (black): the TARDIS, due after one ply, is back at the start of this turn
    assert int(state[layout.PLY]) == 5 and tardis(state)["on_board"]
    state[layout.PASSENGER] = layout.KNIGHT | 8  # give black the traveller to test the ban
    state[layout.COOLDOWN_UNTIL] = 0
    assert kinds(legal(G, state), "D") and not kinds(legal(G, state), "D<") and not kinds(legal(G, state), "D>")
    play(G, state, "a7a6", "end")
    state[layout.PASSENGER] = layout.KNIGHT  # ply 6 (white) is banned too
    assert not kinds(legal(G, state), "D<") and not kinds(legal(G, state), "D>")
    play(G, state, "a2a3", "end")
    state[layout.PASSENGER] = layout.KNIGHT | 8  # ply 7: black may travel again
    assert kinds(legal(G, state), "D>")


def test_time_travel_starts_the_cool_down():
    state = _knight_in_after("e7e5")
    play(G, state, "D<1")  # ply 2: a backward travel of one ply
    assert tardis(state)["cooldown_until_ply"] == 7
    for quiet in ("a7a6", "a2a3", "h7h6", "h2h3"):  # plies 3..6: neither Dr. Who nor the TARDIS moves
        assert not kinds(legal(G, state), "C") and not kinds(legal(G, state), "D")
        play(G, state, quiet)
    assert int(state[layout.PLY]) == 7
    assert kinds(legal(G, state), "C")  # ply 7: free again
    # a forward travel too
    state = _knight_in_after("e7e5")
    play(G, state, "D>1")
    assert tardis(state)["cooldown_until_ply"] == 7 and not kinds(legal(G, state), "C")


def test_forward_travel_leaves_and_reappears_when_its_square_is_free():
    state = _knight_in_after("e7e5")
    play(G, state, "D>3")  # ply 2: due at the start of ply 5
    t = tardis(state)
    assert not t["on_board"] and t["returns_at_ply"] == 5 and G.describe(state)["board"][4][3] == "."
    play(G, state, "a7a6", "d2d4")  # d4 is an ordinary square meanwhile: the pawn passes d3 and lands there
    assert int(state[layout.PLY]) == 5 and not tardis(state)["on_board"]  # due, but its square is taken
    play(G, state, "e5d4", "d1d4", "a6a5")
    assert not tardis(state)["on_board"]
    play(G, state, "d4d3")  # the queen leaves d4: the TARDIS lands at the start of the next turn
    t = tardis(state)
    assert t["on_board"] and t["square"] == "d4"
    assert t["passenger"] == "white knight" and t["doctor"] == "inside"


def test_stalemate_and_mate_count_every_kind_of_action():
    # classic stalemate, but Dr. Who can still step: the game goes on
    fen = "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"
    assert CLASSIC.from_fen(fen)[layout.REASON] == layout.REASON_STALEMATE
    state = position(fen + " D:h1/C:in/P:-")
    assert state[STATUS] == RUNNING and legal(G, state) == {"Ch1g1", "Ch1g2", "Ch1h2"}
    # with Dr. Who cooling down nothing is left: stalemate, decided at the start of the turn
    state[layout.COOLDOWN_UNTIL] = 10
    assert legal(G, state) == set()
    mask = np.ones(G.num_actions, dtype=np.int8)  # the batch's path writes the mask: none left
    assert rules._check_result(state, G.tables, mask)
    assert state[STATUS] == TERMINATED and state[layout.REASON] == layout.REASON_STALEMATE
    assert not mask.any()


def test_notation_san_and_fen_of_variant_actions():
    state = knight_inside()
    assert G.fen(state).endswith(" D:d4/C:in/P:N")
    play(G, state, "end")
    fen = G.fen(state)
    assert G.fen(G.from_fen(fen)) == fen
    sans = {m["uci"]: m["san"] for m in G.describe(state)["legal_moves"]}
    assert sans["Cd4e5"] == "C-e5" and sans["e7e5"] == "e5"
    state = position("4k3/8/8/5p2/8/8/8/4K3 w - - 0 1 D:d3/C:in/P:B")
    sans = {m["uci"]: m["san"] for m in G.describe(state)["legal_moves"]}
    assert sans["d3f5"] == "B-xf5" and sans["Dd3a6"] == "D-a6" and sans["D>2"] == "D->2"
    assert G.string_to_action(state, "D>2") == layout.A_TRAVEL + layout.MAX_TRAVEL + 1


@pytest.mark.parametrize(
    "fen,problem",
    [
        ("8/8/8/8/8/8/8/8 w - - 0 1", "exactly one king"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 D:d4/C:in/P:K", "kings never enter"),
        ("4k3/8/8/8/3p4/8/8/4K3 w - - 0 1 D:d4/C:in/P:-", "TARDIS square d4 holds a piece"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 D:d4", "TARDIS field"),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling right 'K'"),
    ],
)
def test_bad_fen_is_refused_naming_the_problem(fen, problem):
    with pytest.raises(ValueError, match=problem):
        G.from_fen(fen)
    with pytest.raises(ValueError, match="option 'fen'"):
        type(G)(fen=fen)


def test_corrupt_state_is_refused():
    state = G.new_state(0)
    state[layout.BOARD + 4] = 0  # remove the white king
    with pytest.raises(ValueError, match="kings: expected exactly one king of each side on the board"):
        G.check_state(state)
    state = G.new_state(0)
    state[layout.BOARD + parse_square("d4")] = layout.PAWN
    state[layout.PIECE_ID + parse_square("d4")] = 40  # a piece of its own (ids are distinct)
    with pytest.raises(ValueError, match=r"TARDIS square at index \d+ is 27, expected no piece on the board on the TARDIS's square"):
        G.check_state(state)


def test_the_piece_inside_never_captures_a_king():
    # the black bishop inside d4 attacks nothing, so the white king may stand on e3;
    # stepping out onto the king is not a move
    state = position("4k3/p7/8/8/8/4K3/P7/8 b - - 0 1 D:d4/C:in/P:b")
    moves = legal(G, state)
    assert "d4e3" not in moves and {"d4c3", "d4e5", "d4f6"} <= moves


def test_san_that_matches_no_legal_move_is_named_as_such():
    state = G.new_state(0)
    assert G.string_to_action(state, "Nf3") == G.string_to_action(state, "g1f3")
    with pytest.raises(ValueError, match="no legal move of white matches the SAN 'e5'"):
        G.string_to_action(state, "e5")  # black's move, not white's
    with pytest.raises(ValueError, match="no legal move of white matches the SAN 'Qh5'"):
        G.string_to_action(state, "Qh5")
    with pytest.raises(ValueError, match="unknown action 'dance'"):
        G.string_to_action(state, "dance")


def test_fen_with_a_long_rank_or_the_waiting_side_in_check_is_refused():
    import tardis_envs

    game = tardis_envs.timelord_chess_v1.Game(doctor=False)
    with pytest.raises(ValueError, match=r"rank 8 \('rnbqkbnrp'\) describes more than 8 squares"):
        game.from_fen("rnbqkbnrp/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    with pytest.raises(ValueError, match="black is in check but it is not black's move"):
        game.from_fen("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1")
    with pytest.raises(ValueError, match="option 'fen'.*black is in check"):
        tardis_envs.make("timelord_chess_v1", doctor=False, fen="4k3/8/8/8/8/8/4R3/4K3 w - - 0 1")
    game.from_fen("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1")  # black to move, in check: fine

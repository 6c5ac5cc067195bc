"""Dr. Who Chess (``timelord_chess_v1``): FIDE chess plus Dr. Who and his TARDIS.

=====================  ==========================================================
Import                 ``from tardis_envs import timelord_chess_v1``
Agents                 ``white`` (seat 0, moves first), ``black`` (seat 1)
Actions                ``Discrete(4773)``; ``Discrete(4672)`` with ``doctor=False``
Observation            ``Box(-1, 1, (167, 8, 8), float32)``, the mover's view
Action mask            ``int8[4773]`` (``int8[4672]``)
Chance                 none (deterministic)
Rewards                winner +1, loser -1; draws and truncation 0
Rulebook               *Dr. Who Chess* (its items 1-6), with the rulings below
=====================  ==========================================================

Classic chess (``doctor=False``)
--------------------------------
Full FIDE rules: castling (not out of, through or into check), en passant
(including the capture that would expose the own king), promotion to any
piece, check, checkmate and stalemate. Draws end the game at once, with no
claim needed: threefold repetition (same pieces, side, castling rights and a
*legal* en-passant capture, since the last pawn move or capture), the
fifty-move rule (halfmove clock 100) and insufficient material (the
``chess`` library's definition: no pawn, rook or queen, and one knight or
bishops on one colour only). Perft counts of the standard test positions and
every legal move, check and result of 500+ random games agree with the
``chess`` library (``tests/chess/``). ``max_plies`` (default 512) truncates.

The variant (default; rulebook and rulings)
---------------------------------
* The TARDIS (D) stands on a square, first d4, with Dr. Who (C) inside.
  Nothing captures it or passes through it; it blocks like a piece.
* A piece enters by a normal move to the TARDIS square (a pawn by a straight
  move; a pawn reaching its last rank promotes) if nobody else is inside; it
  leaves by a normal move of its kind from the TARDIS square (captures
  allowed). Kings never enter. A piece inside neither attacks nor can be
  captured: a king may stand next to the TARDIS or on its lines, and the
  piece stepping out never captures a king. At most one chess piece is
  inside, besides Dr. Who.
* Kick-out: a move onto the TARDIS square is also legal when the opponent
  piece inside has been there for more than two of its owner's turns (it
  entered 7 or more plies ago); the mover then picks an empty square next to
  the TARDIS for the evicted piece (the mover's king must be safe
  afterwards; ranks 1 and 8 too, see the pawns below) and its own piece goes
  inside.
* Dr. Who is neutral: either player may move him. Outside he steps like a
  king onto an empty square, captures an opponent piece of the player moving
  him (never a king), or steps into the TARDIS from an adjacent square; from
  inside he steps out onto an adjacent empty square. He gives no check.
* The TARDIS moves only with Dr. Who and a piece of the mover's colour
  inside: to any empty square except the one it just left, carrying both.
* Cool-down: after Dr. Who or the TARDIS moves on ply t, neither moves again
  before ply t + 5. A time travel is a TARDIS move and starts the cool-down
  too (so the rulings' ban on a travel in the two plies after one, kept in
  the state, never binds on its own).
* Pawns and ranks 1/8 (rulebook item 5: "Pawns can come out on 1st or 8th
  rank, and can promote or gain a 3-step movement, subject to en passant
  anywhere along the way"): a pawn may come out of the TARDIS onto its own
  first or last rank, by leaving it or by being kicked out. A pawn on its own
  first rank (on the board, or inside the TARDIS standing there) advances
  one, two or three empty squares; after a three-square advance both passed
  squares are en-passant targets (an adjacent opponent pawn takes it on
  either, as after a two-square advance), and after a two-square advance
  from the first rank the passed square is. A pawn reaching its last rank by
  a move promotes as in chess (the mover picks the piece). A pawn the
  TARDIS carries onto its last rank, or a pawn evicted onto its last rank,
  becomes a queen at once: those actions name no piece (this project's
  reading of the rulings' "where the TARDIS move gives no choice, a queen",
  extended to eviction). The eviction square is judged with the queen on it
  (it may not check the evictor's king).
* Time travel needs Dr. Who and a piece of the mover's colour inside.
  Backward k plies (1..10, within the game): every piece returns to where it
  stood k plies ago, with that moment's castling rights (a right whose rook is
  gone is dropped), clocks and en-passant square (kept only if it is the
  next mover's capture); the TARDIS stays where it is with Dr. Who and the
  traveller, and the traveller's earlier self is removed. Illegal if the
  TARDIS square is occupied in that position, or if another piece was inside
  the TARDIS then. At most two per colour. The game's history rewinds too:
  the changed moment replaces the plies after it. Forward k plies (1..10):
  the TARDIS leaves the board with Dr. Who and the traveller and reappears
  on its square at the start of the first turn at least k plies later when
  the square is empty. Its square is an ordinary square meanwhile.
* A turn is one of: a chess move, a Dr. Who step, a TARDIS move, a time
  travel, or a chess move followed by a TARDIS move or time travel (offered
  as a follow-up decision with ``end turn`` whenever one is legal). Every
  part of a turn must leave the mover's king safe (the chess move on its
  own, too). With no legal action the side to move is checkmated (in check)
  or stalemated.
* Positions reached by time travel count for repetition like any other;
  the repetition key adds the TARDIS square (or absence), Dr. Who inside or
  not, and the passenger. ``PLY`` (real turns) never rewinds: cool-downs,
  travel bans, kick-out times and ``max_plies`` count real turns.

Rule options: ``doctor`` (default True), ``max_plies`` (512), ``fen``
(``"startpos"`` or a FEN; the variant's FEN appends ``D:d4/C:in/P:-``, may
put a pawn on its own first rank, and writes both targets of a three-square
advance in the en-passant field, the one behind the pawn first: ``d6d7``).
Observation options (the rules stay the same): ``history_planes`` (10; the
earlier positions shown, 0..10) and ``threat_planes`` (False; eight planes of
attackers, pieces en prise and the moves that mate at once, below).
Env options: ``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``),
``illegal_action`` (``"terminate"`` or ``"raise"``).

Actions
-------
``from * 73 + plane``, squares in the mover's frame (ranks mirrored for
Black), as AlphaZero and PettingZoo's chess: planes 0..55 queen-like moves
(``direction * 7 + distance - 1``, directions N, NE, E, SE, S, SW, W, NW;
a pawn reaching the last rank this way promotes to a queen), 56..63 knight
jumps, 64..72 under-promotions (``3 * (file step + 1) + piece``, pieces
knight, bishop, rook). Castling is the king's two-square move. Entering or
leaving the TARDIS is a move to or from its square. Variant actions:

==============  =================================================================
4672 + d        Dr. Who one step in frame direction d (N, NE, E, ..., NW)
4680 + sq       the TARDIS to frame square sq
4744 + k - 1    time travel backward k plies (k = 1..10)
4754 + k - 1    time travel forward k plies
4764 + d        the evicted piece to the square next to the TARDIS in frame direction d
4772            end the turn without the optional follow-up
==============  =================================================================

Notation (``action_to_string``/``string_to_action``): UCI (``e2e4``,
``e7e8n``, ``e1g1``), ``Cd4e5`` Dr. Who's step, ``Dd4e5`` a TARDIS move,
``D<3``/``D>3`` time travel, ``Ee5`` an eviction square, ``end``.
``string_to_action`` also takes SAN. ``describe()["legal_moves"]`` lists every
legal action in UCI and SAN (SAN with the rulebook's marks: ``N-`` entering,
``N-e5`` leaving, ``D-e5``, ``D-<3``, and ``D-e8=Q``/``E-e8=Q`` when a
carried or evicted pawn becomes a queen, which ``describe()["last_turn"]``
then reports as ``queened_on``); ``game.fen(state)`` and
``game.from_fen(fen)`` convert positions; ``rules.perft(state, depth)``
counts move paths.

Observation
-----------
``observation[plane, rank, file]`` in the observer's frame (its own pieces
move up the board); "own"/"opponent" are the observer's.

=========  ====================================================================
plane      meaning
=========  ====================================================================
0-131      11 positions, now and the 10 plies before (those a backward travel
           can reach; zeros beyond the game's start), 12 planes each: own
           P N B R Q K, opponent P N B R Q K
132        all ones when the observer plays Black
133        real plies played / max_plies
134-137    castling rights: own O-O, own O-O-O, opponent O-O, opponent O-O-O
138        halfmove clock / 100
139        (times the current position occurred - 1) / 2
140        1 on the en-passant target square(s)
141        1 on the TARDIS square (while on the board)
142        on the TARDIS square while it is away: plies until due / 10
143        1 on the square the TARDIS may not jump back to
144        1 on Dr. Who's square (the TARDIS square while he is inside)
145        all ones while Dr. Who is inside
146-157    the piece inside, one-hot as the history planes, on the TARDIS square
158        plies the piece has been inside / 7 (1: evictable by the opponent)
159        plies until Dr. Who/the TARDIS may move / 5
160        plies until a time travel is allowed / 2
161-162    backward travels used: own, opponent / 2
163        plies of history a backward travel may reach / 10
164        all ones while choosing an eviction square
165        all ones while offered the follow-up
166        the evicted piece: type / 6, positive if it is the observer's
=========  ====================================================================

With ``history_planes=h`` only the current position and the ``h`` before it
are shown: planes ``12 (h + 1)`` onwards are planes 132-166 above, moved up.
With ``threat_planes=True`` eight planes follow (``n`` = planes before them):

=========  ====================================================================
n + 0, 1   the observer's, the opponent's chess pieces attacking the square / 8
n + 2, 3   exchange value / 10 of the least valuable of them (P 1, N 3, B 3,
           R 5, Q 9, K 10; 0 if none)
n + 4, 5   the value / 10 of each observer's / opponent's piece (not the king)
           that is en prise: attacked, and undefended or attacked by a cheaper
           piece
n + 6, 7   1 on the from and on the to square of each legal chess move that
           checkmates at once (only in the mover's own observation, when it
           is choosing a move; a follow-up offered after the move is
           declined first)
=========  ====================================================================

Observation dtypes (``obs_dtype``, every env and the batched API): ``float32``
(above); ``compact``, each entry's numerator (``int16`` by default, since the ply
plane counts up to ``max_plies``; ``int8`` when ``max_plies`` <= 127) over the
denominators in ``game.observation_denominators``; and ``packed``, one ``int64``
word a plane, ``Box(int64, (167,))`` (1,336 bytes against 21,376 compact and
42,752 float32). A piece, en-passant, TARDIS, Dr. Who or passenger plane's word
is its squares as bits (bit ``rank * 8 + file`` of the observer's frame; h8 is
the sign bit); plane 142's word is ``value * 64 + square`` (0: TARDIS not
away); every other plane's word is the numerator all its squares hold.
``game.float_observations(words, "packed")`` (or ``vec.float_observations()``)
unpacks them to the float32 planes bit for bit, and training unpacks them once
per batch (``obs_dtype: packed`` in a train config). Not with
``threat_planes=True``, whose planes hold a value per square.

Attacks follow the rules: the TARDIS and Dr. Who block lines (the TARDIS
square itself counts as attacked when a piece could move in), the piece
inside the TARDIS attacks nothing and cannot be attacked, pieces behind
another on a line (x-rays) are not counted, nor is Dr. Who, whom either
player may move to capture. Tested against the ``chess`` library's
attackers in classic positions.

What each version of the game changed: ``CHANGELOG.md`` (this page is ``timelord_chess_v1``).
"""

from __future__ import annotations

from .games.chess.env import env, raw_env
from .games.chess.game import SPEC, TimelordChess

Game = TimelordChess

__all__ = ["env", "raw_env", "Game", "SPEC"]

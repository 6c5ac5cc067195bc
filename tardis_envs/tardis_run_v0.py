"""TARDIS Run (``tardis_run_v0``): a two-player race game with seal paddles.

=====================  ==========================================================
Import                 ``from tardis_envs import tardis_run_v0``
Agents                 ``monsters`` (seat 0, moves first), ``doctors`` (seat 1)
Actions                ``Discrete(11)``
Observation            ``Box(-1, 1, (16, L + 2), float32)``; L = 28 by default
Action mask            ``int8[11]``
Chance                 paddles (four white, one black), simulated one by one
Rewards                winner +1, loser -1; truncation (``max_turns``) 0
Rulebook               *TARDIS Run* (Rev 4), with the rulings below
=====================  ==========================================================

Rules (rulebook Rev 4 and rulings)
-------------------------------------
Both sides run one snaking track of ``L`` squares in opposite directions:
Doctors enter at square 1 and escape past ``L``, Monsters enter at ``L`` and
escape past 1. A turn: choose a piece that has not escaped (and, if you hold
the black paddle, whether to roll it too), drop the paddles, move that piece
by the seals shown. White paddles: two with one seal, two with two seals,
each face up with probability 1/2. Black paddle: "1 seal" (+1) or "2x"
(doubles the white seals, adds none).

* Zero seals without the black paddle: claim it (taking it from the
  opponent); nothing moves. Zero seals while holding it (rolled or not): the
  chosen piece goes home.
* Landing on one friendly piece stacks; on one opponent piece captures it
  (sent home); on two pieces cancels the move. Homes hold any number and are
  safe. An exact roll is not needed to escape.
* Ending on an arrow square (5->10, 10->5, 19->24, 24->19) or a teleport
  square (7<->22) offers one optional extra move there, with the same
  landing rules (a teleport captures on both landings). Extra moves do not
  chain: the square an extra move reaches offers nothing. A cancelled move
  (onto two pieces) offers no extra move.
* A side wins the moment all four pieces have escaped while it holds the
  black paddle; with all out but no paddle its turns are only ``roll`` until
  a zero claims it (and wins).

Rule options: ``board`` (``"default"`` or a board YAML path, e.g.
``configs/tardis_run/boards/grand_tour.yaml``), ``max_turns`` (default 1000
turns, then truncation). Env options: ``render_mode`` (``"ansi"``,
``"rgb_array"``, ``"human"``), ``illegal_action`` (``"terminate"`` or
``"raise"``).

Observation
-----------
``observation[plane, column]``, columns are progress counted from the
observer's own home: 0 = own home, 1..L = track squares in the order the
observer runs them, L + 1 = escaped. Opponent pieces are drawn on the same
columns by the square they stand on; the opponent's home lies at column
L + 1 and its escaped pieces at column 0.

======  =================================================================
plane   meaning
======  =================================================================
0-3     own piece of rank r (0 = most advanced): 1 at its column
4-7     opponent piece of rank r: 1 at its column (observer's frame)
8       1 on arrow squares
9       arrow displacement in the observer's direction, / L
10      1 on teleport squares
11      teleport displacement in the observer's direction, / L
12      all ones if the observer holds the black paddle
13      all ones if the opponent holds it
14      all ones if the observer must decide an extra move now
15      1 at the column of the piece that may take the extra move
======  =================================================================

Actions
-------
=========  ==============================================================
0..7       ``2 * rank + b``: move the rank-``rank`` piece (``move piece
           {rank+1}``), rolling the black paddle too when ``b = 1``
           (``... with black paddle``)
8          ``roll``: roll with no piece (all pieces out, no black paddle)
9          ``take extra move``
10         ``decline extra move``
=========  ==============================================================

Legal action mask: in the choose phase, one action per group of
interchangeable pieces (same progress; the lowest rank), the ``b = 1``
variants only while holding the black paddle, ``roll`` only when every
piece has escaped; in the extra-move phase exactly 9 and 10.

``describe()`` keys: see :meth:`TardisRun.describe
<tardis_envs.games.tardis_run.game.TardisRun.describe>`.
``position(...)`` on ``env.unwrapped.game`` builds scripted positions.

What each version of the game changed: ``CHANGELOG.md`` (this page is ``tardis_run_v0``).
"""

from __future__ import annotations

from .games.tardis_run.env import env, raw_env
from .games.tardis_run.game import SPEC, TardisRun

Game = TardisRun

__all__ = ["env", "raw_env", "Game", "SPEC"]

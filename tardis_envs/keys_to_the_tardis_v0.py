"""Keys to the TARDIS (``keys_to_the_tardis_v0``): a door maze for 2-4 players with cards.

=====================  ==========================================================
Import                 ``from tardis_envs import keys_to_the_tardis_v0``
Agents                 ``south``, ``north`` (2 players); ``south``, ``west``,
                       ``north`` (3); ``south``, ``west``, ``north``, ``east`` (4)
Actions                ``Discrete(421)``
Observation            ``Box(0, 1, (1167,), float32)`` (a flat vector, below)
Action mask            ``int8[421]``
Chance                 tile layout and card deck shuffles (seeded generator)
Hidden information     other hands, unrevealed tile kinds, deck order
Rewards                the winner +1, every other player -1; truncation 0
Rulebook               *Keys to the TARDIS*, with the rulings below
=====================  ==========================================================

Rules (rulebook and rulings)
-------------------------------
A 7x7 grid with the TARDIS Control Tile at the centre and 48 shuffled door
tiles around it (per colour - red, blue, green, yellow - 7 plain doors, 2
Dalek doors, a TARDIS Key tile, an Extra Turn tile and a Teleport tile), all
closed; a closed tile shows only its colour until first opened
(``reveal_tiles=True`` shows every kind from the start). Each player's pawn
starts off the grid at its own edge and must reach the opposite edge row.

A turn: draw a card (an empty deck is refilled by shuffling the discards),
play exactly one card on a legal target or discard it, then optionally move
one step. Start: 3 cards each, seat 0 (south) first.

* Moving: enter onto an open tile of the own edge row; step orthogonally, or
  diagonally through a Time Tunnel whose two ends are open; step back off the
  grid from the own edge row. A pawn stops only on an open door that is not a
  Dalek door (unless Jam-Cookied), has no Time Barrier and no other pawn; the
  Control Tile is reached only by teleport and left by normal steps.
* Cards (68): Key (8 per colour) toggles a door of its colour; Sonic
  Screwdriver (13) toggles any door or removes a Time Barrier (only that);
  Time Barrier (9) goes on any unoccupied tile without one except the Control
  Tile and blocks entering, opening and closing; Time Tunnel (6) links two
  diagonally adjacent tiles for the rest of the game (not the Control Tile;
  one tunnel per grid corner); Jam Cookie (3) goes on a revealed Dalek door
  without a barrier and opens it for good (never closed again; it can still
  take a barrier); Pandorica (3) traps an opponent's pawn on the grid for its
  owner's next two turns (cards are still drawn and played; a trapped pawn
  cannot be pushed); Cyberman Assault (2) pushes an opponent's pawn one step
  to a tile it could legally step onto. A door with a pawn on it cannot be
  closed.
* Special tiles, when a pawn moves onto them by its owner's own step: Key
  tile - toggle one other door of any colour (or decline); Extra Turn - a
  full extra turn after this one; each at most once per player per tile.
  Teleport - the pawn jumps at once to the Control Tile if it is free. A
  Cyberman push onto a Teleport tile teleports too, but gives no Key or
  Extra Turn bonus.
* A pawn standing on a tile of its goal row wins at once, whoever moved it
  there (checked before a teleport). ``max_turns`` (default 400 turns)
  truncates.

Rulings this env adds where the rulebook is silent: one Time Tunnel per grid
corner (two crossing tunnels would lie on one another); no Jam Cookie on a
barriered door; no Pandorica on a pawn already trapped; a phase whose only
legal action is "stay" (a trapped or boxed-in pawn) or "decline" is skipped.

Frames
------
Each seat sees the board and names actions in its own *frame*: the grid
rotated so that its edge row is row 0 and its goal row is row 6 (south: as
printed; north: turned 180 degrees; west and east: turned 90 degrees).
Frame tile ``t = row * 7 + col``. Frame directions: 0 forward, 1 right,
2 back, 3 left, 4 forward-right, 5 back-right, 6 back-left, 7 forward-left.
``action_to_string`` and ``describe()`` use absolute squares a1..g7 (files a-g
west to east, ranks 1-7 south to north) and compass directions.

Observation (flat ``float32``, observer's frame)
------------------------------------------------
Planes of 49 entries (``plane * 49 + t``):

=========  ==============================================================
0          door open
1-4        tile colour red, blue, green, yellow (one-hot; none on the Control Tile)
5-10       kind plain, Dalek, Key tile, Extra Turn, Teleport, Control - only
           where public (opened once, or ``reveal_tiles``)
11         kind not yet public
12         Time Barrier
13         Jam Cookie
14         the observer already used this tile's Key / Extra Turn bonus
15         the observer's pawn
16-18      pawns of the next 1, 2, 3 seats in turn order
19-22      a Time Tunnel leaves this tile forward-right, back-right,
           back-left, forward-left
=========  ==============================================================

Then scalars from index 1127: own hand by card type (10: red, blue, green,
yellow key, sonic, barrier, tunnel, cookie, pandorica, cyberman; count / 4);
the next seats' hand sizes (3, / 4); deck size (1, / 68); discard pile by
card type (10, / that type's card count); Pandorica turns left, own then next
seats (4, / 2);
pawn off the grid, own then next seats (4); phase play / bonus / move (3,
only on the observer's own turn); extra turn pending (1); next seats present
(3); it is the observer's turn (1). Total 1167. Nothing depends on another
hand's cards, an unrevealed kind, or the deck order.

With ``route_lengths=True`` (observation only: the rules and the states are the same, and a
network trained without it plays such a game through its own observation) four entries follow
from index 1167, total 1171: the heuristic's route lengths to the goal row in its steps
(``route_length`` in :mod:`tardis_envs.games.keys.heuristic`: a shortest path where each tile
costs a step plus what it takes to get through), the observer's own first with its hand
counted, then the next seats' in turn order from the public board alone, each as tenths of a
step out of 300 (a route of 30 steps or more, or none open, reads 1; an absent seat 0). The
route planner reads only the public board and the observer's hand, as the rest of the
observation does. ``obs_dtype="compact"`` is then ``uint16``.

Actions
-------
See :mod:`tardis_envs.games.keys.layout` for the exact layout: Key / Sonic
toggle / Sonic barrier removal / Time Barrier / Jam Cookie on each frame tile
(5 x 49), Time Tunnel per frame corner and orientation (72), Pandorica per
opponent (3), Cyberman Assault per opponent and frame direction (24), discard
per card type (10), Key tile bonus per frame tile (49) and decline (1), move
per frame direction (8), enter per edge column (7), leave the grid, stay.
The mask is exact in every phase; strings read like table talk: ``"play blue
key: open c4"``, ``"play time tunnel c3-d4"``, ``"play cyberman assault: push
north west"``, ``"move north"``, ``"enter c1"``, ``"stay"``.

``describe()`` keys: see :meth:`KeysToTheTardis.describe
<tardis_envs.games.keys.game.KeysToTheTardis.describe>`; scripted positions:
``env.unwrapped.game.position(...)``.

What each version of the game changed: ``CHANGELOG.md`` (this page is ``keys_to_the_tardis_v0``).
"""

from __future__ import annotations

from .games.keys.env import env, raw_env
from .games.keys.game import SPEC, KeysToTheTardis

Game = KeysToTheTardis

__all__ = ["env", "raw_env", "Game", "SPEC"]

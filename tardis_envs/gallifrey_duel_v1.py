"""Ghosts of Gallifrey duel (``gallifrey_duel_v1``): the rule mechanics as a two-player fight.

=====================  ==========================================================
Import                 ``from tardis_envs import gallifrey_duel_v1``
Agents                 ``first`` (seat 0, commits first), ``second`` (seat 1)
Actions                ``Discrete(256)``
Observation            ``Box(-1, 1, (303,), float32)``, the chooser's view
Action mask            ``int8[256]``
Chance                 the pair and scene (when random), the GM's insistence on
                       a draw, the Time Deck's order
Rewards                winner +1, loser -1; both defeated, truncation 0
Rulebook               *Ghosts of Gallifrey* (its rule mechanics), with the rulings below
=====================  ==========================================================

The fight
---------
Two combatants from the roster (``content/roster.yaml``: the Doctor, the
Master, a Dalek, a Cyberman, a Sontaran, a UNIT soldier, a Companion, an Ice
Warrior, a Weeping Angel, an Auton) meet in a scene (``content/scenes.yaml``),
each with Aspects Dynamism and Memory (active), Stasis and Foresight
(passive). The golden rule: the higher score wins. A score is the Aspect plus
the character's situational, accessory and motivation modifiers and the
scene's situational modifiers (data), plus a Time Card's levels.

Exchanges are simultaneous: ``first`` commits a choice (kept hidden), then
``second`` commits (its observation is the same whatever ``first`` chose),
then both are revealed and resolved. ``gallifrey_duel_v1.parallel_env()`` offers
the same game through PettingZoo's Parallel API: ``step({"first": a, "second":
b})`` plays one exchange (both actions applied in seat order by the same kernels;
each agent's ``observation``/``action_mask`` as in the AEC env). A choice is: the active Aspect to attack
with, the passive Aspect to defend with, the defeat condition fought for
(restrain, subdue, wound, kill; the Threat Level allows two: trivial
restrain/subdue, dangerous subdue/wound, deadly wound/kill), the card (none,
draw a Time Card, or play the once-per-fight Acquired card upright or
reversed: its modifier as printed or negated), and whether to declare an Edge.
Each exchange the GM insists on a draw for each side with probability
``forced_draw_p``: then "no card" is not allowed (an Acquired card may stand
in for the draw, as the rulebook allows).

Time Cards: the 36-card Time Deck (``content/time_deck.yaml``), modifiers
-2..+2 and escalation marks 0..2, shuffled at the start and reshuffled when
empty. The scene's Flux card, and The Vortex always, count one step stronger
(+1 -> +2, +2 -> +3, -2 -> -3; a 0 stays 0). The drawer's War card counts one
step better, its Fault card one step worse. A card's levels add to every
Aspect the side uses in that exchange. Escalation raises the side's defeat
condition by its steps (up to kill), beyond what the Threat Level allows.

Modes (``mode``):

* ``contest``: one side attacks (seat 0 on even exchanges, seat 1 on odd),
  its active Aspect against the defender's passive Aspect. The higher wins,
  the loser is defeated under the winner's condition. Equal: the side that
  declared an Edge wins (both declared: both spent, the contest goes on);
  otherwise the next exchange, roles swapped.
* ``dramatic``: each side attacks and defends; the higher total
  (attack + defence) wins the fight and defeats the other under its
  condition; an Edge breaks equal totals (both declared: both spent), and
  equal totals without an Edge to break them are a draw. The winner is
  still injured when the loser's attack beat its defence, and may end the
  fight injured or even out of action: it is still the winner.
* ``climactic`` (default): both attack and defend every exchange. An attack
  above the defence inflicts injuries equal to the margin; an attack equal
  to the defence hits for 1 when the attacker declared an Edge (spent). A
  side's condition caps what its hits do: restrain brings the target to at
  most 1 injury (restrained at 1), subdue to 3 (subdued at 3), wound to just
  below death (out of action at Stasis), kill has no cap. The fight ends when
  a side is defeated (both at once: a draw).

Injuries (contest and dramatic): restraint 0, subdual 1, wounding the
winner's score minus the loser's, killing the winner's score; the scores are
the two compared Aspects in contest, and in dramatic, in both directions, the
attacker's attacking Aspect against the defender's defending Aspect (each
with its modifiers and card). In every mode a
character is out of action at injuries >= Stasis and killed at more than
1.5 x Stasis (Stasis 3: 5 injuries; ``rules.killed_at``). Healing: Stasis 10
heals all injuries at the end of every exchange that did not defeat it;
after the fight ``describe()["healing"]`` says how each injury heals (the
rulebook's ladder, healing comas at Stasis 7 and 8, Stasis 9's first four
fading within minutes). Left out: Karmic modifiers and Cosmic Insight (they
need a GM's judgement), Omega Points.

Rule options: ``mode`` (``"climactic"``), ``threat`` (``"dangerous"``),
``forced_draw_p`` (0.25), ``max_exchanges`` (50, then truncation), ``pair``
(``"random"`` per episode or ``"The Doctor, Dalek"``), ``scene``
(``"random"`` or a scene name). Env options: ``render_mode`` (``"ansi"``,
``"rgb_array"``, ``"human"``), ``illegal_action``.

Actions
-------
``a = attack*128 + defence*64 + condition*16 + card*2 + edge``: ``attack``
0 Dynamism, 1 Memory; ``defence`` 0 Stasis, 1 Foresight; ``condition``
0 restrain, 1 subdue, 2 wound, 3 kill; ``card`` 0 none, 1 draw a Time Card,
``2 + 2*i + r`` Acquired card ``i`` (0..2) upright (r = 0) / reversed (r = 1);
``edge`` 1 declares an Edge (legal with Edges left). In contest mode the
attacker's ``defence`` and the defender's ``attack`` must be 0. Notation:
``"attack with memory, defend with stasis, fight to wound, draw a time
card, edge"`` (``acquired card 1 (The TARDIS) upright``).

Observation (``observation[i]``; "own" is the chooser's)
---------------------------------------------------------
=========  ====================================================================
index      meaning
=========  ====================================================================
0-3        own base Aspects / 10 (Dynamism, Memory, Stasis, Foresight)
4-7        own effective Aspects (with modifiers) / 10
8-15       the opponent's, the same (its Aspects are public)
16-17      injuries / 16: own, opponent
18-19      out-of-action threshold (Stasis) / 16: own, opponent
20-21      kill threshold / 16: own, opponent
22-23      Edges left / 3: own, opponent
24-32      own Acquired cards, 3 slots x (held, modifier / 2, escalation / 2)
33-34      Acquired card used: own, opponent
35         the GM insists that I draw this exchange
36-71      the Flux card, one-hot
72-107     own War card, one-hot
108-143    own Fault card, one-hot
144-179    1 for each card still in the Time Deck
180        cards left / 36
181-183    mode one-hot; 184-186 threat one-hot
187        exchanges / max_exchanges
188        1 for seat 1 (it chooses second)
189        contest: 1 when I attack this exchange
190-243    the last exchange, own side: attack Aspect (2), defence Aspect (2),
           condition after escalation (4), card source (4: none, drawn,
           upright, reversed), card levels / 3, attack / 16, defence / 16,
           injuries taken / 16, Edge used, forced draw, card one-hot (36)
244-297    the same for the opponent
298-300    last outcome one-hot: none, decided, continues
301-302    last exchange won by me, by the opponent
=========  ====================================================================

What each version of the game changed: ``CHANGELOG.md`` (this page is ``gallifrey_duel_v1``).
"""

from __future__ import annotations

from .games.gallifrey.env import env, parallel_env, parallel_raw_env, raw_env
from .games.gallifrey.game import SPEC, GallifreyDuel

Game = GallifreyDuel

__all__ = ["env", "raw_env", "parallel_env", "parallel_raw_env", "Game", "SPEC"]
